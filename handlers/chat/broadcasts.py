"""/aviso (staff): write a notice, pick its audience, say when, review it with the audience's size, send it once.

Declared on ``handlers.chat.engine``: the text (its preview is exactly what recipients will see), the audience
(with its number of days or its topic when it takes one), and when — "agora" or a moment typed as
``models.when.parse_moment`` reads it ("amanhã 8h", "25/12 08:00"). The review recounts the audience and offers
"✅ Send the notice" only when someone is in it; Send is claimed once per form key (and the broadcast's request
key), so a burst of taps queues one broadcast and the later presses are told its number. The role is checked on
every update (``Form.roles``), typed "voltar" goes back a step, and every step is saved in the draft table.

The list of notices still going out, their stop button and the progress message are plain screens, not a form:
the progress message updates in place (sent, unreachable, failed, with a bar). Buttons: ``aviso:…``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from telegram import Update
from telegram.ext import Application, CallbackQueryHandler

from core.i18n import N_
from handlers.chat.broadcast_screens import ROLES, show_running, stop_button
from handlers.chat.commands import chat_command
from handlers.chat.context import BalcaoContext
from handlers.chat.engine import Answer, Filed, Forged, Form, Question, Review, Step, Turn, register_form, start
from handlers.chat.engine.spec import Rows
from handlers.chat.replies import esc, keyboard, menu_row, reply
from handlers.chat.staff_scope import has_role, staff_idle
from models.columns import utcnow
from models.invalid_input import InvalidInput
from models.when import parse_moment
from notifications.audiences import AUDIENCES
from notifications.broadcasts import (
    MAX_DAYS,
    REFUSAL_TEXTS,
    AudienceChoice,
    BroadcastRefused,
    attach_progress_message,
    audience_label,
    audience_size,
    broadcast_scope,
    broadcast_view,
    check_text,
    create_broadcast,
    preview,
    progress_buttons,
    progress_text,
)
from notifications.plugins import load_all
from notifications.service import wake_dispatcher

FORM_NAME = "aviso"
DAY_CHOICES = (7, 15, 30, 60, 90)
NOW_WORDS = frozenset({"agora", "já", "ja", "now", "ahora"})
"""A typed "send now" at the when step, in each language the bot speaks."""
QUICK_HOURS = (8, 14)
"""The quick choices of the when step: tomorrow at these local hours."""
MAX_BUTTON = 64
"""Telegram's limit on a button's data, in bytes: an audience or topic whose button would pass it is not offered."""


def _refused(refused: BroadcastRefused, *, fields: tuple[str, ...] = ()) -> InvalidInput:
    """A broadcast refusal as the engine's refusal (its msgid, said in the reader's language)."""
    return InvalidInput(REFUSAL_TEXTS[refused.code], fields=fields, limit=refused.limit)


def _choice(data: dict[str, Any]) -> AudienceChoice:
    return AudienceChoice(name=data["audience"], days=data.get("days"), topic=data.get("topic"))


def _send_at(data: dict[str, Any]) -> dt.datetime | None:
    return dt.datetime.fromisoformat(data["send_at"]) if data.get("send_at") else None


# --- the text ---------------------------------------------------------------------------------------------------


def _ask_text(turn: Turn) -> Question:
    return Question(turn.tr._("<b>New notice</b>\nWrite the notice as people should read it, in one message. "
                              "You can use bold and italics."))


def _text(_typed: str, turn: Turn) -> Answer:
    """The notice as written, with its formatting (Telegram HTML); the preview is said before the audience."""
    message = turn.update.effective_message
    assert message is not None
    try:
        text = check_text(message.text_html, is_html=True)
    except BroadcastRefused as refused:
        raise _refused(refused) from refused
    tr = turn.tr
    shown = preview(text, tr, turn.city).text
    return Answer({"text": text}, note=tr._("Preview — this is exactly how people will receive it:") + "\n\n" + shown)


# --- the audience -----------------------------------------------------------------------------------------------


def _ask_audience(turn: Turn) -> Question:
    tr = turn.tr
    rows = [[(tr._(found.label), f"aviso:aud:{name}")] for name, found in AUDIENCES.items()
            if len(f"aviso:aud:{name}".encode()) <= MAX_BUTTON]
    return Question(tr._("Who should receive it?"), rows)


async def _audience(name: str, turn: Turn) -> Answer:
    """``aviso:aud:<name>``: the audience; its days or topic are asked next when it takes one."""
    found = AUDIENCES.get(name)
    if found is None:
        raise Forged(name)
    values: dict[str, Any] = {"audience": name, "days": None, "topic": None, "topics": []}
    if found.takes_days:
        return Answer(values, goto="days")
    if found.takes_topic:
        if found.topic_choices is not None:
            async with turn.context.sessions() as session:
                values["topics"] = [list(pair) for pair in await found.topic_choices(session=session)]
        return Answer(values, goto="topic")
    return Answer(values)


def _ask_days(turn: Turn) -> Question:
    tr = turn.tr
    label = tr._(AUDIENCES[turn.data["audience"]].label)
    rows = [[(tr.ngettext("{n} day", "{n} days", days).format(n=days), f"aviso:days:{days}")
             for days in DAY_CHOICES]]
    return Question(tr._("{label}: within how many days? Choose or type a number.").format(label=esc(label)), rows)


def _days(typed: str, _turn: Turn) -> dict[str, Any]:
    """A number of days, typed or pressed, from 0 to ``MAX_DAYS``."""
    written = typed.strip()
    if not (written.isascii() and written.isdecimal()) or int(written) > MAX_DAYS:
        raise _refused(BroadcastRefused("days_required", limit=MAX_DAYS))
    return {"days": int(written)}


def _ask_topic(turn: Turn) -> Question:
    tr = turn.tr
    label = tr._(AUDIENCES[turn.data["audience"]].label)
    rows = [[(tr._(shown), f"aviso:topic:{value}")] for value, shown in turn.data.get("topics", [])
            if len(f"aviso:topic:{value}".encode()) <= MAX_BUTTON]
    return Question(tr._("{label}: which topic? Choose or type it.").format(label=esc(label)), rows)


def _topic(typed: str, _turn: Turn) -> dict[str, Any]:
    topic = typed.strip()[:64]
    if not topic:
        raise _refused(BroadcastRefused("topic_required"))
    return {"topic": topic}


# --- when -------------------------------------------------------------------------------------------------------


async def _size(turn: Turn) -> tuple[int, int]:
    """Who the chosen audience reaches now, and how many it leaves out (notices off, data erased)."""
    async with turn.context.sessions() as session:
        size = await audience_size(session=session, choice=_choice(turn.data), now=utcnow(),
                                   municipality=broadcast_scope(turn.city, turn.cities))
    return len(size.recipients), size.left_out


def _count_lines(turn: Turn, count: int, left_out: int) -> list[str]:
    tr = turn.tr
    lines = [f"<b>{esc(audience_label(_choice(turn.data), tr))}</b>"]
    if count:
        lines.append(tr.ngettext("This notice will go to {n} person.", "This notice will go to {n} people.", count)
                     .format(n=tr.number(count)))
    else:
        lines.append(tr._(REFUSAL_TEXTS["nobody"]))
    if left_out:
        lines.append(tr.ngettext("{n} person is left out: they turned notices off or erased their data.",
                                 "{n} people are left out: they turned notices off or erased their data.",
                                 left_out).format(n=tr.number(left_out)))
    return lines


async def _counted(values: dict[str, Any], turn: Turn) -> dict[str, Any]:
    """The audience's answer, with its size now (said at the when step)."""
    turn.data.update(values)
    count, left_out = await _size(turn)
    return {**values, "count": count, "left_out": left_out}


async def _counted_days(typed: str, turn: Turn) -> dict[str, Any]:
    return await _counted(_days(typed, turn), turn)


async def _counted_topic(typed: str, turn: Turn) -> dict[str, Any]:
    return await _counted(_topic(typed, turn), turn)


async def _counted_audience(name: str, turn: Turn) -> Answer:
    answer = await _audience(name, turn)
    if answer.goto is not None:
        return answer
    return Answer(await _counted(answer.values, turn))


def _ask_when(turn: Turn) -> Question:
    """The audience's size, and when it should go: now, a quick choice, or a typed moment."""
    tr = turn.tr
    count = int(turn.data.get("count", 0))
    lines = _count_lines(turn, count, int(turn.data.get("left_out", 0)))
    rows: Rows = []
    if count:
        rows.append([(tr._("📤 Send now"), "aviso:now")])
        tomorrow = (utcnow().astimezone(turn.city.tz) + dt.timedelta(days=1)).date()
        for hour in QUICK_HOURS:
            moment = dt.datetime.combine(tomorrow, dt.time(hour), tzinfo=turn.city.tz)
            rows.append([(tr._("Tomorrow at {time}").format(time=tr.time(moment)),
                          f"aviso:at:{moment.strftime('%Y%m%d%H%M')}")])
        lines += ["", tr._("When should it go? Choose below, or type the date and time like 25/12 08:00.")]
    rows.append([(tr._("👥 Change the audience"), "aviso:audiences")])
    return Question("\n".join(lines), rows)


def _moment(send_at: dt.datetime | None, turn: Turn) -> dict[str, Any]:
    if not turn.data.get("count"):
        raise _refused(BroadcastRefused("nobody"), fields=("audience",))
    if send_at is not None and send_at <= utcnow():
        raise _refused(BroadcastRefused("in_the_past"))
    return {"send_at": send_at.isoformat() if send_at else None}


def _when(typed: str, turn: Turn) -> dict[str, Any]:
    """"agora", or a day and an hour as people type them (``models.when.parse_moment``, towards the future)."""
    if typed.strip().lower().rstrip("!.") in NOW_WORDS:
        return _moment(None, turn)
    try:
        moment = parse_moment(typed, now=utcnow(), tz=turn.city.tz, towards="future")
    except InvalidInput as refused:
        raise InvalidInput(N_("I did not understand that date. Type it like 25/12 08:00.")) from refused
    return _moment(moment, turn)


def _now(arg: str, turn: Turn) -> dict[str, Any]:
    if arg:
        raise Forged(arg)
    return _moment(None, turn)


def _at(arg: str, turn: Turn) -> dict[str, Any]:
    """``aviso:at:<YYYYmmddHHMM>`` (local time): a quick choice of date and time."""
    if not (len(arg) == 12 and arg.isdigit()):
        raise Forged(arg)
    local = dt.datetime.strptime(arg, "%Y%m%d%H%M").replace(tzinfo=turn.city.tz)
    return _moment(local.astimezone(dt.UTC), turn)


def _other_audience(_arg: str, _turn: Turn) -> Answer:
    return Answer(goto="audience")  # the text is kept


# --- the review and the sending ---------------------------------------------------------------------------------


async def _review(turn: Turn) -> Review:
    """The notice as it will be received, and who it reaches now, recounted (Send only when someone is in it)."""
    tr, data = turn.tr, turn.data
    count, left_out = await _size(turn)
    send_at = _send_at(data)
    lines = [tr._("Preview — this is exactly how people will receive it:"), "",
             preview(data["text"], tr, turn.city).text, ""]
    if send_at is None:
        question = tr.ngettext("Send this notice now to {n} person ({audience})?",
                               "Send this notice now to {n} people ({audience})?", count)
    else:
        question = tr.ngettext("Send this notice on {when} to {n} person ({audience})?",
                               "Send this notice on {when} to {n} people ({audience})?", count)
    audience = esc(audience_label(_choice(data), tr))
    lines.append("<b>" + question.format(n=tr.number(count), when=tr.moment(send_at) if send_at else "",
                                         audience=audience) + "</b>")
    if not count:
        lines.append(tr._(REFUSAL_TEXTS["nobody"]))
        return Review("\n".join(lines), ready=False, fields=("audience",))
    if send_at is not None and send_at <= utcnow():
        lines.append(tr._(REFUSAL_TEXTS["in_the_past"]))
        return Review("\n".join(lines), ready=False, fields=("when",))
    if left_out:
        lines += _count_lines(turn, count, left_out)[2:]
    return Review("\n".join(lines))


async def _submit(turn: Turn) -> Filed:
    """Queue the broadcast; the pressed review becomes its progress message."""
    context, data = turn.context, turn.data
    chat_id = turn.update.effective_chat.id if turn.update.effective_chat else context.person.chat_id
    now = utcnow()
    try:
        async with context.sessions() as session:
            created = await create_broadcast(
                session=session, city=context.city, cities=context.cities, choice=_choice(data), text=data["text"],
                actor=f"staff:{context.person.telegram_user_id}", now=now, send_at=_send_at(data),
                requester_person_id=context.person.id, progress_chat_id=chat_id,
                request_key=f"aviso:{context.person.id}:{data['key']}",
            )
    except BroadcastRefused as refused:
        fields = {"nobody": ("audience",), "in_the_past": ("when",)}.get(refused.code, ())
        raise _refused(refused, fields=fields) from refused

    async def announce() -> None:
        tr = context.tr
        async with context.sessions() as session:
            view = await broadcast_view(session=session, broadcast_id=created.id)
        assert view is not None
        shown = await reply(turn.update, context, progress_text(view, tr, now=now),
                            markup=keyboard(progress_buttons(view, tr) or [menu_row(context)]), edit=True)
        async with context.sessions() as session:
            await attach_progress_message(session=session, broadcast_id=created.id, chat_id=shown.chat_id,
                                          message_id=shown.message_id)
        wake_dispatcher()

    return Filed(str(created.id), announce)


FORM = Form(
    name=FORM_NAME,
    prefix="aviso",
    title=N_("the notice you were writing"),
    steps=(
        Step("text", _ask_text, text=_text, label=N_("text of the notice")),
        Step("audience", _ask_audience, buttons={"aud": _counted_audience}, label=N_("audience")),
        Step("days", _ask_days, text=_counted_days, buttons={"days": _counted_days}, parent="audience"),
        Step("topic", _ask_topic, text=_counted_topic, buttons={"topic": _counted_topic}, parent="audience"),
        Step("when", _ask_when, text=_when, buttons={"now": _now, "at": _at, "audiences": _other_audience},
             label=N_("when it goes")),
    ),
    flow=lambda data: ("text", "audience", "when"),
    start=lambda turn: {},
    intro=N_("Let's write a notice. You can stop at any time with /cancelar."),
    resume=N_("You have a notice in progress. Continue where you stopped, or start again?"),
    gone=N_("This notice was already sent or cancelled. Send /aviso to start one."),
    already_sent=N_("This notice was already sent: #{result}."),
    review_intro="",
    summary=lambda turn: "",
    review=_review,
    send_label=N_("✅ Send the notice"),
    submit=_submit,
    roles=ROLES,
    timeout=staff_idle,
)
_register_form = register_form(FORM)


# --- the command ----------------------------------------------------------------------------------------------------


@chat_command(
    "aviso",
    description=N_("Send a notice to an audience (staff)"),
    menu_label=N_("Send a notice"),
    staff_roles=ROLES,
    order=200,
)
async def notice_command(update: Update, context: BalcaoContext) -> None:
    """``/aviso``: the notices still going out (each with a stop button), then the form (or its resumption)."""
    if not await has_role(update, context, ROLES):
        return
    await show_running(update, context)
    await start(FORM, update, context)


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Add the stop button (before the form's ``aviso:`` buttons) and the form's buttons."""
    load_all()
    application.add_handler(CallbackQueryHandler(stop_button, pattern=r"^aviso:stop:\d+$"))
    _register_form(application)
