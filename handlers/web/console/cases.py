"""Casos: the queue with filters and pages, the case page, its files, and the actions of ``/pendencias``.

Every action calls the same domain function as the chat (:mod:`handlers.chat.staff_queue`) and the staff API
(:mod:`handlers.web.api_cases`), which checks the role for the case and writes the timeline and the audit log with
the actor. A refusal is shown next to its field with what was typed kept; a restricted ombudsman author is a
pseudonym to everyone but the Ombudsman (L13460 Art. 10 §7), decided by :func:`models.cases.views
.may_see_author` inside :func:`models.cases.handling.staff_case`.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlencode

from aiohttp import web
from sqlmodel import select

from core.i18n import N_
from handlers.web.citizen_files import citizen_file
from handlers.web.console.forms import city_today, db, form_text
from handlers.web.console.guard import console_page, elsewhere, works_in
from handlers.web.console.infractions import code_label
from handlers.web.console.labels import KIND_NAMES, OUTCOME_NAMES, STATUS_NAMES
from handlers.web.console.rendering import message_page, render
from handlers.web.console.staff import ConsoleStaff, staff_of
from handlers.web.keys import CITIES, SETTINGS
from models.cases.access import CaseNotReadable
from models.cases.handling import (
    answer_case,
    archive_case,
    assign,
    decide,
    extend,
    notice_handover,
    request_complement,
    staff_case,
)
from models.cases.labels import RELATION_LABELS
from models.cases.previews import PREVIEW_TYPES, NoPreview, image_preview
from models.cases.protocol import normalize_protocol
from models.cases.tables import HANDLING_ROLE, CaseAttachment, CaseKind, CaseStatus, Outcome
from models.cases.timeline import CaseNotFound, get_case
from models.cases.views import CaseView
from models.columns import utcnow
from models.console.case_list import ALL, OPEN, CaseFilters, colleagues, list_cases
from models.console.replies import fill, list_templates, reader_locale
from models.invalid_input import InvalidInput
from models.people import PermissionDenied, Role, StaffMember, staff_role

routes = web.RouteTableDef()
STAFF_ROLES = (Role.CLERK, Role.INSPECTOR, Role.OMBUDSMAN)
DONE = {
    "assign": N_("The case is assigned."),
    "ask": N_("Sent to the author, who has 20 days to answer."),
    "answer": N_("Answer sent to the author. The case is closed."),
    "extend": N_("Deadline extended by 30 days. The author was told why."),
    "archive": N_("Archived. The author was told the reason."),
    "decide": N_("Decision recorded. The author was told."),
}


def _filters(query: Any) -> CaseFilters:
    kind = next((k for k in CaseKind if k.value == query.get("tipo")), None)
    raw_status = query.get("situacao", OPEN)
    status: CaseStatus | str = next((s for s in CaseStatus if s.value == raw_status), OPEN)
    if raw_status == ALL:
        status = ALL
    page = query.get("pagina", "1")
    return CaseFilters(
        kind=kind, status=status, assignee=query.get("responsavel") or None,
        due=query.get("prazo") if query.get("prazo") in ("overdue", "week") else None,
        text=query.get("q", "")[:100], page=int(page) if page.isdecimal() and len(page) < 6 else 1,
    )


@routes.get("/casos")
@console_page(*STAFF_ROLES)
async def case_list(request: web.Request) -> web.Response:
    """The queue sorted by deadline, with filters, pages and the bulk actions."""
    staff = staff_of(request)
    filters = _filters(request.query)
    async with db(request)() as session:
        page = await list_cases(session=session, telegram_user_id=staff.telegram_user_id, filters=filters,
                                today=city_today(request), municipalities=staff.shown)
        people = await colleagues(session=session, role=staff.role, municipalities=staff.shown,
                                  viewer=staff.telegram_user_id)
        templates = await list_templates(session=session, municipalities=staff.shown)
    query = {key: value for key, value in request.query.items() if key != "pagina"}
    return render(request, "cases.html", {
        "title": staff.tr._("Cases"), "page": page, "filters": filters, "colleagues": people,
        "templates": templates, "kinds": KIND_NAMES, "statuses": STATUS_NAMES, "OPEN": OPEN, "ALL": ALL,
        "prev_url": "?" + urlencode({**query, "pagina": page.page - 1}) if page.page > 1 else None,
        "next_url": "?" + urlencode({**query, "pagina": page.page + 1}) if page.has_next else None,
    })


def _protocol(request: web.Request) -> str:
    protocol = normalize_protocol(request.match_info["protocol"])
    if protocol is None:
        raise CaseNotFound(request.match_info["protocol"][:30])
    return protocol


def _not_found(request: web.Request) -> web.Response:
    tr = staff_of(request).tr
    return message_page(request, status=404, title=tr._("Case not found"), text=tr._(
        "No case has that protocol number."))


def _other_role(request: web.Request) -> web.Response:
    tr = staff_of(request).tr
    return message_page(request, status=403, title=tr._("Not for your role"), text=tr._(
        "This case is worked by staff of another role, so it is not shown to you."))


async def _reachable(request: web.Request) -> bool:
    """Whether the case of the URL is of a municipality this member works in and the console shows now."""
    async with db(request)() as session:
        case = await get_case(session=session, protocol=_protocol(request))
    return await works_in(request, case.municipality, STAFF_ROLES)


def _may_act(role: Role | None, view: CaseView) -> bool:
    """Whether the actions are offered: the member's role in the case's municipality is its queue's, or admin."""
    return role is Role.ADMIN or role is view.handling_role


async def _case_page(request: web.Request, *, errors: dict[str, str] | None = None,
                     values: dict[str, str] | None = None, status: int = 200) -> web.Response:
    staff = staff_of(request)
    settings = request.config_dict[SETTINGS]
    async with db(request)() as session:
        view = await staff_case(session=session, telegram_user_id=staff.telegram_user_id,
                                protocol=_protocol(request))
        handover = await notice_handover(session=session, case_id=view.id)
        case = await get_case(session=session, case_id=view.id)
        role_there = await staff_role(session=session, telegram_user_id=staff.telegram_user_id,
                                      municipality=case.municipality)
        people = await colleagues(session=session, role=HANDLING_ROLE[view.kind], municipalities=(case.municipality,),
                                  viewer=staff.telegram_user_id)
        templates = await list_templates(session=session, municipalities=(case.municipality,))  # CF Art. 30
        values = dict(values or {})
        chosen = request.query.get("modelo", "")
        picked = next((t for t in templates if str(t.id) == chosen), None)
        if picked is not None and "text" not in values:
            locale = await reader_locale(session=session, case_id=view.id)
            values["text"] = fill(picked, locale=locale, case=case, timezone=settings.timezone)
    done = request.query.get("feito", "")
    return render(request, "case.html", {
        "title": staff.tr._("Case {protocol}").format(protocol=view.protocol), "case": view,
        "may_act": _may_act(role_there, view), "handover": handover, "colleagues": people, "templates": templates,
        "kinds": KIND_NAMES, "statuses": STATUS_NAMES, "outcomes": OUTCOME_NAMES, "Outcome": Outcome,
        "relations": RELATION_LABELS, "infraction_label": code_label,
        "CaseKind": CaseKind, "errors": errors or {}, "values": values, "today": city_today(request),
        "done": staff.tr._(DONE[done]) if done in DONE else None,
    }, status=status)


@routes.get("/casos/{protocol}")
@console_page(*STAFF_ROLES)
async def case_page(request: web.Request) -> web.Response:
    """One case: the facts, the author as the viewer may see them, files, timeline and the actions."""
    try:
        if not await _reachable(request):
            return elsewhere(request)
        return await _case_page(request)
    except CaseNotFound:
        return _not_found(request)
    except CaseNotReadable:
        return _other_role(request)


async def _file(request: web.Request) -> tuple[CaseView, CaseAttachment] | web.Response:
    """The case's file of the URL, for a member whose role reads the case; else the refusal page."""
    staff = staff_of(request)
    try:
        if not await _reachable(request):
            return elsewhere(request)
        async with db(request)() as session:
            view = await staff_case(session=session, telegram_user_id=staff.telegram_user_id,
                                    protocol=_protocol(request))
            found = (await session.exec(select(CaseAttachment).where(
                CaseAttachment.id == int(request.match_info["attachment_id"]), CaseAttachment.case_id == view.id,
            ))).first()
    except CaseNotFound:
        return _not_found(request)
    except CaseNotReadable:
        return _other_role(request)
    if found is None:
        return _not_found(request)
    return view, found


@routes.get("/casos/{protocol}/anexos/{attachment_id:\\d{1,9}}")
@console_page(*STAFF_ROLES)
async def attachment(request: web.Request) -> web.Response:
    """A file of the case as a sandboxed download under its neutral name: nothing in it runs on the console's origin.

    The page's audio player plays it from here too (a media element ignores the download disposition).
    """
    got = await _file(request)
    if isinstance(got, web.Response):
        return got
    view, found = got
    shown = next(a for a in view.attachments if a.id == found.id)
    return citizen_file(found.content, mime_type=found.mime_type, file_name=shown.file_name, sha256=found.sha256)


@routes.get("/casos/{protocol}/anexos/{attachment_id:\\d{1,9}}/previa")
@console_page(*STAFF_ROLES)
async def preview(request: web.Request) -> web.Response:
    """A photo of the case drawn again from its pixels as a PNG (:func:`models.cases.previews.image_preview`)."""
    got = await _file(request)
    if isinstance(got, web.Response):
        return got
    view, found = got
    if found.mime_type not in PREVIEW_TYPES:
        return _not_found(request)
    try:
        drawn = await asyncio.to_thread(image_preview, found.content)  # seconds of CPU for a big photo
    except NoPreview:
        return _not_found(request)
    return citizen_file(drawn, mime_type="image/png", file_name=f"{view.protocol}-previa-{found.id}.png",
                        inline=True)


async def _run(request: web.Request, action: str, staff: ConsoleStaff, case_id: int) -> None:
    who, now, cities = staff.telegram_user_id, utcnow(), request.config_dict[CITIES]
    text = await form_text(request, "text")
    async with db(request)() as session:
        if action == "assign":
            raw = await form_text(request, "assignee", 20)
            target = None
            if raw.isdecimal():
                member = await session.get(StaffMember, int(raw))
                target = member.telegram_user_id if member is not None else -1
            await assign(session=session, telegram_user_id=who, case_id=case_id, now=now,
                         assignee_telegram_user_id=target)
        elif action == "ask":
            await request_complement(session=session, telegram_user_id=who, case_id=case_id, question=text, now=now,
                                     cities=cities)
        elif action == "answer":
            await answer_case(session=session, telegram_user_id=who, case_id=case_id, text=text, now=now,
                              cities=cities)
        elif action == "extend":
            await extend(session=session, telegram_user_id=who, case_id=case_id, reason=text, now=now,
                         cities=cities)
        elif action == "archive":
            await archive_case(session=session, telegram_user_id=who, case_id=case_id, reason=text, now=now,
                               cities=cities)
        else:
            raw_outcome = await form_text(request, "outcome", 20)
            outcome = next((o for o in Outcome if o.value == raw_outcome), None)
            if outcome is None:
                raise InvalidInput(N_("Choose a decision."))
            await decide(session=session, telegram_user_id=who, case_id=case_id, outcome=outcome,
                         reason=text or None, now=now)


@routes.post("/casos/{protocol}/{action:(assign|ask|answer|extend|archive|decide)}")
@console_page(*STAFF_ROLES)
async def act(request: web.Request) -> web.StreamResponse:
    """Do one action on the case; on a refusal show the page again with the reason next to the field."""
    staff = staff_of(request)
    action = request.match_info["action"]
    try:
        async with db(request)() as session:
            case = await get_case(session=session, protocol=_protocol(request))
            assert case.id is not None
            case_id = case.id
        if not await works_in(request, case.municipality, STAFF_ROLES):
            return elsewhere(request)
        await _run(request, action, staff, case_id)
    except CaseNotFound:
        return _not_found(request)
    except PermissionDenied:
        tr = staff.tr
        return message_page(request, status=403, title=tr._("Not for your role"), text=tr._(
            "Only staff of the role this case is routed to may act on it. Nothing was changed."))
    except InvalidInput as refused:
        return await _case_page(request, errors={action: refused.render(staff.tr)},
                                values={"text": await form_text(request, "text"), "form": action}, status=422)
    raise web.HTTPSeeOther(f"/painel/casos/{case.protocol}?feito={action}")
