"""The application factory: a python-telegram-bot ``Application`` wired to our database and settings."""

from __future__ import annotations

from typing import Any

from telegram.ext import Application, ApplicationBuilder, ContextTypes

from bot.ordering import PerPersonUpdateProcessor
from bot.telegram_bot import build_bot
from bot.turns import PersonTurns
from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from handlers.chat import register_all
from handlers.chat.context import BOT_KEY, CITIES_KEY, SESSIONS_KEY, SETTINGS_KEY, BalcaoContext
from handlers.chat.errors import transient_failure
from handlers.chat.menus import publish_command_menus
from models.municipalities import sync_municipalities
from models.people import DEFAULT_BOT_KEY

BalcaoApplication = Application[Any, BalcaoContext, Any, Any, Any, Any]
CONCURRENT_HANDLERS = 8
"""Handlers running at once, all people together (each person's updates still run one at a time, in order)."""


def build_application(
    settings: Settings, sessions: SessionFactory, *, with_updater: bool = True, bot_key: str = DEFAULT_BOT_KEY
) -> BalcaoApplication:
    """Build the bot application.

    Args:
        settings: validated settings with a token (the token of this bot).
        sessions: the database session factory.
        with_updater: False in webhook mode (updates come from our aiohttp server).
        bot_key: which of the deployment's bots this is (``bot.bots``); people it meets are its people.

    Returns:
        The application, not yet initialised.
    """
    if settings.telegram_token is None:
        raise ValueError("a token is required to build the application")
    bot_id = bot_number(settings.telegram_token.get_secret_value())
    # webhook mode remembers the update ids it took (Telegram delivers again until it gets a 2xx)
    turns = PersonTurns(sessions, bot_id=bot_id, remember_updates=not with_updater)
    processor = PerPersonUpdateProcessor(max_running=CONCURRENT_HANDLERS, turns=turns)
    builder = (
        ApplicationBuilder()
        .bot(build_bot(settings, sessions))
        .context_types(ContextTypes(context=BalcaoContext))
        .concurrent_updates(processor)
    )
    if not with_updater:
        builder = builder.updater(None)
    application: BalcaoApplication = builder.build()

    async def turn_refused(update: object, error: Exception) -> bool:
        await application.process_error(update, error)  # one apology, its reference logged with the cause
        return transient_failure(error)

    processor.on_failure = turn_refused
    application.bot_data[SESSIONS_KEY] = sessions
    application.bot_data[SETTINGS_KEY] = settings
    application.bot_data[CITIES_KEY] = cities_of(settings)  # every municipality, built once
    application.bot_data[BOT_KEY] = bot_key
    register_all(application)
    return application


def bot_number(token: str) -> int:
    """The bot's numeric id: the token's first part (0 for a token without one, as some tests use)."""
    head = token.split(":", 1)[0]
    return int(head) if head.isdigit() else 0


async def start_application(application: BalcaoApplication) -> None:
    """Initialise and start the application, and publish the command menus (every language, staff chats)."""
    await application.initialize()
    async with application.bot_data[SESSIONS_KEY]() as session:
        await sync_municipalities(session=session, served=application.bot_data[SETTINGS_KEY].municipalities)
    await publish_command_menus(
        application.bot, sessions=application.bot_data[SESSIONS_KEY], bot_key=application.bot_data[BOT_KEY]
    )
    await application.start()


async def stop_application(application: BalcaoApplication) -> None:
    """Stop fetching updates, finish the updates already received, and shut down."""
    if application.updater is not None and application.updater.running:
        await application.updater.stop()
    if application.running:
        await application.stop()
    await application.shutdown()
