"""/aviso (staff): write a notice, preview it, pick an audience, see the count, send now or later, follow it.

The preview is exactly what recipients will see; the count is who it reaches; the progress message updates in
place (sent, unreachable, failed, with a bar) and has a button that stops the sending.

Every step is saved in the draft table (form ``aviso``), so a restart resumes where the staff member was; every
staff action checks the role again. Buttons: ``aviso:…``.
"""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any

from telegram import Message, Update
from telegram.ext import Application, CallbackQueryHandler

from core.i18n import N_
from handlers.chat.commands import chat_command
from handlers.chat.context import BalcaoContext
from handlers.chat.forms import active_draft, form_input
from handlers.chat.replies import answer_query, esc, keyboard, menu_row, reply
from models.columns import utcnow
from models.drafts import (
    Draft,
    claim_submission,
    discard_draft,
    find_submission,
    finish_submission,
    release_submission,
    save_draft,
)
from models.people import PermissionDenied, Role, require_role
from notifications.audiences import AUDIENCES
from notifications.broadcasts import (
    MAX_DAYS,
    AudienceChoice,
    BroadcastRefused,
    BroadcastView,
    attach_progress_message,
    audience_label,
    audience_size,
    broadcast_scope,
    broadcast_view,
    check_text,
    create_broadcast,
    open_broadcasts,
    parse_when,
    preview,
    progress_buttons,
    progress_text,
    refusal_text,
    stop_broadcast,
)
from notifications.plugins import load_all
from notifications.rendering import Rendered
from notifications.service import wake_dispatcher

FORM = "aviso"
ROLES = frozenset({Role.CLERK})
"""Who may broadcast (admins always may)."""
DAY_CHOICES = (7, 15, 30, 60, 90)
OPEN_SHOWN = 5
CANCEL = "aviso:cancel"


def _cancel_row(context: BalcaoContext) -> list[tuple[str, str]]:
    return [(context.tr._("✖ Cancel"), CANCEL)]


async def _is_staff(update: Update, context: BalcaoContext) -> bool:
    """Check the role on every action; tell a non-staff person kindly."""
    try:
        async with context.sessions() as session:
            await require_role(session=session, telegram_user_id=context.person.telegram_user_id, allowed=ROLES,
                               municipality=context.person.municipality)
    except PermissionDenied:
        await reply(update, context, context.tr._("This is only for city hall staff who send notices."),
                    markup=keyboard([menu_row(context)]))
        return False
    return True


async def _save(context: BalcaoContext, step: str, data: dict[str, Any]) -> None:
    async with context.sessions() as session:
        await save_draft(session=session, person_id=context.person.id, form=FORM, step=step, data=data)


async def _draft(context: BalcaoContext) -> Draft | None:
    draft = await active_draft(context)
    return draft if draft is not None and draft.form == FORM else None


def _choice(data: dict[str, Any]) -> AudienceChoice:
    return AudienceChoice(name=data["audience"], days=data.get("days"), topic=data.get("topic"))


def _open_line(view: BroadcastView, context: BalcaoContext) -> str:
    tr = context.tr
    if view.send_at > utcnow():
        when = tr.moment(view.send_at)
        return tr._("#{id}: scheduled for {when}").format(id=view.id, when=when)
    return tr._("#{id}: sending, {done} of {total}").format(
        id=view.id, done=tr.number(view.done), total=tr.number(view.recipients)
    )


# --- 1. the text --------------------------------------------------------------------------------------------


@chat_command(
    "aviso",
    description=N_("Send a notice to an audience (staff)"),
    menu_label=N_("Send a notice"),
    staff_roles=ROLES,
    order=200,
)
async def notice_command(update: Update, context: BalcaoContext) -> None:
    """``/aviso``: show the notices still running (with a stop button) and ask for the text of a new one."""
    if not await _is_staff(update, context):
        return
    tr = context.tr
    async with context.sessions() as session:
        running = await open_broadcasts(session=session)
    lines, rows = [], []
    if running:
        lines.append(tr._("<b>Notices still going out</b>"))
        for view in running[:OPEN_SHOWN]:
            lines.append("• " + _open_line(view, context))
            rows.append([(tr._("⏹ Stop #{id}").format(id=view.id), f"aviso:stop:{view.id}")])
        lines.append("")
    await _save(context, "text", {"nonce": secrets.token_hex(6)})
    lines.append(tr._("<b>New notice</b>\nWrite the notice as people should read it, in one message. "
                      "You can use bold and italics."))
    rows += [_cancel_row(context), menu_row(context)]
    await reply(update, context, "\n".join(lines), markup=keyboard(rows), edit=update.callback_query is not None)


@form_input(FORM, title=N_("the notice you were writing"))
async def notice_input(update: Update, context: BalcaoContext, draft: Draft) -> None:
    """Typed input at each step: the text, a number of days, a topic, or a date and time."""
    message = update.effective_message
    if not await _is_staff(update, context):
        return
    typed = message.text if message is not None and message.text else None
    data = dict(draft.data)
    tr = context.tr
    if typed is None:
        await reply(update, context, tr._("Please write it as a text message."),
                    markup=keyboard([_cancel_row(context)]))
        return
    if draft.step == "text":
        assert message is not None
        await _text_received(update, context, data, message)
    elif draft.step == "days":
        if not typed.strip().isdecimal() or int(typed) > MAX_DAYS:
            await reply(update, context, refusal_text(tr, BroadcastRefused("days_required", limit=MAX_DAYS)),
                        markup=keyboard([_cancel_row(context)]))
            return
        data["days"] = int(typed)
        await _show_count(update, context, data)
    elif draft.step == "topic":
        data["topic"] = typed.strip()[:64]
        await _show_count(update, context, data)
    elif draft.step == "when":
        moment = parse_when(typed, now=utcnow(), settings=context.settings)
        if moment is None:
            await reply(update, context, tr._("I did not understand that date. Type it like 25/12 08:00."),
                        markup=keyboard([_cancel_row(context)]))
            return
        await _confirm(update, context, data, moment)
    else:
        await reply(update, context, tr._("Please use the buttons above, or /cancelar to stop."))


async def _text_received(update: Update, context: BalcaoContext, data: dict[str, Any], message: Message) -> None:
    tr = context.tr
    try:
        text = check_text(message.text_html, is_html=True)
    except BroadcastRefused as refused:
        await reply(update, context, refusal_text(tr, refused), markup=keyboard([_cancel_row(context)]))
        return
    data["text"] = text
    await _save(context, "audience", data)
    rendered: Rendered = preview(text, tr, context.settings)
    await reply(update, context, tr._("Preview — this is exactly how people will receive it:"))
    await reply(update, context, rendered.text)
    await _ask_audience(update, context, edit=False)


# --- 2. the audience --------------------------------------------------------------------------------------------


async def _ask_audience(update: Update, context: BalcaoContext, *, edit: bool) -> None:
    tr = context.tr
    rows = [[(tr._(found.label), f"aviso:aud:{name}")] for name, found in AUDIENCES.items()
            if len(f"aviso:aud:{name}".encode()) <= 64]
    rows += [[(tr._("✏️ Change the text"), "aviso:text")], _cancel_row(context)]
    await reply(update, context, tr._("Who should receive it?"), markup=keyboard(rows), edit=edit)


async def audience_button(update: Update, context: BalcaoContext) -> None:
    """``aviso:aud:<name>``: the audience; ask its number of days or topic if it takes one."""
    draft = await _draft_or_gone(update, context)
    if draft is None:
        return
    query = update.callback_query
    assert query is not None and query.data is not None
    name = query.data.split(":", 2)[2]
    found = AUDIENCES.get(name)
    tr = context.tr
    if found is None:
        await query.answer(refusal_text(tr, BroadcastRefused("unknown_audience")))
        return
    data = {key: value for key, value in draft.data.items() if key not in {"days", "topic", "send_at"}}
    data["audience"] = name
    if found.takes_days:
        await _save(context, "days", data)
        rows = [[(tr.ngettext("{n} day", "{n} days", days).format(n=days), f"aviso:days:{days}")
                 for days in DAY_CHOICES]]
        text = tr._("{label}: within how many days? Choose or type a number.").format(label=esc(tr._(found.label)))
        await reply(update, context, text, markup=keyboard([*rows, _cancel_row(context)]), edit=True)
        return
    if found.takes_topic:
        await _save(context, "topic", data)
        choices: list[tuple[str, str]] = []
        if found.topic_choices is not None:
            async with context.sessions() as session:
                choices = await found.topic_choices(session=session)
        rows = [[(tr._(label), f"aviso:topic:{value}")] for value, label in choices
                if len(f"aviso:topic:{value}".encode()) <= 64]
        text = tr._("{label}: which topic? Choose or type it.").format(label=esc(tr._(found.label)))
        await reply(update, context, text, markup=keyboard([*rows, _cancel_row(context)]), edit=True)
        return
    await _show_count(update, context, data)


async def days_button(update: Update, context: BalcaoContext) -> None:
    """``aviso:days:<n>``."""
    draft = await _draft_or_gone(update, context)
    if draft is None:
        return
    query = update.callback_query
    assert query is not None and query.data is not None
    await _show_count(update, context, {**draft.data, "days": int(query.data.rsplit(":", 1)[1])})


async def topic_button(update: Update, context: BalcaoContext) -> None:
    """``aviso:topic:<topic>``."""
    draft = await _draft_or_gone(update, context)
    if draft is None:
        return
    query = update.callback_query
    assert query is not None and query.data is not None
    await _show_count(update, context, {**draft.data, "topic": query.data.split(":", 2)[2]})


# --- 3. the count, now or later -------------------------------------------------------------------------------


async def _show_count(update: Update, context: BalcaoContext, data: dict[str, Any]) -> None:
    tr = context.tr
    choice = _choice(data)
    try:
        async with context.sessions() as session:
            size = await audience_size(session=session, choice=choice, now=utcnow(),
                                       municipality=broadcast_scope(context.settings))
    except BroadcastRefused as refused:
        await reply(update, context, refusal_text(tr, refused), markup=keyboard([_cancel_row(context)]),
                    edit=update.callback_query is not None)
        return
    await _save(context, "send", data)
    count = len(size.recipients)
    lines = [f"<b>{esc(audience_label(choice, tr))}</b>"]
    if count:
        lines.append(tr.ngettext("This notice will go to {n} person.", "This notice will go to {n} people.", count)
                     .format(n=tr.number(count)))
    else:
        lines.append(refusal_text(tr, BroadcastRefused("nobody")))
    if size.left_out:
        lines.append(tr.ngettext(
            "{n} person is left out: they turned notices off or erased their data.",
            "{n} people are left out: they turned notices off or erased their data.",
            size.left_out,
        ).format(n=tr.number(size.left_out)))
    rows = []
    if count:
        rows.append([(tr._("📤 Send now"), "aviso:now"), (tr._("🕒 Schedule"), "aviso:later")])
    rows += [[(tr._("👥 Change the audience"), "aviso:audiences")], _cancel_row(context)]
    await reply(update, context, "\n".join(lines), markup=keyboard(rows), edit=update.callback_query is not None)


async def now_button(update: Update, context: BalcaoContext) -> None:
    """``aviso:now``: confirm sending now."""
    draft = await _draft_or_gone(update, context)
    if draft is not None:
        await _confirm(update, context, dict(draft.data), None)


async def later_button(update: Update, context: BalcaoContext) -> None:
    """``aviso:later``: ask for a date and time (quick choices, or typed)."""
    draft = await _draft_or_gone(update, context)
    if draft is None:
        return
    await _save(context, "when", dict(draft.data))
    tr = context.tr
    tomorrow = (utcnow().astimezone(context.settings.tz) + dt.timedelta(days=1)).date()
    rows = []
    for hour in (8, 14):
        moment = dt.datetime.combine(tomorrow, dt.time(hour), tzinfo=context.settings.tz)
        label = tr._("Tomorrow at {time}").format(time=tr.time(moment))
        rows.append([(label, f"aviso:at:{moment.strftime('%Y%m%d%H%M')}")])
    text = tr._("When should it go? Choose below, or type the date and time like 25/12 08:00.")
    await reply(update, context, text, markup=keyboard([*rows, _cancel_row(context)]), edit=True)


async def at_button(update: Update, context: BalcaoContext) -> None:
    """``aviso:at:<YYYYmmddHHMM>`` (local time): a quick choice of date and time."""
    draft = await _draft_or_gone(update, context)
    if draft is None:
        return
    query = update.callback_query
    assert query is not None and query.data is not None
    local = dt.datetime.strptime(query.data.rsplit(":", 1)[1], "%Y%m%d%H%M").replace(tzinfo=context.settings.tz)
    await _confirm(update, context, dict(draft.data), local.astimezone(dt.UTC))


async def _confirm(update: Update, context: BalcaoContext, data: dict[str, Any], send_at: dt.datetime | None) -> None:
    """The summary and the explicit confirmation before anything is sent."""
    tr = context.tr
    now = utcnow()
    if send_at is not None and send_at <= now:
        await reply(update, context, refusal_text(tr, BroadcastRefused("in_the_past")),
                    markup=keyboard([_cancel_row(context)]))
        return
    data["send_at"] = send_at.isoformat() if send_at else None
    choice = _choice(data)
    async with context.sessions() as session:
        size = await audience_size(session=session, choice=choice, now=now,
                                   municipality=broadcast_scope(context.settings))
    await _save(context, "confirm", data)
    count = len(size.recipients)
    if send_at is None:
        question = tr.ngettext("Send this notice now to {n} person ({audience})?",
                               "Send this notice now to {n} people ({audience})?", count)
        when = ""
    else:
        question = tr.ngettext("Send this notice on {when} to {n} person ({audience})?",
                               "Send this notice on {when} to {n} people ({audience})?", count)
        when = tr.moment(send_at)
    text = question.format(n=tr.number(count), when=when, audience=esc(audience_label(choice, tr)))
    rows = [[(tr._("✅ Yes, send it"), "aviso:go")], [(tr._("« Back"), "aviso:back")], _cancel_row(context)]
    await reply(update, context, f"<b>{text}</b>", markup=keyboard(rows), edit=update.callback_query is not None)


async def go_button(update: Update, context: BalcaoContext) -> None:
    """``aviso:go``: create the broadcast once; this message becomes its progress message.

    A burst of taps creates one broadcast (the claim on the notice's nonce, ``models.drafts``, and the request key);
    the later presses are told its number.
    """
    if not await _is_staff(update, context):
        return
    draft = await _draft(context)
    if draft is None:
        await _already_sent(update, context)
        return
    if draft.step != "confirm" or "text" not in draft.data:
        await _draft_or_gone(update, context)
        return
    data = dict(draft.data)
    key = str(data["nonce"])
    async with context.sessions() as session:
        claimed = await claim_submission(session=session, person_id=context.person.id, form=FORM, key=key)
    if not claimed:
        await _already_sent(update, context)
        return
    send_at = dt.datetime.fromisoformat(data["send_at"]) if data.get("send_at") else None
    tr = context.tr
    now = utcnow()
    chat_id = update.effective_chat.id if update.effective_chat else context.person.chat_id
    try:
        async with context.sessions() as session:
            created = await create_broadcast(
                session=session,
                settings=context.settings,
                choice=_choice(data),
                text=data["text"],
                actor=f"staff:{context.person.telegram_user_id}",
                now=now,
                send_at=send_at,
                requester_person_id=context.person.id,
                progress_chat_id=chat_id,
                request_key=f"aviso:{context.person.id}:{data['nonce']}",
            )
    except BaseException as failure:
        async with context.sessions() as session:
            await release_submission(session=session, key=key)
        if not isinstance(failure, BroadcastRefused):
            raise
        await reply(update, context, refusal_text(tr, failure), markup=keyboard([[(tr._("« Back"), "aviso:back")],
                                                                             _cancel_row(context)]))
        return
    async with context.sessions() as session:
        await finish_submission(session=session, person_id=context.person.id, key=key, result=str(created.id))
        await discard_draft(session=session, person_id=context.person.id)
        view = await broadcast_view(session=session, broadcast_id=created.id)
    assert view is not None
    shown = await reply(update, context, progress_text(view, tr, now=now),
                        markup=keyboard(progress_buttons(view, tr) or [menu_row(context)]), edit=True)
    async with context.sessions() as session:
        await attach_progress_message(session=session, broadcast_id=created.id, chat_id=shown.chat_id,
                                      message_id=shown.message_id)
    wake_dispatcher()


# --- going back, stopping, cancelling -----------------------------------------------------------------------


async def back_button(update: Update, context: BalcaoContext) -> None:
    """``aviso:back``: from the confirmation back to the count."""
    draft = await _draft_or_gone(update, context)
    if draft is not None:
        await _show_count(update, context, dict(draft.data))


async def audiences_button(update: Update, context: BalcaoContext) -> None:
    """``aviso:audiences``: pick another audience (the text is kept)."""
    draft = await _draft_or_gone(update, context)
    if draft is not None:
        await _save(context, "audience", dict(draft.data))
        await _ask_audience(update, context, edit=True)


async def text_button(update: Update, context: BalcaoContext) -> None:
    """``aviso:text``: write the text again."""
    draft = await _draft_or_gone(update, context)
    if draft is None:
        return
    await _save(context, "text", dict(draft.data))
    await reply(update, context, context.tr._("Write the new text of the notice."),
                markup=keyboard([_cancel_row(context)]), edit=True)


async def cancel_button(update: Update, context: BalcaoContext) -> None:
    """``aviso:cancel``: discard the notice being written (and nothing else the person was writing); nothing is sent."""
    if not await _is_staff(update, context):
        return
    if await _draft(context) is not None:
        async with context.sessions() as session:
            await discard_draft(session=session, person_id=context.person.id)
    await reply(update, context, context.tr._("Cancelled: the notice was discarded and nothing was sent."),
                markup=keyboard([menu_row(context)]), edit=True)


async def stop_button(update: Update, context: BalcaoContext) -> None:
    """``aviso:stop:<id>``: stop a broadcast; messages not sent yet are not sent."""
    if not await _is_staff(update, context):
        return
    query = update.callback_query
    assert query is not None and query.data is not None
    broadcast_id = int(query.data.rsplit(":", 1)[1])
    tr = context.tr
    async with context.sessions() as session:
        view = await stop_broadcast(session=session, broadcast_id=broadcast_id,
                                    actor=f"staff:{context.person.telegram_user_id}")
    if view is None:
        await query.answer(tr._("This notice is no longer going out."))
        return
    buttons = progress_buttons(view, tr) or [menu_row(context)]
    await reply(update, context, progress_text(view, tr, now=utcnow()), markup=keyboard(buttons), edit=True)
    wake_dispatcher()


async def _already_sent(update: Update, context: BalcaoContext) -> None:
    """A press of "Yes, send it" after the notice was created: its number, never a second broadcast."""
    tr = context.tr
    async with context.sessions() as session:
        filed = await find_submission(session=session, person_id=context.person.id, form=FORM)
    if filed is not None and filed.result:
        await answer_query(update, context, tr._("This notice was already sent: #{id}.").format(id=filed.result))
    else:
        await answer_query(update, context, tr._("This notice was already sent or cancelled. Send /aviso to start "
                                                 "one."))


async def _draft_or_gone(update: Update, context: BalcaoContext) -> Draft | None:
    """The notice being written, after checking the role; or an answer saying it is gone."""
    if not await _is_staff(update, context):
        return None
    draft = await _draft(context)
    if draft is None or "text" not in draft.data:
        query = update.callback_query
        if query is not None:
            await query.answer(context.tr._("This notice was already sent or cancelled. Send /aviso to start one."))
        return None
    return draft


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Add the /aviso buttons (the command itself is registered by ``chat_command``)."""
    load_all()
    for pattern, callback in (
        (r"^aviso:aud:", audience_button),
        (r"^aviso:days:\d+$", days_button),
        (r"^aviso:topic:", topic_button),
        (r"^aviso:now$", now_button),
        (r"^aviso:later$", later_button),
        (r"^aviso:at:\d{12}$", at_button),
        (r"^aviso:go$", go_button),
        (r"^aviso:back$", back_button),
        (r"^aviso:audiences$", audiences_button),
        (r"^aviso:text$", text_button),
        (r"^aviso:cancel$", cancel_button),
        (r"^aviso:stop:\d+$", stop_button),
    ):
        application.add_handler(CallbackQueryHandler(callback, pattern=pattern))
