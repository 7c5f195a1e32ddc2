"""Equipe: the staff roles held where the admin works, and *End the role* (LGPD Art. 46).

Admins only, in the municipalities where they are admins (CF Art. 30); a role held deployment-wide only by an admin
of every municipality (:func:`handlers.web.console.guard.deployment_wide`). Ending a role goes through
:func:`models.console.roles.end_role`, the function of ``python -m bot staff remove``: the member is signed out of
every console session at once and their sign-in links and personal API tokens stop working; audited with the admin.
An admin does not end their own role here (another admin or the command line does), so no one locks themselves out.
"""

from __future__ import annotations

from aiohttp import web

from handlers.web.console.forms import db, form_text
from handlers.web.console.guard import console_page, deployment_wide
from handlers.web.console.labels import ROLE_NAMES
from handlers.web.console.rendering import message_page, render
from handlers.web.console.staff import staff_of
from handlers.web.keys import SETTINGS
from models.columns import utcnow
from models.console.roles import NoSuchRole, end_role, team
from models.people import Role

routes = web.RouteTableDef()
EVERYWHERE = "*"
"""The form's value for a role held in every municipality."""


async def _page(request: web.Request, *, ended: str = "", status: int = 200) -> web.Response:
    staff = staff_of(request)
    wide = await deployment_wide(request) is None
    async with db(request)() as session:
        members = await team(session=session, municipalities=None if wide else staff.shown)
    names = dict(staff.places)
    return render(request, "team.html", {
        "title": staff.tr._("Team"), "members": members, "roles": ROLE_NAMES, "names": names,
        "EVERYWHERE": EVERYWHERE, "ended": ended,
    }, status=status)


@routes.get("/equipe")
@console_page(Role.ADMIN)
async def team_page(request: web.Request) -> web.Response:
    """The roles held where the admin works, each with *End the role*."""
    return await _page(request, ended=request.query.get("encerrado", "")[:20])


@routes.post("/equipe/{telegram_id:\\d{1,16}}/encerrar")
@console_page(Role.ADMIN)
async def end(request: web.Request) -> web.StreamResponse:
    """End one role of a member at once: signed out, links and tokens revoked (audited)."""
    staff = staff_of(request)
    tr = staff.tr
    telegram_id = int(request.match_info["telegram_id"])
    place = await form_text(request, "municipio", 40)
    municipality = None if place == EVERYWHERE else place
    if telegram_id == staff.telegram_user_id:
        return message_page(request, status=403, title=tr._("Not done"), text=tr._(
            "You cannot end your own role here. Another admin, or the command line (staff remove), can."))
    allowed = (await deployment_wide(request) is None) if municipality is None else (
        municipality in staff.shown and municipality in request.config_dict[SETTINGS].municipalities)
    if not allowed:
        return message_page(request, status=403, title=tr._("Not for your role"), text=tr._(
            "Only an admin where the role is held may end it. Nothing was changed."))
    try:
        async with db(request)() as session:
            await end_role(session=session, telegram_user_id=telegram_id, municipality=municipality,
                           actor=staff.actor, now=utcnow())
    except NoSuchRole:
        return message_page(request, status=404, title=tr._("Not found"), text=tr._(
            "That person holds no active role there. Nothing was changed."))
    raise web.HTTPSeeOther(f"/painel/equipe?encerrado={telegram_id}")
