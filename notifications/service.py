"""The notification engine inside ``python -m bot run``: scheduled scans and a dispatcher that is always on.

APScheduler (``AsyncIOScheduler`` in the deployment's time zone, America/Cuiaba by default) only *triggers*:
the scans once at start and every ``BALCAO_SCAN_INTERVAL_MINUTES``, the dispatcher every few seconds, and the
transparency log's head job every ``BALCAO_TLOG_HEAD_INTERVAL`` seconds (:mod:`notifications.log_heads`).
What is due is computed from database rows, so a process that was down at a trigger time catches up at
start, and nothing lives only in the scheduler's memory. Enqueueing code in this process can call
:func:`wake_dispatcher` to have the dispatcher look at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from core import metrics
from core.db import SessionFactory
from core.municipality import Timestamping
from core.settings import Settings
from models.columns import utcnow
from notifications.dispatcher import Dispatcher, DispatchStopped, sending_bot, settle_memory
from notifications.log_heads import sign_log_heads
from notifications.outbox_claims import BotScope
from notifications.plugins import load_all
from notifications.scans import SCANS, ScanInputs, run_scan

logger = logging.getLogger("balcao.notifications")

DISPATCH_TRIGGER_SECONDS = 5
"""The dispatcher looks for due rows at least this often (rows enqueued by other processes)."""

_WAKERS: set[Callable[[], None]] = set()
_SCHEDULERS: set[AsyncIOScheduler] = set()


def scheduler_running() -> bool:
    """Whether a scan scheduler runs in this process (``run``'s readiness depends on it)."""
    return any(scheduler.running for scheduler in _SCHEDULERS)


def wake_dispatcher() -> None:
    """Make the dispatcher running in this process (if any) look for due messages now."""
    for wake in list(_WAKERS):
        wake()


@dataclass(frozen=True, slots=True)
class ScanOutcome:
    """What one scan did."""

    name: str
    enqueued: int
    error: str | None = None


async def run_scans(
    *, sessions: SessionFactory, settings: Settings, now: dt.datetime | None = None
) -> list[ScanOutcome]:
    """Run every registered scan once, each in its own transaction; one failing does not stop the others.

    Args:
        sessions: session factory.
        settings: the deployment's settings.
        now: the time the scans see (now when None).

    Returns:
        One outcome per scan, in registration order.
    """
    load_all()
    now = now or utcnow()
    inputs = ScanInputs.of(settings)
    outcomes = []
    for name in SCANS:
        try:
            with metrics.SCAN_SECONDS.labels(scan=name).time():
                async with sessions() as session:
                    count = await run_scan(name, session=session, now=now, inputs=inputs)
        except Exception as exc:  # one scan's bug must not stop the others
            logger.exception("scan %s failed", name)
            metrics.SCANS.labels(scan=name, outcome="error").inc()
            outcomes.append(ScanOutcome(name, 0, f"{type(exc).__name__}: {exc}"))
        else:
            metrics.SCANS.labels(scan=name, outcome="ok").inc()
            if count:
                logger.info("scan %s enqueued %d messages", name, count)
            outcomes.append(ScanOutcome(name, count))
    return outcomes


def build_scheduler(
    settings: Settings, *, scans_due: asyncio.Event, dispatch_due: asyncio.Event, heads_due: asyncio.Event | None = None
) -> AsyncIOScheduler:
    """The scheduler of ``run``: it only sets events (nothing it holds needs to survive a restart).

    Args:
        settings: for the time zone and the scan interval.
        scans_due: set at start and every ``scan_interval_minutes``.
        dispatch_due: set every :data:`DISPATCH_TRIGGER_SECONDS`.
        heads_due: set every ``tlog_head_interval`` seconds (when it is 0, commits sign their own heads and the job
            only timestamps and witnesses them, every :data:`DISPATCH_TRIGGER_SECONDS`).
    """
    scheduler = AsyncIOScheduler(timezone=settings.tz)

    async def trigger_scans() -> None:
        scans_due.set()

    async def trigger_dispatch() -> None:
        dispatch_due.set()

    scheduler.add_job(
        trigger_scans,
        "interval",
        minutes=settings.scan_interval_minutes,
        next_run_time=dt.datetime.now(settings.tz),
        id="balcao-scans",
        coalesce=True,
        max_instances=1,
        misfire_grace_time=None,
    )
    scheduler.add_job(
        trigger_dispatch, "interval", seconds=DISPATCH_TRIGGER_SECONDS, id="balcao-dispatch", coalesce=True
    )
    if heads_due is not None:

        async def trigger_heads() -> None:
            heads_due.set()

        scheduler.add_job(trigger_heads, "interval", seconds=settings.tlog_head_interval or DISPATCH_TRIGGER_SECONDS,
                          next_run_time=dt.datetime.now(settings.tz), id="balcao-log-heads", coalesce=True,
                          max_instances=1, misfire_grace_time=None)
    return scheduler


async def _wait_for(due: asyncio.Event, stop: asyncio.Event) -> bool:
    """Wait until ``due`` or ``stop`` is set; True when ``due`` was (and it is cleared)."""
    stopper = asyncio.ensure_future(stop.wait())
    waiting = asyncio.ensure_future(due.wait())
    try:
        await asyncio.wait([stopper, waiting], return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopper.cancel()
        waiting.cancel()
    if stop.is_set():
        return False
    due.clear()
    return True


async def _head_loop(*, sessions: SessionFactory, settings: Settings, heads_due: asyncio.Event,
                     stop: asyncio.Event) -> None:
    while await _wait_for(heads_due, stop):
        try:
            with metrics.SCAN_SECONDS.labels(scan="log-heads").time():
                await sign_log_heads(sessions=sessions, timestamping=Timestamping.of(settings))
        except Exception:  # a database hiccup: the entries wait, and the next run signs them
            logger.exception("the log's head job failed; the next run signs what waits")
            metrics.SCANS.labels(scan="log-heads", outcome="error").inc()
        else:
            metrics.SCANS.labels(scan="log-heads", outcome="ok").inc()


async def _scan_loop(
    *, sessions: SessionFactory, settings: Settings, scans_due: asyncio.Event, dispatch_due: asyncio.Event,
    stop: asyncio.Event,
) -> None:
    while await _wait_for(scans_due, stop):
        outcomes = await run_scans(sessions=sessions, settings=settings)
        if any(outcome.enqueued for outcome in outcomes):
            dispatch_due.set()


@dataclass(frozen=True, slots=True)
class Sender:
    """One bot a dispatcher sends with: that bot's settings (its token) and whose rows it claims."""

    settings: Settings
    scope: BotScope | None = None


async def _dispatch_with(sender: Sender, *, sessions: SessionFactory, stop: asyncio.Event, wake: asyncio.Event) -> None:
    try:
        async with sending_bot(sender.settings) as bot:
            settle_memory()
            dispatcher = Dispatcher(sessions=sessions, bot=bot, settings=sender.settings, scope=sender.scope)
            await dispatcher.run_forever(stop=stop, wake=wake)
    except DispatchStopped:
        logger.exception("a dispatcher stopped; its messages stay queued until it runs again")
    except Exception:  # never take the bot down with the notifications
        logger.exception("a dispatcher failed; its messages stay queued until it runs again")


async def notification_service(
    settings: Settings, sessions: SessionFactory, senders: Sequence[Sender], stop: asyncio.Event
) -> None:
    """Run the scans and one dispatcher per bot until ``stop`` is set (a ``bot.running`` background service).

    Each dispatcher uses a bot of its own (a small HTTP connection pool is faster for bulk sending) rather
    than the application's, and paces itself at that bot's limits: Telegram's caps are per bot.

    Args:
        settings: the deployment's settings.
        sessions: session factory.
        senders: the bots this process sends with, and whose rows each claims (none: only the scans run).
        stop: set when ``run`` stops; the service then finishes the calls in flight and returns.
    """
    load_all()
    scans_due, dispatch_due, heads_due = asyncio.Event(), asyncio.Event(), asyncio.Event()
    scheduler = build_scheduler(settings, scans_due=scans_due, dispatch_due=dispatch_due, heads_due=heads_due)
    _WAKERS.add(dispatch_due.set)
    scheduler.start()
    _SCHEDULERS.add(scheduler)
    scans = asyncio.create_task(
        _scan_loop(sessions=sessions, settings=settings, scans_due=scans_due, dispatch_due=dispatch_due, stop=stop)
    )
    heads = asyncio.create_task(_head_loop(sessions=sessions, settings=settings, heads_due=heads_due, stop=stop))
    try:
        await asyncio.gather(  # with no senders (BALCAO_RUN_DISPATCHER=false) the scans still run until stop
            stop.wait(),
            *(_dispatch_with(sender, sessions=sessions, stop=stop, wake=dispatch_due) for sender in senders),
        )
    finally:
        _WAKERS.discard(dispatch_due.set)
        _SCHEDULERS.discard(scheduler)
        scheduler.shutdown(wait=False)
        if not stop.is_set():
            scans.cancel()
            heads.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await scans
        with contextlib.suppress(asyncio.CancelledError):
            await heads
