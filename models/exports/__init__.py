"""Spreadsheet exports shared by every area (cells safe to open in a spreadsheet program)."""
