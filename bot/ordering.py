"""Per-person update ordering: one person's updates are handled one after another, in the order they came.

Telegram sends an album as one update per photo at the same instant, and a double tap as two callback queries;
handled concurrently, each read the same draft and the last write won (photos lost, a case filed twice).
:class:`PerPersonUpdateProcessor` keeps python-telegram-bot's concurrency between people and serialises the
updates of each person (keyed by the user id, or the chat id for updates without a user).

Two bounds: PTB's own semaphore (``max_queued``) only limits how many updates may wait; ``max_running`` limits how
many handlers run at once. A person's waiting updates hold no running slot, so one person sending ten photos does
not stall everyone else. Each person's lock lives only while that person has updates in flight, so idle people
cost nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor


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

    __slots__ = ("_queues", "_running")

    def __init__(self, max_running: int, *, max_queued: int = 1024) -> None:
        """Set the bounds.

        Args:
            max_running: handlers that may run at the same time (all people together).
            max_queued: updates that may be in flight, running or waiting for their person's turn.
        """
        super().__init__(max_concurrent_updates=max_queued)
        if max_running < 1:
            raise ValueError("max_running must be a positive integer")
        self._running = asyncio.BoundedSemaphore(max_running)
        self._queues: dict[int, _Queue] = {}

    @property
    def people_in_flight(self) -> int:
        """How many people have an update running or waiting now (0 when everyone is idle)."""
        return len(self._queues)

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        """Wait for this person's earlier updates, then for a running slot, then handle the update."""
        key = ordering_key(update)
        if key is None:
            async with self._running:
                await coroutine
            return
        queue = self._queues.get(key)
        if queue is None:
            queue = self._queues[key] = _Queue()
        queue.users += 1
        try:
            async with queue.lock, self._running:
                await coroutine
        finally:
            queue.users -= 1
            if queue.users == 0:
                del self._queues[key]

    async def initialize(self) -> None:
        """Nothing to allocate."""

    async def shutdown(self) -> None:
        """Nothing to free: every update in flight holds its own references."""
