"""Per-person update ordering: one person's updates are handled one after another, in the order they came.

Telegram sends an album as one update per photo at the same instant, and a double tap as two callback queries;
handled concurrently, each read the same draft and the last write won (photos lost, a case filed twice).
:class:`PerPersonUpdateProcessor` keeps python-telegram-bot's concurrency between people and serialises the
updates of each person (keyed by the user id, or the chat id for updates without a user).

Inside one process a lock per person orders the updates; across the processes of a bot, the person's turn is
held in the database (``bot.turns``: an advisory lock on PostgreSQL), entered once the process's own lock is
held, so the updates a process got stay in their order and wait for the other processes' turns of that person.

Two bounds: PTB's own semaphore (``max_queued``) only limits how many updates may wait; ``max_running`` limits how
many handlers run at once. A person's waiting updates hold no running slot, so one person sending ten photos does
not stall everyone else. Each person's lock lives only while that person has updates in flight, so idle people
cost nothing.

:meth:`PerPersonUpdateProcessor.handle` returns the update's outcome; the webhook answers Telegram with it
(a transient failure is a 503, so Telegram delivers the update again).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from telegram import Update
from telegram.ext import BaseUpdateProcessor

from bot.turns import PersonTurns
from core import metrics

logger = logging.getLogger("balcao.ordering")

Outcome = Literal["ok", "error", "transient", "replay"]
"""How an update's handling ended: handled, failed (apologised), failed for a cause that may pass, a replay."""
FailureReport = Callable[[object, Exception], Awaitable[bool]]
"""Told when an update's turn could not be taken (the database): apologises; True when the cause may pass."""


@dataclass(slots=True)
class _Queue:
    """One person's lock and how many of their updates hold or wait for it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


def ordering_key(update: object) -> int | None:
    """Whose updates must stay in order: the user's id, else the chat's; None for updates of nobody (polls)."""
    if not isinstance(update, Update):
        return None
    if update.effective_user is not None:
        return update.effective_user.id
    if update.effective_chat is not None:
        return update.effective_chat.id
    return None


class PerPersonUpdateProcessor(BaseUpdateProcessor):
    """Handle different people's updates concurrently and each person's strictly in arrival order."""

    __slots__ = ("_queues", "_running", "on_failure", "turns")

    def __init__(self, max_running: int, *, max_queued: int = 1024, turns: PersonTurns | None = None) -> None:
        """Set the bounds.

        Args:
            max_running: handlers that may run at the same time (all people together).
            max_queued: updates that may be in flight, running or waiting for their person's turn.
            turns: where a person's turn is held across processes (None: this process only).
        """
        super().__init__(max_concurrent_updates=max_queued)
        if max_running < 1:
            raise ValueError("max_running must be a positive integer")
        self._running = asyncio.BoundedSemaphore(max_running)
        self._queues: dict[int, _Queue] = {}
        self.turns = turns
        self.on_failure: FailureReport | None = None

    @property
    def people_in_flight(self) -> int:
        """How many people have an update running or waiting now (0 when everyone is idle)."""
        return len(self._queues)

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        """Wait for this person's earlier updates, then for a running slot, then handle the update."""
        await self.handle(update, coroutine)

    async def handle(self, update: object, coroutine: Awaitable[Any]) -> Outcome:
        """Handle the update in its person's turn (this process's, then every process's); return the outcome."""
        key = ordering_key(update)
        async with self._in_process(key), self._running:
            started = False
            try:
                if self.turns is None:
                    started = True
                    return _outcome(await metrics.observe_update(update, coroutine))
                async with self.turns.hold(update, key) as ticket:
                    if not ticket.fresh:
                        _close(coroutine)
                        return "replay"
                    started = True
                    outcome = _outcome(await metrics.observe_update(update, coroutine))
                    ticket.failed = outcome != "ok"
                    return outcome
            except Exception as exc:  # the turn could not be taken or ended: the database, mostly
                if not started:
                    _close(coroutine)
                    transient = await self.on_failure(update, exc) if self.on_failure is not None else False
                    return "transient" if transient else "error"
                logger.warning("update handled, but its turn could not be recorded: %s", type(exc).__name__)
                return "transient"

    @asynccontextmanager
    async def _in_process(self, key: int | None) -> AsyncIterator[None]:
        if key is None:
            yield
            return
        queue = self._queues.get(key)
        if queue is None:
            queue = self._queues[key] = _Queue()
        queue.users += 1
        try:
            async with queue.lock:
                yield
        finally:
            queue.users -= 1
            if queue.users == 0:
                del self._queues[key]

    async def initialize(self) -> None:
        """Nothing to allocate."""

    async def shutdown(self) -> None:
        """Nothing to free: every update in flight holds its own references."""


def _outcome(observed: str) -> Outcome:
    return "transient" if observed == "transient" else "error" if observed == "error" else "ok"


def _close(coroutine: Awaitable[Any]) -> None:
    if inspect.iscoroutine(coroutine):
        coroutine.close()
