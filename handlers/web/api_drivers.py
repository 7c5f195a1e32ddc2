"""Staff HTTP API of the driver registry (Lei 1.533/2020); bearer token + ``X-Balcao-Staff`` on every call.

* ``POST /api/drivers/import`` (clerk) — the registry CSV as the body (``text/csv``, UTF-8; ``?dry_run=1`` only
  validates). 200 with the counts, or 422 ``invalid_rows`` with every bad row's line and reason (in English, like
  every message of the API; the console and the CLI show the same reasons in their reader's language): nothing
  applied.
* ``POST /api/drivers/link-codes`` (clerk) — ``{"cpf": …}``: a one-time link code for the driver (shown once),
  its ``/start`` payload and expiry. 201; 404 ``driver_not_found``; 422 ``invalid_cpf``.
* ``GET /api/drivers/authorizations/{number}`` (clerk, inspector) — the status today with rule, article and steps.
* ``POST /api/drivers/authorizations/{number}/inspections`` (inspector) — ``{"date", "result": "approved" |
  "failed", "notes"?}``: record an inspection (Art. 9, Art. 16). 201 with the new status.
* ``POST /api/drivers/authorizations/{number}/sanctions`` (clerk) — ``{"sanction": "suspension" | "revocation" |
  "cassacao", "since", "until"?, "rule"?}``: apply a penalty of Art. 24 I; a suspension's end defaults to the
  rule's length (``l1533-24-suspensao``: 12 months; ``l1533-26-1-suspensao``: 30 days; ``l1533-26vi-suspensao``).

Errors are ``{"error": code, "message": …}``. The CPF never appears in full in a response.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from aiohttp import web

from core.i18n import translator
from handlers.web.json_api import error, error_exception, json_object
from handlers.web.keys import cities_of_request, sessions_of, settings_of
from handlers.web.staff_auth import STAFF_ID, staff_endpoint
from models.columns import utcnow
from models.drivers.identifiers import InvalidIdentifier
from models.drivers.importing import import_drivers
from models.drivers.linking import DriverNotFound, create_link_code
from models.drivers.registry import (
    SUSPENSION_RULES,
    DriverSituation,
    Sanction,
    apply_sanction,
    authorization_by_number,
    record_inspection,
    registry_city,
    situation_of,
)
from models.drivers.registry_csv import RowProblem, parse_date
from models.drivers.tables import Driver, InspectionResult
from models.invalid_input import InvalidInput
from models.people import Role, staff_municipalities
from models.rulebooks.catalogue import L1533
from models.when import Towards, municipal_today

routes = web.RouteTableDef()
ENGLISH = translator("en")
"""The API's messages are English (DESIGN.md): the reasons the models give as msgids are rendered in it."""


def _problems(problems: list[RowProblem]) -> list[dict[str, Any]]:
    return [{"line": problem.line, "reason": problem.render(ENGLISH)} for problem in problems]


def _iso(day: dt.date | None) -> str | None:
    return day.isoformat() if day is not None else None


def situation_json(situation: DriverSituation) -> dict[str, Any]:
    """A driver's situation as JSON (dates ISO; the CPF masked)."""
    status = situation.status
    return {
        "number": situation.authorization_number,
        "driver": {"name": situation.name, "cpf": situation.cpf_masked, "linked": situation.person_id is not None},
        "vehicle": {"plate": situation.plate, "model_year": situation.model_year},
        "status": {
            "on": status.on.isoformat(),
            "kind": status.kind.value,
            "rule": status.rule,
            "article": f"Lei 1.533/2020, {status.article}",
            "until": _iso(status.until),
            "days_left": status.days_left,
            "valid_until": status.valid_until.isoformat(),
            "renew_by": status.renew_by.isoformat(),
            "may_serve": status.may_serve,
            "vehicle_last_day": status.vehicle_last_day.isoformat(),
            "suspended_until": _iso(status.suspended_until),
            "inspection": {
                "last_on": _iso(status.inspection.last_on),
                "last_result": status.inspection.last_result.value if status.inspection.last_result else None,
                "due_on": _iso(status.inspection.due_on),
            },
            "next_steps": [
                {
                    "step": step.code.value,
                    "article": f"Lei 1.533/2020, {step.article}",
                    "deadline": _iso(step.deadline),
                    "days_left": step.days_left,
                    "overdue": step.overdue,
                    "legal_deadline": step.legal_deadline,
                }
                for step in status.next_steps
            ],
        },
    }


def _date_field(request: web.Request, body: dict[str, Any], name: str, *, required: bool = True,
                towards: Towards = "past") -> dt.date | None:
    value = body.get(name)
    if value is None and not required:
        return None
    if value is None:
        raise error_exception(web.HTTPUnprocessableEntity, "bad_date", f"{name}: required (YYYY-MM-DD or DD/MM/YYYY)")
    try:
        return parse_date(str(value), today=municipal_today(settings_of(request).tz, now=utcnow()), towards=towards)
    except InvalidInput as exc:
        raise error_exception(web.HTTPUnprocessableEntity, "bad_date", f"{name}: {exc.render(ENGLISH)}") from None


async def _situation_response(request: web.Request, number: str, status: int = 200) -> web.Response:
    city = registry_city(cities_of_request(request))
    async with sessions_of(request)() as session:
        authorization = await authorization_by_number(session=session, number=number)
        driver = await session.get(Driver, authorization.driver_id) if authorization else None
        situation = (
            await situation_of(session=session, driver=driver, on=municipal_today(city.tz, now=utcnow()), city=city)
            if driver is not None
            else None
        )
    if situation is None:
        return error(404, "authorization_not_found", f"No authorization nº {number}.")
    return web.json_response(situation_json(situation), status=status)


async def _outside_registry(request: web.Request, *roles: Role) -> web.Response | None:
    """403 unless the caller holds one of ``roles`` where the driver registry is.

    Lei 1.533/2020 is Sapezal's law, and a staff role is held in one municipality (CF Art. 30 I).
    """
    registry = settings_of(request).municipalities.with_rulebook(L1533)
    async with sessions_of(request)() as session:
        reach = await staff_municipalities(session=session, telegram_user_id=request[STAFF_ID],
                                           allowed=frozenset(roles))
    if reach is None or (registry is not None and registry.slug in reach):
        return None
    return error(403, "forbidden", "The driver registry (Lei 1.533/2020) belongs to another municipality.")


@routes.post("/api/drivers/import")
@staff_endpoint(Role.CLERK)
async def import_registry(request: web.Request) -> web.Response:
    """Import the registry CSV (all or nothing), audited as the calling staff member."""
    if (refused := await _outside_registry(request, Role.CLERK)) is not None:
        return refused
    raw = await request.read()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return error(422, "not_utf8", "The file is not UTF-8; export it again as UTF-8 CSV.")
    settings = settings_of(request)
    async with sessions_of(request)() as session:
        report = await import_drivers(
            session=session,
            text=text,
            actor=f"staff:{request[STAFF_ID]}",
            cities=cities_of_request(request),
            today=municipal_today(settings.tz, now=utcnow()),
            dry_run=request.query.get("dry_run") in ("1", "true", "yes"),
        )
    if report.errors:
        return error(
            422,
            "invalid_rows",
            f"{len({p.line for p in report.errors})} bad row(s): nothing was imported.",
            errors=_problems(report.errors),
            warnings=_problems(report.warnings),
        )
    return web.json_response(
        {
            "applied": report.applied,
            "rows": report.rows,
            "created": report.created,
            "updated": report.updated,
            "unchanged": report.unchanged,
            "warnings": _problems(report.warnings),
        }
    )


@routes.post("/api/drivers/link-codes")
@staff_endpoint(Role.CLERK)
async def new_link_code(request: web.Request) -> web.Response:
    """A one-time code for a driver to link Telegram (the code is shown only in this response)."""
    if (refused := await _outside_registry(request, Role.CLERK)) is not None:
        return refused
    body = await json_object(request, code="bad_body")
    try:
        async with sessions_of(request)() as session:
            issued = await create_link_code(
                session=session,
                cpf=str(body.get("cpf", "")),
                actor=f"staff:{request[STAFF_ID]}",
                now=utcnow(),
                city=registry_city(cities_of_request(request)),
            )
    except InvalidIdentifier as exc:
        return error(422, "invalid_cpf", exc.render(ENGLISH))
    except DriverNotFound as exc:
        return error(404, "driver_not_found", str(exc))
    return web.json_response(
        {
            "code": issued.code,
            "start_payload": issued.start_payload,
            "expires_at": issued.expires_at.isoformat(),
            "driver": {"name": issued.driver_name, "cpf": issued.cpf_masked},
        },
        status=201,
    )


@routes.get(r"/api/drivers/authorizations/{number:.+}")
@staff_endpoint(Role.CLERK, Role.INSPECTOR)
async def authorization_status_view(request: web.Request) -> web.Response:
    """The status of an authorization today."""
    if (refused := await _outside_registry(request, Role.CLERK, Role.INSPECTOR)) is not None:
        return refused
    return await _situation_response(request, request.match_info["number"])


@routes.post(r"/api/drivers/authorizations/{number:.+}/inspections")
@staff_endpoint(Role.INSPECTOR)
async def new_inspection(request: web.Request) -> web.Response:
    """Record an inspection of the authorization's current vehicle (Art. 9, Art. 16)."""
    if (refused := await _outside_registry(request, Role.INSPECTOR)) is not None:
        return refused
    number = request.match_info["number"]
    body = await json_object(request, code="bad_body")
    day = _date_field(request, body, "date")
    assert day is not None
    try:
        result = InspectionResult(str(body.get("result", "")))
    except ValueError:
        return error(422, "bad_result", 'result must be "approved" or "failed".')
    settings = settings_of(request)
    if day > municipal_today(settings.tz, now=utcnow()):
        return error(422, "bad_date", "date: an inspection cannot be in the future.")
    async with sessions_of(request)() as session:
        authorization = await authorization_by_number(session=session, number=number)
        if authorization is None:
            return error(404, "authorization_not_found", f"No authorization nº {number}.")
        await record_inspection(
            session=session,
            vehicle_id=authorization.vehicle_id,
            inspected_on=day,
            result=result,
            actor=f"staff:{request[STAFF_ID]}",
            notes=str(body.get("notes", ""))[:2000],
        )
        await session.commit()
    return await _situation_response(request, number, status=201)


@routes.post(r"/api/drivers/authorizations/{number:.+}/sanctions")
@staff_endpoint(Role.CLERK)
async def new_sanction(request: web.Request) -> web.Response:
    """Apply a suspension, revocation or cassação (Art. 24 I b, c, f)."""
    if (refused := await _outside_registry(request, Role.CLERK)) is not None:
        return refused
    number = request.match_info["number"]
    body = await json_object(request, code="bad_body")
    try:
        sanction = Sanction(str(body.get("sanction", "")))
    except ValueError:
        return error(422, "bad_sanction", 'sanction must be "suspension", "revocation" or "cassacao".')
    since = _date_field(request, body, "since")
    until = _date_field(request, body, "until", required=False, towards="future")
    rule = str(body.get("rule", "l1533-24-suspensao"))
    if rule not in SUSPENSION_RULES:
        return error(422, "bad_rule", "rule must be one of " + ", ".join(sorted(SUSPENSION_RULES)) + ".")
    assert since is not None
    async with sessions_of(request)() as session:
        authorization = await authorization_by_number(session=session, number=number)
        if authorization is None:
            return error(404, "authorization_not_found", f"No authorization nº {number}.")
        try:
            await apply_sanction(
                session=session,
                authorization=authorization,
                sanction=sanction,
                since=since,
                until=until,
                suspension_rule=rule,
                actor=f"staff:{request[STAFF_ID]}",
                city=registry_city(cities_of_request(request)),
            )
        except ValueError as exc:
            return error(422, "bad_dates", str(exc))
        await session.commit()
    return await _situation_response(request, number, status=201)
