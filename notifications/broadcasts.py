"""Staff broadcasts: write a notice, pick an audience, see how many it reaches, send it now or later.

The same functions serve /aviso in the bot, the staff HTTP API and ``python -m bot broadcast``.

Choices (documented in the README):

* The audience is fixed when the broadcast is confirmed: the count staff see is exactly who gets it, even
  for a broadcast scheduled for later. People who muted announcements in /lembretes, or erased their
  data, are left out and counted apart.
* A notice is an optional message (topic ``announcements``): a person may mute it. Legal notices never
  go through broadcasts; they are individual, mandatory messages.
* The text is stored once on the broadcast; its outbox rows carry only the recipient, so 100,000 of them
  cost little. Messages of a broadcast go after messages to one person (outbox ``priority``).
"""

from __future__ import annotations

import datetime as dt
import html
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import case, literal, or_, true, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_, Translator, translator
from core.municipality import Cities, Municipality
from models import when
from models.audit import record
from models.broadcasts import Broadcast, BroadcastStatus, cancel_broadcast, status_counts
from models.drivers.tables import Driver
from models.invalid_input import InvalidInput
from models.outbox import NewMessage, OutboxStatus, enqueue, enqueue_many
from models.people import Person
from models.reminders import ReminderMute
from notifications.audiences import AUDIENCES, Audience, AudienceParams
from notifications.outbox_claims import BotScope
from notifications.rendering import Rendered, renderer
from notifications.telegram_text import TEXT_LIMIT, html_problem, visible_length
from notifications.topics import reminder_topic

BROADCAST_KIND = "broadcast"
REPORT_KIND = "broadcast.report"
ANNOUNCEMENTS = reminder_topic(
    "announcements",
    label=N_("Notices from the city hall"),
    description=N_("News and deadlines the city hall sends to many people at once."),
)
MAX_TEXT_LENGTH = TEXT_LIMIT - 296
"""Visible characters of a notice's text: the heading and the footer must fit in the same message."""
MAX_DAYS = 3650
PROGRESS_EVERY = dt.timedelta(seconds=2)
"""The progress message is edited at most this often."""
CANCEL_DATA = "aviso:stop:{id}"
"""Callback data of the button that stops a broadcast (handled by ``handlers.chat.broadcasts``)."""
_BAR_CELLS = 10


class BroadcastRefused(Exception):
    """A broadcast cannot be made as asked. ``code`` says why; ``limit`` carries a number where useful.

    Codes: ``empty_text``, ``text_too_long``, ``bad_html``, ``unknown_audience``, ``days_required``,
    ``topic_required``, ``in_the_past``, ``nobody``.
    """

    def __init__(self, code: str, detail: str = "", *, limit: int | None = None) -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail
        self.limit = limit


REFUSAL_TEXTS: dict[str, str] = {
    "empty_text": N_("The notice is empty. Write the text of the notice."),
    "text_too_long": N_("The notice is too long: at most {limit} characters. Please shorten it and send it again."),
    "bad_html": N_("I could not read the formatting of this text. Send it again without formatting."),
    "unknown_audience": N_("That audience is no longer available. Choose another one."),
    "days_required": N_("Type a number of days from 0 to {limit}, like 30."),
    "topic_required": N_("Choose a topic, or type it."),
    "in_the_past": N_("That date and time has already passed. Choose a moment in the future."),
    "nobody": N_("Nobody is in this audience right now. Choose another audience."),
}
"""What staff are told of each refusal, in the chat (/aviso) and in the console alike."""


def refusal_text(tr: Translator, refused: BroadcastRefused) -> str:
    """A broadcast refusal in the staff member's language."""
    return tr._(REFUSAL_TEXTS[refused.code]).format(limit=refused.limit)


_STATUS_TYPE = Broadcast.__table__.c.status.type  # type: ignore[attr-defined]

@dataclass(frozen=True, slots=True)
class AudienceChoice:
    """A registered audience with its parameters."""

    name: str
    days: int | None = None
    topic: str | None = None

    @property
    def params(self) -> AudienceParams:
        """The parameters as the audience query takes them."""
        return AudienceParams(days=self.days, topic=self.topic)


@dataclass(frozen=True, slots=True)
class AudienceSize:
    """Who a broadcast would reach now."""

    recipients: list[int]
    left_out: int  # muted announcements or erased their data


@dataclass(frozen=True, slots=True)
class BroadcastView:
    """A broadcast and its progress, counted from its outbox rows."""

    id: int
    audience: str
    days: int | None
    topic: str | None
    status: BroadcastStatus
    recipients: int
    send_at: dt.datetime
    finished_at: dt.datetime | None
    counts: dict[OutboxStatus, int]

    @property
    def done(self) -> int:
        """Messages with a final outcome."""
        return self.recipients - self.counts[OutboxStatus.PENDING] - self.counts[OutboxStatus.SENDING]

    def as_json(self) -> dict[str, Any]:
        """For the staff API."""
        return {
            "id": self.id,
            "audience": self.audience,
            "days": self.days,
            "topic": self.topic,
            "status": self.status.value,
            "recipients": self.recipients,
            "send_at": self.send_at.isoformat(),
            "finished_at": self.finished_at.isoformat() if self.finished_at else None,
            "counts": {status.value: count for status, count in self.counts.items()},
        }


@dataclass(frozen=True, slots=True)
class ProgressEdit:
    """A progress message to edit in a requester's chat."""

    chat_id: int
    message_id: int
    text: str
    buttons: list[list[tuple[str, str]]]


# --- how a notice reads ---------------------------------------------------------------------------


def notice_payload(text: str, city: Municipality) -> dict[str, Any]:
    """What the notice renderer needs: the staff's text and the municipality that sends it."""
    return {"text": text, "city": city.name}


@renderer(BROADCAST_KIND, topic=ANNOUNCEMENTS.name)
def render_notice(payload: dict[str, Any], tr: Translator) -> Rendered:
    """A staff notice: a heading in the reader's language, the text as staff wrote it, how to mute."""
    heading = tr._("Notice from the City Hall of {city}").format(city=html.escape(str(payload["city"]), quote=False))
    footer = tr._("You can turn these notices off in /lembretes.")
    return Rendered(text=f"📢 <b>{heading}</b>\n\n{payload['text']}\n\n<i>{footer}</i>")


@renderer(REPORT_KIND)
def render_report(payload: dict[str, Any], tr: Translator) -> Rendered:
    """The final report sent to whoever asked for the broadcast."""
    counts = {OutboxStatus(key): int(value) for key, value in payload["counts"].items()}
    title = (
        tr._("Notice #{id} was cancelled. Final report:")
        if payload.get("cancelled")
        else tr._("Notice #{id} finished. Final report:")
    ).format(id=payload["id"])
    return Rendered(text=f"<b>{title}</b>\n" + _count_lines(counts, int(payload["recipients"]), tr))


def _count_lines(counts: dict[OutboxStatus, int], total: int, tr: Translator) -> str:
    lines = [
        tr._("✅ Delivered: {sent} of {total}").format(
            sent=tr.number(counts[OutboxStatus.SENT]), total=tr.number(total)
        ),
        tr._("🚫 Unreachable (blocked the bot or left Telegram): {n}").format(
            n=tr.number(counts[OutboxStatus.UNREACHABLE])
        ),
        tr._("⚠️ Failed: {n}").format(n=tr.number(counts[OutboxStatus.FAILED])),
    ]
    if counts[OutboxStatus.CANCELLED]:
        lines.append(tr._("⏹ Not sent (cancelled or muted): {n}").format(n=tr.number(counts[OutboxStatus.CANCELLED])))
    return "\n".join(lines)


def progress_bar(done: int, total: int) -> str:
    """``▓▓▓▓▓░░░░░ 50%``."""
    share = done / total if total else 1.0
    filled = min(_BAR_CELLS, int(share * _BAR_CELLS + 1e-9))
    return "▓" * filled + "░" * (_BAR_CELLS - filled) + f" {int(share * 100 + 1e-9)}%"


def progress_text(view: BroadcastView, tr: Translator, *, now: dt.datetime) -> str:
    """The progress message of a broadcast, as its requester reads it."""
    if view.finished_at is not None:
        cancelled = view.status is BroadcastStatus.CANCELLED
        title = (tr._("Notice #{id}: cancelled") if cancelled else tr._("Notice #{id}: finished")).format(id=view.id)
    elif view.status is BroadcastStatus.CANCELLED:
        title = tr._("Notice #{id}: stopping…").format(id=view.id)
    elif view.send_at > now:
        when = tr.moment(view.send_at)
        title = tr._("Notice #{id}: scheduled for {when}").format(id=view.id, when=when)
        people = tr.ngettext("It will go to {n} person.", "It will go to {n} people.", view.recipients)
        return f"<b>{title}</b>\n{people.format(n=tr.number(view.recipients))}"
    else:
        title = tr._("Notice #{id}: sending…").format(id=view.id)
    bar = progress_bar(view.done, view.recipients)
    return f"<b>{title}</b>\n<code>{bar}</code>\n" + _count_lines(view.counts, view.recipients, tr)


def progress_buttons(view: BroadcastView, tr: Translator) -> list[list[tuple[str, str]]]:
    """A "stop" button while the broadcast may still be cancelled."""
    if view.status is BroadcastStatus.ACTIVE and view.finished_at is None:
        return [[(tr._("⏹ Stop sending"), CANCEL_DATA.format(id=view.id))]]
    return []


def preview(text: str, tr: Translator, city: Municipality) -> Rendered:
    """The notice ``city`` sends, exactly as a recipient reading in ``tr``'s language will see it."""
    return render_notice(notice_payload(text, city), tr)


def check_text(text: str, *, is_html: bool) -> str:
    """Validate a notice's text and return it as Telegram HTML.

    Args:
        text: what staff wrote.
        is_html: the text is Telegram HTML (the bot passes the formatting staff used); plain text is escaped.

    Raises:
        BroadcastRefused: ``empty_text``, ``bad_html`` or ``text_too_long`` (with ``limit``).
    """
    text = text.strip()
    if not text:
        raise BroadcastRefused("empty_text")
    if is_html:
        problem = html_problem(text)
        if problem:
            raise BroadcastRefused("bad_html", problem)
    else:
        text = html.escape(text, quote=False)
    if visible_length(text) > MAX_TEXT_LENGTH:
        raise BroadcastRefused("text_too_long", limit=MAX_TEXT_LENGTH)
    return text


# --- audiences ----------------------------------------------------------------------------------------


def resolve_audience(choice: AudienceChoice) -> Audience:
    """The registered audience of a choice, with its parameters checked.

    Raises:
        BroadcastRefused: ``unknown_audience``, ``days_required`` or ``topic_required``.
    """
    found = AUDIENCES.get(choice.name)
    if found is None:
        raise BroadcastRefused("unknown_audience", choice.name)
    if found.takes_days and (choice.days is None or not 0 <= choice.days <= MAX_DAYS):
        raise BroadcastRefused("days_required", limit=MAX_DAYS)
    if found.takes_topic and not (choice.topic or "").strip():
        raise BroadcastRefused("topic_required")
    return found


def broadcast_scope(city: Municipality, cities: Cities) -> tuple[str, bool] | None:
    """The municipality a broadcast of ``city`` reaches, and whether it is the default one of ``cities``.

    ``None`` when the deployment serves one municipality (everyone is its).
    """
    if not cities.several:
        return None
    return city.slug, city.slug == cities.default.slug


async def people_of(*, session: AsyncSession, municipality: str, default: bool) -> set[int]:
    """Person ids of a municipality: its linked drivers, and those who chose it and are not drivers elsewhere.

    Args:
        session: database session.
        municipality: the municipality's slug.
        default: whether it is the deployment's default municipality, which also counts those who have not chosen
            (the bot serves them with its settings until they do, "Minha cidade").
    """
    drivers = dict((await session.exec(
        select(Driver.person_id, Driver.municipality).where(col(Driver.person_id).is_not(None)))).all())
    mine = col(Person.municipality) == municipality
    chosen = set((await session.exec(select(Person.id).where(
        or_(mine, col(Person.municipality).is_(None)) if default else mine))).all())
    own = {person for person, place in drivers.items() if place == municipality and person is not None}
    return own | {person for person in chosen if person is not None and drivers.get(person, municipality)
                  == municipality}


async def audience_size(
    *, session: AsyncSession, choice: AudienceChoice, now: dt.datetime,
    municipality: tuple[str, bool] | None = None,
) -> AudienceSize:
    """Who a broadcast to ``choice`` would reach now, without those who muted announcements or erased their data.

    Args:
        session: database session.
        choice: the audience.
        now: the current time.
        municipality: in a deployment of several municipalities, the one that sends it and whether it is the
            default (:func:`broadcast_scope`): only its people are reached (its Prefeitura speaks to its own
            citizens); ``None`` when the deployment serves one.

    Raises:
        BroadcastRefused: the audience or its parameters are wrong.
    """
    found = resolve_audience(choice)
    wanted = set(await found.query(session=session, now=now, params=choice.params))
    if municipality is not None:
        wanted &= await people_of(session=session, municipality=municipality[0], default=municipality[1])
    muted = set(
        (await session.exec(select(ReminderMute.person_id).where(ReminderMute.topic == ANNOUNCEMENTS.name))).all()
    )
    erased = set((await session.exec(select(Person.id).where(col(Person.erased_at).is_not(None)))).all())
    reached = sorted(wanted - muted - erased)
    return AudienceSize(recipients=reached, left_out=len(wanted) - len(reached))


def audience_label(choice: AudienceChoice, tr: Translator) -> str:
    """The audience as staff read it, with its parameter."""
    found = AUDIENCES.get(choice.name)
    label = tr._(found.label) if found else choice.name
    if choice.days is not None:
        return tr.ngettext("{label} — {days} day", "{label} — {days} days", choice.days).format(
            label=label, days=choice.days
        )
    if choice.topic:
        return tr._("{label} — {topic}").format(label=label, topic=choice.topic)
    return label


# --- creating, following, cancelling -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CreatedBroadcast:
    """A broadcast just confirmed."""

    id: int
    recipients: int
    left_out: int
    send_at: dt.datetime
    already_existed: bool = False


async def create_broadcast(
    *,
    session: AsyncSession,
    city: Municipality,
    cities: Cities,
    choice: AudienceChoice,
    text: str,
    actor: str,
    now: dt.datetime,
    send_at: dt.datetime | None = None,
    requester_person_id: int | None = None,
    progress_chat_id: int | None = None,
    request_key: str | None = None,
) -> CreatedBroadcast:
    """Create a broadcast and enqueue one message per recipient, in one transaction (commits).

    Args:
        session: database session.
        city: the municipality that sends it: the broadcast belongs to it and is headed by its name.
        cities: every municipality served (with several, the broadcast reaches ``city``'s people only).
        choice: the audience and its parameters.
        text: the notice as Telegram HTML (pass it through :func:`check_text` first).
        actor: who asks, for the audit log (``staff:<telegram id>``, ``api:staff:<id>``, ``cli``).
        now: the current time.
        send_at: when to send (aware); now when None.
        requester_person_id: who gets the progress message and the final report.
        progress_chat_id: the chat where the progress message will be (set its id with
            :func:`attach_progress_message`).
        request_key: makes the request idempotent: the same key returns the broadcast already made.

    Returns:
        The broadcast's id and how many people it reaches.

    Raises:
        BroadcastRefused: ``in_the_past``, ``nobody`` or a wrong audience.
    """
    if request_key is not None:
        existing = (await session.exec(select(Broadcast).where(Broadcast.request_key == request_key))).first()
        if existing is not None and existing.id is not None:
            return CreatedBroadcast(existing.id, existing.recipients, 0, existing.send_at, already_existed=True)
    send_at = send_at or now
    if send_at.tzinfo is None:
        raise ValueError("send_at must be timezone-aware")
    if send_at < now - dt.timedelta(minutes=1):
        raise BroadcastRefused("in_the_past")
    size = await audience_size(session=session, choice=choice, now=now, municipality=broadcast_scope(city, cities))
    if not size.recipients:
        raise BroadcastRefused("nobody")
    broadcast = Broadcast(
        municipality=city.slug,
        audience=choice.name,
        audience_days=choice.days,
        audience_topic=choice.topic,
        text=text,
        created_by=actor,
        requester_person_id=requester_person_id,
        recipients=len(size.recipients),
        send_at=send_at,
        progress_chat_id=progress_chat_id,
        request_key=request_key,
        created_at=now,
    )
    session.add(broadcast)
    await session.flush()
    assert broadcast.id is not None
    broadcast_id = broadcast.id
    added = await enqueue_many(
        session=session,
        messages=(
            NewMessage(
                person_id=person_id,
                kind=BROADCAST_KIND,
                dedupe_key=f"broadcast:{broadcast_id}:{person_id}",
                not_before=send_at,
                broadcast_id=broadcast_id,
            )
            for person_id in size.recipients
        ),
    )
    await record(
        session=session,
        actor=actor,
        action="broadcast.create",
        entity="broadcast",
        entity_id=str(broadcast_id),
        details={
            "audience": choice.name,
            "days": choice.days,
            "topic": choice.topic,
            "recipients": added,
            "left_out": size.left_out,
            "send_at": send_at.isoformat(),
            "text_length": visible_length(text),
        },
    )
    await session.commit()
    return CreatedBroadcast(broadcast_id, added, size.left_out, send_at)


async def attach_progress_message(*, session: AsyncSession, broadcast_id: int, chat_id: int, message_id: int) -> None:
    """Remember the message that shows a broadcast's progress, so the dispatcher edits it (commits)."""
    await session.exec(
        update(Broadcast)
        .where(col(Broadcast.id) == broadcast_id)
        .values(progress_chat_id=chat_id, progress_message_id=message_id)
    )
    await session.commit()


async def broadcast_view(*, session: AsyncSession, broadcast_id: int) -> BroadcastView | None:
    """A broadcast and its counts, or None when there is no such broadcast."""
    broadcast = await session.get(Broadcast, broadcast_id)
    if broadcast is None:
        return None
    return await _view(session, broadcast)


async def _view(session: AsyncSession, broadcast: Broadcast) -> BroadcastView:
    assert broadcast.id is not None
    return BroadcastView(
        id=broadcast.id,
        audience=broadcast.audience,
        days=broadcast.audience_days,
        topic=broadcast.audience_topic,
        status=broadcast.status,
        recipients=broadcast.recipients,
        send_at=broadcast.send_at,
        finished_at=broadcast.finished_at,
        counts=await status_counts(session=session, broadcast_id=broadcast.id),
    )


async def open_broadcasts(*, session: AsyncSession) -> list[BroadcastView]:
    """Broadcasts scheduled or being sent, oldest first."""
    rows = await session.exec(
        select(Broadcast)
        .where(Broadcast.status == BroadcastStatus.ACTIVE, col(Broadcast.finished_at).is_(None))
        .order_by(col(Broadcast.id))
    )
    return [await _view(session, broadcast) for broadcast in rows.all()]


async def stop_broadcast(*, session: AsyncSession, broadcast_id: int, actor: str) -> BroadcastView | None:
    """Cancel a broadcast: what is not sent yet is not sent; messages in flight finish (commits).

    Returns:
        The broadcast after cancelling, or None when it was not active (unknown, finished or cancelled).
    """
    if await cancel_broadcast(session=session, broadcast_id=broadcast_id, actor=actor) is None:
        return None
    return await broadcast_view(session=session, broadcast_id=broadcast_id)


async def cancelled_among(*, session: AsyncSession, broadcast_ids: set[int]) -> set[int]:
    """Which of these broadcasts were cancelled (the dispatcher drops their queued messages)."""
    if not broadcast_ids:
        return set()
    rows = await session.exec(
        select(Broadcast.id).where(
            col(Broadcast.id).in_(sorted(broadcast_ids)), Broadcast.status == BroadcastStatus.CANCELLED
        )
    )
    return {broadcast_id for broadcast_id in rows.all() if broadcast_id is not None}


async def notice_texts(*, session: AsyncSession, broadcast_ids: set[int]) -> dict[int, str]:
    """The text of each broadcast (the dispatcher renders its messages with it)."""
    if not broadcast_ids:
        return {}
    rows = await session.exec(select(Broadcast.id, Broadcast.text).where(col(Broadcast.id).in_(sorted(broadcast_ids))))
    return {broadcast_id: text for broadcast_id, text in rows.all() if broadcast_id is not None}


async def follow_progress(
    *, session: AsyncSession, cities: Cities, now: dt.datetime, scope: BotScope | None = None
) -> tuple[list[ProgressEdit], int]:
    """Finish broadcasts with nothing left to send and list the progress messages due for an edit (commits).

    A finished broadcast gets its final edit and a final report enqueued for its requester. Only one
    process wins each finish and each edit (conditional updates), however many dispatchers run. With
    several bots, a dispatcher follows only the broadcasts whose requester talks to a bot of its ``scope``
    (the progress message is in that bot's chat) or that has no requester (any may finish it: the finish
    is one conditional update); None follows them all.

    Returns:
        The edits to make, and how many reports were enqueued.
    """
    rows = await session.exec(
        select(Broadcast, Person)
        .join(Person, col(Person.id) == Broadcast.requester_person_id, isouter=True)
        .where(col(Broadcast.finished_at).is_(None), Broadcast.send_at <= now)
        .where(true() if scope is None else or_(col(Person.id).is_(None), scope.where(col(Person.bot_key))))
        .order_by(col(Broadcast.id))
    )
    edits: list[ProgressEdit] = []
    reports = 0
    for broadcast, person in rows.all():
        assert broadcast.id is not None
        view = await _view(session, broadcast)
        finishing = view.counts[OutboxStatus.PENDING] + view.counts[OutboxStatus.SENDING] == 0
        if finishing:
            won = await session.exec(
                update(Broadcast)
                .where(col(Broadcast.id) == broadcast.id, col(Broadcast.finished_at).is_(None))
                .values(
                    finished_at=now,
                    # decided in the statement: a cancel committed since the read above is kept
                    status=case(
                        (col(Broadcast.status) == BroadcastStatus.CANCELLED, col(Broadcast.status)),
                        else_=literal(BroadcastStatus.FINISHED, _STATUS_TYPE),
                    ),
                )
            )
            if not won.rowcount:
                continue
            await session.refresh(broadcast)
            view = await _view(session, broadcast)
            if person is not None and person.id is not None:
                reports += await enqueue(
                    session=session,
                    person_id=person.id,
                    kind=REPORT_KIND,
                    dedupe_key=f"broadcast:{broadcast.id}:report",
                    payload={
                        "id": broadcast.id,
                        "recipients": view.recipients,
                        "cancelled": view.status is BroadcastStatus.CANCELLED,
                        "counts": {status.value: count for status, count in view.counts.items()},
                    },
                    mandatory=True,
                    not_before=now,
                )
        else:
            due = broadcast.progress_updated_at is None or broadcast.progress_updated_at <= now - PROGRESS_EVERY
            if not due or broadcast.progress_message_id is None:
                continue
            won = await session.exec(
                update(Broadcast)
                .where(
                    col(Broadcast.id) == broadcast.id,
                    (col(Broadcast.progress_updated_at).is_(None))
                    | (col(Broadcast.progress_updated_at) <= now - PROGRESS_EVERY),
                )
                .values(progress_updated_at=now)
            )
            if not won.rowcount:
                continue
        if broadcast.progress_chat_id is not None and broadcast.progress_message_id is not None:
            tr = translator(person.locale if person else "pt_BR", cities.of(broadcast.municipality).tz.key)
            edits.append(
                ProgressEdit(
                    chat_id=broadcast.progress_chat_id,
                    message_id=broadcast.progress_message_id,
                    text=progress_text(view, tr, now=now),
                    buttons=progress_buttons(view, tr),
                )
            )
    await session.commit()
    return edits, reports


# --- dates and times as staff type them ------------------------------------------------------------


def parse_when(text: str, *, now: dt.datetime, tz: ZoneInfo) -> dt.datetime | None:
    """A send moment as staff type it (``amanhã 8h``, ``25/12 às 8h``, ``sábado 14h30``, ISO).

    Read by :func:`models.when.parse_moment`, towards the future, in the municipality's time zone.

    Returns:
        The moment (aware, UTC), or None when the text is not a date and time.
    """
    try:
        return when.parse_moment(text, now=now, tz=tz, towards="future")
    except InvalidInput:
        return None
