"""Authentication and authorisation of the staff HTTP API.

Every request carries ``Authorization: Bearer <BALCAO_STAFF_API_TOKEN>`` (compared in constant time) and
names the acting staff member in ``X-Balcao-Staff: <telegram user id>``, whose role is checked on every
call against the database, exactly as in the bot.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Awaitable, Callable

from aiohttp import web

from handlers.web.json_api import error
from handlers.web.keys import sessions_of, settings_of
from models.people import ANY_MUNICIPALITY, PermissionDenied, Role, require_role

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
STAFF_ID = web.RequestKey("staff_id", int)
"""The Telegram user id of the checked acting staff member."""
STAFF_ROLE = web.RequestKey("staff_role", Role)
"""Their role, checked on this very request."""


def bearer_ok(request: web.Request) -> bool:
    """Whether the request carries the staff API token (constant-time comparison)."""
    expected = settings_of(request).staff_api_token
    if expected is None:
        return False
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        token.encode(), expected.get_secret_value().encode()
    )


_TELEGRAM_ID = re.compile(r"[1-9][0-9]{0,15}")
"""A Telegram user id as the header carries it: ASCII digits only (``²`` is a digit to ``str.isdigit``), and
short enough for a BIGINT column (Telegram ids have at most 52 bits)."""


def staff_id_of(raw: str) -> int | None:
    """The Telegram user id in ``X-Balcao-Staff``, or None when it is not one."""
    return int(raw) if _TELEGRAM_ID.fullmatch(raw) else None


def staff_endpoint(*roles: Role) -> Callable[[Handler], Handler]:
    """Protect an API handler: valid token, then an active staff member with one of ``roles`` (or admin).

    The handler finds the checked actor in ``request[STAFF_ID]`` and ``request[STAFF_ROLE]``.
    """
    allowed = frozenset(roles)

    def decorate(handler: Handler) -> Handler:
        async def wrapper(request: web.Request) -> web.StreamResponse:
            if settings_of(request).staff_api_token is None:
                return error(404, "api_disabled", "The staff API is off (BALCAO_STAFF_API_TOKEN is not set).")
            if not bearer_ok(request):
                return error(401, "unauthorized", "Missing or wrong bearer token.")
            staff_id = staff_id_of(request.headers.get("X-Balcao-Staff", ""))
            if staff_id is None:
                return error(400, "staff_required", "Send X-Balcao-Staff with your Telegram user id.")
            async with sessions_of(request)() as session:
                try:
                    role = await require_role(session=session, telegram_user_id=staff_id, allowed=allowed,
                                              municipality=ANY_MUNICIPALITY)
                except PermissionDenied:
                    return error(403, "forbidden", "This staff member may not do this.")
            request[STAFF_ID] = staff_id
            request[STAFF_ROLE] = role
            return await handler(request)

        wrapper.__name__ = handler.__name__
        wrapper.__doc__ = handler.__doc__
        return wrapper

    return decorate
