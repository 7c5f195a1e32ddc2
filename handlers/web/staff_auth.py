"""Authentication and authorisation of the staff HTTP API.

A request carries ``Authorization: Bearer <token>``, one of:

- a member's **personal token** (``bst_…``, issued in the console, :mod:`models.console.api_tokens`): it names and
  proves its holder, so ``X-Balcao-Staff`` is not needed (if sent, it must name the holder);
- the deployment-wide ``BALCAO_STAFF_API_TOKEN`` (deprecated) with ``X-Balcao-Staff: <telegram user id>``: it only
  *names* a member, so nothing proves who calls, and restricted ombudsman cases, their authors and files do not
  exist for it (L13460 Art. 10 §7; :data:`IDENTITY_PROVEN`). Answers to it carry a ``Deprecation`` header.

Tokens are compared in constant time; the member's role is checked on every call, exactly as in the bot.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Awaitable, Callable

from aiohttp import web

from handlers.web.json_api import error
from handlers.web.keys import sessions_of, settings_of
from models.columns import utcnow
from models.console.api_tokens import note_shared_token_use, token_holder
from models.people import ANY_MUNICIPALITY, PermissionDenied, Role, require_role

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
STAFF_ID = web.RequestKey("staff_id", int)
"""The Telegram user id of the checked acting staff member."""
STAFF_ROLE = web.RequestKey("staff_role", Role)
"""Their role, checked on this very request."""
IDENTITY_PROVEN = web.RequestKey("staff_identity_proven", bool)
"""True when the caller used their own personal token; False for the shared token, which only names a member."""


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


def _bearer(request: web.Request) -> str:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


async def _personal_holder(request: web.Request) -> int | None:
    token = _bearer(request)
    if not token:
        return None
    async with sessions_of(request)() as session:
        return await token_holder(session=session, token=token, now=utcnow())


async def _caller(request: web.Request) -> tuple[int, bool] | web.Response:
    """The staff member's Telegram id and whether a personal token proves it, or the refusal to send."""
    named = request.headers.get("X-Balcao-Staff", "")
    holder = await _personal_holder(request)
    if holder is not None:
        if named and staff_id_of(named) != holder:
            return error(403, "forbidden", "X-Balcao-Staff must name the holder of the personal token.")
        return holder, True
    if settings_of(request).staff_api_token is None:
        if _bearer(request):
            return error(401, "unauthorized", "Missing or wrong bearer token.")
        return error(404, "api_disabled", "The staff API is off: send your personal token "
                     "(issued in the console), or set BALCAO_STAFF_API_TOKEN.")
    if not bearer_ok(request):
        return error(401, "unauthorized", "Missing or wrong bearer token.")
    named_id = staff_id_of(named)
    if named_id is None:
        return error(400, "staff_required", "Send X-Balcao-Staff with your Telegram user id.")
    return named_id, False


async def _mark_shared_token(request: web.Request, response: web.StreamResponse, staff_id: int) -> None:
    """A call made with the shared token: said deprecated, and logged when it changes something."""
    if not response.prepared:  # RFC 9745: the shared token is deprecated
        response.headers["Deprecation"] = "true"
    if request.method not in ("GET", "HEAD"):  # the log says nothing proved who it was
        async with sessions_of(request)() as session:
            await note_shared_token_use(session=session, named_staff=staff_id, method=request.method,
                                        path=request.path, status=response.status)


def staff_endpoint(*roles: Role) -> Callable[[Handler], Handler]:
    """Protect an API handler: a valid token, then an active staff member with one of ``roles`` (or admin).

    The handler finds the checked actor in ``request[STAFF_ID]`` and ``request[STAFF_ROLE]``, and whether their
    identity is proven (a personal token) in ``request[IDENTITY_PROVEN]``.
    """
    allowed = frozenset(roles)

    def decorate(handler: Handler) -> Handler:
        async def wrapper(request: web.Request) -> web.StreamResponse:
            caller = await _caller(request)
            if isinstance(caller, web.Response):
                return caller
            staff_id, proven = caller
            async with sessions_of(request)() as session:
                try:
                    role = await require_role(session=session, telegram_user_id=staff_id, allowed=allowed,
                                              municipality=ANY_MUNICIPALITY)
                except PermissionDenied:
                    return error(403, "forbidden", "This staff member may not do this.")
            request[STAFF_ID] = staff_id
            request[STAFF_ROLE] = role
            request[IDENTITY_PROVEN] = proven
            response = await handler(request)
            if not proven:
                await _mark_shared_token(request, response, staff_id)
            return response

        wrapper.__name__ = handler.__name__
        wrapper.__doc__ = handler.__doc__
        return wrapper

    return decorate
