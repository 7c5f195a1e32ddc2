"""The staff web console under ``/painel/``: a sub-application of the aiohttp server with its own middleware.

Sign-in from the bot's one-time link (:mod:`.signin`), then the dashboard (:mod:`.dashboard`), the cases
(:mod:`.cases`), the audit log and exports (:mod:`.audit`), Open311 keys (:mod:`.open311_keys`), and the choice of
the municipality shown (:mod:`.places`), the member's own API tokens (:mod:`.api_tokens`), the team, whose roles
an admin ends (:mod:`.team`), and the staff's competences with their designation acts (:mod:`.competences`). Every
page checks the session and the staff role on each request and every change its CSRF token (:mod:`.guard`); the
pages call the same domain functions as the chat and the staff API.
"""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from handlers.web.console import (
    api_tokens,
    audit,
    broadcasts,
    bulk,
    cases,
    competences,
    dashboard,
    deliveries,
    delivery_links,
    drivers,
    exports,
    filings,
    infractions,
    notices,
    open311_keys,
    payments,
    places,
    replies,
    signin,
    team,
)
from handlers.web.console.guard import console_guard
from handlers.web.console.rendering import setup_templates

PREFIX = "/painel"
STATIC = Path(__file__).with_name("static")


def console_app() -> web.Application:
    """The console, to mount at :data:`PREFIX` (settings and sessions come from the parent application)."""
    app = web.Application(middlewares=[console_guard])
    setup_templates(app)
    for table in (signin.routes, dashboard.routes, cases.routes, bulk.routes, replies.routes, audit.routes,
                  exports.routes, notices.routes, infractions.routes, filings.routes, drivers.routes,
                  broadcasts.routes, places.routes, open311_keys.routes, payments.routes, api_tokens.routes,
                  team.routes, competences.routes, delivery_links.routes, deliveries.routes):
        app.add_routes(table)
    app.router.add_static("/static/", STATIC)
    return app
