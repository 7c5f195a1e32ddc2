"""Who is at the console on this request: the checked staff member, their language and their session's secret."""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web

from core.i18n import Translator
from models.console.scope import PlaceRoles
from models.people import Role


@dataclass(frozen=True, slots=True)
class ConsoleStaff:
    """The staff member behind a request, with the role checked on this very request."""

    telegram_user_id: int
    role: Role
    name: str
    municipalities: tuple[str, ...]
    """The names of the municipalities the console shows now."""
    places: tuple[tuple[str, str], ...]
    """(slug, name) of every municipality where the member works (more than one: the console offers a choice)."""
    shown: tuple[str, ...]
    """The slugs of the municipalities the console shows now (the chosen one, or all of :attr:`places`)."""
    chosen: str | None
    roles: PlaceRoles
    """The member's role in each municipality of :attr:`shown` (a page keeps those where its roles are held)."""
    session_token: str
    csrf: str
    tr: Translator

    @property
    def actor(self) -> str:
        """The actor for the audit log (an id, never a name)."""
        return f"staff:{self.telegram_user_id}"


STAFF = web.RequestKey("console_staff", ConsoleStaff)
"""Set by the console's middleware on every signed-in request."""


def staff_of(request: web.Request) -> ConsoleStaff:
    """The checked staff member of a signed-in request."""
    return request[STAFF]
