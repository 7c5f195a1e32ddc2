"""/notificacoes: the person's penalty notices, ciência, defences and appeals, and the electronic opt-in.

Screens: the list (status and the days left of each) and a notice (deadlines with their articles, "Tomo ciência",
"Apresentar defesa/reclamação/recurso", "Ver PDF"). The filing is a form on the engine
(``handlers.chat.notice_filing``), and so is the acceptance of electronic notices, whose terms and opt-out are in
``handlers.chat.notice_optin``. Buttons: ``ntc:<action>[:<id>]`` and the delivered message's
``notif:ciencia:<delivery id>``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from telegram import InputFile, Update
from telegram.ext import Application, CallbackQueryHandler

from core.i18n import N_, Translator
from handlers.chat import notice_filing, notice_optin
from handlers.chat.buttons import button_id, unknown_button
from handlers.chat.commands import chat_command
from handlers.chat.context import BalcaoContext, city_today
from handlers.chat.replies import answer_query, esc, keyboard, menu_row, reply
from models.columns import utcnow
from models.days_left import days_left_words
from models.deadlines import Window, WindowRole
from models.notices.delivery import (
    DeliveryError,
    record_explicit_ciencia,
)
from models.notices.filings import (
    first_filing_kind,
    lapsed,
)
from models.notices.optin import optin_status
from models.notices.status import NoticeView, notice_of_person, notice_view, notices_of_person
from models.notices.tables import (
    CienciaKind,
    DeliveryState,
    FilingKind,
    FilingOutcome,
    Notice,
    NoticeOutcome,
    NoticeStage,
)
from models.notices.windows import NO_DEPOSIT
from models.notices.wording import ILLUSTRATIVE_FINE
from models.rulebooks.catalogue import CP, LAW_TITLES
from models.rulebooks.deadline_rules import unit_phrase
from notifications.notice_messages import FILING_LABELS, TYPE_LABELS, ciencia_data, money
from notifications.telegram_text import small

LIST_LIMIT = 10

FILE_BUTTONS = {
    FilingKind.DEFESA: N_("📝 Present a defence"),
    FilingKind.RECLAMACAO: N_("📝 Present a complaint (reclamação)"),
    FilingKind.RECURSO: N_("📝 Appeal"),
}
CIENCIA_HOW = {
    CienciaKind.EXPLICIT: N_("you confirmed it here"),
    CienciaKind.TACIT: N_("automatically, after the period without confirmation"),
    CienciaKind.PERSONAL: N_("delivered in person"),
    CienciaKind.POSTAL: N_("by post, on the date of the delivery receipt"),
    CienciaKind.EDITAL: N_("by public notice (edital)"),
}



def _law(notice: Notice) -> str:
    return LAW_TITLES.get(notice.rulebook, notice.rulebook)


def stage_label(view: NoticeView, tr: Translator) -> str:
    """The notice's status in plain words."""
    notice = view.notice
    pending = view.pending_filing
    if notice.stage is NoticeStage.AWAITING_CIENCIA:
        if view.awaiting_ciencia is not None:
            return tr._('Waiting for you to confirm you received it ("Tomo ciência")')
        return tr._("Being delivered in person, by post or by public notice")
    if notice.stage is NoticeStage.NOTIFIED:
        return tr._("Received: you may present {kind}").format(
            kind=tr._(FILING_LABELS[view.can_file or FilingKind.DEFESA]))
    if view.art42_from is not None:
        return tr._("Not decided in time: you may appeal")
    if notice.stage in (NoticeStage.UNDER_REVIEW, NoticeStage.APPEALED) and pending is not None:
        return tr._("Under review: {kind}").format(kind=tr._(FILING_LABELS[pending.kind]))
    if notice.stage is NoticeStage.DECIDED:
        return tr._("Decided: you may appeal")
    if notice.outcome is NoticeOutcome.ANNULLED:
        return tr._("Closed: the notice was cancelled")
    return tr._("Closed: the penalty stands")


def citizen_windows(windows: tuple[Window, ...]) -> list[Window]:
    """The one governing window of each right, as the person it is addressed to sees them.

    The other readings of an ambiguous article (``WindowRole.ALTERNATIVE``) are for staff screens and the
    ``prazo`` command; the appeal deposit is not a deadline of the person's right (see docs/LEGAL-CHOICES.md).
    """
    return [window for window in windows
            if window.role is not WindowRole.ALTERNATIVE and not window.rule.id.endswith("-deposito")]


def _window_line(window: Window, tr: Translator, today: dt.date, notice: Notice) -> str:
    what = tr._(window.rule.description)
    line = tr._("• {what}: until {date} — {left}").format(
        what=esc(what), date=tr.date(window.final_date), left=days_left_words(tr, window.final_date, today=today))
    # issue 20 §3: the PDF's "30 dias corridos" and "faltam 34 dias" agree once the count's start is said
    result = window.result
    why = tr._("{length} counted from {start}").format(
        length=unit_phrase(tr, result.reading.unit, result.length), start=tr.short_date(result.start))
    if result.moved:
        why += "; " + tr._("the last day fell on a day without office hours, so it moved to the next business "
                           "day")
    return line + f"\n  <i>{esc(why)}</i>" + small(f"{_law(notice)}, {window.rule.article}")


def notice_text(view: NoticeView, tr: Translator, today: dt.date) -> str:
    """The notice screen: what, the fine, status, ciência, deadlines with their articles, filings, decision."""
    notice = view.notice
    lines = [
        "<b>" + esc(tr._(TYPE_LABELS[notice.type])) + f" {esc(notice.number)}</b>",
        esc(notice.infraction_description),
        tr._("Fine: {amount}").format(amount=money(tr, notice.fine_cents)),
    ]
    if view.paid is not None:  # CP Art. 34 IV: the payment staff recorded or the bank's file brought
        lines.append(tr._("✅ Fine paid on {date}.").format(date=tr.date(view.paid.paid_on)))
    if view.suspended:
        lines.append(tr._("⏸ The fine is suspended while your complaint is reviewed.")
                     + small(f"{_law(notice)}, Art. 39"))
    lines.append(tr._("Status: {status}").format(status=esc(stage_label(view, tr))))
    delivery = view.delivery
    if delivery is not None and delivery.ciencia_on is not None and delivery.ciencia_kind is not None:
        lines.append(tr._("Received on {date} ({how}).").format(
            date=tr.date(delivery.ciencia_on), how=tr._(CIENCIA_HOW[delivery.ciencia_kind])))
    elif view.tacit_on is not None:
        lines.append(tr._("If you do not confirm, you will count as notified on {date}.").format(
            date=tr.date(view.tacit_on)))
    return "\n".join([*lines, *_filing_lines(view, tr), *_deadline_lines(view, tr, today)])


def _filing_lines(view: NoticeView, tr: Translator) -> list[str]:
    """The last decision on a filing (or its lapse, CP Art. 42) and the filing still waiting for one."""
    notice = view.notice
    lines: list[str] = []
    decision = view.last_decision
    if decision is not None and lapsed(decision):
        lines.append("")
        lines.append(tr._("Your complaint was not decided in time, so you appealed as if it had been rejected.")
                     + small(f"{_law(notice)}, Art. 42"))
    elif decision is not None and decision.outcome is not None:
        verdict = (tr._("accepted") if decision.outcome is FilingOutcome.GRANTED else tr._("not accepted"))
        lines.append("")
        lines.append(tr._("Decision on {kind}: {verdict}.").format(
            kind=tr._(FILING_LABELS[decision.kind]), verdict=verdict))
        lines.append(f"<blockquote>{esc(decision.decision_text or '')}</blockquote>")
    pending = view.pending_filing
    if pending is not None:
        lines.append(tr._("You filed {kind} on {date}.").format(
            kind=tr._(FILING_LABELS[pending.kind]), date=tr.date(pending.filed_at)))
    return lines


def _deadline_lines(view: NoticeView, tr: Translator, today: dt.date) -> list[str]:
    """The periods open now (or those the ciência will open), the payment after a decision, CP Art. 42 and 46."""
    notice = view.notice
    lines: list[str] = []
    windows = citizen_windows(view.windows)
    if windows:
        lines.append("")
        lines.append(tr._("<b>Deadlines</b>"))
        lines += [_window_line(window, tr, today, notice) for window in windows]
    elif view.after_ciencia:  # issue 20 §3: before the ciência, what opens after it (the dates come with it)
        lines += ["", tr._("<b>After the ciência</b> (when you confirm you received it, or count as notified):")]
        lines += [tr._("• {what}: {length}").format(
            what=esc(tr._(window.rule.description)),
            length=unit_phrase(tr, window.result.reading.unit, window.result.length))
            + small(f"{_law(notice)}, {window.rule.article}") for window in citizen_windows(view.after_ciencia)]
    if view.payment_later is not None:  # issue 20 §3: the payment stays visible after a defence decision
        later = view.payment_later
        lines.append(tr._("• {what}: {length}, counted from the ciência of the final decision").format(
            what=esc(tr._(later.rule.description)), length=unit_phrase(tr, later.unit, later.length))
            + small(f"{_law(notice)}, {later.rule.article}"))
    if view.art42_from is not None:
        lines.append(tr._("The decision on your complaint was due by {date}. You may appeal now, as if your "
                          "complaint had been rejected.").format(
            date=tr.date(view.art42_from - dt.timedelta(days=1))) + small(f"{_law(notice)}, Art. 40; Art. 42"))
    if notice.rulebook == CP and (view.acts.appeal is not None or notice.stage is NoticeStage.APPEALED):
        lines.append(tr._(NO_DEPOSIT) + small(f"{_law(notice)}, Art. 46; STF, Súmula Vinculante 21"))
    return lines


def notice_buttons(view: NoticeView, context: BalcaoContext) -> list[list[tuple[str, str]]]:
    """Tomo ciência (when a document waits for it), file (when the stage allows), PDF, back, menu."""
    tr = context.tr
    notice_id = view.notice.id
    rows: list[list[tuple[str, str]]] = []
    awaiting = view.awaiting_ciencia
    if awaiting is not None and awaiting.id is not None and awaiting.state is DeliveryState.ELECTRONIC:
        rows.append([(tr._("✅ Tomo ciência (I received it)"), ciencia_data(awaiting.id))])
    if view.notice.stage in (NoticeStage.NOTIFIED, NoticeStage.DECIDED) or view.art42_from is not None:
        kind = view.can_file or (FilingKind.RECURSO if view.notice.stage is NoticeStage.DECIDED
                                 else first_filing_kind(view.notice))
        rows.append([(tr._(FILE_BUTTONS[kind]), f"ntc:file:{notice_id}")])
    rows.append([(tr._("📄 See the PDF"), f"ntc:pdf:{notice_id}"), (tr._("◀ My notices"), "ntc:list")])
    rows.append(menu_row(context))
    return rows


# --- the list and one notice -------------------------------------------------------------------------------------


@chat_command("notificacoes", aliases=("notices",), description=N_("Penalty notices sent to you"),
              menu_label=N_("My notices"), order=40)
async def notices_command(update: Update, context: BalcaoContext) -> None:
    """``/notificacoes``: the person's notices and the electronic-notification opt-in."""
    await show_list(update, context, edit=update.callback_query is not None)


async def show_list(update: Update, context: BalcaoContext, *, edit: bool = False) -> None:
    """Each notice with its status and the days left of its current deadline; the opt-in state."""
    tr = context.tr
    today = city_today(context)
    async with context.sessions() as session:
        status = await optin_status(session=session, person_id=context.person.id)
        notices = await notices_of_person(session=session, person_id=context.person.id)
        views = [await notice_view(session=session, city=context.cities.of(n.municipality), notice=n, today=today)
                 for n in notices[:LIST_LIMIT]]
    lines = [tr._("<b>Your notices</b>")]
    rows: list[list[tuple[str, str]]] = []
    if not views:
        lines.append(tr._("There are no notices addressed to you."))
    for view in views:
        governing = view.acts.defence or view.acts.appeal
        line = f"• <b>{esc(view.notice.number)}</b> — {esc(stage_label(view, tr))}"
        if view.paid is not None:
            line += " · " + tr._("fine paid")
        if governing is not None and view.can_file is not None:
            line += "\n  " + tr._("until {date} ({left})").format(
                date=tr.short_date(governing.final_date), left=days_left_words(tr, governing.final_date, today=today))
        lines.append(line)
        rows.append([(view.notice.number, f"ntc:show:{view.notice.id}")])
    lines.append("")
    if status.active:
        assert status.accepted_at is not None
        lines.append(tr._("You receive notices here since {date}.").format(date=tr.date(status.accepted_at)))
        rows.append([(tr._("Stop receiving notices here"), "ntc:optout")])
    else:
        lines.append(tr._("You do not receive notices here yet: they go by post."))
        rows.append([(tr._("📬 Receive notices here"), "ntc:optin")])
    rows.append(menu_row(context))
    await reply(update, context, "\n".join(lines), markup=keyboard(rows), edit=edit)


async def _load_view(context: BalcaoContext, notice_id: int) -> NoticeView | None:
    async with context.sessions() as session:
        notice = await notice_of_person(session=session, notice_id=notice_id, person_id=context.person.id)
        if notice is None:
            return None
        return await notice_view(session=session, city=context.cities.of(notice.municipality), notice=notice,
                                 today=city_today(context))


async def show_notice(update: Update, context: BalcaoContext, notice_id: int, *, edit: bool = True) -> None:
    """One notice: what, status, ciência, deadlines, decision; buttons for what can be done now."""
    view = await _load_view(context, notice_id)
    if view is None:
        await reply(update, context, context.tr._("This notice is not addressed to you."),
                    markup=keyboard([menu_row(context)]), edit=edit)
        return
    await reply(update, context, notice_text(view, context.tr, city_today(context)) + _illustrative(view, context),
                markup=keyboard(notice_buttons(view, context)), edit=edit)


def _illustrative(view: NoticeView, context: BalcaoContext) -> str:
    """The demo's note on a fine priced with illustrative unit values (issue 11 item 3), else nothing."""
    served = context.deployment_settings.municipalities
    if view.notice.municipality not in served:
        return ""
    issuer = context.deployment_settings.for_municipality(view.notice.municipality)
    return "\n" + context.tr._(ILLUSTRATIVE_FINE) if issuer.fines_illustrative else ""


async def send_pdf(update: Update, context: BalcaoContext, notice_id: int) -> None:
    """The notice's PDF, as issued."""
    async with context.sessions() as session:
        notice = await notice_of_person(session=session, notice_id=notice_id, person_id=context.person.id)
    chat = update.effective_chat
    if notice is None or chat is None:
        await reply(update, context, context.tr._("This notice is not addressed to you."))
        return
    if update.callback_query is not None:
        await answer_query(update, context)
    await context.bot.send_document(chat_id=chat.id, document=InputFile(notice.pdf, filename=f"{notice.number}.pdf"),
                                    caption=notice.number)


# --- ciência -----------------------------------------------------------------------------------------------------


async def on_ciencia(update: Update, context: BalcaoContext) -> None:
    """The "Tomo ciência" button of a delivered notice or decision: record the moment, show what follows."""
    query = update.callback_query
    assert query is not None and query.data is not None
    tr = context.tr
    delivery_id = button_id(query.data.rsplit(":", 1)[1])
    if delivery_id is None:
        await unknown_button(update, context)
        return
    try:
        async with context.sessions() as session:
            result = await record_explicit_ciencia(session=session, cities=context.cities,
                                                   delivery_id=delivery_id, person_id=context.person.id)
    except DeliveryError:
        await reply(update, context, tr._("This document is no longer waiting for your confirmation here: it is "
                                          "being delivered by other means. See /notificacoes."))
        return
    moment = result.delivery.ciencia_at or utcnow()
    if result.already and result.delivery.ciencia_kind is not CienciaKind.EXPLICIT:
        assert result.delivery.ciencia_on is not None
        text = tr._("You already count as notified since {date}.").format(date=tr.date(result.delivery.ciencia_on))
    elif result.already:
        text = tr._("You had already confirmed receipt on {moment}.").format(moment=tr.datetime(moment, "short"))
    else:
        text = tr._("✅ Receipt recorded on {moment}. Your deadlines count from today.").format(
            moment=tr.datetime(moment, "short"))
    assert result.notice.id is not None
    view = await _load_view(context, result.notice.id)
    if view is None:
        await reply(update, context, text)
        return
    shown = notice_text(view, tr, city_today(context)) + _illustrative(view, context)
    await reply(update, context, text + "\n\n" + shown, markup=keyboard(notice_buttons(view, context)))


# --- buttons -----------------------------------------------------------------------------------------------------


async def on_button(update: Update, context: BalcaoContext) -> None:
    """Every ``ntc:`` button."""
    query = update.callback_query
    assert query is not None and query.data is not None
    parts = query.data.split(":")
    action, arg = parts[1], (parts[2] if len(parts) > 2 else "")
    if action == "list":
        await show_list(update, context, edit=True)
    elif action == "show" and (notice_id := button_id(arg)) is not None:
        await show_notice(update, context, notice_id)
    elif action == "pdf" and (notice_id := button_id(arg)) is not None:
        await send_pdf(update, context, notice_id)
    elif action == "file" and (notice_id := button_id(arg)) is not None:
        await notice_filing.start_filing(update, context, notice_id)
    elif action == "optin":
        await (notice_optin.accept(update, context) if arg == "yes" else notice_optin.show_optin(update, context,
                                                                                                edit=True))
    elif action == "optout":
        await (notice_optin.optout(update, context) if arg == "yes" else notice_optin.ask_optout(update, context))
    else:
        await unknown_button(update, context)


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Add the notice buttons, the "Tomo ciência" button of delivered documents, and the filing form."""
    notice_filing.register(application)
    notice_optin.register(application)
    application.add_handler(CallbackQueryHandler(on_ciencia, pattern=r"^notif:ciencia:\d+$"))
    application.add_handler(CallbackQueryHandler(on_button, pattern=r"^ntc:"))
