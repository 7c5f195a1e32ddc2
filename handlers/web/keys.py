"""Typed keys under which the aiohttp application holds shared objects."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from core.municipality import Cities, Municipality
from core.settings import Settings

SESSIONS = web.AppKey("sessions", object)
SETTINGS = web.AppKey("settings", Settings)
CITIES = web.AppKey("cities", Cities)
EXPECTS_SCHEDULER = web.AppKey("expects_scheduler", bool)
"""Set by ``run``: readiness then requires the scan scheduler to be running in this process."""


def sessions_of(request: web.Request) -> Any:
    """The database session factory."""
    return request.app[SESSIONS]


def settings_of(request: web.Request) -> Settings:
    """The deployment's settings."""
    return request.app[SETTINGS]


def cities_of_request(request: web.Request) -> Cities:
    """Every municipality the deployment serves (built once with the application, ``bot.web``)."""
    return request.config_dict[CITIES]


def city_of(request: web.Request, slug: str | None) -> Municipality:
    """The municipality of ``slug`` (the default one for None)."""
    return cities_of_request(request).of(slug)
