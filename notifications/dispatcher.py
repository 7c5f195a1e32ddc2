"""The dispatcher: claims due outbox rows, renders, sends within Telegram's limits, records the outcome.

It renders each message in its reader's language at send time.

How it behaves:

* **Claims** batches of due rows under a lease (``notifications.outbox_claims``) and renews the lease of rows
  it still holds, so a dead process's rows are sent again after the lease runs out, and two processes on one
  PostgreSQL never send the same row.
* **Renders at send time** with the recipient's locale; a muted optional topic, or a person who erased their
  data, makes the row ``cancelled``. A text over 4096 characters goes out in parts, then the document.
* **Paces** every call with ``notifications.pacing`` (overall and per chat; paid broadcasts pass
  ``allow_paid_broadcast=True`` at the paid rate).
* **Errors**: 429 pauses all sending for ``retry_after`` and retries the same call (not counted as an
  attempt); 403 (blocked, deactivated) and 400 "chat not found" make the row ``unreachable`` at once;
  network errors and 5xx retry with exponential backoff up to ``dispatch_retry_max_seconds`` and at most
  ``dispatch_max_attempts`` attempts, then ``failed``; other 400s are ``failed`` at once (retrying would not
  help); a refused token stops the dispatcher.
* **Broadcasts**: queued messages of a cancelled broadcast are dropped within a second; progress messages
  are edited at most every 2 s; the final report is enqueued when nothing is left.

Delivery is at least once: a message whose send succeeded but whose outcome was not yet written when the
process died is sent again after the lease expires (only those in flight at the crash).

A send the dispatcher knows it made is never sent again by it, however long the database is away (issue 22):
outcomes are written every :data:`FLUSH_SECONDS`, kept in memory and retried while the database refuses them, and
written *before* any new claim (a claim fails while they cannot be); a claim never takes back the rows this worker
still holds, even once their lease lapsed during the outage; and a known send is recorded ``sent`` even if another
dispatcher took the row in the meantime (``notifications.outbox_claims``).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import gc
import itertools
import logging
import math
import os
import secrets
import socket
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Literal

from sqlmodel import col, select
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputFile, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, InvalidToken, NetworkError, RetryAfter, TelegramError

from core import metrics
from core.database_wait import describe as database_cause
from core.db import SessionFactory
from core.i18n import translator
from core.municipality import cities_of
from core.settings import Settings
from models.columns import utcnow
from models.outbox import OutboxStatus
from models.people import Person
from models.reminders import mutes_of
from notifications import broadcasts
from notifications.aiohttp_request import AiohttpRequest
from notifications.outbox_claims import BotScope, ClaimedRow, Outcome, claim_due, record_outcomes, renew_leases
from notifications.pacing import Clock, SendPacer, Sleep
from notifications.rendering import KINDS, MessageKind, Rendered
from notifications.retry_policy import backoff_seconds, retry_after_seconds
from notifications.telegram_text import CALLBACK_DATA_LIMIT, DOCUMENT_LIMIT, split_html

logger = logging.getLogger("balcao.dispatch")

CONCURRENCY = 8
"""Telegram calls in flight at once (and the connections of the dispatcher's bot)."""
FLUSH_SECONDS = 0.1
"""Outcomes are written at least this often (and at once when :data:`FLUSH_ROWS` are waiting)."""
FLUSH_ROWS = 250
LONG_WAIT_SECONDS = 0.25
"""A wait for the pacer longer than this (a 429 pause) can be interrupted by a stop."""
BATCH_SECONDS = 0.5
"""Rows claimed at a time: about this many seconds of sending (claimed again when half is left)."""
MAX_BATCH = 500
PREPARE_YIELD_ROWS = 100
"""While rendering a claimed batch, let the sends go on every this many rows."""
LOOK_AHEAD = 512
"""Queued messages examined to find one whose chat may receive now."""
IDLE_POLL_SECONDS = 2.0
"""When nothing was due, look again after this long (or at once when woken)."""
FOLLOW_SECONDS = 1.0
"""How often cancelled broadcasts and progress messages are checked."""
UNREACHABLE_BAD_REQUESTS = ("chat not found", "user not found", "peer_id_invalid", "chat_id is empty")
"""400 descriptions that mean the recipient cannot be reached (matched in lower case)."""


class DispatchStopped(Exception):
    """The dispatcher cannot go on (Telegram refused the token)."""


@dataclass
class DispatchStats:
    """What one run did."""

    sent: int = 0
    unreachable: int = 0
    failed: int = 0
    cancelled: int = 0
    retry_later: int = 0
    rate_limited: int = 0
    calls: int = 0

    def add(self, status: OutboxStatus, *, attempted: bool) -> None:
        """Count a final (or retry) outcome."""
        if status is OutboxStatus.SENT:
            self.sent += 1
        elif status is OutboxStatus.UNREACHABLE:
            self.unreachable += 1
        elif status is OutboxStatus.FAILED:
            self.failed += 1
        elif status is OutboxStatus.CANCELLED:
            self.cancelled += 1
        elif status is OutboxStatus.PENDING and attempted:
            self.retry_later += 1

    def merge(self, other: DispatchStats) -> None:
        """Add another run's counts (one dispatcher per bot, reported as one)."""
        for name in ("sent", "unreachable", "failed", "cancelled", "retry_later", "rate_limited", "calls"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass(frozen=True, slots=True)
class _Unit:
    """One Telegram call."""

    method: Literal["text", "document", "edit"]
    text: str = ""
    markup: InlineKeyboardMarkup | None = None
    document: tuple[str, bytes] | None = None
    message_id: int | None = None  # the message to edit


@dataclass(slots=True)
class _Job:
    """A message (or a progress edit) on its way: its calls and how far it got."""

    chat_id: int
    units: list[_Unit]
    row: ClaimedRow | None = None  # None for a progress edit
    done: int = 0  # units sent in this run
    first_message_id: int | None = None

    @property
    def parts_sent(self) -> int:
        return (self.row.parts_sent if self.row else 0) + self.done


def settle_memory() -> None:
    """Take the objects alive now (imports, settings, the bot) out of the garbage collector's full passes.

    A full pass over a loaded process takes about 50 ms, long enough to break the pace at 1000 messages per
    second; after ``gc.freeze()`` the passes only walk what was created since. Call it once a sending process
    has started up (``dispatch``, the service of ``run``).
    """
    gc.collect()
    gc.freeze()


def new_worker_id() -> str:
    """An id for ``claimed_by``: host, process and a random suffix."""
    return f"{socket.gethostname()[:32]}:{os.getpid()}:{secrets.token_hex(3)}"


def build_bot(settings: Settings, *, concurrency: int = CONCURRENCY) -> Bot:
    """The dispatcher's own ``telegram.Bot`` at ``settings.telegram_api_url``, on the aiohttp transport.

    See ``notifications.aiohttp_request`` for why; :data:`CONCURRENCY` calls in flight carry 1000 messages per
    second.

    Raises:
        DispatchStopped: no token is set.
    """
    if settings.telegram_token is None:
        raise DispatchStopped("BALCAO_TELEGRAM_TOKEN is not set")
    root = settings.telegram_api_url
    return Bot(
        settings.telegram_token.get_secret_value(),
        base_url=f"{root}/bot",
        base_file_url=f"{root}/file/bot",
        request=AiohttpRequest(connection_limit=concurrency + 1),
    )


@asynccontextmanager
async def sending_bot(settings: Settings) -> AsyncIterator[Bot]:
    """:func:`build_bot`, initialised for the block and shut down after it.

    Telegram being unreachable at start is not fatal (the dispatcher retries); a refused token is.

    Raises:
        DispatchStopped: no token, or Telegram refused it.
    """
    bot = build_bot(settings)
    try:
        await bot.initialize()
    except InvalidToken as exc:
        await bot.shutdown()
        raise DispatchStopped(f"Telegram refused the bot token: {exc}") from exc
    except NetworkError as exc:
        logger.warning("Telegram is not reachable yet (%s); sending will be retried", exc)
    try:
        yield bot
    finally:
        await bot.shutdown()


def _describe(exc: BaseException) -> str:
    text, name = str(exc), type(exc).__name__
    return text if text.lower().startswith(name.lower()) else f"{name}: {text}"


def _markup(buttons: list[list[tuple[str, str]]]) -> InlineKeyboardMarkup | None:
    if not buttons:
        return None
    for row in buttons:
        for _label, data in row:
            if len(data.encode()) > CALLBACK_DATA_LIMIT:
                raise ValueError(f"callback data over {CALLBACK_DATA_LIMIT} bytes: {data!r}")
    return InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=data) for label, data in row]
                                 for row in buttons])


def units_of(rendered: Rendered) -> list[_Unit]:
    """The Telegram calls of a rendered message: its text in parts (buttons on the last), then the document.

    Raises:
        ValueError: the message is empty, a button's data is too long, or the document is too big.
    """
    markup = _markup(rendered.buttons)
    parts = split_html(rendered.text) if rendered.text.strip() else []
    units = [_Unit("text", text=part, markup=markup if index == len(parts) - 1 else None)
             for index, part in enumerate(parts)]
    if rendered.document is not None:
        name, content = rendered.document
        if len(content) > DOCUMENT_LIMIT:
            raise ValueError(f"document {name!r} is over {DOCUMENT_LIMIT} bytes")
        units.append(_Unit("document", document=rendered.document))
    if not units:
        raise ValueError("empty message")
    return units


class Dispatcher:
    """Sends the outbox.

    Args:
        sessions: session factory of the deployment's database.
        bot: a ``telegram.Bot`` (see :func:`build_bot`).
        settings: rates, lease, retries, time zone.
        worker: this process's ``claimed_by`` id.
        clock: monotonic clock for pacing (tests pass a fake one).
        sleep: sleep of that clock.
        now: the current UTC time, for the database (due times, leases).
        concurrency: Telegram calls in flight at once.
    """

    def __init__(
        self,
        *,
        sessions: SessionFactory,
        bot: Bot,
        settings: Settings,
        worker: str | None = None,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        now: Callable[[], dt.datetime] = utcnow,
        concurrency: int = CONCURRENCY,
        scope: BotScope | None = None,
    ) -> None:
        self.sessions = sessions
        self.scope = scope
        self.bot = bot
        self.settings = settings
        self.cities = cities_of(settings)  # built once: the broadcasts' municipalities
        self.worker = worker or new_worker_id()
        self.clock = clock
        self.sleep = sleep
        self.now = now
        self.concurrency = concurrency
        self.paid = settings.dispatch_paid_broadcast
        rate = settings.dispatch_paid_rate if self.paid else settings.dispatch_global_rate
        self.pacer = SendPacer(
            global_rate=rate, per_chat_rate=settings.dispatch_per_chat_rate, clock=clock, sleep=sleep
        )
        self.batch_size = max(20, min(MAX_BATCH, math.ceil(rate * BATCH_SECONDS)))
        self.stats = DispatchStats()
        self._queue: deque[_Job] = deque()
        self._held: set[int] = set()  # rows claimed by this worker without an outcome written yet
        self._outcomes: list[Outcome] = []
        self._busy_chats: set[int] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._changed = asyncio.Event()
        self._claim_after = -math.inf
        self._last_claim_empty = False
        self._claiming: asyncio.Task[None] | None = None
        self._claim_error: BaseException | None = None
        self._fatal: BaseException | None = None
        self._flush_lock = asyncio.Lock()
        self._closing = False  # tells the housekeeping task to finish its round and return
        self._followups = 0  # progress edits and reports queued by the housekeeping in this round

    # --- public -----------------------------------------------------------------------------------

    async def run_until_idle(self, *, stop: asyncio.Event | None = None) -> DispatchStats:
        """Send everything that is due now, then return (``python -m bot dispatch``).

        Args:
            stop: when set (SIGTERM), the calls in flight finish, their outcomes are written, the rows not
                sent yet are given back, and it returns.

        Raises:
            DispatchStopped: Telegram refused the token (nothing is lost: held rows are given back).
        """
        for _round in range(4):
            if stop is not None and stop.is_set():
                break
            self._followups = 0
            try:
                await self._run(stop=stop, wake=None, until_idle=True)
            except DispatchStopped:
                raise
            except Exception:
                await self._flush_before_exit()  # a cron run that fails on an outage still records its sends
                raise
            # progress edits and final reports may have been queued while the round was closing
            if not (await self._follow_broadcasts() or self._followups or self._queue):
                break
            self._claim_after = -math.inf
        return self.stats

    async def run_forever(self, *, stop: asyncio.Event, wake: asyncio.Event | None = None) -> DispatchStats:
        """Send as things become due until ``stop`` is set; ``wake`` makes it look for new rows at once.

        A failure (the database unreachable, say) is logged and the dispatcher starts again after a pause;
        rows it held are sent again once their lease expires.

        Raises:
            DispatchStopped: Telegram refused the token.
        """
        failures = 0
        while not stop.is_set():
            try:
                await self._run(stop=stop, wake=wake, until_idle=False)
                failures = 0
            except DispatchStopped:
                raise
            except Exception:  # e.g. the database is briefly unreachable: wait, then go on
                failures += 1
                delay = min(60.0, 2.0**failures)
                logger.exception("the dispatcher failed; starting again in %.0f s", delay)
                await self._wait_flushing(stop, delay)
        return self.stats

    async def _wait_flushing(self, stop: asyncio.Event, delay: float) -> None:
        """Wait ``delay`` seconds before starting again, meanwhile retrying to write the outcomes still in memory.

        So the sends it knows it made are recorded as soon as the database is back, before another dispatcher
        could take their rows (on the real clock, like the housekeeping).
        """
        deadline = time.monotonic() + delay
        while not stop.is_set() and (left := deadline - time.monotonic()) > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=min(left, FLUSH_SECONDS * 5))
            if self._outcomes:
                with contextlib.suppress(Exception):  # still down: the next round tries again
                    await self._flush()

    async def _flush_before_exit(self) -> None:
        """Keep trying to write the sends this run knows it made, for as long as its lease holds their rows.

        ``python -m bot dispatch`` (a cron run) exits when the database goes away mid-run; the outcomes still in
        memory would be lost with the process, and the rows sent again once their lease lapsed. So the failed run
        retries writing them, with backoff, until they are written or the lease is over (after that another
        dispatcher may hold the rows, and the record of a known send still lands: ``record_outcomes``).
        """
        deadline = time.monotonic() + self.settings.dispatch_lease_seconds
        pause = FLUSH_SECONDS
        if self._outcomes:
            logger.warning("the dispatch run failed; writing the %d sends it made while its lease holds their rows",
                           len(self._outcomes))
        while self._outcomes and (left := deadline - time.monotonic()) > 0:
            try:
                await self._flush()
            except Exception:  # still down: try again shortly
                await asyncio.sleep(min(pause, left))
                pause = min(pause * 2, 5.0)
        if self._outcomes:
            logger.warning("the database stayed away for the dispatcher's whole lease; %d sends it made are not "
                           "recorded and may be sent again", len(self._outcomes))

    def wake(self) -> None:
        """Look for due rows at once (after an enqueue in this process)."""
        self._claim_after = -math.inf
        self._changed.set()

    # --- the loop ---------------------------------------------------------------------------------

    async def _run(self, *, stop: asyncio.Event | None, wake: asyncio.Event | None, until_idle: bool) -> None:
        self._closing = False
        self._last_claim_empty = False
        housekeeping = asyncio.create_task(self._housekeeping())
        relays = [asyncio.create_task(self._relay(event, wake=event is wake)) for event in (stop, wake) if event]
        try:
            await self._pump(stop=stop, until_idle=until_idle)
        finally:
            for relay in relays:
                relay.cancel()
            await asyncio.gather(*relays, return_exceptions=True)
            if self._claiming is not None:
                await asyncio.gather(self._claiming, return_exceptions=True)
            if self._tasks:
                await asyncio.gather(*self._tasks, return_exceptions=True)
            self._closing = True
            await housekeeping
            self._give_back_queue()
            await self._flush()
        if self._fatal is not None:
            raise DispatchStopped(f"Telegram refused the bot token: {self._fatal}") from self._fatal

    def _stopping(self, stop: asyncio.Event | None) -> bool:
        return self._fatal is not None or (stop is not None and stop.is_set())

    async def _pump(self, *, stop: asyncio.Event | None, until_idle: bool) -> None:
        while not self._stopping(stop):
            self._changed.clear()  # before looking: a signal from now on wakes the wait below
            if self._claim_error is not None:
                error, self._claim_error = self._claim_error, None
                raise error
            idle = not self._queue and not self._tasks and self._claiming is None
            if until_idle and idle and self._last_claim_empty:
                return
            if self._claiming is None and len(self._queue) < self.batch_size // 2 and (
                (until_idle and idle) or self.clock() >= self._claim_after
            ):
                self._claiming = asyncio.create_task(self._top_up())
                self._claiming.add_done_callback(self._claim_done)
            job = self._pick() if len(self._tasks) < self.concurrency else None
            if job is None:
                await self._wait()
                continue
            delay = self.pacer.global_ready_at() - self.clock()
            if delay > LONG_WAIT_SECONDS:  # paused by a 429: wait, but stop at once if asked
                self._queue.appendleft(job)
                await self._sleep_unless(stop, delay)
                continue
            await self.pacer.wait_global()
            if self._stopping(stop):
                self._queue.appendleft(job)
                return
            self.pacer.record(job.chat_id)
            self._busy_chats.add(job.chat_id)
            self.stats.calls += 1
            task = asyncio.create_task(self._send(job))
            self._tasks.add(task)
            task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self._changed.set()  # only now is the send out of ``_tasks``: the loop may find itself idle

    def _pick(self) -> _Job | None:
        """The first queued job whose chat is free now (looking a bounded way ahead)."""
        now = self.clock()
        for index, job in enumerate(itertools.islice(self._queue, LOOK_AHEAD)):
            if job.chat_id not in self._busy_chats and self.pacer.chat_ready_at(job.chat_id) <= now:
                del self._queue[index]
                return job
        return None

    async def _sleep_unless(self, stop: asyncio.Event | None, delay: float) -> None:
        if stop is None:
            await self.sleep(delay)
            return
        sleeper = asyncio.ensure_future(self.sleep(delay))
        stopper = asyncio.ensure_future(stop.wait())
        try:
            await asyncio.wait([sleeper, stopper], return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleeper.cancel()
            stopper.cancel()

    async def _wait(self) -> None:
        """Wait for a send to finish, a wake-up, a stop, the next chat to be ready or the next claim."""
        if len(self._tasks) >= self.concurrency:  # a finishing send signals
            await self._changed.wait()
            return
        now = self.clock()
        deadline = self._claim_after if not self._queue and self._claiming is None else now + IDLE_POLL_SECONDS
        for job in itertools.islice(self._queue, LOOK_AHEAD):
            if job.chat_id not in self._busy_chats:
                deadline = min(deadline, self.pacer.chat_ready_at(job.chat_id))
        delay = max(0.0, min(deadline - now, IDLE_POLL_SECONDS))
        timer = asyncio.ensure_future(self._signal_after(delay))
        try:
            await self._changed.wait()
        finally:
            timer.cancel()

    async def _signal_after(self, delay: float) -> None:
        await self.sleep(delay)
        self._changed.set()

    async def _relay(self, event: asyncio.Event, *, wake: bool) -> None:
        """Turn a stop or wake-up event into a signal to the loop (a wake-up also means "claim now")."""
        while True:
            await event.wait()
            if wake:
                event.clear()
                self._claim_after = -math.inf
            self._changed.set()
            if not wake:
                return

    # --- claiming and preparing -------------------------------------------------------------------

    def _claim_done(self, task: asyncio.Task[None]) -> None:
        self._claiming = None
        if not task.cancelled() and task.exception() is not None:
            self._claim_error = task.exception()
        self._changed.set()

    async def _top_up(self) -> None:
        """Claim and prepare a batch (a task of its own: the sends go on meanwhile).

        What this worker knows is written first: a send made during an outage is recorded before any row whose
        lease lapsed meanwhile can be claimed again (raises, so nothing is claimed, while the write fails).
        """
        await self._flush()
        now = self.now()
        async with self.sessions() as session:
            rows = await claim_due(
                session=session,
                worker=self.worker,
                now=now,
                limit=self.batch_size,
                lease_seconds=self.settings.dispatch_lease_seconds,
                scope=self.scope,
                exclude=sorted(self._held),
            )
        self._last_claim_empty = not rows
        if len(rows) < self.batch_size:
            self._claim_after = self.clock() + IDLE_POLL_SECONDS
        if rows:
            self._held.update(row.id for row in rows)
            await self._prepare(rows)

    async def _prepare(self, rows: list[ClaimedRow]) -> None:
        """Render the claimed rows into jobs; rows that cannot or must not be sent get their outcome now."""
        person_ids = {row.person_id for row in rows}
        broadcast_ids = {row.broadcast_id for row in rows if row.broadcast_id is not None}
        async with self.sessions() as session:
            people = {
                person.id: person
                for person in (await session.exec(select(Person).where(col(Person.id).in_(sorted(person_ids))))).all()
            }
            mutes = await mutes_of(session=session, person_ids=person_ids)
            texts = await broadcasts.notice_texts(session=session, broadcast_ids=broadcast_ids)
            cancelled = await broadcasts.cancelled_among(session=session, broadcast_ids=broadcast_ids)
        for index, row in enumerate(rows):
            if index % PREPARE_YIELD_ROWS == PREPARE_YIELD_ROWS - 1:
                self._changed.set()
                await asyncio.sleep(0)
            person = people.get(row.person_id)
            kind = KINDS.get(row.kind)
            refusal = self._not_to_send(row, person, kind, cancelled=cancelled, mutes=mutes)
            if refusal is not None:
                status, error, attempted = refusal
                self._finish(row, status, attempted=attempted, error=error)
                continue
            assert person is not None and kind is not None
            self._render(row, person, kind, texts)

    def _not_to_send(
        self, row: ClaimedRow, person: Person | None, kind: MessageKind | None, *, cancelled: set[int],
        mutes: set[tuple[int, str]],
    ) -> tuple[OutboxStatus, str, bool] | None:
        """Why a claimed row is not sent (its outcome, the reason, whether it counts as an attempt), or None."""
        if person is None or person.erased_at is not None:
            return OutboxStatus.CANCELLED, "recipient erased their data", False
        if row.broadcast_id in cancelled:
            return OutboxStatus.CANCELLED, "broadcast cancelled", False
        if row.attempts >= self.settings.dispatch_max_attempts:
            return OutboxStatus.FAILED, f"gave up after {row.attempts} attempts", False
        if kind is None:
            return OutboxStatus.FAILED, f"no renderer for kind {row.kind!r}", True
        if kind.topic is not None and not row.mandatory and (row.person_id, kind.topic) in mutes:
            return OutboxStatus.CANCELLED, f"topic {kind.topic!r} muted", False
        return None

    def _render(self, row: ClaimedRow, person: Person, kind: MessageKind, texts: dict[int, str]) -> None:
        """Render the row in its person's language into a job; a renderer's bug fails that row only."""
        payload = row.payload
        if row.kind == broadcasts.BROADCAST_KIND and row.broadcast_id in texts:
            sender = self.cities.of(self.settings.municipality_slug)
            payload = {**payload, **broadcasts.notice_payload(texts[row.broadcast_id], sender)}
        try:
            rendered = kind.render(payload, translator(person.locale, self.settings.timezone))
            units = units_of(rendered)[row.parts_sent :]
        except Exception as exc:  # a renderer's bug must not stop the other messages
            logger.exception("outbox %s: cannot render kind %s", row.id, row.kind)
            self._finish(row, OutboxStatus.FAILED, error=f"render: {exc!r}")
            return
        if not units:
            self._finish(row, OutboxStatus.SENT, attempted=False)
            return
        self._queue.append(_Job(chat_id=person.chat_id, units=units, row=row))

    # --- sending ----------------------------------------------------------------------------------

    async def _call(self, job: _Job, unit: _Unit) -> Message | bool:
        paid = True if self.paid and job.row is not None else None
        if unit.method == "text":
            return await self.bot.send_message(
                chat_id=job.chat_id,
                text=unit.text,
                parse_mode=ParseMode.HTML,
                reply_markup=unit.markup,
                allow_paid_broadcast=paid,
            )
        if unit.method == "document":
            assert unit.document is not None
            name, content = unit.document
            return await self.bot.send_document(
                chat_id=job.chat_id, document=InputFile(content, filename=name), allow_paid_broadcast=paid
            )
        assert unit.message_id is not None
        return await self.bot.edit_message_text(
            chat_id=job.chat_id,
            message_id=unit.message_id,
            text=unit.text,
            parse_mode=ParseMode.HTML,
            reply_markup=unit.markup,
        )

    async def _send(self, job: _Job) -> None:
        unit = job.units[job.done]
        try:
            result = await self._call(job, unit)
        except RetryAfter as exc:
            self._slow_down(job, exc)
        except Forbidden as exc:
            self._failed_call(job, OutboxStatus.UNREACHABLE, exc)
        except BadRequest as exc:
            self._bad_request(job, exc)
        except InvalidToken as exc:
            self._fatal = exc
            self._queue.appendleft(job)
        except NetworkError as exc:  # TimedOut, connection errors, 5xx
            self._retry(job, exc)
        except TelegramError as exc:
            self._failed_call(job, OutboxStatus.FAILED, exc)
        except Exception as exc:  # never let one message stop the others
            logger.exception("outbox: unexpected error while sending")
            self._failed_call(job, OutboxStatus.FAILED, exc)
        else:
            self._sent(job, result)
        finally:
            self._busy_chats.discard(job.chat_id)

    def _slow_down(self, job: _Job, exc: RetryAfter) -> None:
        """Telegram's 429: pause every send for the time it asks, and put the job back first in line."""
        seconds = retry_after_seconds(exc)
        logger.warning("Telegram asked to slow down: pausing %.1f s", seconds)
        metrics.RATE_LIMITED.inc()
        metrics.RATE_LIMIT_PAUSED_SECONDS.inc(seconds)
        self.pacer.pause(seconds)
        self.stats.rate_limited += 1
        self._queue.appendleft(job)

    def _bad_request(self, job: _Job, exc: BadRequest) -> None:
        """A 400: a progress edit that changed nothing is fine; a chat gone is unreachable; the rest failed."""
        if job.row is None:
            if "not modified" not in str(exc).lower():
                logger.warning("progress message not edited: %s", exc)
        elif any(reason in str(exc).lower() for reason in UNREACHABLE_BAD_REQUESTS):
            self._failed_call(job, OutboxStatus.UNREACHABLE, exc)
        else:
            self._failed_call(job, OutboxStatus.FAILED, exc)

    def _sent(self, job: _Job, result: Message | bool) -> None:
        """One unit sent: the next unit of the job goes first in line, or the row is sent."""
        job.done += 1
        if isinstance(result, Message) and job.first_message_id is None:
            job.first_message_id = result.message_id
        if job.row is not None:
            if job.done < len(job.units):
                self._queue.appendleft(job)
            else:
                self._finish(job.row, OutboxStatus.SENT, message_id=job.first_message_id, parts=job.parts_sent)

    def _failed_call(self, job: _Job, status: OutboxStatus, exc: BaseException) -> None:
        if job.row is None:
            logger.warning("progress message not edited: %s", exc)
            return
        self._finish(job.row, status, error=_describe(exc), parts=job.parts_sent)

    def _retry(self, job: _Job, exc: BaseException) -> None:
        if job.row is None:
            logger.warning("progress message not edited: %s", exc)
            return
        attempts = job.row.attempts + 1
        error = _describe(exc)
        if attempts >= self.settings.dispatch_max_attempts:
            self._finish(job.row, OutboxStatus.FAILED, error=f"{error} (gave up after {attempts} attempts)",
                         parts=job.parts_sent)
            return
        delay = backoff_seconds(attempts, cap=self.settings.dispatch_retry_max_seconds)
        self._finish(job.row, OutboxStatus.PENDING, error=error, parts=job.parts_sent,
                     retry_at=self.now() + dt.timedelta(seconds=delay))

    def _finish(
        self,
        row: ClaimedRow,
        status: OutboxStatus,
        *,
        attempted: bool = True,
        error: str | None = None,
        message_id: int | None = None,
        parts: int | None = None,
        retry_at: dt.datetime | None = None,
    ) -> None:
        self._outcomes.append(
            Outcome(
                id=row.id,
                status=status,
                attempted=attempted,
                telegram_message_id=message_id,
                sent_at=self.now() if status is OutboxStatus.SENT else None,
                last_error=error,
                retry_at=retry_at,
                parts_sent=row.parts_sent if parts is None else parts,
            )
        )
        self.stats.add(status, attempted=attempted)
        if status is OutboxStatus.SENT and attempted:
            metrics.MESSAGES_SENT.inc()
        elif status is OutboxStatus.UNREACHABLE:
            metrics.UNREACHABLE.inc()
        elif status is OutboxStatus.FAILED:
            metrics.SEND_FAILED.inc()

    def _give_back_queue(self) -> None:
        """Return the rows not sent yet (stopping): pending again, not counted as an attempt.

        Progress edits stay queued for a next round (``run_until_idle``); they hold no row.
        """
        edits: deque[_Job] = deque()
        for job in self._queue:
            if job.row is not None:
                self._finish(job.row, OutboxStatus.PENDING, attempted=False, parts=job.parts_sent)
            else:
                edits.append(job)
        self._queue = edits

    # --- writing outcomes, leases, broadcasts -----------------------------------------------------

    async def _flush(self) -> None:
        async with self._flush_lock:
            if not self._outcomes:
                return
            outcomes, self._outcomes = self._outcomes, []
            try:
                async with self.sessions() as session:
                    await record_outcomes(session=session, worker=self.worker, outcomes=outcomes)
            except BaseException:  # also when cancelled mid-write: writing twice is harmless, losing is not
                self._outcomes[:0] = outcomes
                raise
            self._held.difference_update(outcome.id for outcome in outcomes)

    async def _housekeeping(self) -> None:
        """Write outcomes often, renew leases, drop cancelled broadcasts' messages, edit progress messages.

        It runs on the real clock whatever clock paces the sends: it is about the database, not Telegram.
        """
        renew_every = self.settings.dispatch_lease_seconds / 3
        next_renew = time.monotonic() + renew_every
        next_follow = time.monotonic()
        failing = False
        while not self._closing:
            await asyncio.sleep(FLUSH_SECONDS)
            try:
                await self._flush()
                now = time.monotonic()
                if now >= next_renew:
                    next_renew = now + renew_every
                    await self._renew()
                if now >= next_follow:
                    next_follow = now + FOLLOW_SECONDS
                    await self._drop_cancelled()
                    if await self._follow_broadcasts():
                        self.wake()
            except Exception as exc:  # the database may be unavailable for a while: retry every round, log once
                if not failing:
                    logger.warning("the database refuses the dispatcher's writes (%s); %d outcomes kept in memory, "
                                   "retrying every %.1f s", database_cause(exc), len(self._outcomes), FLUSH_SECONDS)
                failing = True
            else:
                if failing:
                    logger.info("the database takes the dispatcher's writes again; outcomes recorded")
                failing = False

    async def _renew(self) -> None:
        held = sorted(self._held)
        if held:
            until = self.now() + dt.timedelta(seconds=self.settings.dispatch_lease_seconds)
            async with self.sessions() as session:
                await renew_leases(session=session, worker=self.worker, ids=held, until=until)

    async def _drop_cancelled(self) -> None:
        queued = {job.row.broadcast_id for job in self._queue if job.row is not None and job.row.broadcast_id}
        if not queued:
            return
        async with self.sessions() as session:
            cancelled = await broadcasts.cancelled_among(session=session, broadcast_ids=queued)
        if not cancelled:
            return
        kept: deque[_Job] = deque()
        for job in self._queue:
            if job.row is not None and job.row.broadcast_id in cancelled and job.done == 0:
                self._finish(job.row, OutboxStatus.CANCELLED, attempted=False, error="broadcast cancelled")
            else:
                kept.append(job)
        self._queue = kept

    def _queue_edit(self, job: _Job) -> None:
        """Queue a progress edit at the front; a queued older edit of the same message is replaced, not sent."""
        for index, queued in enumerate(self._queue):
            if queued.row is None and (queued.chat_id, queued.units[0].message_id) == (
                job.chat_id, job.units[0].message_id
            ):
                self._queue[index] = job
                return
        self._queue.appendleft(job)

    async def _follow_broadcasts(self) -> int:
        """Queue due progress edits (paced like any send) and finish broadcasts; return edits + reports."""
        async with self.sessions() as session:
            edits, reports = await broadcasts.follow_progress(
                session=session, cities=self.cities, now=self.now(), scope=self.scope
            )
        for edit in edits:
            unit = _Unit("edit", text=edit.text, markup=_markup(edit.buttons), message_id=edit.message_id)
            self._queue_edit(_Job(chat_id=edit.chat_id, units=[unit]))
        if edits:
            self._changed.set()
        self._followups += len(edits) + reports
        return len(edits) + reports
