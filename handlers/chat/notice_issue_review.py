"""The review of /emitir (``handlers.chat.notice_issue``): every element, the fine as it will be, and what stops it.

It runs ``models.notices.issuing.prepare`` (the person, recidivism, the fine: CP Art. 8, 12) and the signing
check (issue 18 §2; L1533 Art. 22 §1) each time it is shown, so Issue is offered only when the act can be
issued, and each problem names the steps to change (``ELEMENT_STEPS``, the vocabulary of ``Problem.element``).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from sqlmodel import select

from handlers.chat.context import BalcaoContext
from handlers.chat.engine import Review, Turn
from handlers.chat.replies import esc
from models.columns import utcnow
from models.fines import per_square_metre
from models.notices.elements import NoticeInput, NoticeRefused
from models.notices.issuing import LATE, check_signing, city_for_rulebook, prepare
from models.notices.pdf import format_document
from models.notices.tables import NoticeType
from models.notices.wording import ILLUSTRATIVE_FINE
from models.people import StaffMember
from models.rulebooks.catalogue import CP, L1533, LAW_TITLES, CatalogueError, Infraction, get_infraction
from notifications.notice_messages import TYPE_LABELS

AUTO_ONLY = {"witnesses", "term"}
# Every refusal offers to change the field it names (issue 9 item 6): element of the notice -> step(s) of the form.
ELEMENT_STEPS: dict[str, tuple[str, ...]] = {
    "rulebook": ("rulebook",), "type": ("type",), "infraction_code": ("infraction",), "offender_name": ("name",),
    "offender_document": ("document",), "offender_address": ("address",), "person_id": ("person",),
    "person_telegram_id": ("person",), "place": ("place",), "drawn_up_on": ("date", "time"),
    "drawn_up_time": ("time",), "facts": ("facts",), "witnesses": ("witnesses",), "inspection_term": ("term",),
    "quantity": ("quantity",), "units": ("units",),
    "infraction_on": ("infraction_date",),
    "infringed_provision": ("provision",), "platform_name": ("platform",),
    "fine": ("infraction_date",),  # e.g. no unit value for the year of the infraction (CP Art. 12)
}
ALWAYS_EDITABLE = ("infraction", "name", "place", "date", "time", "facts")


def offered_rulebooks(context: BalcaoContext) -> list[str]:
    """The laws the staff member may choose: their municipality's, or every one's for deployment-wide staff.

    The issue itself checks the role in the municipality whose law it is (``require_issuer``).
    """
    if context.person.municipality is not None:
        return list(context.settings.rulebooks)
    served = context.deployment_settings.municipalities
    return [book for item in served.values() for book in item.rulebooks]


def _infraction_of(data: dict[str, Any]) -> Infraction | None:
    try:
        return get_infraction(str(data["code"])) if data.get("code") else None
    except CatalogueError:
        return None


def applies(step: str, data: dict[str, Any]) -> bool:
    """Whether the form asks ``step`` for these answers."""
    if step == "rulebook":
        return bool(data.get("choose_rulebook"))
    if step == "type":
        return data.get("rulebook") == CP
    if step in AUTO_ONLY:
        return data.get("type") == NoticeType.AUTO.value
    if step == "platform":  # L1533 Art. 22: the platform is notified too
        return data.get("rulebook") == L1533
    if step == "provision":  # CP Art. 34 III: an "Outros" item names no conduct
        found = _infraction_of(data)
        return found is not None and found.provision_required
    if step in ("quantity", "units"):
        infraction = _infraction_of(data)
        if infraction is None:
            return False
        # CP Tabela III items 2-4 (Art. 68): "por m² de espaço em via pública"; a row the table lost needs units.
        return per_square_metre(infraction) if step == "quantity" else infraction.units is None
    return True


def notice_input(data: dict[str, Any]) -> NoticeInput:
    """The form's answers as the elements of a notice."""
    hour = data.get("time")
    return NoticeInput(
        type=NoticeType(data["type"]) if data.get("type") else None,
        rulebook=data.get("rulebook"),
        infraction_code=data.get("code"),
        offender_name=data.get("name"),
        offender_document=data.get("document"),
        offender_address=data.get("address"),
        person_telegram_id=int(data["person"]) if data.get("person") else None,
        person_id=data.get("person_id"),
        place=data.get("place"),
        drawn_up_on=dt.date.fromisoformat(data["date"]) if data.get("date") else None,
        drawn_up_time=dt.time.fromisoformat(hour) if hour else None,
        infraction_on=dt.date.fromisoformat(data["infraction_date"]) if data.get("infraction_date") else None,
        quantity=Decimal(data["quantity"]) if data.get("quantity") else None,
        units=Decimal(data["units"]) if data.get("units") else None,
        facts=data.get("facts"),
        witnesses=data.get("witnesses"),
        inspection_term=data.get("term"),
        case_id=data.get("case_id"),
        infringed_provision=data.get("provision"),
        platform_name=data.get("platform"),
    )


async def _signer_name(context: BalcaoContext) -> str:
    async with context.sessions() as session:
        member = (await session.exec(
            select(StaffMember).where(StaffMember.telegram_user_id == context.person.telegram_user_id))).first()
    return (member.name if member is not None else "") or context.person.first_name


async def _elements(turn: Turn) -> list[str]:
    tr, data = turn.tr, turn.data
    shown = [
        (tr._("Law"), LAW_TITLES.get(data.get("rulebook", ""), "")),
        (tr._("Type"), tr._(TYPE_LABELS[NoticeType(data["type"])]) if data.get("type") else ""),
        (tr._("Infraction"), data.get("code", "")),
        (tr._("Provision infringed"), data.get("provision") or ""),
        (tr._("Offender"), data.get("name", "")),
        (tr._("Technology platform"), data.get("platform") or ""),
        (tr._("CPF/CNPJ"), format_document(data.get("document"))),
        (tr._("Address"), data.get("address") or ""),
        (tr._("Place"), data.get("place", "")),
        (tr._("Area (m²)"), tr.number(Decimal(data["quantity"])) if data.get("quantity") else ""),
        (tr._("Fine in units"), tr.number(Decimal(data["units"])) if data.get("units") else ""),
        (tr._("Drawn up on"), f"{data.get('date', '')} {data.get('time', '')}"),
        (tr._("Infraction on"), data.get("infraction_date") or ""),
        (tr._("Facts"), data.get("facts", "")),
        (tr._("Witnesses"), data.get("witnesses") or ""),
        (tr._("Termo de fiscalização"), data.get("term") or ""),
        (tr._("Signature"), tr._("You sign it, as {name}, when you issue it: the moment of signature is recorded "
                                 "apart from the drawing up.").format(name=await _signer_name(turn.context))),
    ]
    return [f"<b>{esc(name)}:</b> {esc(value)}" for name, value in shown if value]


async def review(turn: Turn) -> Review:
    """Every element, the fine as it will be, and Issue only when the act can be issued (else what stops it)."""
    tr, data, context = turn.tr, turn.data, turn.context
    elements = notice_input(data)
    lines = await _elements(turn)
    try:
        async with context.sessions() as session:
            ready = await prepare(session=session, cities=context.cities, data=elements)
    except NoticeRefused as refused:
        lines += ["", tr._("<b>It cannot be issued yet:</b>")]
        lines += ["• " + esc(problem.render(tr)) for problem in refused.problems]
        named = [step for problem in refused.problems for step in ELEMENT_STEPS.get(problem.element, ())
                 if applies(step, data)]
        return Review("\n".join(lines), ready=False, fields=tuple(dict.fromkeys([*named, *ALWAYS_EDITABLE])))
    fine = tr._("Fine: {amount} ({units} {unit})").format(
        amount=tr.money(ready.fine.amount), units=tr.number(ready.fine.units), unit=ready.fine.unit)
    if ready.fine.doubled:
        fine += " — " + tr._("doubled: repeat offender (Art. 8)")
    if ready.recidivism_of is not None:  # CP Art. 8 par. único: the earlier notice of the same nature
        fine += "\n" + tr._("Earlier notice of the same nature: {number} ({article}).").format(
            number=esc(ready.recidivism_of.number), article=esc(ready.recidivism_of.infraction_article))
    lines += ["", fine]
    if city_for_rulebook(context.cities, elements.rulebook, otherwise=context.city).fines_illustrative:
        lines.append(tr._(ILLUSTRATIVE_FINE))  # only the demo issues with illustrative values
    lines.append(tr._("Delivery: in the bot.") if ready.person_id else
                 tr._("Delivery: nobody in the bot yet — it will go on the list for post or edital."))
    async with context.sessions() as session:  # issue 18 §2: who signs, and the L1533 Art. 22 §1 limit
        _signer, problems = await check_signing(
            session=session, cities=context.cities,
            rulebook=str(elements.rulebook), issuer_telegram_id=context.person.telegram_user_id,
            drawn_up_at=ready.drawn_up_at, now=utcnow(), late_confirmed=bool(data.get("late_confirmed")))
    lines += ["• " + esc(problem.render(tr)) for problem in problems]
    rows: list[list[tuple[str, str]]] = []
    if [problem.element for problem in problems] == [LATE] and context.settings.l1533_issue_limit == "confirm":
        rows.append([(tr._("Issue it anyway (Lei 1.533/2020, Art. 22, §1º)"), "emit:late")])
    named = [step for problem in problems for step in ELEMENT_STEPS.get(problem.element, ())]
    return Review("\n".join(lines), ready=not problems, rows=rows,
                  fields=tuple(dict.fromkeys([*named, *ALWAYS_EDITABLE])))
