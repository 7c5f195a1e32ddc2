"""Notificações: the list of penalty notices, the issue form and the PDF (``/entregas`` is ``deliveries``).

The form has every element of CP Art. 25 (notificação preliminar) / Art. 34 (auto de infração) and Lei 1.533/2020
Art. 22; it calls :func:`models.notices.issuing.issue_notice`, the function the bot, the API and the CLI call, and a
refusal is shown next to each field with its article. A decided case opens the form already filled from its
hand-over (:func:`models.notices.from_case.input_from_case`), never with the author.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from aiohttp import web
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_, Translator
from core.municipality import Publication
from handlers.web.console.forms import db, form_text, typed_day
from handlers.web.console.guard import console_page, elsewhere, works_in
from handlers.web.console.infractions import ISSUERS, choice, code_label, found, issuing_rulebooks, named, no_match
from handlers.web.console.labels import CIENCIA_NAMES
from handlers.web.console.rendering import message_page, render
from handlers.web.console.staff import ConsoleStaff, staff_of
from handlers.web.keys import SETTINGS, cities_of_request
from models.cases.protocol import normalize_protocol
from models.cases.tables import Case
from models.cases.timeline import CaseNotFound, get_case
from models.columns import utcnow
from models.console.notice_list import list_notices, notice_ciencias, origin_protocols
from models.invalid_input import InvalidInput
from models.notices.access import access_notice
from models.notices.decision_documents import decision_documents
from models.notices.documents import offender_document
from models.notices.elements import NoticeInput, NoticeRefused
from models.notices.from_case import CaseReference, input_from_case
from models.notices.issuing import issue_notice
from models.notices.labels import DECISION_LABELS as DECISION_NAMES
from models.notices.tables import NoticeType
from models.payments.recording import payments_of
from models.rulebooks.catalogue import LAW_TITLES
from models.when import parse_time

routes = web.RouteTableDef()
FIELDS = ("type", "rulebook", "infraction_code", "infraction_search", "case_protocol", "offender_name",
          "offender_document", "offender_address", "place",
          "drawn_up_on", "drawn_up_time", "facts", "witnesses", "inspection_term", "units", "case_id",
          "preliminar_number", "person_id", "person_telegram_id", "infringed_provision", "platform_name",
          "confirm_late")
SIGNATURE_PROBLEMS = {"issuer_name": "signature", "late": "late"}
"""Refusals about who signs (CP Art. 12) or when (Lei 1.533 Art. 22 §1), shown beside the signature line."""
STAGE_NAMES = {
    "awaiting_ciencia": N_("Awaiting ciência"),
    "notified": N_("Notified"),
    "under_review": N_("Defence under review"),
    "decided": N_("Decided"),
    "appealed": N_("Appealed"),
    "closed": N_("Closed"),
}


@routes.get("/notificacoes")
@console_page(*ISSUERS)
async def notice_list(request: web.Request) -> web.Response:
    """Notices, newest first, searched by number or offender."""
    staff = staff_of(request)
    raw_page = request.query.get("pagina", "1")
    page = int(raw_page) if raw_page.isdecimal() and len(raw_page) < 6 else 1
    text = request.query.get("q", "")[:100]
    async with db(request)() as session:
        notices, has_next = await list_notices(session=session, text=text, page=page, municipalities=staff.shown)
        ciencias = await notice_ciencias(session=session, notice_ids=[n.id for n in notices if n.id is not None])
        paid = await payments_of(session=session, notice_ids=[n.id for n in notices if n.id is not None])
        decisions = await decision_documents(session=session, notice_ids=[n.id for n in notices if n.id is not None])
        origins = await origin_protocols(session=session, notices=notices)
    return render(request, "notices.html", {
        "title": staff.tr._("Penalty notices"), "notices": notices, "text": text, "page": page,
        "has_next": has_next, "stages": STAGE_NAMES, "issued": request.query.get("emitida", ""),
        "ciencias": ciencias, "ciencia_names": CIENCIA_NAMES, "paid": paid, "origins": origins,
        "infraction_label": code_label,
        "decisions": decisions, "decision_names": DECISION_NAMES,  # issue 18: each decision's signed PDF
    })


def _values(data: NoticeInput) -> dict[str, str]:
    values = {name: "" if getattr(data, name, None) is None else str(getattr(data, name)) for name in FIELDS
              if hasattr(data, name)}
    values["type"] = data.type.value if data.type else ""
    if data.drawn_up_time is not None:
        values["drawn_up_time"] = data.drawn_up_time.strftime("%H:%M")
    return values


async def _form(request: web.Request, values: dict[str, str], errors: dict[str, list[str]],
                status: int = 200, reference: CaseReference | None = None, searched: bool = False) -> web.Response:
    tr = staff_of(request).tr
    rulebooks = await issuing_rulebooks(request)  # the laws of the municipalities where one may issue
    query = values.get("infraction_search", "").strip()
    return render(request, "notice_form.html", {
        "title": tr._("Issue a penalty notice"), "values": values, "errors": errors, "rulebooks": rulebooks,
        "law_titles": LAW_TITLES, "reference": reference,
        "found": found(query, rulebooks) if searched and query else [], "searched": searched and bool(query),
        "no_match": no_match(tr), "chosen": named(values.get("infraction_code", ""), rulebooks),
    }, status=status)


@routes.get("/notificacoes/nova")
@console_page(*ISSUERS)
async def new_notice(request: web.Request) -> web.Response:
    """The issue form; ``?caso=ID`` fills it from a decided case's hand-over (without the author)."""
    staff = staff_of(request)
    raw = request.query.get("caso", "")
    values: dict[str, str] = {}  # the signer is who issues it, when they issue it (issue 18 §2)
    reference = None
    number = request.query.get("preliminar", "")[:30]
    if number:  # CP Art. 28-29: the auto that follows a preliminar (refused, or its deadline run out)
        async with db(request)() as session:
            preliminar = await access_notice(session=session, number=number, telegram_user_id=staff.telegram_user_id,
                                             shown=staff.shown)
        if preliminar is not None and preliminar.type is NoticeType.PRELIMINAR:
            values |= {"type": NoticeType.AUTO.value, "rulebook": preliminar.rulebook,
                       "infraction_code": preliminar.infraction_code, "preliminar_number": preliminar.number,
                       "offender_name": preliminar.offender_name, "offender_address": preliminar.offender_address or "",
                       "place": preliminar.place, "infringed_provision": preliminar.infringed_provision or ""}
    if raw.isdecimal() and len(raw) < 10:
        case = await _case(request, int(raw))
        if case is not None and not await works_in(request, case.municipality, ISSUERS):
            return elsewhere(request)
        async with db(request)() as session:
            try:
                prefill = await input_from_case(session=session, city=cities_of_request(request).default,
                                                case_id=int(raw),
                                                issuer_name=staff.name, now=utcnow())
            except LookupError:
                return message_page(request, status=404, title=staff.tr._("Case not found"), text=staff.tr._(
                    "That case was not decided for a notice."))
        values = {key: value for key, value in _values(prefill.data).items() if value and key != "case_id"}
        values["offender_document"] = ""  # typed again by the staff member, never prefilled into the page
        if case is not None:
            values["case_protocol"] = case.protocol  # the case as staff know it, never its database id
        reference = prefill.reference  # the citizen's words: beside the form, never in it (issue 18 §6)
    return await _form(request, values, {}, reference=reference)


async def _reference(request: web.Request, protocol: str) -> CaseReference | None:
    """The citizen's account of the origin case, kept beside the form while the infraction is sought (issue 18 §6)."""
    case_id = await _case_by_protocol(request, protocol) if protocol.strip() else None
    if case_id is None:
        return None
    case = await _case(request, case_id)
    if case is None or not await works_in(request, case.municipality, ISSUERS):
        return None
    async with db(request)() as session:
        try:
            prefill = await input_from_case(session=session, city=cities_of_request(request).default, case_id=case_id,
                                            issuer_name=staff_of(request).name, now=utcnow())
        except LookupError:
            return None
    return prefill.reference


async def _case_by_protocol(request: web.Request, raw: str) -> int | None:
    """The id of the case with this protocol (as typed: spaces and case do not matter), or None."""
    protocol = normalize_protocol(raw)
    if protocol is None:
        return None
    async with db(request)() as session:
        try:
            return (await get_case(session=session, protocol=protocol)).id
        except CaseNotFound:
            return None


async def _case(request: web.Request, case_id: int) -> Case | None:
    async with db(request)() as session:
        return await session.get(Case, case_id)


def _parse(values: dict[str, str], errors: dict[str, list[str]], name: str, parse: Any, tr: Any) -> Any:
    raw = values.get(name, "").strip()
    if not raw:
        return None
    try:
        return parse(raw)
    except (ValueError, InvalidOperation):
        errors.setdefault(name, []).append(tr._("This value is not valid."))
        return None


def _whole(raw: str) -> int:
    if not (raw.isascii() and raw.isdecimal() and len(raw) < 16):
        raise ValueError(raw)
    return int(raw)


def _document(values: dict[str, str], errors: dict[str, list[str]], tr: Translator) -> str | None:
    """The offender's CPF or CNPJ, checked (a wrong one is an error of its field), None when blank."""
    if not values["offender_document"].strip():
        return None
    try:
        return offender_document(values["offender_document"])
    except InvalidInput as refused:
        errors["offender_document"] = [refused.render(tr)]
        return None


async def _case_id(request: web.Request, values: dict[str, str], errors: dict[str, list[str]],
                   tr: Translator) -> int | None:
    """The case the notice comes from, by id or protocol; its errors are shown at the protocol's field."""
    case_id = _parse(values, errors, "case_id", _whole, tr)
    if values["case_protocol"].strip():  # CP Art. 32: the case that led to it, named by its protocol
        case_id = await _case_by_protocol(request, values["case_protocol"])
        if case_id is None:
            errors.setdefault("case_protocol", []).append(tr._("No case has that protocol number."))
    if "case_id" in errors:
        errors.setdefault("case_protocol", []).extend(errors.pop("case_id"))
    return case_id


async def _preliminar_id(session: AsyncSession, staff: ConsoleStaff, values: dict[str, str],
                         errors: dict[str, list[str]]) -> int | None:
    """The notificação preliminar named by its number, if the staff member may see it."""
    if not values["preliminar_number"].strip():
        return None
    preliminar = await access_notice(session=session, number=values["preliminar_number"],
                                     telegram_user_id=staff.telegram_user_id, shown=staff.shown)
    if preliminar is None:
        errors.setdefault("preliminar_number", []).append(staff.tr._("No notice has that number."))
        return None
    return preliminar.id


def _field_of(element: str) -> str:
    """The form field that shows a problem with an element of the notice."""
    return SIGNATURE_PROBLEMS.get(element) or (
        "case_protocol" if element == "case_id" else element if element in FIELDS
        else "preliminar_number" if element == "preliminar_id" else "units")


@routes.post("/notificacoes/nova")
@console_page(*ISSUERS)
async def issue(request: web.Request) -> web.StreamResponse:
    """Issue the notice; a refusal shows each problem next to its field, with the article, keeping what was typed."""
    staff = staff_of(request)
    tr = staff.tr
    settings = request.config_dict[SETTINGS]
    values = {name: await form_text(request, name, 4000) for name in FIELDS}
    pressed = await form_text(request, "choose", 120)
    if pressed or await form_text(request, "search", 2):  # the infraction sought by its words: nothing is issued
        row = choice(pressed, await issuing_rulebooks(request)) if pressed else None
        if row is not None:
            values |= {"infraction_code": row.code, "rulebook": row.rulebook}
        return await _form(request, values, {}, searched=not pressed,
                           reference=await _reference(request, values["case_protocol"]))
    errors: dict[str, list[str]] = {}
    document = _document(values, errors, tr)
    notice_type = _parse(values, errors, "type", NoticeType, tr)
    drawn_on = _parse(values, errors, "drawn_up_on", lambda raw: typed_day(request, raw), tr)
    drawn_at = _parse(values, errors, "drawn_up_time", parse_time, tr)
    units = _parse(values, errors, "units", Decimal, tr)
    case_id = await _case_id(request, values, errors, tr)
    person_id = _parse(values, errors, "person_id", _whole, tr)
    person_telegram_id = _parse(values, errors, "person_telegram_id", _whole, tr)
    case = await _case(request, case_id) if case_id is not None else None
    if case is not None and not await works_in(request, case.municipality, ISSUERS):
        return elsewhere(request)
    async with db(request)() as session:
        preliminar_id = await _preliminar_id(session, staff, values, errors)
        if errors:
            return await _form(request, values, errors, status=422)
        data = NoticeInput(
            type=notice_type, rulebook=values["rulebook"] or None, infraction_code=values["infraction_code"] or None,
            offender_name=values["offender_name"] or None, offender_document=document,
            offender_address=values["offender_address"] or None, place=values["place"] or None,
            drawn_up_on=drawn_on, drawn_up_time=drawn_at, facts=values["facts"] or None,
            witnesses=values["witnesses"] or None,
            inspection_term=values["inspection_term"] or None, case_id=case_id, preliminar_id=preliminar_id,
            units=units, person_id=person_id, person_telegram_id=person_telegram_id,
            infringed_provision=values["infringed_provision"] or None, platform_name=values["platform_name"] or None,
        )
        owner = settings.municipalities.with_rulebook(data.rulebook) if data.rulebook else None
        if owner is not None and not await works_in(request, owner.slug, ISSUERS):
            return elsewhere(request)  # CF Art. 30 I: an auto under a city's law is that city hall's act (a role there)
        try:
            issued = await issue_notice(session=session, cities=cities_of_request(request),
                                        publication=Publication.of(settings), data=data, actor=staff.actor,
                                        issuer_telegram_id=staff.telegram_user_id,
                                        late_confirmed=values["confirm_late"] == "sim")
        except NoticeRefused as refused:
            for problem in refused.problems:
                errors.setdefault(_field_of(problem.element), []).append(problem.render(tr))
            return await _form(request, values, errors, status=422)
    raise web.HTTPSeeOther(f"/painel/notificacoes?emitida={issued.notice.number}")


@routes.get("/notificacoes/{number}.pdf")
@console_page(*ISSUERS)
async def pdf(request: web.Request) -> web.Response:
    """The notice's PDF, as issued."""
    staff = staff_of(request)
    async with db(request)() as session:
        notice = await access_notice(session=session, number=request.match_info["number"][:30],
                                     telegram_user_id=staff.telegram_user_id, shown=staff.shown)
    if notice is None:
        tr = staff_of(request).tr
        return message_page(request, status=404, title=tr._("Not found"), text=tr._("No notice has that number."))
    return web.Response(body=notice.pdf, content_type="application/pdf", headers={
        "Content-Disposition": f'inline; filename="{notice.number}.pdf"'})
