"""Inbound: Telegram conversations (``handlers.chat``) and HTTP endpoints (``handlers.web``)."""
