"""Run the real Balcão application against the Bot API emulator, for end-to-end tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from pydantic import SecretStr

from bot.app import BalcaoApplication, build_application, start_application, stop_application
from bot.sandbox.emulator import BotApiEmulator
from core.db import SessionFactory
from core.settings import Settings


def settings_for(settings: Settings, emulator: BotApiEmulator) -> Settings:
    """The test settings pointed at the emulator, with its token."""
    return settings.model_copy(
        update={"telegram_token": SecretStr(emulator.token), "telegram_api_url": emulator.root_url}
    )


@asynccontextmanager
async def running_bot(
    settings: Settings, sessions: SessionFactory, emulator: BotApiEmulator, *, bot_key: str | None = None,
    api_url: str | None = None,
) -> AsyncIterator[BalcaoApplication]:
    """Build, start and poll the application against the emulator; stop it cleanly after the block.

    Args:
        settings: test settings (database, time zone…).
        sessions: session factory on the test database.
        emulator: a started emulator.
        bot_key: run as this bot (a municipality's own, e.g. ``nova-xavantina``); the default bot if None.
        api_url: reach the emulator through this root instead (a proxy, ``tests.auxil.bot_api_proxy``).
    """
    extra = {} if bot_key is None else {"bot_key": bot_key}
    bot_settings = settings_for(settings, emulator)
    if api_url is not None:
        bot_settings = bot_settings.model_copy(update={"telegram_api_url": api_url})
    application = build_application(bot_settings, sessions, **extra)
    await start_application(application)
    assert application.updater is not None
    await application.updater.start_polling(timeout=1, poll_interval=0.0)
    try:
        yield application
    finally:
        await stop_application(application)
