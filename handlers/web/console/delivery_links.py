"""``/entregas`` in the console: "Vincular a <pessoa>" where the chat's ``/entregas`` offers it (issue 20 §1).

A notice waiting on the staff list whose CPF one person of the bot registered at the electronic opt-in names that
person; the clerk links the notice to them after checking, and what waited goes to their chat
(:func:`models.notices.delivery.link_person`, the function the chat and the staff API call). The person linked is
the one the server finds for the notice at that moment, never an id taken from the form.
"""

from __future__ import annotations

from aiohttp import web

from handlers.web.console.forms import db
from handlers.web.console.guard import console_page, elsewhere, works_in
from handlers.web.console.rendering import message_page
from handlers.web.console.staff import staff_of
from handlers.web.keys import SETTINGS, cities_of_request
from models.notices.delivery import DeliveryError, StaffListItem, cpf_claimant, link_person
from models.notices.tables import Notice
from models.people import Person, Role

routes = web.RouteTableDef()
LINKERS = (Role.CLERK, Role.INSPECTOR)
"""Who may link a notice to a person: those who see ``/entregas`` (the issuers)."""


async def claimants_of(request: web.Request, items: list[StaffListItem]) -> dict[int, Person]:
    """For each listed notice addressed to nobody, the one person who said at opt-in that its CPF is theirs."""
    found: dict[int, Person] = {}
    async with db(request)() as session:
        for item in items:
            claimant = await cpf_claimant(session=session, notice=item.notice)
            if claimant is not None and item.notice.id is not None:
                found[item.notice.id] = claimant
    return found


@routes.post("/entregas/vincular/{notice_id:\\d{1,9}}")
@console_page(*LINKERS)
async def link_claimant(request: web.Request) -> web.StreamResponse:
    """Address the notice to the person who claimed its CPF at opt-in; what waited goes to their chat."""
    staff = staff_of(request)
    tr = staff.tr
    notice_id = int(request.match_info["notice_id"])
    async with db(request)() as session:
        notice = await session.get(Notice, notice_id)
        if notice is not None and not await works_in(request, notice.municipality, LINKERS):
            return elsewhere(request)
        claimant = await cpf_claimant(session=session, notice=notice) if notice is not None else None
        if notice is None or claimant is None or claimant.id is None:
            return message_page(request, title=tr._("Deliveries to make"),
                                text=tr._("Nobody of the bot claims this notice's CPF any more."), status=409)
        try:
            await link_person(session=session, cities=cities_of_request(request),
                              http_root=request.config_dict[SETTINGS].http_root, notice_id=notice_id,
                              actor=staff.actor, person_id=claimant.id)
        except DeliveryError as refused:
            return message_page(request, title=tr._("Deliveries to make"), text=tr._(str(refused)), status=409)
    raise web.HTTPSeeOther("/painel/entregas?vinculada=1")
