"""Reading console forms: text fields, the civil today, and refusals kept next to the field they concern."""

from __future__ import annotations

import datetime as dt
from typing import Any

from aiohttp import web

from handlers.web.keys import SESSIONS, SETTINGS
from models.columns import utcnow


async def form_text(request: web.Request, name: str, limit: int = 5000) -> str:
    """A text field of the posted form ('' when absent or a file), cut to ``limit`` characters."""
    value = (await request.post()).get(name)
    return value[:limit] if isinstance(value, str) else ""


async def form_list(request: web.Request, name: str) -> list[str]:
    """Every value of a repeated field (checkboxes)."""
    return [value for value in (await request.post()).getall(name, []) if isinstance(value, str)]


def city_today(request: web.Request) -> dt.date:
    """Today in the deployment's time zone."""
    return utcnow().astimezone(request.config_dict[SETTINGS].tz).date()


def db(request: web.Request) -> Any:
    """The database session factory of the parent application."""
    return request.config_dict[SESSIONS]
