"""/notificacoes: the person's penalty notices, ciência, defences and appeals, and the electronic opt-in.

Screens: the list (status and the days left of each), a notice (deadlines with their articles, "Tomo ciência",
"Apresentar defesa/reclamação/recurso", "Ver PDF"), the filing form (text → optional files → review → send,
saved after every step), and the opt-in (terms → optional CPF → confirmation), also reached by the deep link
``/start optin``. Buttons: ``ntc:<action>[:<id>]`` and the delivered message's ``notif:ciencia:<delivery id>``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from telegram import InputFile, Update
from telegram.ext import Application, CallbackQueryHandler

from core.i18n import N_, Translator
from handlers.chat.buttons import button_id, unknown_button
from handlers.chat.commands import chat_command
from handlers.chat.context import BalcaoContext
from handlers.chat.deep_links import deep_link
from handlers.chat.forms import cancel_row, current_draft, form_input, save
from handlers.chat.intake import files_received, is_file
from handlers.chat.replies import answer_query, esc, keyboard, menu_row, reply
from models.cases.attachments import AttachmentRefused, check_before_download
from models.cases.fields import cpf
from models.cases.limits import CaseLimits
from models.columns import utcnow
from models.days_left import days_left_words
from models.deadlines import Window, WindowRole
from models.drafts import Draft, discard_draft
from models.drivers.identifiers import mask_cpf
from models.invalid_input import InvalidInput
from models.notices.delivery import (
    DeliveryError,
    accept_electronic_notices,
    civil_date,
    record_explicit_ciencia,
    revoke_electronic_notices,
)
from models.notices.filings import (
    FilingRefused,
    check_can_file,
    file_filing,
    first_filing_kind,
    lapsed,
    store_filing_attachment,
)
from models.notices.issuing import ILLUSTRATIVE_FINE
from models.notices.optin import TERMS_VERSION, optin_status
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
from models.rulebooks.catalogue import CP, LAW_TITLES
from models.rulebooks.deadline_rules import unit_phrase
from notifications.notice_messages import FILING_LABELS, TYPE_LABELS, ciencia_data, money
from notifications.telegram_text import small

FILING_FORM = "notice_filing"
OPTIN_FORM = "notice_optin"
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



def today_of(context: BalcaoContext) -> dt.date:
    """Today's civil date in the deployment's time zone."""
    return civil_date(utcnow(), context.settings)


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
    return "\n".join(lines)


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
    today = today_of(context)
    async with context.sessions() as session:
        status = await optin_status(session=session, person_id=context.person.id)
        notices = await notices_of_person(session=session, person_id=context.person.id)
        views = [await notice_view(session=session, settings=context.settings, notice=n, today=today)
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
        return await notice_view(session=session, settings=context.settings, notice=notice, today=today_of(context))


async def show_notice(update: Update, context: BalcaoContext, notice_id: int, *, edit: bool = True) -> None:
    """One notice: what, status, ciência, deadlines, decision; buttons for what can be done now."""
    view = await _load_view(context, notice_id)
    if view is None:
        await reply(update, context, context.tr._("This notice is not addressed to you."),
                    markup=keyboard([menu_row(context)]), edit=edit)
        return
    await reply(update, context, notice_text(view, context.tr, today_of(context)) + _illustrative(view, context),
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
            result = await record_explicit_ciencia(session=session, settings=context.settings,
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
    shown = notice_text(view, tr, today_of(context)) + _illustrative(view, context)
    await reply(update, context, text + "\n\n" + shown, markup=keyboard(notice_buttons(view, context)))


# --- filing a defence, reclamação or appeal ------------------------------------------------------------------------


async def start_filing(update: Update, context: BalcaoContext, notice_id: int) -> None:
    """Check the window (refusing with the article after it), then ask for the text."""
    tr = context.tr
    async with context.sessions() as session:
        notice = await notice_of_person(session=session, notice_id=notice_id, person_id=context.person.id)
        if notice is None:
            await reply(update, context, tr._("This notice is not addressed to you."))
            return
        try:
            kind, last_day = await check_can_file(session=session, settings=context.settings, notice=notice,
                                                  today=today_of(context))
        except FilingRefused as refused:
            text = esc(refused.render(tr)) + (small(refused.citation) if refused.citation else "")
            await reply(update, context, text, markup=keyboard([[(tr._("◀ Back"), f"ntc:show:{notice_id}")],
                                                                menu_row(context)]))
            return
    data: dict[str, Any] = {"notice_id": notice_id, "number": notice.number, "kind": kind.value,
                            "title": FILING_LABELS[kind],  # /cancelar names it: "seu recurso", not "sua defesa"
                            "last_day": last_day.isoformat() if last_day else None, "text": "", "files": []}
    await save(context, FILING_FORM, "text", data)
    await ask_text(update, context, data)


def _deadline_line(tr: Translator, data: dict[str, Any]) -> str:
    if data.get("last_day"):
        return tr._("Deadline: {date}.").format(date=tr.date(dt.date.fromisoformat(data["last_day"])))
    return tr._("Appeal without a first-instance decision: no deadline while the complaint stays undecided.") + (
        small(f"{LAW_TITLES['nx-posturas']}, Art. 42"))


async def ask_text(update: Update, context: BalcaoContext, data: dict[str, Any]) -> None:
    """Ask for the petition's text."""
    tr = context.tr
    kind = tr._(FILING_LABELS[FilingKind(data["kind"])])
    text = tr._("Write {kind} for notice {number} in one message: what happened and why the notice "
                "should change. You can attach photos or documents next.").format(
        kind=esc(kind), number=f"<b>{esc(data['number'])}</b>")
    text += "\n" + _deadline_line(tr, data)
    await reply(update, context, text, markup=keyboard([cancel_row(context, "ntc:fcancel")]))


async def ask_files(update: Update, context: BalcaoContext, data: dict[str, Any]) -> None:
    """Offer to attach files (optional)."""
    tr = context.tr
    limits = CaseLimits.from_settings(context.settings)
    text = tr._("Now send photos or PDF documents, if you have any, then press Done.") + "\n" + tr.ngettext(
        "JPEG, PNG or PDF, up to {mb} MB each, at most {n} file.",
        "JPEG, PNG or PDF, up to {mb} MB each, at most {n} files.", limits.max_attachments).format(
        mb=limits.max_attachment_bytes // (1024 * 1024), n=limits.max_attachments)
    await reply(update, context, text, markup=keyboard([[(tr._("Done ▶"), "ntc:freview")],
                                                        cancel_row(context, "ntc:fcancel")]))


async def show_review(update: Update, context: BalcaoContext, data: dict[str, Any], *, edit: bool = False) -> None:
    """The summary and the explicit confirmation before filing."""
    tr = context.tr
    kind = tr._(FILING_LABELS[FilingKind(data["kind"])])
    lines = [
        tr._("<b>Check before sending</b>"),
        tr._("Text of {kind}, notice {number}:").format(kind=esc(kind), number=esc(data["number"])),
        f"<blockquote>{esc(data['text'])}</blockquote>",
        tr.ngettext("{n} file attached.", "{n} files attached.", len(data["files"])).format(n=len(data["files"])),
        _deadline_line(tr, data),
    ]
    await reply(update, context, "\n".join(lines), markup=keyboard(_review_rows(context)), edit=edit)


def _review_rows(context: BalcaoContext) -> list[list[tuple[str, str]]]:
    tr = context.tr
    return [[(tr._("✅ Send"), "ntc:fsend")], [(tr._("✏️ Rewrite the text"), "ntc:fedit")],
            cancel_row(context, "ntc:fcancel")]


async def send_filing(update: Update, context: BalcaoContext) -> None:
    """File it (the window is checked again now) and confirm with the moment and what follows."""
    tr = context.tr
    draft = await current_draft(context, FILING_FORM)
    if draft is None or not draft.data.get("text"):
        await reply(update, context, tr._("There is nothing to send. Start again from /notificacoes."),
                    markup=keyboard([menu_row(context)]))
        return
    data = draft.data
    try:
        async with context.sessions() as session:
            filing = await file_filing(session=session, settings=context.settings, notice_id=int(data["notice_id"]),
                                       person_id=context.person.id, text=data["text"],
                                       attachment_ids=[int(i) for i in data["files"]])
            await discard_draft(session=session, person_id=context.person.id)
    except FilingRefused as refused:
        text = esc(refused.render(tr)) + (small(refused.citation) if refused.citation else "")
        await reply(update, context, text, markup=keyboard([menu_row(context)]), edit=True)
        return
    kind = tr._(FILING_LABELS[filing.kind])
    text = tr._("Sent! We registered {kind} on {moment}. You will get the decision here.").format(
        kind=esc(kind), moment=tr.datetime(filing.filed_at, "short"))
    if filing.kind is FilingKind.RECLAMACAO:
        text += "\n" + tr._("While it is reviewed, the fine is suspended.") + small(
            f"{LAW_TITLES['nx-posturas']}, Art. 39")
    await reply(update, context, text, markup=keyboard([[(tr._("See the notice"), f"ntc:show:{data['notice_id']}")],
                                                        menu_row(context)]), edit=True)


@form_input(FILING_FORM, title=N_("your defence"))  # the draft's "title" says which filing it is
async def on_filing_input(update: Update, context: BalcaoContext, draft: Draft) -> None:
    """Text (the petition) or files while the filing form is open."""
    tr = context.tr
    message = update.effective_message
    data = dict(draft.data)
    if message is None:
        return
    if draft.step == "review" and not is_file(message):  # typed instead of pressing: nothing is sent or lost
        await reply(update, context, tr._("Nothing is sent until you press ✅ Send. To change the text, press "
                                          "✏️ Rewrite the text."), markup=keyboard(_review_rows(context)))
        return
    if is_file(message):
        if draft.step not in ("files", "review"):
            await reply(update, context, tr._("First write your text; you can send files right after."))
            return
        stored = await _receive_file(update, context, list(data["files"]))
        if stored is not None:
            data["files"] = [*data["files"], stored]
            await save(context, FILING_FORM, "files", data)
            await reply(update, context, files_received(context, len(data["files"])),
                        markup=keyboard([[(tr._("Done ▶"), "ntc:freview")], cancel_row(context, "ntc:fcancel")]))
        return
    text = (message.text or "").strip()
    if draft.step == "files":
        await reply(update, context, tr._("Send photos or documents, or press Done to review."),
                    markup=keyboard([[(tr._("Done ▶"), "ntc:freview")], cancel_row(context, "ntc:fcancel")]))
        return
    if len(text) < 10:
        await reply(update, context, tr._("Please write a little more (at least 10 characters)."))
        return
    data["text"] = text[:4000]
    step = "review" if data.get("editing") else "files"
    data.pop("editing", None)
    await save(context, FILING_FORM, step, data)
    if step == "review":
        await show_review(update, context, data)
    else:
        await ask_files(update, context, data)


async def _receive_file(update: Update, context: BalcaoContext, already: list[int]) -> int | None:
    message = update.effective_message
    assert message is not None
    name: str | None
    if message.photo:
        photo = message.photo[-1]
        declared, name, file_id = photo.file_size, "foto.jpg", photo.file_id
    elif message.document is not None:
        declared, name, file_id = message.document.file_size, message.document.file_name, message.document.file_id
    else:
        return None
    try:
        check_before_download(declared_size=declared, count=len(already),
                              limits=CaseLimits.from_settings(context.settings))
        content = bytes(await (await context.bot.get_file(file_id)).download_as_bytearray())
        async with context.sessions() as session:
            stored = await store_filing_attachment(session=session, settings=context.settings,
                                                   person_id=context.person.id, content=content, file_name=name,
                                                   already=already)
    except AttachmentRefused as refused:
        await reply(update, context, refused.render(context.tr))
        return None
    return stored.id


# --- opt-in ------------------------------------------------------------------------------------------------------


def terms_text(context: BalcaoContext) -> str:
    """The terms of electronic notification, in plain words."""
    tr = context.tr
    days = context.settings.tacit_ciencia_days
    lines = [
        tr._("<b>Receive penalty notices here</b>"),
        tr._("If you accept, the city hall may send you penalty notices in this chat, with the PDF document."),
        "• " + tr._('When a notice arrives, press "Tomo ciência": the day and time are recorded, and your deadlines '
                    "to defend yourself start then."),
        "• " + tr.ngettext(
            "For ride-hailing notices (Lei 1.533/2020), if you do not press it, you count as notified {n} day "
            "after the message, as in the national traffic notices.",
            "For ride-hailing notices (Lei 1.533/2020), if you do not press it, you count as notified {n} days "
            "after the message, as in the national traffic notices.", days).format(n=days),
        "• " + tr.ngettext("For other notices, if you do not press it within {n} day, it is delivered by post.",
                           "For other notices, if you do not press it within {n} days, it is delivered by post.",
                           days).format(n=days),
        "• " + tr._("Keep Telegram and do not block this bot. You can stop at any time in /notificacoes; "
                    "notices already received remain valid."),
    ]
    legal = tr._("Lei 1.533/2020, Art. 22 §1; CTB Art. 282-A. Terms version {version}.").format(version=TERMS_VERSION)
    return "\n".join(lines) + small(legal)


async def show_optin(update: Update, context: BalcaoContext, *, edit: bool = False) -> None:
    """The terms, with explicit acceptance."""
    tr = context.tr
    async with context.sessions() as session:
        status = await optin_status(session=session, person_id=context.person.id)
    text = terms_text(context)
    if status.current_terms:
        text += "\n\n" + tr._("You already accepted these terms.")
        rows = [[(tr._("◀ My notices"), "ntc:list")], menu_row(context)]
    else:
        rows = [[(tr._("✅ I accept"), "ntc:optin:yes")], [(tr._("Not now"), "ntc:list")], menu_row(context)]
    await reply(update, context, text, markup=keyboard(rows), edit=edit)


@deep_link("optin")
async def optin_link(update: Update, context: BalcaoContext, _rest: str) -> None:
    """``/start optin``: open the opt-in terms."""
    await show_optin(update, context)


async def ask_cpf(update: Update, context: BalcaoContext) -> None:
    """After accepting: the CPF, optional, so staff can address notices to the person."""
    await save(context, OPTIN_FORM, "cpf", {})
    tr = context.tr
    text = tr._("So the city hall can address notices to you, send your CPF (numbers only). This is optional.")
    await reply(update, context, text, markup=keyboard([[(tr._("Skip"), "ntc:optin:skip")],
                                                        cancel_row(context, "ntc:optin:cancel")]), edit=True)


async def confirm_optin(update: Update, context: BalcaoContext, data: dict[str, Any], *, edit: bool) -> None:
    """Summary and explicit confirmation."""
    tr = context.tr
    await save(context, OPTIN_FORM, "confirm", data)
    lines = [tr._("<b>Confirm</b>"), tr._("Receive penalty notices in this chat.")]
    if data.get("cpf"):
        lines.append(tr._("CPF: {cpf}").format(cpf=mask_cpf(data["cpf"])))
    rows = [[(tr._("✅ Confirm"), "ntc:optin:confirm")], cancel_row(context, "ntc:optin:cancel")]
    await reply(update, context, "\n".join(lines), markup=keyboard(rows), edit=edit)


@form_input(OPTIN_FORM, title=N_("your acceptance of electronic notices"))
async def on_optin_input(update: Update, context: BalcaoContext, draft: Draft) -> None:
    """The CPF typed at the opt-in."""
    message = update.effective_message
    if message is None or draft.step != "cpf":
        await reply(update, context, context.tr._("Please use the buttons above."))
        return
    try:
        digits = cpf(message.text or "")
    except InvalidInput as bad:
        await reply(update, context, bad.render(context.tr),
                    markup=keyboard([[(context.tr._("Skip"), "ntc:optin:skip")],
                                     cancel_row(context, "ntc:optin:cancel")]))
        return
    await confirm_optin(update, context, {"cpf": digits}, edit=False)


async def finish_optin(update: Update, context: BalcaoContext) -> None:
    """Record the acceptance (terms version and moment)."""
    tr = context.tr
    draft = await current_draft(context, OPTIN_FORM)
    data = draft.data if draft is not None else {}
    async with context.sessions() as session:
        sent = await accept_electronic_notices(session=session, settings=context.settings,
                                               person_id=context.person.id, cpf=data.get("cpf"))
        await discard_draft(session=session, person_id=context.person.id)
    text = tr._("Done! From now on, notices addressed to you arrive here.")
    if sent:
        text += "\n" + tr.ngettext("{n} document that was waiting for you is on its way here.",
                                   "{n} documents that were waiting for you are on their way here.",
                                   sent).format(n=sent)
    await reply(update, context, text, markup=keyboard([[(tr._("◀ My notices"), "ntc:list")], menu_row(context)]),
                edit=True)


async def ask_optout(update: Update, context: BalcaoContext) -> None:
    """Confirm before stopping electronic notification."""
    tr = context.tr
    text = tr._("Stop receiving notices here? New notices, and any waiting for your confirmation, will be "
                "delivered by post. Notices you already received remain valid.")
    rows = [[(tr._("Yes, stop"), "ntc:optout:yes")], [(tr._("◀ Back"), "ntc:list")]]
    await reply(update, context, text, markup=keyboard(rows), edit=True)


async def optout(update: Update, context: BalcaoContext) -> None:
    """Stop electronic notification."""
    async with context.sessions() as session:
        await revoke_electronic_notices(session=session, person_id=context.person.id)
    await reply(update, context, context.tr._("Done: notices will no longer be sent here."),
                markup=keyboard([[(context.tr._("◀ My notices"), "ntc:list")], menu_row(context)]), edit=True)


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
        await start_filing(update, context, notice_id)
    elif action in ("freview", "fsend", "fedit", "fcancel"):
        await _filing_button(update, context, action)
    elif action == "optin":
        await _optin_button(update, context, arg)
    elif action == "optout":
        await (optout(update, context) if arg == "yes" else ask_optout(update, context))
    else:
        await unknown_button(update, context)


async def _filing_button(update: Update, context: BalcaoContext, action: str) -> None:
    tr = context.tr
    if action == "fcancel":
        async with context.sessions() as session:
            await discard_draft(session=session, person_id=context.person.id)
        await reply(update, context, tr._("Cancelled: nothing was sent."), markup=keyboard([menu_row(context)]),
                    edit=True)
        return
    draft = await current_draft(context, FILING_FORM)
    if draft is None:
        await reply(update, context, tr._("There is nothing to send. Start again from /notificacoes."),
                    markup=keyboard([menu_row(context)]), edit=True)
        return
    data = dict(draft.data)
    if action == "fsend":
        await send_filing(update, context)
    elif action == "fedit":
        data["editing"] = True
        await save(context, FILING_FORM, "text", data)
        await ask_text(update, context, data)
    else:
        if not data.get("text"):
            await ask_text(update, context, data)
            return
        await save(context, FILING_FORM, "review", data)
        await show_review(update, context, data, edit=True)


async def _optin_button(update: Update, context: BalcaoContext, arg: str) -> None:
    if arg == "yes":
        await ask_cpf(update, context)
    elif arg == "skip":
        await confirm_optin(update, context, {}, edit=True)
    elif arg == "confirm":
        await finish_optin(update, context)
    elif arg == "cancel":
        async with context.sessions() as session:
            await discard_draft(session=session, person_id=context.person.id)
        await reply(update, context, context.tr._("Cancelled: nothing changed."),
                    markup=keyboard([menu_row(context)]), edit=True)
    else:
        await show_optin(update, context, edit=True)


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Add the notice buttons and the "Tomo ciência" button of delivered documents."""
    application.add_handler(CallbackQueryHandler(on_ciencia, pattern=r"^notif:ciencia:\d+$"))
    application.add_handler(CallbackQueryHandler(on_button, pattern=r"^ntc:"))
