"""/acompanhar: the person's cases, with status and timeline; answering a request for complementação; rating.

``/acompanhar`` lists the cases (``/acompanhar REP-2026-000123`` opens one; so does the deep link
``/start case-REP-2026-000123``). A case shows its status, deadline, days left and timeline. When the city hall
asks for more information the person answers here (text and files, reviewed before sending; Decreto 9.492/2018
Art. 18), and after an answer they rate the service (Lei 13.460/2017 Art. 23). Buttons: ``acomp:…``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from telegram import Update
from telegram.ext import Application, CallbackQueryHandler

from core.i18n import N_, Translator
from handlers import log_context
from handlers.chat.buttons import button_id, unknown_button
from handlers.chat.commands import chat_command
from handlers.chat.context import BalcaoContext, city_today
from handlers.chat.deep_links import deep_link
from handlers.chat.forms import busy_elsewhere, cancel_form, cancel_row, current_draft, form_input, save
from handlers.chat.intake import is_file, take_file
from handlers.chat.replies import esc, keyboard, menu_row, respond
from models.cases import fields
from models.cases.attachments import discard_unfiled
from models.cases.citizen import CaseLine, answer_complement, awaiting_complement, my_case, my_cases, rate
from models.cases.labels import (
    EVENT_LABELS,
    KIND_LABELS,
    OMBUDSMAN_TYPE_LABELS,
    SATISFACTION_LABELS,
    STATUS_LABELS,
)
from models.cases.protocol import normalize_protocol
from models.cases.tables import CaseStatus, EventKind, Satisfaction
from models.cases.timeline import CaseNotFound
from models.cases.views import CaseView
from models.columns import utcnow
from models.days_left import days_left_words
from models.drafts import Draft, discard_draft
from models.invalid_input import InvalidInput

FORM = "complemento"
LIST_LIMIT = 10


def kind_label(tr: Translator, view: CaseView) -> str:
    """The kind of case, with the ombudsman type when there is one ("Ombudsman case — Complaint")."""
    label = tr._(KIND_LABELS[view.kind])
    if view.ombudsman_type is not None:
        label += " — " + tr._(OMBUDSMAN_TYPE_LABELS[view.ombudsman_type])
    return label


def map_url(latitude: float, longitude: float) -> str:
    """The shared location on OpenStreetMap, marked with a pin, at street level."""
    lat, lon = f"{latitude:.6f}", f"{longitude:.6f}"
    return f"https://www.openstreetmap.org/?mlat={lat}&mlon={lon}#map=18/{lat}/{lon}"


def render_case(view: CaseView, tr: Translator, *, today: dt.date, staff: bool = False) -> str:
    """A case with its status, deadline and timeline, as HTML (the author's view, or a staff view)."""
    lines = [f"<b>{esc(view.protocol)}</b> — {esc(kind_label(tr, view))}",
             f"<b>{esc(tr._('Status'))}:</b> {esc(tr._(STATUS_LABELS[view.status]))}",
             f"<b>{esc(tr._('Received on'))}:</b> {esc(tr.date(view.received_at))}"]
    if view.is_open:
        due = view.complement_due_on if view.status is CaseStatus.AWAITING_COMPLEMENT else view.due_on
        if due is not None:
            label = tr._("Answer from you by") if view.status is CaseStatus.AWAITING_COMPLEMENT else tr._("Due by")
            lines.append(f"<b>{esc(label)}:</b> {esc(tr.date(due))} ({esc(days_left_words(tr, due, today=today))})")
    if staff:
        lines.append(f"<b>{esc(tr._('Author'))}:</b> " + (
            esc(tr._("Author {code} (identity restricted)").format(code=view.author.label)) if view.author.restricted
            else esc(view.author.name or "")
        ))
        if view.assigned_staff_name:
            lines.append(f"<b>{esc(tr._('Assigned to'))}:</b> {esc(view.assigned_staff_name)}")
    summary = view.summary if len(view.summary) <= 600 else view.summary[:599] + "…"
    lines += ["", esc(summary)]
    if view.accused and staff:
        lines.append(f"<b>{esc(tr._('Who is responsible'))}:</b> {esc(view.accused)}")
    if view.place_text or view.latitude is not None:
        where = [esc(view.place_text)] if view.place_text else []
        if view.latitude is not None and view.longitude is not None:
            url = map_url(view.latitude, view.longitude)
            where.append(f'<a href="{esc(url)}">{esc(tr._("See on the map"))}</a>')
        lines.append(f"<b>{esc(tr._('Where'))}:</b> " + " · ".join(where))
    if view.occurred_on:
        lines.append(f"<b>{esc(tr._('When'))}:</b> {esc(tr.date(view.occurred_on))}")
    if staff and view.evidence_missing:  # CP Art. 31: filed through Open311 without it (LEGAL-CHOICES #39)
        missing = tr._("none was sent: ask for it before deciding (Código de Posturas, Art. 31)")
        lines.append(f"<b>{esc(tr._('Evidence'))}:</b> {esc(missing)}")
    if view.attachments:
        count = len(view.attachments)
        lines.append(f"<b>{esc(tr._('Files'))}:</b> {esc(tr.ngettext('{n} file', '{n} files', count).format(n=count))}")
    if staff and view.complement_question:  # staff's request for more information and the author's answer
        lines += ["", f"<b>{esc(tr._('Asked of the author'))}:</b> <i>{esc(view.complement_question)}</i>"]
        if view.complement_answer:
            lines.append(f"<b>{esc(tr._('The author answered'))}:</b> {esc(view.complement_answer)}")
    if view.answer:
        lines += ["", f"<b>{esc(tr.pgettext('heading', 'Answer'))}:</b> {esc(view.answer)}"]
    lines += ["", f"<b>{esc(tr._('Timeline'))}</b>"]
    for event in view.events:
        line = f"• {esc(tr.short_date(event.at.astimezone(tr.tz).date()))} — {esc(tr._(EVENT_LABELS[event.kind]))}"
        if event.note and event.kind is not EventKind.ANSWERED:
            line += f": <i>{esc(event.note)}</i>"
        lines.append(line)
    if view.legal_basis:  # each law once, then its articles
        lines += ["", *("<i>" + esc(law) + "</i>" for law in view.legal_basis)]
    return "\n".join(lines)


async def show_list(update: Update, context: BalcaoContext, *, edit: bool = False) -> None:
    """The person's cases, open ones first."""
    tr = context.tr
    async with context.sessions() as session:
        lines = await my_cases(session=session, person_id=context.person.id, limit=LIST_LIMIT)
    if not lines:
        await respond(update, context, tr._("You have no cases yet."), edit=edit, markup=keyboard([
            [(tr._("Report a problem"), "cmd:representacao"), (tr._("Ombudsman"), "cmd:ouvidoria")],
            menu_row(context),
        ]))
        return
    today = city_today(context)
    text_lines = [tr._("<b>Your cases</b>"), ""]
    rows = []
    for line in lines:
        status = tr._(STATUS_LABELS[line.status])
        detail = f"{esc(line.protocol)} — {esc(status)}"
        if line.is_open:
            detail += f" ({esc(days_left_words(tr, line.next_date, today=today))})"
        text_lines.append("• " + detail)
        rows.append([(line.protocol, f"acomp:case:{line.id}")])
    text_lines += ["", tr._("Press a case to see its timeline.")]
    await respond(update, context, "\n".join(text_lines), markup=keyboard([*rows, menu_row(context)]), edit=edit)


async def show_case(
    update: Update, context: BalcaoContext, *, case_id: int | None = None, protocol: str | None = None,
    edit: bool = False,
) -> None:
    """One of the person's cases, with the buttons that fit its status."""
    tr = context.tr
    try:
        async with context.sessions() as session:
            view = await my_case(session=session, person_id=context.person.id, case_id=case_id, protocol=protocol)
    except CaseNotFound:
        await respond(update, context, tr._("I found no case of yours with that number. Check it and try again."),
                    markup=keyboard([[(tr._("My cases"), "acomp:list")], menu_row(context)]))
        return
    log_context.bind(protocol=view.protocol)
    rows: list[list[tuple[str, str]]] = []
    if view.status is CaseStatus.AWAITING_COMPLEMENT:
        rows.append([(tr._("Send the information asked for"), f"acomp:compl:{view.id}")])
    if not view.is_open and view.satisfaction is None:
        rows.append([(tr._("Rate the service"), f"acomp:rate:{view.id}")])
    rows += [[(tr._("◀ My cases"), "acomp:list")], menu_row(context)]
    await respond(update, context, render_case(view, tr, today=city_today(context)), markup=keyboard(rows), edit=edit)


@chat_command(
    "acompanhar",
    aliases=("follow", "casos"),
    description=N_("Follow your cases by protocol number"),
    menu_label=N_("My cases"),
    order=40,
)
async def follow_command(update: Update, context: BalcaoContext) -> None:
    """``/acompanhar [protocol]``."""
    if context.args:
        protocol = normalize_protocol(" ".join(context.args))
        if protocol is None:
            await respond(update, context, context.tr._("A protocol number looks like REP-2026-000123. Here are your "
                                                      "cases:"))
        else:
            await show_case(update, context, protocol=protocol)
            return
    await show_list(update, context, edit=True)


@deep_link("case-")
async def follow_link(update: Update, context: BalcaoContext, rest: str) -> None:
    """``/start case-REP-2026-000123``: open that case."""
    protocol = normalize_protocol(rest)
    if protocol is None:
        await show_list(update, context)
        return
    await show_case(update, context, protocol=protocol)


# --- complementação -------------------------------------------------------------------------------------------


async def _ask_complement(update: Update, context: BalcaoContext, data: dict[str, Any]) -> None:
    tr = context.tr
    text = tr._("Type your answer to the question above. You can also send photos or PDF files first.")
    if data.get("question"):
        text = tr._("The question was:") + f"\n<i>{esc(data['question'])}</i>\n\n" + text
    await respond(update, context, text, markup=keyboard([cancel_row(context, "acomp:cancel")]))


async def _start_complement(update: Update, context: BalcaoContext, case_id: int) -> None:
    tr = context.tr
    if await busy_elsewhere(update, context, FORM):
        return
    try:
        async with context.sessions() as session:
            view = await my_case(session=session, person_id=context.person.id, case_id=case_id)
            await discard_unfiled(session=session, person_id=context.person.id)
            await session.commit()
    except CaseNotFound:
        await respond(update, context, tr._("I found no case of yours with that number. Check it and try again."))
        return
    if view.status is not CaseStatus.AWAITING_COMPLEMENT:
        await respond(update, context, tr._("This case is not waiting for more information from you."),
                    markup=keyboard([[(tr._("See the case"), f"acomp:case:{case_id}")], menu_row(context)]))
        return
    data = {"case_id": case_id, "protocol": view.protocol, "question": view.complement_question, "files": []}
    await save(context, FORM, "answer", data)
    await _ask_complement(update, context, data)


@form_input(FORM, title=N_("your answer"))
async def on_input(update: Update, context: BalcaoContext, draft: Draft) -> None:
    """The answer to a request for complementação: files, then the text, then a review."""
    tr = context.tr
    data = dict(draft.data)
    message = update.effective_message
    assert message is not None
    if draft.step == "choose":  # the typed answer is kept until the person says which case it is for
        await _ask_which(update, context, await _waiting(context))
        return
    if draft.step == "answer" and is_file(message):
        await take_file(update, context, form=FORM, step="answer", data=data,
                        received=tr._("File received ({n} of {limit}). Send more, or type your answer."),
                        markup=keyboard([cancel_row(context, "acomp:cancel")]))
        return
    if draft.step == "confirm" and message.text and fields.yes_or_no(message.text):
        await _send_complement(update, context, data)
        return
    try:
        if message.text is None:
            raise InvalidInput(N_("Please answer with text or press a button."))
        data["text"] = fields.clean_text(message.text, min_length=3, max_length=3500)
    except InvalidInput as invalid:
        await respond(update, context, invalid.render(tr))
        await _ask_complement(update, context, data)
        return
    await save(context, FORM, "confirm", data)
    count = len(data.get("files", []))
    text = tr._("Your answer about {protocol}:").format(protocol=f"<b>{esc(data['protocol'])}</b>")
    text += f"\n\n{esc(data['text'])}"
    if count:
        text += "\n" + esc(tr.ngettext("{n} file", "{n} files", count).format(n=count))
    await respond(update, context, text + "\n\n" + tr._("Send it?"), markup=keyboard([
        [(tr._("✅ Send"), "acomp:send")], [(tr._("✏️ Write it again"), "acomp:rewrite")],
        cancel_row(context, "acomp:cancel"),
    ]))


async def _send_complement(update: Update, context: BalcaoContext, data: dict[str, Any]) -> None:
    tr = context.tr
    try:
        async with context.sessions() as session:
            due = await answer_complement(
                session=session, person_id=context.person.id, case_id=int(data["case_id"]),
                text=data.get("text", ""), attachment_ids=list(data.get("files", [])), now=utcnow(),
                settings=context.settings,
            )
            await discard_draft(session=session, person_id=context.person.id)
    except (InvalidInput, CaseNotFound) as refused:
        message = refused.render(tr) if isinstance(refused, InvalidInput) else tr._(
            "I found no case of yours with that number. Check it and try again.")
        await respond(update, context, message, markup=keyboard([menu_row(context)]))
        return
    text = tr._("Thank you! Your answer was added to {protocol}. The new deadline is {date}.").format(
        protocol=f"<b>{esc(data['protocol'])}</b>", date=tr.date(due)
    )
    await respond(update, context, text, markup=keyboard([[(tr._("See the case"), f"acomp:case:{data['case_id']}")],
                                                        menu_row(context)]))


async def typed_answer(update: Update, context: BalcaoContext) -> bool:
    """A text typed outside any form, while a case waits for more information from its author: it is the answer.

    Issue 9 item 6: people answer the question by typing, without pressing "Send the information asked for".
    With one case waiting, the text is recorded as its answer (Decreto 9.492/2018 Art. 18); with several, the text
    is kept and the person chooses the case.

    Returns:
        Whether the text was taken as an answer (else the caller goes on reading it).
    """
    message = update.effective_message
    if message is None or not message.text:
        return False
    waiting = await _waiting(context)
    if not waiting:
        return False
    tr = context.tr
    try:
        text = fields.clean_text(message.text, min_length=3, max_length=3500)
    except InvalidInput as invalid:
        await respond(update, context, invalid.render(tr))
        return True
    if len(waiting) == 1:
        line = waiting[0]
        await _send_complement(update, context, {"case_id": line.id, "protocol": line.protocol, "text": text})
        return True
    await save(context, FORM, "choose", {"text": text, "files": []})
    await _ask_which(update, context, waiting)
    return True


async def _ask_which(update: Update, context: BalcaoContext, waiting: list[CaseLine]) -> None:
    rows = [[(line.protocol, f"acomp:for:{line.id}")] for line in waiting]
    await respond(update, context, context.tr._("Which case is this answer for?"),
                  markup=keyboard([*rows, cancel_row(context, "acomp:cancel")]))


async def _answer_for(update: Update, context: BalcaoContext, case_id: int) -> None:
    draft = await current_draft(context, FORM)
    if draft is None or draft.step != "choose":
        await respond(update, context, context.tr._("This answer is no longer in progress."),
                      markup=keyboard([menu_row(context)]))
        return
    waiting = {line.id: line for line in await _waiting(context)}
    if case_id not in waiting:
        await unknown_button(update, context)
        return
    await _send_complement(update, context, {**draft.data, "case_id": case_id,
                                             "protocol": waiting[case_id].protocol})


async def _waiting(context: BalcaoContext) -> list[CaseLine]:
    async with context.sessions() as session:
        return await awaiting_complement(session=session, person_id=context.person.id)


# --- buttons ----------------------------------------------------------------------------------------------------


async def on_button(update: Update, context: BalcaoContext) -> None:
    """Every ``acomp:`` button."""
    tr = context.tr
    query = update.callback_query
    assert query is not None and query.data is not None
    parts = query.data.split(":")
    action = parts[1]
    if action == "list":
        await show_list(update, context, edit=True)
        return
    if action == "cancel":
        await cancel_form(update, context)
        return
    if action in ("send", "rewrite"):
        draft = await current_draft(context, FORM)
        if draft is None or draft.step != "confirm":
            await respond(update, context, tr._("This answer is no longer in progress."),
                        markup=keyboard([menu_row(context)]))
            return
        data = dict(draft.data)
        if action == "send":
            await _send_complement(update, context, data)
        else:
            await save(context, FORM, "answer", data)
            await _ask_complement(update, context, data)
        return
    case_id = button_id(parts[2]) if len(parts) >= 3 else None
    if case_id is None:
        await unknown_button(update, context)
        return
    if action == "case":
        await show_case(update, context, case_id=case_id)
    elif action == "compl":
        await _start_complement(update, context, case_id)
    elif action == "for":
        await _answer_for(update, context, case_id)
    elif action == "rate":
        rows = [[(tr._(label), f"acomp:sat:{case_id}:{value.value}")] for value, label in SATISFACTION_LABELS.items()]
        await respond(update, context, tr._("Were you satisfied with the answer?"), markup=keyboard(rows))
    elif action == "sat" and len(parts) == 4 and parts[3] in {s.value for s in Satisfaction}:
        await _rate(update, context, case_id, Satisfaction(parts[3]))
    else:
        await unknown_button(update, context)


async def _rate(update: Update, context: BalcaoContext, case_id: int, value: Satisfaction) -> None:
    tr = context.tr
    try:
        async with context.sessions() as session:
            await rate(session=session, person_id=context.person.id, case_id=case_id, satisfaction=value,
                       now=utcnow())
    except InvalidInput as refused:
        await respond(update, context, refused.render(tr), markup=keyboard([menu_row(context)]))
        return
    except CaseNotFound:
        await respond(update, context, tr._("I found no case of yours with that number. Check it and try again."))
        return
    await respond(update, context, tr._("Thank you for your rating! It helps the city hall improve."),
                markup=keyboard([menu_row(context)]))


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Add the follow-up buttons (the command, deep link and free input are registered by their decorators)."""
    application.add_handler(CallbackQueryHandler(on_button, pattern=r"^acomp:"))
