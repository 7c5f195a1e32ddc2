"""Balcão composition root: settings, database, i18n, application factory, run modes and CLI."""
