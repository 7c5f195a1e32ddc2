"""Offline sandbox: a local Telegram Bot API emulator and a web chat to talk to the bot as a persona."""

from bot.sandbox.emulator import DEFAULT_TOKEN, DEMO_LOCATION, BotApiEmulator
from bot.sandbox.state import DEFAULT_PERSONAS, ApiCall, CallbackQueryRecord, ChatMessage, Persona, User

__all__ = [
    "DEFAULT_PERSONAS",
    "DEFAULT_TOKEN",
    "DEMO_LOCATION",
    "ApiCall",
    "BotApiEmulator",
    "CallbackQueryRecord",
    "ChatMessage",
    "Persona",
    "User",
]
