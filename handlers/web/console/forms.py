"""Reading console forms: text fields, the civil today, and refusals kept next to the field they concern."""

from __future__ import annotations

import datetime as dt
from typing import Any

from aiohttp import web

from handlers.web.keys import SESSIONS, SETTINGS
from models.columns import utcnow
from models.when import Towards, municipal_today, parse_day


async def form_text(request: web.Request, name: str, limit: int = 5000) -> str:
    """A text field of the posted form ('' when absent or a file), cut to ``limit`` characters."""
    value = (await request.post()).get(name)
    return value[:limit] if isinstance(value, str) else ""


async def form_list(request: web.Request, name: str) -> list[str]:
    """Every value of a repeated field (checkboxes)."""
    return [value for value in (await request.post()).getall(name, []) if isinstance(value, str)]


def city_today(request: web.Request) -> dt.date:
    """Today in the deployment's time zone (:func:`models.when.municipal_today`)."""
    return municipal_today(request.config_dict[SETTINGS].tz, now=utcnow())


def typed_day(request: web.Request, raw: str, *, towards: Towards = "past") -> dt.date:
    """A day as a clerk types it (``01/12/2026``, ``1/12``, ``ontem``, ``sábado``; ``2026-12-01`` from a date input).

    Raises:
        InvalidInput: not a day (a ``ValueError``).
    """
    return parse_day(raw, today=city_today(request), towards=towards)


def db(request: web.Request) -> Any:
    """The database session factory of the parent application."""
    return request.config_dict[SESSIONS]
