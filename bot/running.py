"""Run modes: polling (default) or webhook, with the aiohttp server beside the bot; clean stop on SIGTERM.

On SIGTERM or SIGINT: stop fetching updates, finish the updates already received, stop the background
services and the web server, close the database, exit 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from aiohttp import web
from telegram import Update

from bot import migrate
from bot.app import build_application, start_application, stop_application
from bot.db import create_engine, session_factory
from bot.settings import Settings
from bot.signals import stop_on_signals
from bot.web import WEBHOOK_PATH, build_web_app
from handlers.web.keys import EXPECTS_SCHEDULER
from notifications.service import notification_service

logger = logging.getLogger("balcao.run")

BackgroundService = Callable[[Settings, Any, Any, asyncio.Event], Coroutine[Any, Any, None]]
"""A coroutine run beside the bot until the stop event is set: (settings, sessions, bot, stop)."""

BACKGROUND_SERVICES: list[BackgroundService] = [notification_service]


async def serve(settings: Settings, *, stop: asyncio.Event | None = None, check_schema: bool = True) -> None:
    """Run the bot, the web server and the background services until ``stop`` is set (or a signal arrives).

    Args:
        settings: validated settings with a token.
        stop: set it to stop; a new event bound to SIGTERM/SIGINT when omitted.
        check_schema: refuse to start on an out-of-date database.
    """
    if check_schema:
        await migrate.check_schema(settings.database_url)
    signals = contextlib.ExitStack()
    stop = signals.enter_context(stop_on_signals(stop))
    engine = create_engine(settings.database_url)
    sessions = session_factory(engine)
    webhook = settings.webhook_url is not None
    application = build_application(settings, sessions, with_updater=not webhook)
    web_app = build_web_app(settings, sessions, application if webhook else None)
    web_app[EXPECTS_SCHEDULER] = True
    runner = web.AppRunner(web_app, handle_signals=False)
    background: list[asyncio.Task[None]] = []
    try:
        await start_application(application)
        await runner.setup()
        await web.TCPSite(runner, settings.http_host, settings.http_port).start()
        if webhook:
            assert settings.webhook_secret is not None
            await application.bot.set_webhook(
                url=f"{settings.webhook_url}{WEBHOOK_PATH}",
                secret_token=settings.webhook_secret.get_secret_value(),
                allowed_updates=Update.ALL_TYPES,
            )
            logger.info("webhook mode: %s%s", settings.webhook_url, WEBHOOK_PATH)
        else:
            assert application.updater is not None
            await application.bot.delete_webhook()
            await application.updater.start_polling(allowed_updates=Update.ALL_TYPES)
            logger.info("polling %s", settings.telegram_api_url)
        for service in BACKGROUND_SERVICES:
            background.append(asyncio.create_task(service(settings, sessions, application.bot, stop)))
        logger.info("Balcão is running; web server on http://%s:%s", settings.http_host, settings.http_port)
        await stop.wait()
    finally:
        logger.info("stopping: finishing the updates in flight")
        await stop_application(application)
        stop.set()
        for task in background:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(task, timeout=30)
        await runner.cleanup()
        await engine.dispose()
        signals.close()
        logger.info("stopped")
