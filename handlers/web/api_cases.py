"""The staff HTTP API of citizens' cases (JSON in and out; errors as ``{"error", "message"}``).

====================================================  ==========================================================
route                                                 what
====================================================  ==========================================================
``GET /api/cases``                                    the caller's queue, nearest deadline first
``GET /api/cases/{protocol}``                         one case with its timeline (author pseudonymised where due)
``GET /api/cases/{protocol}/attachments/{id}``        a file of the case (bytes, with its type)
``POST /api/cases/{protocol}/assign``                 ``{"staff_telegram_id"?}``: take it, or give it to a colleague
``POST /api/cases/{protocol}/complement``             ``{"question"}``: ask the author (20 days; once)
``POST /api/cases/{protocol}/decision``               ``{"outcome": "notify"|"auto"|"archive", "reason"?}`` (CP Art. 32)
``POST /api/cases/{protocol}/answer``                 ``{"text"}``: the ombudsman's conclusive answer
``POST /api/cases/{protocol}/extend``                 ``{"reason"}``: +30 days, once (L13460 Art. 16)
``POST /api/cases/{protocol}/archive``                ``{"reason"}``: archive an ombudsman case without an answer
====================================================  ==========================================================

Every route is for clerks, inspectors and the ombudsman (admins too); a case is read only by the roles
:mod:`models.cases.access` names, and each action checks, on the call, that the staff member's role is the one the
case is routed to. A restricted ombudsman case does not exist for the shared token (L13460 Art. 10 §7):
only the Ombudsman's personal token reaches it. A decision to notify or to issue an auto returns
``handover.notice_fields``: the body to start ``POST /api/notices`` from (law, type, item and ``case_id``; never the
author, and never the citizen's account, which the hand-over gives beside it as a reference for the inspector).
Messages are English (the API is for systems).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from typing import Any

from aiohttp import web

from core.i18n import translator
from handlers import log_context
from handlers.web.citizen_files import citizen_file
from handlers.web.json_api import error, error_exception, json_object
from handlers.web.keys import cities_of_request, sessions_of, settings_of
from handlers.web.staff_auth import IDENTITY_PROVEN, STAFF_ID, staff_endpoint
from models.cases.handling import (
    answer_case,
    archive_ombudsman,
    assign,
    decide,
    extend,
    request_complement,
    require_proven_identity,
    staff_case,
    staff_queue,
)
from models.cases.protocol import normalize_protocol
from models.cases.tables import CaseAttachment, Outcome
from models.cases.timeline import CaseNotFound, get_case
from models.cases.views import CaseView
from models.columns import utcnow
from models.invalid_input import InvalidInput
from models.people import PermissionDenied, Role

routes = web.RouteTableDef()
API_LOCALE = "en"
STAFF = (Role.CLERK, Role.INSPECTOR, Role.OMBUDSMAN)


def _protocol(request: web.Request) -> str:
    protocol = normalize_protocol(request.match_info["protocol"])
    if protocol is None:
        raise error_exception(web.HTTPNotFound, "not_found", "Not a protocol number.")
    log_context.bind(protocol=protocol)
    return protocol


def _today(request: web.Request) -> dt.date:
    return utcnow().astimezone(settings_of(request).tz).date()


def _case_json(view: CaseView) -> dict[str, Any]:
    author = asdict(view.author)
    return {
        "id": view.id,
        "protocol": view.protocol,
        "kind": view.kind.value,
        "ombudsman_type": view.ombudsman_type.value if view.ombudsman_type else None,
        "status": view.status.value,
        "handling_role": view.handling_role.value,
        "summary": view.summary,
        "infraction_code": view.infraction_code,
        "legal_refs": list(view.legal_refs),
        "accused": view.accused,
        "vehicle": view.vehicle_ref,
        "place": view.place_text,
        "latitude": view.latitude,
        "longitude": view.longitude,
        "occurred_on": view.occurred_on.isoformat() if view.occurred_on else None,
        "evidence": view.evidence_note,
        "evidence_missing": view.evidence_missing,  # CP Art. 31: the clerk asks for it
        "learned_how": view.learned_how,
        "relation": view.relation.value if view.relation else None,
        "relation_ended_on": view.relation_ended_on.isoformat() if view.relation_ended_on else None,
        "identity_restricted": view.identity_restricted,
        "author": {**author, "label": view.author.label},
        "received_at": view.received_at.isoformat(),
        "due_on": view.due_on.isoformat(),
        "extended": view.extended,
        "extension_reason": view.extension_reason,
        "complement_question": view.complement_question,
        "complement_due_on": view.complement_due_on.isoformat() if view.complement_due_on else None,
        "complement_answer": view.complement_answer,
        "assigned_staff_id": view.assigned_staff_id,
        "outcome": view.outcome.value if view.outcome else None,
        "outcome_reason": view.outcome_reason,
        "answer": view.answer,
        "satisfaction": view.satisfaction.value if view.satisfaction else None,
        "timeline": [
            {"at": e.at.isoformat(), "event": e.kind.value, "status": e.status.value, "note": e.note}
            for e in view.events
        ],
        "attachments": [asdict(a) for a in view.attachments],
    }


Action = Callable[[web.Request, int, int], Awaitable[dict[str, Any]]]


async def _act(request: web.Request, action: Action) -> web.Response:
    """Find the case, run the action as the checked staff member, answer with the case as it is now."""
    protocol = _protocol(request)
    staff = request[STAFF_ID]
    try:
        async with sessions_of(request)() as session:
            case = await get_case(session=session, protocol=protocol)
            require_proven_identity(case, identity_proven=request[IDENTITY_PROVEN])  # L13460 Art. 10 §7
            assert case.id is not None
            case_id = case.id
        extra = await action(request, staff, case_id)
        async with sessions_of(request)() as session:
            view = await staff_case(session=session, telegram_user_id=staff, case_id=case_id,
                                    identity_proven=request[IDENTITY_PROVEN])
    except CaseNotFound:
        return error(404, "not_found", "No case has that protocol number.")
    except PermissionDenied:
        return error(403, "forbidden", "This staff member may not act on this case.")
    except InvalidInput as refused:
        return error(422, "refused", refused.render(translator(API_LOCALE, settings_of(request).timezone)))
    return web.json_response({**extra, "case": _case_json(view)})


def _text(body: dict[str, Any], key: str) -> str:
    value = body.get(key)
    return str(value) if value is not None else ""


@routes.get("/api/cases")
@staff_endpoint(*STAFF)
async def queue(request: web.Request) -> web.Response:
    """The caller's queue (their role's open cases; every role for admins), nearest deadline first."""
    async with sessions_of(request)() as session:
        items = await staff_queue(session=session, telegram_user_id=request[STAFF_ID], today=_today(request),
                                  identity_proven=request[IDENTITY_PROVEN])
    return web.json_response({"cases": [
        {
            "id": item.id, "protocol": item.protocol, "kind": item.kind.value,
            "ombudsman_type": item.ombudsman_type.value if item.ombudsman_type else None,
            "status": item.status.value, "due_on": item.due_on.isoformat(), "days_left": item.days_left,
            "complement_due_on": item.complement_due_on.isoformat() if item.complement_due_on else None,
            "complement_lapsed": item.complement_lapsed, "assigned_staff_id": item.assigned_staff_id,
            "assigned_to_me": item.assigned_to_me, "summary": item.summary,
        }
        for item in items
    ]})


@routes.get("/api/cases/{protocol}")
@staff_endpoint(*STAFF)
async def show(request: web.Request) -> web.Response:
    """One case, as the caller may see it (a restricted author is a pseudonym to all but the ombudsman)."""
    protocol = _protocol(request)
    try:
        async with sessions_of(request)() as session:
            view = await staff_case(session=session, telegram_user_id=request[STAFF_ID], protocol=protocol,
                                    identity_proven=request[IDENTITY_PROVEN])
    except CaseNotFound:
        return error(404, "not_found", "No case has that protocol number.")
    except PermissionDenied:  # a role is held in one municipality: the case is another's
        return error(403, "forbidden", "This staff member may not see this case.")
    return web.json_response(_case_json(view))


@routes.get("/api/cases/{protocol}/attachments/{attachment_id:\\d+}")
@staff_endpoint(*STAFF)
async def attachment(request: web.Request) -> web.StreamResponse:
    """A file of the case, with its type and a download name."""
    protocol = _protocol(request)
    wanted = request.match_info["attachment_id"]
    found = None
    try:
        async with sessions_of(request)() as session:
            view = await staff_case(session=session, telegram_user_id=request[STAFF_ID], protocol=protocol,
                                    identity_proven=request[IDENTITY_PROVEN])
            shown = next((a for a in view.attachments if str(a.id) == wanted), None)  # no int(): 30 digits
            if shown is not None:
                found = await session.get(CaseAttachment, shown.id)
    except CaseNotFound:
        return error(404, "not_found", "No case has that protocol number.")
    except PermissionDenied:
        return error(403, "forbidden", "This staff member may not see this case.")
    if shown is None or found is None:
        return error(404, "not_found", "The case has no such file.")
    return citizen_file(found.content, mime_type=found.mime_type, file_name=shown.file_name, sha256=found.sha256)


@routes.post("/api/cases/{protocol}/assign")
@staff_endpoint(*STAFF)
async def assign_case(request: web.Request) -> web.Response:
    """Take the case, or give it to a colleague of the same role (``staff_telegram_id``)."""
    body = await json_object(request)
    raw = body.get("staff_telegram_id")
    if raw is not None and not str(raw).isdigit():
        return error(422, "refused", "staff_telegram_id must be a Telegram user id.")

    async def run(request: web.Request, staff: int, case_id: int) -> dict[str, Any]:
        async with sessions_of(request)() as session:
            await assign(session=session, telegram_user_id=staff, case_id=case_id, now=utcnow(),
                         assignee_telegram_user_id=int(raw) if raw is not None else None)
        return {}

    return await _act(request, run)


@routes.post("/api/cases/{protocol}/complement")
@staff_endpoint(*STAFF)
async def complement(request: web.Request) -> web.Response:
    """Ask the author for more information; they have 20 days (D9492 Art. 18)."""
    body = await json_object(request)

    async def run(request: web.Request, staff: int, case_id: int) -> dict[str, Any]:
        async with sessions_of(request)() as session:
            due = await request_complement(session=session, telegram_user_id=staff, case_id=case_id,
                                           question=_text(body, "question"), now=utcnow(),
                                           cities=cities_of_request(request))
        return {"complement_due_on": due.isoformat()}

    return await _act(request, run)


@routes.post("/api/cases/{protocol}/decision")
@staff_endpoint(*STAFF)
async def decision(request: web.Request) -> web.Response:
    """Decide a representação or a ride-hailing report (CP Art. 32): notify, auto, or archive with a reason."""
    body = await json_object(request)
    try:
        outcome = Outcome(str(body.get("outcome")))
    except ValueError:
        return error(422, "refused", "outcome must be notify, auto or archive.")

    async def run(request: web.Request, staff: int, case_id: int) -> dict[str, Any]:
        async with sessions_of(request)() as session:
            decided = await decide(session=session, telegram_user_id=staff, case_id=case_id, outcome=outcome,
                                   reason=_text(body, "reason") or None, now=utcnow())
        handover = decided.handover
        if handover is None:
            return {"handover": None}
        occurred = handover.occurred_on.isoformat() if handover.occurred_on else None
        return {"handover": {**asdict(handover), "occurred_on": occurred, "notice_fields": handover.notice_fields()}}

    return await _act(request, run)


@routes.post("/api/cases/{protocol}/answer")
@staff_endpoint(*STAFF)
async def answer(request: web.Request) -> web.Response:
    """The ombudsman's conclusive answer (L13460 Art. 12); the author gets it in the chat."""
    body = await json_object(request)

    async def run(request: web.Request, staff: int, case_id: int) -> dict[str, Any]:
        async with sessions_of(request)() as session:
            await answer_case(session=session, telegram_user_id=staff, case_id=case_id, text=_text(body, "text"),
                              cities=cities_of_request(request),
                              now=utcnow())
        return {}

    return await _act(request, run)


@routes.post("/api/cases/{protocol}/extend")
@staff_endpoint(*STAFF)
async def extend_deadline(request: web.Request) -> web.Response:
    """Extend the answer deadline once by 30 days, with a reason (L13460 Art. 16)."""
    body = await json_object(request)

    async def run(request: web.Request, staff: int, case_id: int) -> dict[str, Any]:
        async with sessions_of(request)() as session:
            due = await extend(session=session, telegram_user_id=staff, case_id=case_id,
                               reason=_text(body, "reason"), now=utcnow(), cities=cities_of_request(request))
        return {"due_on": due.isoformat()}

    return await _act(request, run)


@routes.post("/api/cases/{protocol}/archive")
@staff_endpoint(*STAFF)
async def archive(request: web.Request) -> web.Response:
    """Archive an ombudsman case without an answer, with a reason the author is told."""
    body = await json_object(request)

    async def run(request: web.Request, staff: int, case_id: int) -> dict[str, Any]:
        async with sessions_of(request)() as session:
            await archive_ombudsman(session=session, telegram_user_id=staff, case_id=case_id,
                                    reason=_text(body, "reason"), now=utcnow(), cities=cities_of_request(request))
        return {}

    return await _act(request, run)
