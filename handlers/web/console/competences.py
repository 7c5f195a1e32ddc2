"""Competências: the staff of the municipalities shown, their matrícula and competences, and the form that adds them.

Admins only, the role checked on every request (:func:`handlers.web.console.guard.console_page`) and in the
municipality chosen on the form (:func:`handlers.web.console.guard.works_in`). The form does what ``python -m bot
staff add … --act …`` does: :func:`models.people.add_staff` with the registration number, then
:func:`models.authorities.grant_authority` with the designation act when the law asks for one (CP Art. 12), the
office and role coming from the municipalities file (issue 18 §1). Both are audited with the actor.
"""

from __future__ import annotations

from aiohttp import web

from core.municipalities import ACT_KINDS
from handlers.web.console.forms import db, form_text, typed_day
from handlers.web.console.guard import console_page, elsewhere, works_in
from handlers.web.console.rendering import render
from handlers.web.console.staff import staff_of
from handlers.web.keys import SETTINGS
from models.authorities import grant_authority, staff_of_municipalities
from models.invalid_input import InvalidInput
from models.people import Role, add_staff

routes = web.RouteTableDef()
FIELDS = ("telegram_id", "name", "role", "municipality", "registration", "act", "designation_kind",
          "designation_number", "designation_date")


async def _page(request: web.Request, *, values: dict[str, str] | None = None, error: str = "",
                status: int = 200) -> web.Response:
    staff = staff_of(request)
    settings = request.config_dict[SETTINGS]
    async with db(request)() as session:
        rows = await staff_of_municipalities(session=session, municipalities=staff.shown)
    places = [(slug, settings.municipalities[slug].name) for slug in staff.shown if slug in settings.municipalities]
    competent = {slug: {act: settings.municipalities[slug].competent.of(act) for act in ACT_KINDS}
                 for slug, _name in places}
    return render(request, "competences.html", {
        "title": staff.tr._("Staff and competences"), "rows": rows, "places": places, "acts": ACT_KINDS,
        "roles": [role.value for role in Role], "competent": competent, "error": error,
        "values": values or {"designation_kind": "Portaria"}, "done": request.query.get("feito") == "1",
    }, status=status)


@routes.get("/competencias")
@console_page(Role.ADMIN)
async def competences_page(request: web.Request) -> web.Response:
    """The staff, their competences, and the form to add one."""
    return await _page(request)


@routes.post("/competencias")
@console_page(Role.ADMIN)
async def add_member(request: web.Request) -> web.StreamResponse:
    """Add a staff member (or update one) with a competence for one kind of act, in one municipality."""
    staff = staff_of(request)
    tr = staff.tr
    settings = request.config_dict[SETTINGS]
    values = {name: (await form_text(request, name, 160)).strip() for name in FIELDS}
    place = values["municipality"]
    if place not in settings.municipalities or not await works_in(request, place, (Role.ADMIN,)):
        return elsewhere(request)
    if not values["telegram_id"].isdecimal() or len(values["telegram_id"]) > 15:
        return await _page(request, values=values, status=422,
                           error=tr._("The Telegram user id is a number; the person can see it with @userinfobot."))
    role = next((role for role in Role if role.value == values["role"]), None)
    act = values["act"] if values["act"] in ACT_KINDS else None
    if role is None or act is None:
        return await _page(request, values=values, status=422, error=tr._("Choose the role and the kind of act."))
    if int(values["telegram_id"]) == staff.telegram_user_id and role is not Role.ADMIN:
        # An admin reads no restricted ombudsman case (L13460 Art. 10 §7): making oneself the Ombudsman
        # here would open them all. Another admin, or the command line, gives an admin another role.
        return await _page(request, values=values, status=403, error=tr._(
            "You cannot change your own role here. Another admin, or the command line (staff add), can."))
    designated_on = None
    if values["designation_date"]:
        try:
            designated_on = typed_day(request, values["designation_date"])
        except ValueError:
            return await _page(request, values=values, status=422,
                               error=tr._("The date of the designation act: write YYYY-MM-DD."))
    async with db(request)() as session:
        try:
            member = await add_staff(session=session, telegram_user_id=int(values["telegram_id"]), role=role,
                                     name=values["name"], actor=staff.actor, municipality=place,
                                     registration=values["registration"])
            await grant_authority(session=session, member=member, act=act, municipality=settings.municipalities[place],
                                  actor=staff.actor, designation_kind=values["designation_kind"],
                                  designation_number=values["designation_number"], designation_on=designated_on)
        except InvalidInput as refused:
            return await _page(request, values=values, status=422, error=refused.render(tr))
    raise web.HTTPSeeOther("/painel/competencias?feito=1")
