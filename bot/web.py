"""The aiohttp server: ``/healthz``, the Telegram webhook, the staff API and public pages.

The webhook is served at the path ``BALCAO_WEBHOOK_URL`` names plus ``/telegram/webhook``: with
``https://host/balcao`` the bot registers ``https://host/balcao/telegram/webhook`` and serves
``/balcao/telegram/webhook`` (and ``/telegram/webhook`` too, for a reverse proxy that strips the prefix).
A deployment of several bots gives each bot its own path, ``/telegram/webhook/<bot key>`` (the same two ways), and
its own secret token (:func:`bot_webhook_secret`); a path of no bot served here is 404.
Every request must carry its bot's secret (constant-time check). The body must be one JSON object with an integer
``update_id`` (else 400); an update the library cannot read is answered 200 and skipped
(:mod:`bot.update_parsing`), so Telegram moves on to the next one.

An update is handled before Telegram is answered, in its person's turn across every process of the bot
(:mod:`bot.ordering`, :mod:`bot.turns`): 200 once it was handled (or apologised for); 503 when it failed for a
cause that may pass (the database or Telegram unreachable), so Telegram delivers it again; an update id already
taken is answered 200 and not run again (the ids are kept in the database, :mod:`models.seen_updates`, and only
once the update was handled).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger

from bot.update_parsing import has_update_id, parse_update
from core import metrics
from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from handlers.web import transparency
from handlers.web.console import PREFIX as CONSOLE_PREFIX
from handlers.web.console import console_app
from handlers.web.failures import json_failures
from handlers.web.keys import CITIES, SESSIONS, SETTINGS
from handlers.web.routes import ROUTE_TABLES
from handlers.web.security_headers import add_security_headers

logger = logging.getLogger("balcao.web")
WEBHOOK_PATH = "/telegram/webhook"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"  # noqa: S105  (a header name)


_WEBHOOKS = web.AppKey("webhooks", dict)


@dataclass(frozen=True, slots=True)
class WebhookBot:
    """A bot this process receives updates for by webhook: its application and the secret its requests carry."""

    application: Any
    secret: str


def webhook_url(settings: Settings, bot_key: str | None = None) -> str:
    """The URL a bot registers with Telegram: ``BALCAO_WEBHOOK_URL`` + ``/telegram/webhook`` (+ ``/<bot key>``).

    Args:
        settings: the deployment's settings.
        bot_key: the bot's key when the deployment has several bots (each has a path of its own).
    """
    assert settings.webhook_url is not None
    return f"{settings.webhook_url}{WEBHOOK_PATH}" + (f"/{bot_key}" if bot_key else "")


def bot_webhook_secret(settings: Settings, bot_key: str) -> str:
    """A bot's own webhook secret token, derived from ``BALCAO_WEBHOOK_SECRET`` (HMAC-SHA256 of its key).

    One setting to keep, yet a bot's secret (Telegram shows it to whoever holds that bot's token) tells nothing of
    the other bots' secrets or of ``BALCAO_WEBHOOK_SECRET``. The characters are those Telegram allows.
    """
    assert settings.webhook_secret is not None
    digest = hmac.new(settings.webhook_secret.get_secret_value().encode(), f"balcao-webhook:{bot_key}".encode(),
                      hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def webhook_paths(settings: Settings, *, per_bot: bool = False) -> list[str]:
    """The paths the server answers the webhook on: the registered URL's path, and ``/telegram/webhook``.

    With ``per_bot`` (several bots), each followed by ``/{bot_key}``.
    """
    paths = [WEBHOOK_PATH]
    if settings.webhook_url is not None:
        prefixed = urlsplit(webhook_url(settings)).path
        if prefixed != WEBHOOK_PATH:
            paths.insert(0, prefixed)
    return [f"{path}/{{bot_key}}" for path in paths] if per_bot else paths


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


class PathOnlyAccessLogger(AbstractAccessLogger):
    """The access log without query strings.

    Open311 clients send their ``api_key`` in the query, as the spec has it, and a secret must never reach a log.
    """

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        """One line per request: client, method, path (no query), status, size and seconds."""
        self.logger.info('%s "%s %s" %s %s %.3f', request.remote, request.method, request.path, response.status,
                         response.body_length, time)


def build_web_app(
    settings: Settings, sessions: SessionFactory, webhooks: Mapping[str, WebhookBot] | None = None
) -> web.Application:
    """The aiohttp application with every route; webhook routes only when bots receive updates by webhook.

    Args:
        settings: the deployment's settings.
        sessions: the database session factory.
        webhooks: the bots served by webhook (webhook mode only), by key; the key ``""`` is the one bot of a
            single-bot deployment, at ``/telegram/webhook`` itself.
    """
    app = web.Application(client_max_size=25 * 1024 * 1024, middlewares=[count_requests, json_failures])
    app[SETTINGS] = settings
    app[CITIES] = cities_of(settings)  # every municipality, built once
    app[SESSIONS] = sessions
    app.on_response_prepare.append(add_security_headers)  # CSP, nosniff, no framing, HSTS behind https
    transparency.setup(app)  # its templates and server-side cache
    for table in ROUTE_TABLES:
        app.add_routes(table)
    app.add_subapp(CONSOLE_PREFIX, console_app())  # the staff console, with its own session/CSRF middleware
    app.router.add_get(CONSOLE_PREFIX, _to_console)
    if webhooks:
        app[_WEBHOOKS] = dict(webhooks)
        for path in webhook_paths(settings, per_bot="" not in webhooks):
            app.router.add_post(path, telegram_webhook)
    return app


def _bad_request(message: str) -> web.Response:
    return web.json_response({"error": "bad_update", "message": message}, status=400)
async def _to_console(_request: web.Request) -> web.Response:
    raise web.HTTPPermanentRedirect(f"{CONSOLE_PREFIX}/")


async def telegram_webhook(request: web.Request) -> web.Response:
    """Receive an update from Telegram: the secret header must match its bot's (constant time) or nothing is run."""
    webhook = request.app[_WEBHOOKS].get(request.match_info.get("bot_key", ""))
    if webhook is None:  # no bot of this process has this path
        metrics.WEBHOOK_REFUSED.labels(reason="unknown_bot").inc()
        return web.Response(status=404, text="not found")
    given = request.headers.get(SECRET_HEADER, "")
    if not webhook.secret or not hmac.compare_digest(given.encode(), webhook.secret.encode()):
        logger.warning("webhook request with a wrong or missing secret token")
        metrics.WEBHOOK_REFUSED.labels(reason="secret").inc()
        return web.Response(status=403, text="forbidden")
    try:
        data = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        metrics.WEBHOOK_REFUSED.labels(reason="bad_json").inc()
        return _bad_request("The body is not JSON.")
    if not has_update_id(data):
        metrics.WEBHOOK_REFUSED.labels(reason="bad_update").inc()
        return _bad_request("Send one update: a JSON object with an integer update_id.")
    application = webhook.application
    update = parse_update(data, application.bot)
    outcome = await application.update_processor.handle(update, application.process_update(update))
    if outcome == "replay":
        logger.info("webhook: update_id=%s was already taken; not run again", data["update_id"])
        metrics.WEBHOOK_REFUSED.labels(reason="replay").inc()
    elif outcome == "transient":
        logger.warning("webhook: update_id=%s could not be handled now; Telegram will deliver it again",
                       data["update_id"])
        return web.Response(status=503, text="try again later")
    return web.Response(text="ok")
