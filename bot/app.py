"""The application factory: a python-telegram-bot ``Application`` wired to our database and settings."""

from __future__ import annotations

from typing import Any

from telegram.ext import Application, ApplicationBuilder, ContextTypes

from bot import metrics
from bot.db import SessionFactory
from bot.ordering import PerPersonUpdateProcessor
from bot.settings import Settings
from bot.telegram_bot import build_bot
from handlers.chat import register_all
from handlers.chat.context import BOT_KEY, SESSIONS_KEY, SETTINGS_KEY, BalcaoContext
from handlers.chat.menus import publish_command_menus
from models.municipalities import sync_municipalities
from models.people import DEFAULT_BOT_KEY

BalcaoApplication = Application[Any, BalcaoContext, Any, Any, Any, Any]
CONCURRENT_HANDLERS = 8
"""Handlers running at once, all people together (each person's updates still run one at a time, in order)."""


class MeasuredUpdateProcessor(PerPersonUpdateProcessor):
    """Per-person ordering (``bot.ordering``), counting and timing each update's handling for ``/metrics``."""

    async def do_process_update(self, update: object, coroutine: Any) -> None:
        """Handle one update in its person's turn, through :func:`bot.metrics.observe_update`."""
        await super().do_process_update(update, metrics.observe_update(update, coroutine))


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
    builder = (
        ApplicationBuilder()
        .bot(build_bot(settings, sessions))
        .context_types(ContextTypes(context=BalcaoContext))
        .concurrent_updates(MeasuredUpdateProcessor(max_running=CONCURRENT_HANDLERS))
    )
    if not with_updater:
        builder = builder.updater(None)
    application: BalcaoApplication = builder.build()
    application.bot_data[SESSIONS_KEY] = sessions
    application.bot_data[SETTINGS_KEY] = settings
    application.bot_data[BOT_KEY] = bot_key
    register_all(application)
    return application


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
