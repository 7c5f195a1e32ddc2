"""Open311 keys: the client systems allowed to file service requests, a new key shown once, revoke with a check.

Admins only, the role checked on every request (:func:`handlers.web.console.guard.console_page`), and in a
deployment of several municipalities admins of all of them, as a key lets a system file in any of them
(:func:`handlers.web.console.guard.deployment_wide`); every change
carries the CSRF token (:mod:`.guard`) and goes through :mod:`models.open311.keys`, the functions of
``python -m bot open311 key add|revoke``, which keep only the key's SHA-256 and write the audit log with the actor.
A new key is on one page only, the answer to the form that made it (never stored, logged or sent anywhere else).
"""

from __future__ import annotations

from aiohttp import web

from handlers.web.console.forms import db, form_text
from handlers.web.console.guard import console_page, deployment_wide
from handlers.web.console.rendering import message_page, render
from handlers.web.console.staff import staff_of
from models.columns import utcnow
from models.console.open311_clients import list_clients
from models.open311.keys import ClientKeyRefused, issue_key, revoke_key
from models.open311.tables import Open311Client
from models.people import Role

routes = web.RouteTableDef()


async def _page(request: web.Request, *, key: str = "", name: str = "", error: str = "",
                status: int = 200) -> web.Response:
    async with db(request)() as session:
        clients = await list_clients(session=session)
    return render(request, "open311_keys.html", {
        "title": staff_of(request).tr._("Open311 keys"), "clients": clients, "key": key, "name": name,
        "error": error, "revoked": request.query.get("revogada", "")[:64],
    }, status=status)


@routes.get("/open311")
@console_page(Role.ADMIN)
async def keys_page(request: web.Request) -> web.Response:
    """The client systems, and the form for a new one."""
    return (await deployment_wide(request)) or await _page(request)


@routes.post("/open311")
@console_page(Role.ADMIN)
async def add_key(request: web.Request) -> web.Response:
    """Issue a key for a client system and show it this once (audited; only its hash is kept)."""
    if (refused := await deployment_wide(request)) is not None:
        return refused
    staff = staff_of(request)
    name = (await form_text(request, "name", 200)).strip()
    try:
        async with db(request)() as session:
            key = await issue_key(session=session, name=name, now=utcnow(), actor=staff.actor)
    except ClientKeyRefused:
        tr = staff.tr
        error = tr._("Give the client system a name of 1 to 64 characters.") if not name or len(name) > 64 else \
            tr._("{name} already has an active key. Revoke it first, then issue a new one.").format(name=name)
        return await _page(request, name=name, error=error, status=422)
    response = await _page(request, key=key, name=name, status=201)
    response.headers["Cache-Control"] = "no-store"
    return response


async def _client(request: web.Request) -> Open311Client | None:
    async with db(request)() as session:
        return await session.get(Open311Client, int(request.match_info["client_id"]))


@routes.get("/open311/{client_id:\\d{1,9}}/revogar")
@console_page(Role.ADMIN)
async def confirm_revoke(request: web.Request) -> web.Response:
    """Ask before revoking: the client system stops filing at once."""
    if (refused := await deployment_wide(request)) is not None:
        return refused
    tr = staff_of(request).tr
    client = await _client(request)
    if client is None or client.revoked_at is not None:
        return message_page(request, status=404, title=tr._("Not found"), text=tr._(
            "No client system with an active key has that number."))
    return render(request, "open311_revoke.html", {"title": tr._("Revoke the key of {name}?").format(
        name=client.name), "client": client})


@routes.post("/open311/{client_id:\\d{1,9}}/revogar")
@console_page(Role.ADMIN)
async def revoke(request: web.Request) -> web.StreamResponse:
    """Revoke the client system's key at once (audited)."""
    if (refused := await deployment_wide(request)) is not None:
        return refused
    staff = staff_of(request)
    client = await _client(request)
    try:
        if client is None:
            raise ClientKeyRefused("unknown client")
        async with db(request)() as session:
            await revoke_key(session=session, name=client.name, now=utcnow(), actor=staff.actor)
    except ClientKeyRefused:
        return message_page(request, status=404, title=staff.tr._("Not found"), text=staff.tr._(
            "No client system with an active key has that number."))
    raise web.HTTPSeeOther(f"/painel/open311?revogada={client.id}")
