"""Staff and notices in the bot: /emitir (issue), /entregas (post, in person, edital), /defesas (decide).

- /emitir — inspectors and clerks: a form, one element per step (saved after each), then a review with the fine
  computed (doubled for a repeat offender, CP Art. 8) and an explicit "Issue". A missing element is refused with
  its article (CP Art. 25 / 34; Lei 1.533 Art. 22), and every refusal offers to change the field it names.
  The day of the infraction is asked apart from the drawing up (its year's unit value, CP Art. 12); a row charged
  per m² asks the area, a row the table lost asks the units. Issue is claimed once per form key
  (``models.drafts.claim_submission``): a burst of taps issues one notice, later presses get its number.
  ``nstf:case:<case id>`` starts it from a decided representação (``models.notices.issuing.input_from_case``;
  /pendencias offers it after the decision).
  Not on ``handlers.chat.engine`` yet: its review is a synchronous summary with Send / Change, while this one runs
  ``prepare`` (the database: recidivism, the person, the fine) before offering Issue; and ``nstf:`` is shared with
  /entregas and /defesas, which ``register_form`` would capture (the form needs a prefix of its own).
- /entregas — inspectors and clerks: documents to deliver in person (CP Art. 36 I), by post with AR (II) or by
  edital (III), with the date the staff member records; Lei 1.533 notices show their 90-day limit (Art. 22 §1).
- /defesas — clerks: defences, reclamações and appeals waiting for a decision (CP Art. 40–41, 45), with the files,
  vista to each side and a diligência (Art. 40 §1, Art. 42: ``handlers.chat.staff_review``), and the decision
  (text, then confirmation).

The role is checked on every button and every message (``require_role``).
"""

from __future__ import annotations

import datetime as dt
import re
import secrets
from decimal import Decimal
from typing import Any

from sqlmodel import select
from telegram import InputFile, Update
from telegram.ext import Application, CallbackQueryHandler

from core.i18n import N_
from handlers.chat.commands import chat_command
from handlers.chat.context import BalcaoContext
from handlers.chat.delivery_refusals import refusal_row
from handlers.chat.forms import cancel_row, current_draft, form_input, save
from handlers.chat.notices import today_of
from handlers.chat.replies import esc, keyboard, menu_row, reply
from handlers.chat.staff_review import ask_diligencia, diligencia_done, review_lines, vista
from models.authorities import NotCompetent
from models.calendar import BusinessCalendar
from models.cases.catalogue_search import search_infractions
from models.cases.fields import address, clean_text, past_day
from models.columns import utcnow
from models.drafts import (
    Draft,
    claim_submission,
    discard_draft,
    find_submission,
    finish_submission,
    release_submission,
)
from models.fines import per_square_metre
from models.invalid_input import InvalidInput
from models.notices.amounts import positive_amount
from models.notices.authority import check_motivation, may_decide
from models.notices.delivery import (
    DeliveryError,
    cpf_claimant,
    link_person,
    person_by_telegram_id,
    record_edital,
    record_staff_delivery,
    staff_list,
)
from models.notices.documents import offender_document
from models.notices.filings import (
    FilingRefused,
    attachments_of,
    decide_filing,
    pending_filings,
)
from models.notices.issuing import (
    COORDINATES,
    ILLUSTRATIVE_FINE,
    LATE,
    LIMITS,
    PLACE_NOT_COORDINATES,
    NoticeInput,
    NoticeRefused,
    check_signing,
    input_from_case,
    issue_notice,
    prepare,
    require_issuer,
    settings_for_rulebook,
)
from models.notices.pdf import format_document
from models.notices.reminders import delivery_limit
from models.notices.status import notice_view
from models.notices.tables import (
    CienciaKind,
    FilingKind,
    FilingOutcome,
    Notice,
    NoticeDelivery,
    NoticeFiling,
    NoticeType,
    StaffReason,
)
from models.people import PermissionDenied, Role, StaffMember, require_role, staff_municipalities
from models.rulebooks.catalogue import CP, L1533, LAW_TITLES, CatalogueError, Infraction, get_infraction
from models.rulebooks.procedure import delivery_means, manual_means
from notifications.notice_messages import TYPE_LABELS, money
from notifications.telegram_text import small

ISSUE_FORM = "notice_issue"
DELIVERY_FORM = "notice_delivery"
LINK_FORM = "notice_link"
DECISION_FORM = "notice_decision"
ISSUERS = frozenset({Role.INSPECTOR, Role.CLERK})
DECIDERS = frozenset({Role.CLERK})
LIST_LIMIT = 20
KEY = "key"
"""The form instance's random token in its data: Issue is claimed once per key (``models.drafts``)."""

STEPS = ("rulebook", "type", "infraction", "provision", "quantity", "units", "name", "document", "address", "platform",
         "person", "place", "date", "time", "infraction_date", "facts", "witnesses", "term", "review")
# No "who draws it up" step: the act is signed by the staff member who issues it, when they issue it (issue 18 §2).
OPTIONAL = {"document", "address", "person", "infraction_date", "witnesses", "term", "platform"}
AUTO_ONLY = {"witnesses", "term"}
QUESTIONS = {
    "infraction": N_("Which infraction? Type its code (e.g. CP-I-1) or words to search the catalogue."),
    "name": N_("Name of the offender (or a designation that identifies them)."),
    "document": N_("CPF or CNPJ of the offender, if known."),
    "address": N_("Address of the offender, for delivery by post, if known."),
    "person": N_("Telegram user id of the person, if they use the bot (someone who registered this CPF is "
                 "suggested in /entregas)."),
    "place": N_("Place where the notice is drawn up: the address (street, number, district)."),
    "provision": N_("This item names no conduct: type the provision infringed, article and inciso (e.g. Art. 50, "
                    "IX)."),
    "platform": N_("Technology platform the driver works through (it is notified too, Lei 1.533 Art. 22), if "
                   "known."),
    "quantity": N_("This infraction is charged per m² of public road: how many m² are occupied (e.g. 12,5)?"),
    "units": N_("The published table lost the value of this infraction: type the fine in fiscal units (e.g. 2)."),
    "date": N_("Day it is drawn up (e.g. 4/3 or 04/03/2026)."),
    "infraction_date": N_("Day the infraction was committed, if before the drawing up (its year's unit value "
                          "applies). Press Skip if it is the same day."),
    "time": N_("Hour it is drawn up (e.g. 9:30)."),
    "facts": N_("Describe the facts."),
    "witnesses": N_("Witnesses, if any (names)."),
    "term": N_("Reference of the termo de fiscalização, if any."),
}
REASONS = {
    StaffReason.NO_PERSON: N_("nobody in the bot"),
    StaffReason.NO_OPTIN: N_("did not accept electronic notices"),
    StaffReason.UNREACHABLE: N_("unreachable in Telegram"),
    StaffReason.NOT_ACKNOWLEDGED: N_("did not confirm receipt in time"),
    StaffReason.OPTED_OUT: N_("stopped electronic notices"),
}
FILING_NAMES = {FilingKind.DEFESA: N_("defence"), FilingKind.RECLAMACAO: N_("complaint (reclamação)"),
                FilingKind.RECURSO: N_("appeal")}
STEP_ELEMENTS = {"name": "offender_name", "place": "place", "witnesses": "witnesses", "term": "inspection_term",
                 "provision": "infringed_provision", "platform": "platform_name"}
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
EDIT_LABELS = {
    "rulebook": N_("law"), "type": N_("type"), "infraction": N_("infraction"), "name": N_("name"),
    "document": N_("CPF/CNPJ"), "address": N_("address"), "person": N_("Telegram id"), "place": N_("place"),
    "date": N_("date"), "time": N_("time"), "facts": N_("facts"), "witnesses": N_("witnesses"),
    "term": N_("termo de fiscalização"), "quantity": N_("area (m²)"),
    "units": N_("fine in units"), "infraction_date": N_("day of the infraction"),
    "provision": N_("provision infringed"), "platform": N_("platform"),
}
_TIME = re.compile(r"^(\d{1,2})(?:[:h.](\d{2}))?$")


def _rulebooks(context: BalcaoContext) -> list[str]:
    """The laws the staff member may choose: their municipality's, or every one's for deployment-wide staff.

    The issue itself checks the role in the municipality whose law it is (:func:`require_issuer`).
    """
    if context.person.municipality is not None:
        return list(context.settings.rulebooks)
    served = context.deployment_settings.municipalities
    return [book for item in served.values() for book in item.rulebooks]


async def _role(update: Update, context: BalcaoContext, allowed: frozenset[Role]) -> bool:
    """Check the role now; tell the person when they may not."""
    try:
        async with context.sessions() as session:
            await require_role(session=session, telegram_user_id=context.person.telegram_user_id, allowed=allowed,
                               municipality=context.person.municipality)
    except PermissionDenied:
        await reply(update, context, context.tr._("Only staff with the right role can do this."),
                    markup=keyboard([menu_row(context)]))
        return False
    return True


# --- issuing ------------------------------------------------------------------------------------------------------


def _applies(step: str, data: dict[str, Any], settings_rulebooks: list[str]) -> bool:
    if step == "rulebook":
        return len(settings_rulebooks) > 1
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


def _infraction_of(data: dict[str, Any]) -> Infraction | None:
    try:
        return get_infraction(str(data["code"])) if data.get("code") else None
    except CatalogueError:
        return None


def _next_step(step: str, data: dict[str, Any], context: BalcaoContext) -> str:
    if data.get("editing"):  # an edit from the review, or the steps a case left blank (start_from_case)
        pending = [name for name in data.get("pending", []) if name != step and not data.get(name)]
        data["pending"] = pending
        return pending[0] if pending else "review"
    index = STEPS.index(step) + 1
    while not _applies(STEPS[index], data, _rulebooks(context)):
        index += 1
    return STEPS[index]


@chat_command("emitir", description=N_("Issue a penalty notice"), menu_label=N_("Issue a notice"),
              staff_roles=ISSUERS, order=60)
async def issue_command(update: Update, context: BalcaoContext) -> None:
    """``/emitir``: start the issue form."""
    if not await _role(update, context, ISSUERS):
        return
    data: dict[str, Any] = {}
    rulebooks = _rulebooks(context)
    if len(rulebooks) == 1:
        data["rulebook"] = rulebooks[0]
        if rulebooks[0] == L1533:
            data["type"] = NoticeType.AUTO.value
    data[KEY] = secrets.token_hex(8)
    first = "rulebook" if len(rulebooks) > 1 else ("type" if data["rulebook"] == CP else "infraction")
    await save(context, ISSUE_FORM, first, data)
    await ask(update, context, first, data)


async def ask(update: Update, context: BalcaoContext, step: str, data: dict[str, Any], *, edit: bool = False) -> None:
    """Ask the question of a step, with its buttons."""
    tr = context.tr
    cancel = cancel_row(context, "nstf:cancel")
    rows: list[list[tuple[str, str]]] = []
    if step == "rulebook":
        rows = [[(LAW_TITLES[book], f"nstf:rb:{book}")] for book in _rulebooks(context)]
        await reply(update, context, tr._("Which law does the notice apply?"), markup=keyboard([*rows, cancel]),
                    edit=edit)
    elif step == "type":
        rows = [[(tr._("Preliminary notice (Art. 24)"), "nstf:type:preliminar")],
                [(tr._("Auto de infração (Art. 33)"), "nstf:type:auto")]]
        await reply(update, context, tr._("Which type of notice?"), markup=keyboard([*rows, cancel]), edit=edit)
    elif step == "review":
        await show_review(update, context, data, edit=edit)
    else:
        if step in OPTIONAL:
            rows.append([(tr._("Skip"), "nstf:skip")])
        if step == "date":
            rows.append([(tr._("Today"), "nstf:today")])
        if step == "time":
            rows.append([(tr._("Now"), "nstf:now")])
        question = tr._(QUESTIONS[step]) + _reference(step, data, tr)
        await reply(update, context, question, markup=keyboard([*rows, cancel]), edit=edit)


REFERENCED = {"name": "accused", "place": "place", "facts": "facts"}
"""The steps where the citizen's report is shown, and which part of it."""


def _reference(step: str, data: dict[str, Any], tr: Any) -> str:
    """What the citizen reported, under the question, for reference: never copied into the act (issue 18 §6)."""
    reference = data.get("reference") or {}
    said = reference.get(REFERENCED.get(step, ""), "")
    if not said:
        return ""
    return "\n\n" + tr._("For reference, the citizen's report (not copied into the act; write what you found):") + \
        f"\n<blockquote>{esc(said)}</blockquote>"


async def _signer_name(context: BalcaoContext) -> str:
    async with context.sessions() as session:
        member = (await session.exec(
            select(StaffMember).where(StaffMember.telegram_user_id == context.person.telegram_user_id))).first()
    return (member.name if member is not None else "") or context.person.first_name


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


async def show_review(update: Update, context: BalcaoContext, data: dict[str, Any], *, edit: bool = False) -> None:
    """Every element, the fine as it will be, and the explicit Issue button (or what is missing, with articles)."""
    tr = context.tr
    await save(context, ISSUE_FORM, "review", data)
    elements = notice_input(data)
    lines = [tr._("<b>Check the notice before issuing</b>")]
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
                                 "apart from the drawing up.").format(name=await _signer_name(context))),
    ]
    lines += [f"<b>{esc(name)}:</b> {esc(value)}" for name, value in shown if value]
    rows: list[list[tuple[str, str]]] = []
    named: list[str] = []  # the steps the refusals name, offered first
    try:
        async with context.sessions() as session:
            ready = await prepare(session=session, settings=context.settings, data=elements)
    except NoticeRefused as refused:
        lines.append("")
        lines.append(tr._("<b>It cannot be issued yet:</b>"))
        lines += ["• " + esc(problem.render(tr)) for problem in refused.problems]
        named = [step for problem in refused.problems for step in ELEMENT_STEPS.get(problem.element, ())
                 if _applies(step, data, list(context.settings.rulebooks))]
    else:
        fine = tr._("Fine: {amount} ({units} {unit})").format(
            amount=tr.money(ready.fine.amount), units=tr.number(ready.fine.units), unit=ready.fine.unit)
        if ready.fine.doubled:
            fine += " — " + tr._("doubled: repeat offender (Art. 8)")
        if ready.recidivism_of is not None:  # CP Art. 8 par. único: the earlier notice of the same nature
            fine += "\n" + tr._("Earlier notice of the same nature: {number} ({article}).").format(
                number=esc(ready.recidivism_of.number), article=esc(ready.recidivism_of.infraction_article))
        lines += ["", fine]
        if settings_for_rulebook(context.settings, elements.rulebook).fines_illustrative:
            lines.append(tr._(ILLUSTRATIVE_FINE))  # only the demo issues with illustrative values
        lines.append(tr._("Delivery: in the bot.") if ready.person_id else
                     tr._("Delivery: nobody in the bot yet — it will go on the list for post or edital."))
        async with context.sessions() as session:  # issue 18 §2: who signs, and the Lei 1.533 Art. 22 §1 limit
            _signer, problems = await check_signing(
                session=session, settings=settings_for_rulebook(context.settings, elements.rulebook),
                rulebook=str(elements.rulebook), issuer_telegram_id=context.person.telegram_user_id,
                drawn_up_at=ready.drawn_up_at, now=utcnow(), late_confirmed=bool(data.get("late_confirmed")))
        lines += ["• " + esc(problem.render(tr)) for problem in problems]
        if not problems:
            rows.append([(tr._("✅ Issue the notice"), "nstf:issue")])
        elif [problem.element for problem in problems] == [LATE] and context.settings.l1533_issue_limit == "confirm":
            rows.append([(tr._("Issue it anyway (Lei 1.533/2020, Art. 22, §1º)"), "nstf:late")])
    steps = list(dict.fromkeys([*named, *ALWAYS_EDITABLE]))
    edits = [(tr._("Edit {what}").format(what=tr._(EDIT_LABELS[step])), f"nstf:edit:{step}") for step in steps]
    rows += [edits[index:index + 2] for index in range(0, len(edits), 2)]
    rows.append(cancel_row(context, "nstf:cancel"))
    await reply(update, context, "\n".join(lines), markup=keyboard(rows), edit=edit)


async def _take(update: Update, context: BalcaoContext, step: str, data: dict[str, Any], value: Any) -> None:
    data[step] = value
    if step in ("date", "time"):
        data.pop("late_confirmed", None)  # a new drawing-up moment needs its own confirmation (L1533 Art. 22 §1)
    following = _next_step(step, data, context)
    if following == "review":
        data.pop("editing", None)
    await save(context, ISSUE_FORM, following, data)
    await ask(update, context, following, data, edit=update.callback_query is not None)


def _parse_time(text: str) -> str:
    match = _TIME.match(text.strip().lower())
    if match is None:
        raise InvalidInput(N_("Type the hour like 9:30."))
    hour, minute = int(match.group(1)), int(match.group(2) or 0)
    if hour > 23 or minute > 59:
        raise InvalidInput(N_("Type the hour like 9:30."))
    return f"{hour:02d}:{minute:02d}"


@form_input(ISSUE_FORM, title=N_("the notice being issued"))
async def on_issue_input(update: Update, context: BalcaoContext, draft: Draft) -> None:
    """A typed answer to the current step."""
    if not await _role(update, context, ISSUERS):
        return
    message = update.effective_message
    text = (message.text or "").strip() if message is not None else ""
    step, data = draft.step, dict(draft.data)
    tr = context.tr
    if not text or step in ("rulebook", "type", "review"):
        await reply(update, context, tr._("Please use the buttons above."))
        return
    try:
        if step == "infraction":
            await _infraction(update, context, data, text)
            return
        value: Any
        if step == "document":
            value = offender_document(text)
        elif step == "address":
            value = address(text)
        elif step == "person":
            if not text.isdigit():
                raise InvalidInput(N_("A Telegram user id is a number."))
            value = text
        elif step == "date" or step == "infraction_date":
            value = past_day(text, today=today_of(context)).isoformat()
        elif step in ("quantity", "units"):
            value = str(positive_amount(text))
        elif step == "time":
            value = _parse_time(text)
        elif step == "facts":
            value = clean_text(text, min_length=10, max_length=LIMITS["facts"])
        elif step == "place" and COORDINATES.fullmatch(text):  # CP Art. 25 II, 34 I: an address, not a map pin
            raise InvalidInput(PLACE_NOT_COORDINATES)
        else:
            value = clean_text(text, min_length=2, max_length=LIMITS[STEP_ELEMENTS[step]]).replace("\n", " ")
    except InvalidInput as bad:
        await reply(update, context, bad.render(tr))
        return
    await _take(update, context, step, data, value)


async def _infraction(update: Update, context: BalcaoContext, data: dict[str, Any], text: str) -> None:
    tr = context.tr
    try:
        found = get_infraction(text)
    except CatalogueError:
        found = None
    if found is not None and found.rulebook == data.get("rulebook"):
        await _take(update, context, "infraction", {**data, "code": found.code}, found.code)
        return
    matches = search_infractions(text, rulebooks=[data["rulebook"]], limit=8)
    if not matches:
        await reply(update, context, tr._("Nothing found for “{query}”. Try other words or the code.").format(
            query=esc(text)), markup=keyboard([cancel_row(context, "nstf:cancel")]))
        return
    rows = [[(f"{row.code} · {row.description[:48]}", f"nstf:inf:{row.code}")] for row in matches]
    await reply(update, context, tr._("Which one? Press it, or type again."),
                markup=keyboard([*rows, cancel_row(context, "nstf:cancel")]))


async def _already_issued(update: Update, context: BalcaoContext, key: str | None) -> None:
    """A press of Issue after the notice was issued (or while it is): its number, never a second notice."""
    tr = context.tr
    async with context.sessions() as session:
        filed = await find_submission(session=session, person_id=context.person.id, form=ISSUE_FORM, key=key)
    if filed is None:
        text = tr._("There is no notice being issued. Start with /emitir.")
    elif filed.result:
        text = tr._("This notice was already issued: <b>{number}</b>.").format(number=esc(filed.result))
    else:
        text = tr._("This notice is being issued. Its number comes in a moment.")
    await reply(update, context, text, markup=keyboard([menu_row(context)]))


async def _issue(update: Update, context: BalcaoContext) -> None:
    """Issue the notice once however many presses of Issue arrive (issue 9 item 3: one claim per form key)."""
    tr = context.tr
    draft = await current_draft(context, ISSUE_FORM)
    if draft is None:
        await _already_issued(update, context, None)
        return
    if draft.step != "review":  # a stale Issue button while a field is being changed: back to that question
        await ask(update, context, draft.step, dict(draft.data))
        return
    data = dict(draft.data)
    if KEY not in data:  # a draft saved before Issue was claimed once per key
        data[KEY] = secrets.token_hex(8)
        await save(context, ISSUE_FORM, draft.step, data)
    key = str(data[KEY])
    async with context.sessions() as session:
        claimed = await claim_submission(session=session, person_id=context.person.id, form=ISSUE_FORM, key=key)
    if not claimed:
        await _already_issued(update, context, key)
        return
    try:
        async with context.sessions() as session:
            await require_issuer(session=session, settings=context.settings, allowed=ISSUERS,
                                 telegram_user_id=context.person.telegram_user_id, rulebook=data.get("rulebook"))
            issued = await issue_notice(session=session, settings=context.settings, data=notice_input(data),
                                        actor=f"staff:{context.person.telegram_user_id}",
                                        issuer_telegram_id=context.person.telegram_user_id,
                                        late_confirmed=bool(data.get("late_confirmed")))
    except BaseException as failure:
        async with context.sessions() as session:
            await release_submission(session=session, key=key)
        if isinstance(failure, PermissionDenied):  # no role in the municipality of this law
            await reply(update, context, tr._("Only staff with the right role can do this."),
                        markup=keyboard([menu_row(context)]), edit=True)
            return
        if not isinstance(failure, NoticeRefused):
            raise
        await show_review(update, context, data, edit=True)
        return
    async with context.sessions() as session:
        await finish_submission(session=session, person_id=context.person.id, key=key, result=issued.notice.number)
    notice = issued.notice
    text = tr._("Issued: <b>{number}</b>. Verification code: <code>{code}</code>.").format(
        number=esc(notice.number), code=esc(issued.code))
    text += "\n" + (tr._("It was sent to the person in the bot.") if notice.person_id else
                    tr._("It is on the list to deliver in person, by post or by edital: /entregas."))
    await reply(update, context, text, markup=keyboard([menu_row(context)]), edit=True)
    chat = update.effective_chat
    assert chat is not None
    await context.bot.send_document(chat_id=chat.id, document=InputFile(issued.pdf, filename=f"{notice.number}.pdf"),
                                    caption=notice.number)


async def start_from_case(update: Update, context: BalcaoContext, case_id: int) -> None:
    """Start the issue form pre-filled from a decided representação."""
    async with context.sessions() as session:
        try:  # the signer is whoever issues it, at issue (issue 18 §2): not part of the prefilled elements
            prefill = await input_from_case(session=session, settings=context.settings, case_id=case_id,
                                            issuer_name=None, now=utcnow())
        except LookupError:
            await reply(update, context, context.tr._("This case does not call for a notice."), edit=True)
            return
    elements, reference = prefill.data, prefill.reference
    data: dict[str, Any] = {
        "rulebook": elements.rulebook, "type": elements.type.value if elements.type else None,
        "code": elements.infraction_code, "infraction": elements.infraction_code, "name": elements.offender_name,
        "document": elements.offender_document, "person_id": elements.person_id, "place": elements.place,
        "date": elements.drawn_up_on.isoformat() if elements.drawn_up_on else None,
        "time": elements.drawn_up_time.strftime("%H:%M") if elements.drawn_up_time else None,
        "facts": elements.facts, "case_id": case_id,
    }
    data = {key: value for key, value in data.items() if value is not None}
    data[KEY] = secrets.token_hex(8)
    # The citizen's words, shown under the questions, never in the act's fields (issue 18 §6).
    data["reference"] = {"accused": reference.accused, "place": reference.place, "facts": reference.facts}
    missing = [step for step in ("infraction", "provision", "name", "place", "facts")
               if _applies(step, data, _rulebooks(context)) and not data.get(step)]
    step = missing[0] if missing else "review"
    data["editing"], data["pending"] = True, missing
    await save(context, ISSUE_FORM, step, data)
    await ask(update, context, step, data, edit=True)


# --- deliveries (post, in person, edital) ----------------------------------------------------------------------------


@chat_command("entregas", description=N_("Notices to deliver by post, in person or by edital"),
              menu_label=N_("Notices to deliver"), staff_roles=ISSUERS, order=61)
async def deliveries_command(update: Update, context: BalcaoContext) -> None:
    """``/entregas``: the staff list."""
    if not await _role(update, context, ISSUERS):
        return
    await show_deliveries(update, context, edit=update.callback_query is not None)


def _limit(notice: Notice, context: BalcaoContext) -> dt.date | None:
    limit = delivery_limit(notice=notice, settings=context.settings,
                           calendar=BusinessCalendar.from_settings(context.settings.for_municipality(
                               notice.municipality)))
    return limit.final_date if limit is not None else None


async def _reach(context: BalcaoContext, session: Any, roles: frozenset[Role]) -> frozenset[str] | None:
    """Where the staff member holds one of ``roles`` (``None``: everywhere); a notice is its municipality's act."""
    return await staff_municipalities(session=session, telegram_user_id=context.person.telegram_user_id,
                                      allowed=roles)


async def _outside(context: BalcaoContext, session: Any, notice_id: int | None, roles: frozenset[Role]) -> bool:
    """Whether a notice belongs to a municipality where the staff member holds none of ``roles`` (CF Art. 30 I)."""
    notice = await session.get(Notice, notice_id) if notice_id is not None else None
    reach = await _reach(context, session, roles)
    return notice is not None and reach is not None and notice.municipality not in reach


async def _refuse_other_municipality(update: Update, context: BalcaoContext) -> None:
    await reply(update, context, context.tr._("Only staff with the right role can do this."),
                markup=keyboard([menu_row(context)]), edit=update.callback_query is not None)


async def show_deliveries(update: Update, context: BalcaoContext, *, edit: bool = False) -> None:
    """Each document to deliver, why it is here, and the 90-day limit of Lei 1.533 notices."""
    tr = context.tr
    async with context.sessions() as session:
        reach = await _reach(context, session, ISSUERS)
        items = [item for item in await staff_list(session=session)
                 if reach is None or item.notice.municipality in reach]
    lines = [tr._("<b>Notices to deliver</b>")]
    rows: list[list[tuple[str, str]]] = []
    if not items:
        lines.append(tr._("Nothing to deliver."))
    for item in items[:LIST_LIMIT]:
        delivery, notice = item.delivery, item.notice
        if delivery.edital_published_on is not None:
            reason = tr._("edital published on {date}").format(date=tr.short_date(delivery.edital_published_on))
        else:
            reason = tr._(REASONS[delivery.staff_reason]) if delivery.staff_reason else ""
        line = f"• <b>{esc(notice.number)}</b> — {esc(reason)}"
        limit = _limit(notice, context)
        if limit is not None:
            line += "\n  " + tr._("deliver by {date} (Lei 1.533, Art. 22 §1)").format(date=tr.short_date(limit))
        lines.append(line)
        rows.append([(notice.number, f"nstf:dlv:{delivery.id}")])
    rows.append(menu_row(context))
    await reply(update, context, "\n".join(lines), markup=keyboard(rows), edit=edit)


async def show_delivery(update: Update, context: BalcaoContext, delivery_id: int) -> None:
    """One document to deliver: who, where, and the ways to record the delivery."""
    tr = context.tr
    async with context.sessions() as session:
        delivery = await session.get(NoticeDelivery, delivery_id)
        notice = await session.get(Notice, delivery.notice_id) if delivery is not None else None
        if notice is not None and await _outside(context, session, notice.id, ISSUERS):
            notice = None  # another municipality's: as if it were not there
        claimant = await cpf_claimant(session=session, notice=notice) if notice is not None else None
    if delivery is None or notice is None:
        await show_deliveries(update, context, edit=True)
        return
    what = tr._("the decision") if delivery.document.value == "decision" else tr._("the notice")
    lines = [
        f"<b>{esc(notice.number)}</b> — {esc(what)}",
        tr._("Offender: {name}").format(name=esc(notice.offender_name)),
        tr._("Address: {address}").format(address=esc(notice.offender_address or tr._("unknown"))),
    ]
    if notice.offender_document:
        lines.append(tr._("CPF/CNPJ: {document}").format(document=format_document(notice.offender_document)))
    lines.append(small(tr._(delivery_means(notice.rulebook))))  # each act cites its own law
    means = manual_means(notice.rulebook)  # each act cites its own law (CP Art. 36; L1533 Art. 22 §1)
    rows = [[(tr._(means[how]), f"nstf:how:{delivery_id}:{how}")] for how in means]
    if claimant is not None:
        lines.append(tr._("In the bot, {name} said this CPF is theirs when accepting electronic notices. Check "
                          "before addressing the notice to them.").format(name=esc(claimant.first_name)))
        rows.append([(tr._("Address it to {name}").format(name=claimant.first_name),
                      f"nstf:lsug:{notice.id}:{claimant.telegram_user_id}")])
    if notice.person_id is None:
        rows.append([(tr._("Address it to a person of the bot"), f"nstf:link:{notice.id}")])
    rows += refusal_row(context, delivery=delivery, notice=notice)  # CP Art. 25, 26, 34 §3 (delivery_refusals)
    rows += [[(tr._("📄 PDF"), f"nstf:pdf:{notice.id}"), (tr._("◀ Back"), "nstf:list")], menu_row(context)]
    await reply(update, context, "\n".join(lines), markup=keyboard(rows), edit=True)


async def ask_link(update: Update, context: BalcaoContext, notice_id: int) -> None:
    """Ask for the Telegram user id of the person to address an issued notice to."""
    await save(context, LINK_FORM, "person", {"notice_id": notice_id})
    tr = context.tr
    await reply(update, context, tr._("Telegram user id of the person (a number). If they accepted electronic "
                                      "notices, the notice goes to them in the bot."),
                markup=keyboard([cancel_row(context, "nstf:cancel")]), edit=True)


@form_input(LINK_FORM, title=N_("the person being linked to a notice"))
async def on_link_input(update: Update, context: BalcaoContext, draft: Draft) -> None:
    """The typed Telegram user id, then the confirmation with the person's first name."""
    if not await _role(update, context, ISSUERS):
        return
    tr = context.tr
    message = update.effective_message
    text = (message.text or "").strip() if message is not None else ""
    cancel = cancel_row(context, "nstf:cancel")
    if not text.isdigit():
        await reply(update, context, tr._("A Telegram user id is a number."), markup=keyboard([cancel]))
        return
    await confirm_link(update, context, int(draft.data["notice_id"]), int(text), edit=False)


async def confirm_link(update: Update, context: BalcaoContext, notice_id: int, telegram_user_id: int, *,
                       edit: bool) -> None:
    """The person's first name and the explicit confirmation before linking."""
    tr = context.tr
    cancel = cancel_row(context, "nstf:cancel")
    async with context.sessions() as session:
        found = await person_by_telegram_id(session=session, telegram_user_id=telegram_user_id)
        notice = await session.get(Notice, notice_id)
    if found is None or notice is None:
        await reply(update, context, tr._("Nobody with this id has talked to the bot."), markup=keyboard([cancel]),
                    edit=edit)
        return
    await save(context, LINK_FORM, "confirm", {"notice_id": notice_id, "telegram_user_id": telegram_user_id})
    question = tr._("Address {number} to {name} (Telegram {id})?").format(
        number=esc(notice.number), name=esc(found.first_name), id=telegram_user_id)
    await reply(update, context, question, markup=keyboard([[(tr._("✅ Confirm"), "nstf:lconfirm")], cancel]),
                edit=edit)


async def record_link(update: Update, context: BalcaoContext) -> None:
    """Address the notice to the person; what waits for the bot goes to them."""
    tr = context.tr
    draft = await current_draft(context, LINK_FORM)
    if draft is None or "telegram_user_id" not in draft.data:
        await show_deliveries(update, context, edit=True)
        return
    try:
        async with context.sessions() as session:
            if await _outside(context, session, int(draft.data["notice_id"]), ISSUERS):
                await _refuse_other_municipality(update, context)
                return
            sent = await link_person(session=session, settings=context.settings,
                                     notice_id=int(draft.data["notice_id"]),
                                     telegram_user_id=int(draft.data["telegram_user_id"]),
                                     actor=f"staff:{context.person.telegram_user_id}")
            await discard_draft(session=session, person_id=context.person.id)
    except DeliveryError as refused:
        await reply(update, context, tr._("Not recorded: {reason}").format(reason=esc(tr._(str(refused)))),
                    markup=keyboard([menu_row(context)]), edit=True)
        return
    text = (tr._("Done: the notice was sent to the person in the bot.") if sent else
            tr._("Done. The person has not accepted electronic notices, so it stays on this list."))
    await reply(update, context, text, markup=keyboard([[(tr._("◀ Notices to deliver"), "nstf:list")],
                                                        menu_row(context)]), edit=True)


async def ask_delivery_date(update: Update, context: BalcaoContext, delivery_id: int, how: str) -> None:
    """The date of the delivery, of the AR, or of the edital's publication."""
    async with context.sessions() as session:
        delivery = await session.get(NoticeDelivery, delivery_id)
        notice = await session.get(Notice, delivery.notice_id) if delivery is not None else None
    rulebook = notice.rulebook if notice is not None else CP
    await save(context, DELIVERY_FORM, "date", {"delivery_id": delivery_id, "how": how, "rulebook": rulebook})
    tr = context.tr
    question = tr._("On which day was it published?") if how == "edital" else tr._("On which day was it delivered?")
    await reply(update, context, question + " " + tr._("(e.g. 4/3 or 04/03/2026)"),
                markup=keyboard([[(tr._("Today"), "nstf:dtoday")], cancel_row(context, "nstf:cancel")]), edit=True)


async def confirm_delivery(update: Update, context: BalcaoContext, data: dict[str, Any], *, edit: bool) -> None:
    """Summary and confirmation of the delivery to record."""
    tr = context.tr
    await save(context, DELIVERY_FORM, "confirm", data)
    means = manual_means(data.get("rulebook") or CP)
    text = tr._("Record: {how}, on {date}?").format(how=tr._(means[data["how"]]),
                                                     date=tr.date(dt.date.fromisoformat(data["date"])))
    await reply(update, context, text, markup=keyboard([[(tr._("✅ Confirm"), "nstf:dconfirm")],
                                                        cancel_row(context, "nstf:cancel")]), edit=edit)


@form_input(DELIVERY_FORM, title=N_("the delivery being recorded"))
async def on_delivery_input(update: Update, context: BalcaoContext, draft: Draft) -> None:
    """The typed date."""
    if not await _role(update, context, ISSUERS):
        return
    message = update.effective_message
    try:
        day = past_day((message.text or "") if message else "", today=today_of(context))
    except InvalidInput as bad:
        await reply(update, context, bad.render(context.tr))
        return
    await confirm_delivery(update, context, {**draft.data, "date": day.isoformat()}, edit=False)


async def record_delivery(update: Update, context: BalcaoContext) -> None:
    """Record the delivery; the deadlines start from it."""
    tr = context.tr
    draft = await current_draft(context, DELIVERY_FORM)
    if draft is None:
        await show_deliveries(update, context, edit=True)
        return
    data = draft.data
    actor = f"staff:{context.person.telegram_user_id}"
    day = dt.date.fromisoformat(data["date"])
    try:
        async with context.sessions() as session:
            delivery = await session.get(NoticeDelivery, int(data["delivery_id"]))
            if await _outside(context, session, delivery.notice_id if delivery else None, ISSUERS):
                await _refuse_other_municipality(update, context)
                return
            if data["how"] == "edital":
                result = await record_edital(session=session, settings=context.settings,
                                             delivery_id=int(data["delivery_id"]), published_on=day, actor=actor)
            else:
                result = await record_staff_delivery(session=session, settings=context.settings,
                                                     delivery_id=int(data["delivery_id"]),
                                                     how=CienciaKind(data["how"]), on=day, actor=actor)
            await discard_draft(session=session, person_id=context.person.id)
    except DeliveryError as refused:
        await reply(update, context, tr._("Not recorded: {reason}").format(reason=esc(tr._(str(refused)))),
                    markup=keyboard([menu_row(context)]), edit=True)
        return
    assert result.delivery.ciencia_on is not None
    text = tr._("Recorded. {number} counts as received on {date}; the deadlines start from it.").format(
        number=esc(result.notice.number), date=tr.date(result.delivery.ciencia_on))
    await reply(update, context, text, markup=keyboard([[(tr._("◀ Notices to deliver"), "nstf:list")],
                                                        menu_row(context)]), edit=True)


# --- decisions -------------------------------------------------------------------------------------------------


@chat_command("defesas", description=N_("Defences and appeals to decide"), menu_label=N_("Defences to decide"),
              staff_roles=DECIDERS, order=62)
async def filings_command(update: Update, context: BalcaoContext) -> None:
    """``/defesas``: filings waiting for a decision."""
    if not await _role(update, context, DECIDERS):
        return
    tr = context.tr
    async with context.sessions() as session:
        reach = await _reach(context, session, DECIDERS)
        rows_found = [(filing, notice) for filing, notice in await pending_filings(session=session)
                      if reach is None or notice.municipality in reach]
    lines = [tr._("<b>Defences and appeals to decide</b>")]
    rows: list[list[tuple[str, str]]] = []
    if not rows_found:
        lines.append(tr._("Nothing waiting for a decision."))
    for filing, notice in rows_found[:LIST_LIMIT]:
        lines.append(tr._("• <b>{number}</b> — {kind}, filed on {date}").format(
            number=esc(notice.number), kind=tr._(FILING_NAMES[filing.kind]), date=tr.short_date(filing.filed_at)))
        rows.append([(notice.number, f"nstf:fil:{filing.id}")])
    rows.append(menu_row(context))
    await reply(update, context, "\n".join(lines), markup=keyboard(rows), edit=update.callback_query is not None)


async def show_filing(update: Update, context: BalcaoContext, filing_id: int) -> None:
    """A filing: its text, files, vista and diligência (CP Art. 40 §1, Art. 42), and the decision buttons."""
    tr = context.tr
    async with context.sessions() as session:
        filing = await session.get(NoticeFiling, filing_id)
        notice = await session.get(Notice, filing.notice_id) if filing is not None else None
        if notice is not None and await _outside(context, session, notice.id, DECIDERS):
            filing = notice = None  # another municipality's: as if it were not there
        files = await attachments_of(session=session, filing_id=filing_id) if filing is not None else []
        view = None if notice is None else await notice_view(session=session, settings=context.settings,
                                                             notice=notice, today=today_of(context))
    if filing is None or notice is None or view is None or filing.decided_at is not None:
        await reply(update, context, tr._("This filing was already decided."), markup=keyboard([menu_row(context)]),
                    edit=True)
        return
    lines = [
        tr._("<b>{number}</b> — {kind}, filed on {date}").format(
            number=esc(notice.number), kind=tr._(FILING_NAMES[filing.kind]), date=tr.date(filing.filed_at)),
        f"<blockquote>{esc(filing.text)}</blockquote>",
        tr.ngettext("{n} file attached.", "{n} files attached.", len(files)).format(n=len(files)),
        tr._("Fine: {amount}").format(amount=money(tr, notice.fine_cents)),
    ]
    rows: list[list[tuple[str, str]]] = []
    review, review_rows = review_lines(tr, filing, view, context.settings, today_of(context))  # CP Art. 40 §1, 42
    lines += review
    rows += review_rows
    if files:
        rows.append([(tr._("Send me the files"), f"nstf:att:{filing_id}")])
    rows.append([(tr._("Accept (procedente)"), f"nstf:dec:{filing_id}:granted"),
                 (tr._("Reject (improcedente)"), f"nstf:dec:{filing_id}:denied")])
    rows.append(menu_row(context))
    await reply(update, context, "\n".join(lines), markup=keyboard(rows), edit=True)


async def send_files(update: Update, context: BalcaoContext, filing_id: int) -> None:
    """The filing's files, one message each."""
    async with context.sessions() as session:
        files = await attachments_of(session=session, filing_id=filing_id)
    chat = update.effective_chat
    assert chat is not None
    if update.callback_query is not None:
        await update.callback_query.answer()
    for attachment in files:
        await context.bot.send_document(chat_id=chat.id,
                                        document=InputFile(attachment.content, filename=attachment.file_name))


async def ask_decision(update: Update, context: BalcaoContext, filing_id: int, outcome: str) -> None:
    """The decision's text (CP Art. 41: it states its effects), once the caller is known to be competent for it."""
    tr = context.tr
    try:  # issue 18 §1: the competent authority, not impeded, before a word is typed
        async with context.sessions() as session:
            await may_decide(session=session, settings=context.settings, filing_id=filing_id,
                             telegram_user_id=context.person.telegram_user_id)
    except NotCompetent as refused:
        await reply(update, context, esc(refused.render(tr)),
                    markup=keyboard([[(tr._("◀ Defences to decide"), "nstf:filings")], menu_row(context)]), edit=True)
        return
    await save(context, DECISION_FORM, "text", {"filing_id": filing_id, "outcome": outcome})
    verdict = tr._("Accept") if outcome == FilingOutcome.GRANTED.value else tr._("Reject")
    text = tr._("{verdict}: write the decision and its effects in one message.").format(verdict=verdict)
    await reply(update, context, text + small("Código de Posturas, Art. 41"),
                markup=keyboard([cancel_row(context, "nstf:cancel")]), edit=True)


@form_input(DECISION_FORM, title=N_("the decision being written"))
async def on_decision_input(update: Update, context: BalcaoContext, draft: Draft) -> None:
    """The decision's text, then the confirmation."""
    if not await _role(update, context, DECIDERS):
        return
    tr = context.tr
    message = update.effective_message
    try:
        typed = clean_text((message.text or "") if message else "", min_length=1, max_length=4000)
        text = check_motivation(typed, context.settings)  # CP Art. 41; Lei 9.784 Art. 50: "ok" is no reason
    except InvalidInput as bad:
        await reply(update, context, bad.render(tr))
        return
    data = {**draft.data, "text": text}
    await save(context, DECISION_FORM, "confirm", data)
    verdict = tr._("Accept") if data["outcome"] == FilingOutcome.GRANTED.value else tr._("Reject")
    summary = tr._("<b>{verdict}</b>, with this decision:").format(verdict=verdict)
    await reply(update, context, f"{summary}\n<blockquote>{esc(text)}</blockquote>\n"
                + tr._("It will be delivered to the person with the deadlines that follow."),
                markup=keyboard([[(tr._("✅ Confirm the decision"), "nstf:dsend")],
                                 cancel_row(context, "nstf:cancel")]))


async def send_decision(update: Update, context: BalcaoContext) -> None:
    """Decide and deliver."""
    tr = context.tr
    draft = await current_draft(context, DECISION_FORM)
    if draft is None:
        await reply(update, context, tr._("There is no decision being written."), edit=True)
        return
    try:
        async with context.sessions() as session:
            filing = await session.get(NoticeFiling, int(draft.data["filing_id"]))
            if await _outside(context, session, filing.notice_id if filing else None, DECIDERS):
                await _refuse_other_municipality(update, context)
                return
            await decide_filing(session=session, settings=context.settings, filing_id=int(draft.data["filing_id"]),
                                outcome=FilingOutcome(draft.data["outcome"]), text=draft.data["text"],
                                decider_telegram_id=context.person.telegram_user_id)
            await discard_draft(session=session, person_id=context.person.id)
    except FilingRefused as refused:
        await reply(update, context, esc(refused.render(tr)), markup=keyboard([menu_row(context)]), edit=True)
        return
    await reply(update, context, tr._("Decided. The decision is being delivered to the person."),
                markup=keyboard([[(tr._("◀ Defences to decide"), "nstf:filings")], menu_row(context)]), edit=True)


# --- buttons -----------------------------------------------------------------------------------------------------


async def on_button(update: Update, context: BalcaoContext) -> None:
    """Every ``nstf:`` button (the role is checked first)."""
    query = update.callback_query
    assert query is not None and query.data is not None
    parts = query.data.split(":")
    action, args = parts[1], parts[2:]
    deciding = action in ("filings", "fil", "att", "dec", "dsend", "vis", "dil", "dild")
    if not await _role(update, context, DECIDERS if deciding else ISSUERS):
        return
    if action in ("list", "dlv", "how", "dtoday", "dconfirm", "pdf", "link", "lsug", "lconfirm"):
        await _delivery_button(update, context, action, args)
    elif deciding:
        await _decision_button(update, context, action, args)
    elif action == "cancel":
        async with context.sessions() as session:
            await discard_draft(session=session, person_id=context.person.id)
        await reply(update, context, context.tr._("Cancelled: nothing was recorded."),
                    markup=keyboard([menu_row(context)]), edit=True)
    elif action == "case" and args and args[0].isdigit():
        await start_from_case(update, context, int(args[0]))
    else:
        await _issue_button(update, context, action, args)


async def _issue_button(update: Update, context: BalcaoContext, action: str, args: list[str]) -> None:
    if action == "issue":  # also after the notice was issued: the later presses are told its number
        await _issue(update, context)
        return
    draft = await current_draft(context, ISSUE_FORM)
    if draft is None:
        await reply(update, context, context.tr._("There is no notice being issued. Start with /emitir."),
                    markup=keyboard([menu_row(context)]), edit=True)
        return
    data, step = dict(draft.data), draft.step
    if action == "late" and step == "review":  # Lei 1.533 Art. 22 §1: the issuer confirms, then Issue again
        data["late_confirmed"] = True
        await show_review(update, context, data, edit=True)
        return
    if action == "rb" and args and args[0] in _rulebooks(context):
        data["rulebook"] = args[0]
        if args[0] == L1533:
            data["type"] = NoticeType.AUTO.value
        await _take(update, context, "rulebook", data, args[0])
    elif action == "type" and args and args[0] in (t.value for t in NoticeType):
        await _take(update, context, "type", data, args[0])
    elif action == "inf" and args:
        await _take(update, context, "infraction", {**data, "code": args[0]}, args[0])
    elif action == "skip" and step in OPTIONAL:
        await _take(update, context, step, data, None)
    elif action == "today" and step == "date":
        await _take(update, context, "date", data, today_of(context).isoformat())
    elif action == "now" and step == "time":
        await _take(update, context, "time", data, utcnow().astimezone(context.settings.tz).strftime("%H:%M"))
    elif action == "edit" and args and args[0] in EDIT_LABELS:
        data["editing"] = True
        await save(context, ISSUE_FORM, args[0], data)
        await ask(update, context, args[0], data, edit=True)
    else:
        await ask(update, context, step, data, edit=True)


async def _delivery_button(update: Update, context: BalcaoContext, action: str, args: list[str]) -> None:
    if action == "list":
        await show_deliveries(update, context, edit=True)
    elif action == "dlv" and args and args[0].isdigit():
        await show_delivery(update, context, int(args[0]))
    elif action == "how" and len(args) == 2 and args[0].isdigit() and args[1] in ("personal", "postal", "edital"):
        await ask_delivery_date(update, context, int(args[0]), args[1])
    elif action == "link" and args and args[0].isdigit():
        await ask_link(update, context, int(args[0]))
    elif action == "lsug" and len(args) == 2 and args[0].isdigit() and args[1].isdigit():
        await confirm_link(update, context, int(args[0]), int(args[1]), edit=True)
    elif action == "lconfirm":
        await record_link(update, context)
    elif action == "pdf" and args and args[0].isdigit():
        async with context.sessions() as session:
            notice = await session.get(Notice, int(args[0]))
            if notice is not None and await _outside(context, session, notice.id, ISSUERS):
                notice = None
        chat = update.effective_chat
        if notice is not None and chat is not None and update.callback_query is not None:
            await update.callback_query.answer()
            await context.bot.send_document(chat_id=chat.id, document=InputFile(notice.pdf,
                                                                                filename=f"{notice.number}.pdf"))
    else:
        draft = await current_draft(context, DELIVERY_FORM)
        if draft is None:
            await show_deliveries(update, context, edit=True)
        elif action == "dtoday":
            await confirm_delivery(update, context, {**draft.data, "date": today_of(context).isoformat()}, edit=True)
        else:
            await record_delivery(update, context)


async def _filing_outside(context: BalcaoContext, filing_id: int) -> bool:
    async with context.sessions() as session:
        filing = await session.get(NoticeFiling, filing_id)
        return await _outside(context, session, filing.notice_id if filing else None, DECIDERS)


async def _decision_button(update: Update, context: BalcaoContext, action: str, args: list[str]) -> None:
    filing_id = int(args[0]) if args and args[0].isdigit() else None
    if action == "filings":
        await filings_command(update, context)
    elif action == "dsend":
        await send_decision(update, context)
    elif filing_id is None:
        await filings_command(update, context)
    elif await _filing_outside(context, filing_id):  # another municipality's notice (CF Art. 30 I)
        await _refuse_other_municipality(update, context)
    elif action == "fil":
        await show_filing(update, context, filing_id)
    elif action == "att":
        await send_files(update, context, filing_id)
    elif action == "vis":
        await vista(update, context, filing_id, show_filing)
    elif action == "dil":
        await ask_diligencia(update, context, filing_id)
    elif action == "dild":
        await diligencia_done(update, context, filing_id, show_filing)
    elif action == "dec" and len(args) == 2 and args[1] in (o.value for o in FilingOutcome):
        await ask_decision(update, context, filing_id, args[1])
    else:
        await show_filing(update, context, filing_id)


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Add the staff notice buttons."""
    application.add_handler(CallbackQueryHandler(on_button, pattern=r"^nstf:"))
