"""The aiohttp server: ``/healthz``, the Telegram webhook, the staff API and public pages."""

from __future__ import annotations

import hmac
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from telegram import Update

from bot import metrics
from bot.db import SessionFactory
from bot.settings import Settings
from handlers.web.console import PREFIX as CONSOLE_PREFIX
from handlers.web.console import console_app
from handlers.web.keys import BOT_APPLICATION, SESSIONS, SETTINGS
from handlers.web.routes import ROUTE_TABLES

logger = logging.getLogger("balcao.web")
WEBHOOK_PATH = "/telegram/webhook"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"  # noqa: S105  (a header name)


def route_template(request: web.Request) -> str:
    """The route a request matched, as its template (``/api/cases/{case_id}``): a label without ids or data."""
    resource = request.match_info.route.resource
    return resource.canonical if resource is not None else "unmatched"


@web.middleware
async def count_requests(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Count and time every request by route template, method and status (``/metrics``)."""
    route = route_template(request)
    started = time.perf_counter()
    status = 500
    try:
        response = await handler(request)
        status = response.status
        return response
    except web.HTTPException as exc:
        status = exc.status
        raise
    finally:
        metrics.HTTP_SECONDS.labels(route=route).observe(time.perf_counter() - started)
        metrics.HTTP_REQUESTS.labels(route=route, method=request.method, status=str(status)).inc()


def build_web_app(settings: Settings, sessions: SessionFactory, bot_application: Any | None = None) -> web.Application:
    """The aiohttp application with every route; the webhook route only when a bot application is given.

    Args:
        settings: the deployment's settings.
        sessions: the database session factory.
        bot_application: the PTB application that receives webhook updates (webhook mode only).
    """
    app = web.Application(client_max_size=25 * 1024 * 1024, middlewares=[count_requests])
    app[SETTINGS] = settings
    app[SESSIONS] = sessions
    for table in ROUTE_TABLES:
        app.add_routes(table)
    app.add_subapp(CONSOLE_PREFIX, console_app())  # the staff console, with its own session/CSRF middleware
    app.router.add_get(CONSOLE_PREFIX, _to_console)
    if bot_application is not None:
        app[BOT_APPLICATION] = bot_application
        app.router.add_post(WEBHOOK_PATH, telegram_webhook)
    return app


async def _to_console(_request: web.Request) -> web.Response:
    raise web.HTTPPermanentRedirect(f"{CONSOLE_PREFIX}/")


async def telegram_webhook(request: web.Request) -> web.Response:
    """Receive an update from Telegram: the secret header must match (constant time) or nothing is processed."""
    settings = request.app[SETTINGS]
    expected = settings.webhook_secret.get_secret_value() if settings.webhook_secret else ""
    given = request.headers.get(SECRET_HEADER, "")
    if not expected or not hmac.compare_digest(given.encode(), expected.encode()):
        logger.warning("webhook request with a wrong or missing secret token from %s", request.remote)
        metrics.WEBHOOK_REFUSED.labels(reason="secret").inc()
        return web.Response(status=403, text="forbidden")
    try:
        data = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        metrics.WEBHOOK_REFUSED.labels(reason="bad_json").inc()
        return web.Response(status=400, text="bad json")
    bot_application = request.app[BOT_APPLICATION]
    update = Update.de_json(data, bot_application.bot)  # type: ignore[attr-defined]
    await bot_application.update_queue.put(update)  # type: ignore[attr-defined]
    return web.Response(text="ok")
