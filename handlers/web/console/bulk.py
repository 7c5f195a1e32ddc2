"""Bulk actions on the cases selected in the list: assign, ask for more information, archive, answer by template.

Each case goes through the same domain function as a single action, so each is checked on its own (role, status)
and writes its own timeline step and audit entry; one case refused does not stop the others. The result page lists
every case with what happened to it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from aiohttp import web
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from core.municipality import Cities
from handlers.web.console.cases import STAFF_ROLES
from handlers.web.console.forms import db, form_list, form_text
from handlers.web.console.guard import console_page, works_in
from handlers.web.console.rendering import message_page, render
from handlers.web.console.staff import ConsoleStaff, staff_of
from handlers.web.keys import CITIES
from models.cases.handling import answer_case, archive_case, assign, request_complement
from models.cases.tables import Case
from models.cases.timeline import CaseNotFound, get_case
from models.columns import utcnow
from models.console.replies import fill, reader_locale, template_for
from models.console.tables import ResponseTemplate
from models.invalid_input import InvalidInput
from models.people import PermissionDenied, StaffMember

routes = web.RouteTableDef()
ACTIONS = ("assign", "ask", "archive", "answer")
MAX_CASES = 200


@dataclass(frozen=True, slots=True)
class BulkResult:
    """What happened to one selected case."""

    protocol: str
    done: bool
    reason: str | None


async def _act(*, session: AsyncSession, cities: Cities, who: int, case_id: int, case: Case, action: str,
               text: str, template: ResponseTemplate | None, assignee: int | None, now: dt.datetime) -> None:
    """Apply one of ``ACTIONS`` to the case (the domain function checks the role)."""
    if action == "assign":
        await assign(session=session, telegram_user_id=who, case_id=case_id, now=now,
                     assignee_telegram_user_id=assignee)
    elif action == "ask":
        await request_complement(session=session, telegram_user_id=who, case_id=case_id, question=text,
                                 now=now, cities=cities)
    elif action == "archive":
        await archive_case(session=session, telegram_user_id=who, case_id=case_id, reason=text, now=now,
                           cities=cities)
    else:
        body = text
        if template is not None:  # CF Art. 30: only the case's municipality's own template
            if await template_for(session=session, template_id=template.id or 0,
                                  municipality=case.municipality) is None:
                raise InvalidInput(N_("This template belongs to another municipality."))
            locale = await reader_locale(session=session, case_id=case_id)
            body = fill(template, locale=locale, case=case, timezone=cities.of(case.municipality).tz.key)
        await answer_case(session=session, telegram_user_id=who, case_id=case_id, text=body, now=now,
                          cities=cities)


async def _one(request: web.Request, staff: ConsoleStaff, case_id: int, action: str, text: str,
               template: ResponseTemplate | None, assignee: int | None) -> BulkResult:
    tr, who, now, cities = staff.tr, staff.telegram_user_id, utcnow(), request.config_dict[CITIES]
    async with db(request)() as session:
        try:
            case = await get_case(session=session, case_id=case_id)
        except CaseNotFound:
            return BulkResult(protocol=f"#{case_id}", done=False, reason=tr._("No case has that protocol number."))
        protocol = case.protocol  # read now: a refusal rolls the session back
        if not await works_in(request, case.municipality, STAFF_ROLES):  # CF Art. 30: another city hall's case
            return BulkResult(protocol=f"#{case_id}", done=False, reason=tr._(
                "This case belongs to a municipality you do not work in here; nothing was changed."))
        try:
            await _act(session=session, cities=cities, who=who, case_id=case_id, case=case, action=action,
                       text=text, template=template, assignee=assignee, now=now)
        except CaseNotFound:  # a restricted ombudsman case, to anyone but the Ombudsman (L13460 Art. 10 §7)
            await session.rollback()
            return BulkResult(protocol=f"#{case_id}", done=False, reason=tr._("No case has that protocol number."))
        except PermissionDenied:
            await session.rollback()
            return BulkResult(protocol=protocol, done=False,
                              reason=tr._("Only staff of the role this case is routed to may act on it."))
        except InvalidInput as refused:
            await session.rollback()
            return BulkResult(protocol=protocol, done=False, reason=refused.render(tr))
    return BulkResult(protocol=protocol, done=True, reason=None)


@routes.post("/casos/lote")
@console_page(*STAFF_ROLES)
async def bulk(request: web.Request) -> web.Response:
    """Apply one action to every selected case, each checked and audited on its own."""
    staff = staff_of(request)
    tr = staff.tr
    action = await form_text(request, "action", 20)
    ids = [int(raw) for raw in await form_list(request, "ids") if raw.isdecimal() and len(raw) < 10]
    if action not in ACTIONS or not ids:
        return message_page(request, status=400, title=tr._("Nothing done"), text=tr._(
            "Select at least one case and an action, then try again. Nothing was changed."))
    text = await form_text(request, "text")
    raw_template, raw_assignee = await form_text(request, "template", 12), await form_text(request, "assignee", 12)
    template = None
    assignee = None
    async with db(request)() as session:
        if raw_template.isdecimal():
            template = await session.get(ResponseTemplate, int(raw_template))
        if raw_assignee.isdecimal():
            member = await session.get(StaffMember, int(raw_assignee))
            assignee = member.telegram_user_id if member is not None else -1
    if action == "answer" and template is None and not text.strip():
        return message_page(request, status=400, title=tr._("Nothing done"), text=tr._(
            "Choose a template or write the answer, then try again. Nothing was changed."))
    results = [await _one(request, staff, case_id, action, text, template, assignee)
               for case_id in dict.fromkeys(ids[:MAX_CASES])]
    return render(request, "bulk.html", {"title": tr._("Result of the bulk action"), "results": results})
