"""Run modes: polling (default) or webhook, with the aiohttp server beside the bot; clean stop on SIGTERM.

On SIGTERM or SIGINT: stop fetching updates, finish the updates already received, stop the background
services and the web server, close the database, exit 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from aiohttp import web
from pydantic import SecretStr
from telegram import Update

from bot.app import BalcaoApplication, build_application, start_application, stop_application
from bot.bots import choose_bots, configured_bots, senders
from bot.signals import stop_on_signals
from bot.single_run import one_run_per_bot
from bot.web import PathOnlyAccessLogger, WebhookBot, bot_webhook_secret, build_web_app, webhook_url
from core import migrate
from core.database_wait import wait_for_database
from core.db import create_engine, session_factory
from core.settings import Settings
from handlers.web.keys import EXPECTS_SCHEDULER
from models.cases.ombudsman_reach import without_ombudsman
from notifications.service import Sender, notification_service

logger = logging.getLogger("balcao.run")

BackgroundService = Callable[[Settings, Any, Sequence[Sender], asyncio.Event], Coroutine[Any, Any, None]]
"""A coroutine run beside the bots until the stop event is set: (settings, sessions, senders, stop)."""

BACKGROUND_SERVICES: list[BackgroundService] = [notification_service]


async def serve(
    settings: Settings,
    *,
    stop: asyncio.Event | None = None,
    check_schema: bool = True,
    bot_keys: Sequence[str] | None = None,
    own_bots: Sequence[tuple[str, SecretStr]] = (),
) -> None:
    """Run the bots, the web server and the background services until ``stop`` is set (or a signal arrives).

    Args:
        settings: validated settings with a token.
        stop: set it to stop; a new event bound to SIGTERM/SIGINT when omitted.
        check_schema: refuse to start on an out-of-date database.
        bot_keys: the bots this process serves (``run --bots``); every bot of the deployment when None.
        own_bots: (municipality, token) of the municipalities with a bot of their own.

    Raises:
        UnknownBots: ``bot_keys`` names a bot the deployment does not have.
        DatabaseUnreachable: the database did not answer within ``BALCAO_DATABASE_WAIT_SECONDS``.
        AlreadyRunning: on SQLite, another ``run`` process serves one of these bots.
    """
    deployment = configured_bots(settings, own_bots)
    served = choose_bots(deployment, bot_keys)
    webhook = settings.webhook_url is not None
    per_bot = len(deployment) > 1  # several bots: each has a webhook path and a secret of its own
    if check_schema:  # waits for a database that is down at start (core.database_wait)
        await wait_for_database(lambda: migrate.check_schema(settings.database_url),
                                max_wait_seconds=settings.database_wait_seconds)
    signals = contextlib.ExitStack()
    # SQLite: one run process per bot, or one person's updates could run at once in two processes
    signals.enter_context(one_run_per_bot(settings.database_url, [bot.key for bot in served]))
    stop = signals.enter_context(stop_on_signals(stop))
    engine = create_engine(settings.database_url)
    sessions = session_factory(engine)
    await warn_without_ombudsman(settings, sessions)
    applications = [
        build_application(bot.settings(settings), sessions, with_updater=not webhook, bot_key=bot.key)
        for bot in served
    ]
    webhooks = {
        bot.key if per_bot else "": WebhookBot(application, _secret(settings, bot.key, per_bot=per_bot))
        for bot, application in zip(served, applications, strict=True)
    } if webhook else None
    web_app = build_web_app(settings, sessions, webhooks)
    web_app[EXPECTS_SCHEDULER] = True
    runner = web.AppRunner(web_app, handle_signals=False, access_log_class=PathOnlyAccessLogger)
    background: list[asyncio.Task[None]] = []
    started: list[BalcaoApplication] = []
    try:
        for application in applications:
            await start_application(application)
            started.append(application)
        await runner.setup()
        await web.TCPSite(runner, settings.http_host, settings.http_port).start()
        if webhook:
            for bot, application in zip(served, applications, strict=True):
                url = webhook_url(settings, bot.key if per_bot else None)
                await application.bot.set_webhook(url=url, secret_token=_secret(settings, bot.key, per_bot=per_bot),
                                                  allowed_updates=Update.ALL_TYPES)
                logger.info("bot %s: webhook %s", bot.key, url)
        else:
            for bot, application in zip(served, applications, strict=True):
                assert application.updater is not None
                await application.bot.delete_webhook()
                await application.updater.start_polling(allowed_updates=Update.ALL_TYPES)
                logger.info("bot %s: polling %s", bot.key, settings.telegram_api_url)
        for service in BACKGROUND_SERVICES:
            sending = senders(settings, served, deployment) if settings.run_dispatcher else []
            background.append(asyncio.create_task(service(settings, sessions, sending, stop)))
        logger.info("Balcão is running; web server on http://%s:%s", settings.http_host, settings.http_port)
        await stop.wait()
    finally:
        logger.info("stopping: finishing the updates in flight")
        for application in started:
            await stop_application(application)
        stop.set()
        for task in background:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(task, timeout=30)
        await runner.cleanup()
        await engine.dispose()
        signals.close()
        logger.info("stopped")


async def warn_without_ombudsman(settings: Settings, sessions: Any) -> list[str]:
    """Warn, at start, of each municipality where nobody may read a restricted complaint (issue 20 §1).

    L13460 Art. 10 §7: such a complaint is the Ombudsman's alone; without one it exists for nobody.

    Returns:
        The slugs of the municipalities without an active Ombudsman.
    """
    async with sessions() as session:
        orphaned = await without_ombudsman(session=session, municipalities=list(settings.municipalities))
    for slug in orphaned:
        logger.warning("municipality %s has no Ombudsman: nobody may open its complaints with restricted identity "
                       "(Lei 13.460/2017 Art. 10 §7); name one: python -m bot staff add ID --role ombudsman "
                       "--municipality %s", slug, slug)
    return orphaned


def _secret(settings: Settings, bot_key: str, *, per_bot: bool) -> str:
    """``BALCAO_WEBHOOK_SECRET`` itself for the one bot of a deployment, else the bot's own (derived) secret."""
    assert settings.webhook_secret is not None
    return bot_webhook_secret(settings, bot_key) if per_bot else settings.webhook_secret.get_secret_value()
