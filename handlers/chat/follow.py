"""/acompanhar: the person's cases, with status and timeline; answering a request for complementação; rating.

``/acompanhar`` lists the cases (``/acompanhar REP-2026-000123`` opens one; so does the deep link
``/start case-REP-2026-000123``). A case shows its status, deadline, days left and timeline. When the city hall
asks for more information the person answers here (text and files, reviewed before sending; Decreto 9.492/2018
Art. 18; the form is ``handlers.chat.complement``), and after an answer they rate the service (Lei 13.460/2017
Art. 23). Buttons: ``acomp:…``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from telegram import Update
from telegram.ext import Application, CallbackQueryHandler

from core.i18n import N_, Translator
from handlers import log_context
from handlers.chat import complement, survey_reason
from handlers.chat.buttons import button_id, unknown_button
from handlers.chat.commands import chat_command
from handlers.chat.context import BalcaoContext, city_today
from handlers.chat.deep_links import deep_link
from handlers.chat.replies import esc, keyboard, menu_row, respond
from models.cases.citizen import my_case, my_cases, rate
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
    return "\n".join([*_head_lines(view, tr, today=today, staff=staff), *_fact_lines(view, tr, staff=staff),
                      *_history_lines(view, tr, staff=staff)])


def _head_lines(view: CaseView, tr: Translator, *, today: dt.date, staff: bool) -> list[str]:
    """Protocol, status, dates; for staff, who wrote it and who works it."""
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
    return lines


def _where_line(view: CaseView, tr: Translator) -> str:
    """The place as written and, with coordinates, a link to the map."""
    where = [esc(view.place_text)] if view.place_text else []
    if view.latitude is not None and view.longitude is not None:
        url = map_url(view.latitude, view.longitude)
        where.append(f'<a href="{esc(url)}">{esc(tr._("See on the map"))}</a>')
    return f"<b>{esc(tr._('Where'))}:</b> " + " · ".join(where)


def _fact_lines(view: CaseView, tr: Translator, *, staff: bool) -> list[str]:
    """What was reported: the summary, whom, where, when, the evidence and files."""
    summary = view.summary if len(view.summary) <= 600 else view.summary[:599] + "…"
    lines = ["", esc(summary)]
    if view.accused and staff:
        lines.append(f"<b>{esc(tr._('Who is responsible'))}:</b> {esc(view.accused)}")
    if view.place_text or view.latitude is not None:
        lines.append(_where_line(view, tr))
    if view.occurred_on:
        lines.append(f"<b>{esc(tr._('When'))}:</b> {esc(tr.date(view.occurred_on))}")
    if staff and view.evidence_missing:  # CP Art. 31: filed through Open311 without it (LEGAL-CHOICES #39)
        missing = tr._("none was sent: ask for it before deciding (Código de Posturas, Art. 31)")
        lines.append(f"<b>{esc(tr._('Evidence'))}:</b> {esc(missing)}")
    if view.attachments:
        count = len(view.attachments)
        lines.append(f"<b>{esc(tr._('Files'))}:</b> {esc(tr.ngettext('{n} file', '{n} files', count).format(n=count))}")
    return lines


def _history_lines(view: CaseView, tr: Translator, *, staff: bool) -> list[str]:
    """The exchange with the author, the answer, the timeline and the laws it rests on."""
    lines: list[str] = []
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
    return lines


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
    case_id = button_id(parts[2]) if len(parts) >= 3 else None
    if case_id is None:
        await unknown_button(update, context)
        return
    if action == "case":
        await show_case(update, context, case_id=case_id)
    elif action == "compl":
        await complement.start_complement(update, context, case_id)
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
    rows: list[list[tuple[str, str]]] = []
    text = tr._("Thank you for your rating! It helps the city hall improve.")
    if value is not Satisfaction.SATISFIED:  # issue 20 §3, L13460 Art. 23: a "No" or "Partly" may say why
        text += "\n\n" + tr._("Would you like to tell us why?")
        rows += [[(tr._("✍️ Say why"), f"svy:why:{case_id}")], [(tr._("🔁 Reopen the case"), f"svy:reopen:{case_id}")]]
    await respond(update, context, text, markup=keyboard([*rows, menu_row(context)]))


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Add the follow-up buttons, the complementação and survey-reason forms (command and deep link: decorators)."""
    complement.register(application)
    survey_reason.register(application)
    application.add_handler(CallbackQueryHandler(on_button, pattern=r"^acomp:"))
