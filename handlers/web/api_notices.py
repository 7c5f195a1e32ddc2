"""The staff HTTP API of penalty notices (JSON in and out; errors as ``{"error", "message"}``).

===========================================  ======================  =============================================
route                                        roles                   what
===========================================  ======================  =============================================
``POST /api/notices``                        inspector, clerk        issue, signed by the caller (422: each problem)
``GET /api/notices/{number}``                inspector, clerk        stage, deliveries, windows, filings
``GET /api/notices/{number}/pdf``            inspector, clerk        the PDF
``GET /api/notices/deliveries``              inspector, clerk        the staff list, with who claimed the CPF
``POST /api/notices/deliveries/{id}``        inspector, clerk        record ``personal``/``postal`` (AR) or ``edital``
``POST /api/notices/{number}/person``        inspector, clerk        address it to a person of the bot, found later
``GET /api/notices/filings``                 clerk                   defences and appeals waiting for a decision
``POST /api/notices/filings/{id}/decision``  clerk                   ``{"outcome": "granted"|"denied", "text"}``
``POST /api/notices/filings/{id}/vista``     clerk                   vista to the next side, 3 days (CP Art. 40 §1)
``POST /api/notices/filings/{id}/diligencia`` clerk                  ``{"text"}``: convert into a diligência (Art. 42)
``POST …/filings/{id}/diligencia/done``      clerk                   the diligência was concluded (Art. 40 again)
``GET /api/notices/chains``                  admin                   verify the transparency log and every row
===========================================  ======================  =============================================

A notice is signed by the calling staff member, who must be designated to draw up notices (CP Art. 12); a Lei 1.533
auto past the 90 days of Art. 22 §1 needs ``"confirm_late": true``. A decision is given by the competent authority
and refused to the impeded (``models.notices.authority``), with the article in ``citation``.

No appeal waits for a deposit (CP Art. 46 is not applied: STF Súmula Vinculante 21). Admins may call every
route. Messages are English (the API is for systems); the problems of a refused notice
carry their article in ``citation``.
"""

from __future__ import annotations

import base64
import datetime as dt
from collections.abc import Awaitable, Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from aiohttp import web

from core.i18n import translator
from core.municipality import Publication
from handlers import log_context
from handlers.web.json_api import error, error_exception, json_object
from handlers.web.keys import cities_of_request, sessions_of, settings_of
from handlers.web.notice_json import decided_json, delivery_json, notice_json, review_json
from handlers.web.staff_auth import STAFF_ID, staff_endpoint
from models import when
from models.columns import utcnow
from models.invalid_input import InvalidInput
from models.notices.access import ISSUERS, JUDGES, NoticeOutOfReach, access_notice, notices_reach
from models.notices.delivery import (
    DeliveryError,
    civil_date,
    cpf_claimant,
    link_person,
    record_edital,
    record_staff_delivery,
    staff_list,
)
from models.notices.documents import offender_document
from models.notices.elements import NoticeInput, NoticeRefused
from models.notices.filings import FilingRefused, decide_filing, pending_filings
from models.notices.issuing import issue_notice, require_issuer
from models.notices.review import conclude_diligencia, open_vista, order_diligencia
from models.notices.status import notice_by_number, notice_view
from models.notices.tables import CienciaKind, FilingOutcome, Notice, NoticeFiling, NoticeType
from models.people import PermissionDenied, Role
from models.tlog.heads import signing_key
from models.tlog.proofs import run
from models.tlog.verification import verify_log

routes = web.RouteTableDef()
API_LOCALE = "en"
FilingAct = Callable[..., Awaitable[NoticeFiling]]
"""A filing's act (decide, vista, diligência, its conclusion): keyword-only, as ``models.notices`` declares them."""


def _text(body: dict[str, Any], key: str) -> str | None:
    value = body.get(key)
    return str(value) if value is not None else None


def _parse(body: dict[str, Any], key: str, parse: Any) -> Any:
    raw = body.get(key)
    if raw in (None, ""):
        return None
    try:
        return parse(str(raw))
    except (ValueError, InvalidOperation):
        raise error_exception(web.HTTPUnprocessableEntity, "bad_value", f"{key}: {raw!r} is not valid.") from None


def _int(body: dict[str, Any], key: str) -> int | None:
    value: int | None = _parse(body, key, int)
    return value


def _notice_number(request: web.Request) -> str:
    number = request.match_info["number"][:64]
    log_context.bind(notice=number)
    return number


@routes.post("/api/notices")
@staff_endpoint(*ISSUERS)
async def issue(request: web.Request) -> web.Response:
    """Issue a notice from its elements; 201 with the number, the verification code and the PDF (base64)."""
    settings = settings_of(request)
    cities = cities_of_request(request)
    body = await json_object(request, not_json="The body is not JSON.")
    tr = translator(API_LOCALE, settings.timezone)
    document = None
    if body.get("offender_document"):
        try:
            document = offender_document(str(body["offender_document"]))
        except InvalidInput as exc:
            return error(422, "bad_document", exc.render(tr))
    notice_type = _parse(body, "type", NoticeType)
    today = when.municipal_today(settings.tz, now=utcnow())
    async with sessions_of(request)() as session:
        preliminar_id = None
        if body.get("preliminar_number"):
            preliminar = await notice_by_number(session=session, number=str(body["preliminar_number"]))
            if preliminar is None:
                return error(404, "not_found", "No preliminary notice has that number.")
            preliminar_id = preliminar.id
        data = NoticeInput(
            type=notice_type, rulebook=_text(body, "rulebook"), infraction_code=_text(body, "infraction_code"),
            offender_name=_text(body, "offender_name"), offender_document=document,
            offender_address=_text(body, "offender_address"), place=_text(body, "place"),
            drawn_up_on=_parse(body, "date", lambda raw: when.parse_day(raw, today=today)),
            drawn_up_time=_parse(body, "time", when.parse_time),
            facts=_text(body, "facts"), witnesses=_text(body, "witnesses"),
            inspection_term=_text(body, "inspection_term"), person_id=_int(body, "person_id"),
            person_telegram_id=_int(body, "person_telegram_id"), case_id=_int(body, "case_id"),
            preliminar_id=preliminar_id, units=_parse(body, "units", Decimal),
            infraction_on=_parse(body, "infraction_date", lambda raw: when.parse_day(raw, today=today)),
            quantity=_parse(body, "quantity", Decimal),
            # CP Art. 34 III: required on the "Outros" rows; L1533 Art. 22: the platform notified too
            infringed_provision=_text(body, "infringed_provision"), platform_name=_text(body, "platform_name"),
        )
        try:
            await require_issuer(session=session, cities=cities, city=cities.default,
                                 telegram_user_id=request[STAFF_ID],
                                 rulebook=data.rulebook, allowed=frozenset(ISSUERS))
        except PermissionDenied:
            return error(403, "forbidden", "This staff member may not issue notices in that municipality.")
        try:
            issued = await issue_notice(session=session, cities=cities, publication=Publication.of(settings), data=data,
                                        actor=f"staff:{request[STAFF_ID]}", issuer_telegram_id=request[STAFF_ID],
                                        late_confirmed=body.get("confirm_late") is True)
        except NoticeRefused as exc:
            problems = [{"element": p.element, "message": p.render(tr), "citation": p.citation}
                        for p in exc.problems]
            return error(422, "refused", "The notice was not issued.", problems=problems)
        city = cities.of(issued.notice.municipality)
        view = await notice_view(session=session, city=city, notice=issued.notice, today=civil_date(utcnow(), city))
    payload = notice_json(view, civil_date(utcnow(), city))
    payload.update(code=issued.code, pdf_base64=base64.b64encode(issued.pdf).decode("ascii"))
    return web.json_response(payload, status=201)


OTHER_MUNICIPALITY = "This notice is another municipality's: a staff role is held in one municipality."


@routes.get("/api/notices/deliveries")
@staff_endpoint(*ISSUERS)
async def deliveries(request: web.Request) -> web.Response:
    """Documents to deliver in person, by post (CP Art. 36 I–II) or by edital (III), with the address."""
    async with sessions_of(request)() as session:
        reach = await notices_reach(session=session, telegram_user_id=request[STAFF_ID], roles=ISSUERS)
        items = [item for item in await staff_list(session=session)
                 if reach is None or item.notice.municipality in reach]
        claimants = [await cpf_claimant(session=session, notice=item.notice) for item in items]
    return web.json_response({"deliveries": [
        {**delivery_json(item.delivery), "number": item.notice.number, "offender_name": item.notice.offender_name,
         "offender_address": item.notice.offender_address, "rulebook": item.notice.rulebook,
         "cpf_claimant_telegram_id": claimant.telegram_user_id if claimant is not None else None}
        for item, claimant in zip(items, claimants, strict=True)
    ]})


@routes.post("/api/notices/deliveries/{delivery_id:\\d+}")
@staff_endpoint(*ISSUERS)
async def record_delivery(request: web.Request) -> web.Response:
    """Record a delivery: ``{"how": "personal"|"postal"|"edital", "date": "YYYY-MM-DD"}`` (AR or publication date)."""
    settings = settings_of(request)
    body = await json_object(request, not_json="The body is not JSON.")
    day = _parse(body, "date", lambda raw: when.parse_day(raw, today=when.municipal_today(settings.tz, now=utcnow())))
    how = body.get("how")
    if day is None or how not in ("personal", "postal", "edital"):
        return error(422, "bad_value", 'Send "how" (personal, postal or edital) and "date" (YYYY-MM-DD).')
    actor = f"staff:{request[STAFF_ID]}"
    delivery_id = int(request.match_info["delivery_id"])
    async with sessions_of(request)() as session:
        try:  # the act checks the caller's reach itself (models.notices.access)
            if how == "edital":
                result = await record_edital(session=session, cities=cities_of_request(request),
                                             delivery_id=delivery_id,
                                             published_on=day, actor=actor, staff_telegram_id=request[STAFF_ID])
            else:
                result = await record_staff_delivery(session=session, cities=cities_of_request(request),
                                                     delivery_id=delivery_id,
                                                     how=CienciaKind(how), on=day, actor=actor,
                                                     staff_telegram_id=request[STAFF_ID])
        except NoticeOutOfReach:
            return error(403, "forbidden", OTHER_MUNICIPALITY)
        except DeliveryError as exc:
            return error(409, "refused", str(exc))
    return web.json_response(delivery_json(result.delivery))


@routes.post("/api/notices/{number}/person")
@staff_endpoint(*ISSUERS)
async def person(request: web.Request) -> web.Response:
    """Address an issued notice to a person of the bot: ``{"person_telegram_id": …}`` or ``{"person_id": …}``.

    What waits on the staff list for want of the bot is sent to the person if they accepted electronic notices.
    """
    settings = settings_of(request)
    body = await json_object(request, not_json="The body is not JSON.")
    person_id, telegram_id = _int(body, "person_id"), _int(body, "person_telegram_id")
    if (person_id is None) == (telegram_id is None):
        return error(422, "bad_value", 'Send "person_telegram_id" or "person_id".')
    async with sessions_of(request)() as session:
        try:
            notice = await access_notice(session=session, number=_notice_number(request),
                                         telegram_user_id=request[STAFF_ID])
        except NoticeOutOfReach:
            return error(403, "forbidden", OTHER_MUNICIPALITY)
        if notice is None or notice.id is None:
            return error(404, "not_found", "No notice has that number.")
        try:
            sent = await link_person(session=session, cities=cities_of_request(request), http_root=settings.http_root,
                                     notice_id=notice.id, person_id=person_id,
                                     telegram_user_id=telegram_id, actor=f"staff:{request[STAFF_ID]}")
        except DeliveryError as exc:
            return error(409, "refused", str(exc))
    return web.json_response({"number": notice.number, "person_id": notice.person_id, "sent_to_bot": sent})


@routes.get("/api/notices/filings")
@staff_endpoint(Role.CLERK)
async def filings(request: web.Request) -> web.Response:
    """Defences, reclamações and appeals waiting for a decision, oldest first."""
    async with sessions_of(request)() as session:
        reach = await notices_reach(session=session, telegram_user_id=request[STAFF_ID], roles=JUDGES)
        rows = [(f, n) for f, n in await pending_filings(session=session) if reach is None or n.municipality in reach]
    return web.json_response({"filings": [
        {**review_json(f), "number": n.number, "kind": f.kind.value, "filed_at": f.filed_at.isoformat(), "text": f.text}
        for f, n in rows
    ]})


async def _filing_act(request: web.Request, act: FilingAct, render: Callable[[NoticeFiling], dict[str, Any]],
                      **arguments: Any) -> web.Response:
    """The filing endpoints' one sequence: the act checks the reach (403) and the competence (409) itself."""
    async with sessions_of(request)() as session:
        try:
            filing = await act(session=session, cities=cities_of_request(request),
                               filing_id=int(request.match_info["filing_id"]), decider_telegram_id=request[STAFF_ID],
                               **arguments)
        except NoticeOutOfReach:
            return error(403, "forbidden", OTHER_MUNICIPALITY)
        except FilingRefused as exc:
            return error(409, "refused", exc.render(translator(API_LOCALE)), citation=exc.citation)
    return web.json_response(render(filing))


@routes.post("/api/notices/filings/{filing_id:\\d+}/decision")
@staff_endpoint(*JUDGES)
async def decision(request: web.Request) -> web.Response:
    """Decide a filing (CP Art. 40–41, 45): the decision is delivered to the person with its ciência."""
    body = await json_object(request, not_json="The body is not JSON.")
    outcome = _parse(body, "outcome", FilingOutcome)
    if outcome is None:
        return error(422, "bad_value", 'Send "outcome" (granted or denied) and "text".')
    return await _filing_act(request, decide_filing, decided_json, outcome=outcome, text=str(body.get("text") or ""),
                             publication=Publication.of(settings_of(request)))


@routes.post("/api/notices/filings/{filing_id:\\d+}/vista")
@staff_endpoint(*JUDGES)
async def vista(request: web.Request) -> web.Response:
    """Give vista of a reclamação to the next side for 3 days (CP Art. 40 §1)."""
    return await _filing_act(request, open_vista, review_json)


@routes.post("/api/notices/filings/{filing_id:\\d+}/diligencia")
@staff_endpoint(*JUDGES)
async def diligencia(request: web.Request) -> web.Response:
    """Convert the judgment of a reclamação into a diligência (CP Art. 42): ``{"text"}`` says what for."""
    body = await json_object(request, not_json="The body is not JSON.")
    return await _filing_act(request, order_diligencia, review_json, text=str(body.get("text") or ""))


@routes.post("/api/notices/filings/{filing_id:\\d+}/diligencia/done")
@staff_endpoint(*JUDGES)
async def diligencia_done(request: web.Request) -> web.Response:
    """The diligência was concluded: the 10 days of CP Art. 40 run again from today."""
    return await _filing_act(request, conclude_diligencia, review_json)


@routes.get("/api/notices/chains")
@staff_endpoint(Role.ADMIN)
async def chains(request: web.Request) -> web.Response:
    """Verify the transparency log, its heads and every row it covers (what ``notice verify`` does)."""
    key = signing_key()
    merge_delay = dt.timedelta(seconds=settings_of(request).tlog_max_merge_delay)
    async with sessions_of(request)() as session:
        report = await run(session, lambda connection: verify_log(
            connection, key=None if key is None else key.public_key(), max_merge_delay=merge_delay))
    tr = translator(API_LOCALE)
    return web.json_response({
        "ok": report.ok, "entries": report.entries, "rows": report.rows, "heads": report.heads,
        "problems": [{"where": p.where, "problem": tr._(p.problem).format(**p.params)} for p in report.problems],
    })


@routes.get("/api/notices/{number}")
@staff_endpoint(*ISSUERS)
async def show(request: web.Request) -> web.Response:
    """One notice: stage, deliveries with ciência, the windows of its stage, filings and decisions."""
    async with sessions_of(request)() as session:
        try:
            notice = await access_notice(session=session, number=_notice_number(request),
                                         telegram_user_id=request[STAFF_ID])
        except NoticeOutOfReach:
            return error(403, "forbidden", OTHER_MUNICIPALITY)
        if notice is None:
            return error(404, "not_found", "No notice has that number.")
        city = cities_of_request(request).of(notice.municipality)
        today = civil_date(utcnow(), city)
        view = await notice_view(session=session, city=city, notice=notice, today=today)
        earlier = await session.get(Notice, notice.recidivism_of) if notice.recidivism_of is not None else None
    return web.json_response(notice_json(view, today, earlier.number if earlier is not None else None))


@routes.get("/api/notices/{number}/pdf")
@staff_endpoint(*ISSUERS)
async def pdf(request: web.Request) -> web.Response:
    """The notice's PDF, as issued."""
    async with sessions_of(request)() as session:
        try:
            notice = await access_notice(session=session, number=_notice_number(request),
                                         telegram_user_id=request[STAFF_ID])
        except NoticeOutOfReach:
            return error(403, "forbidden", OTHER_MUNICIPALITY)
    if notice is None:
        return error(404, "not_found", "No notice has that number.")
    return web.Response(body=notice.pdf, content_type="application/pdf",
                        headers={"Content-Disposition": f'inline; filename="{notice.number}.pdf"'})
