"""Pacing of outgoing Telegram calls: an overall rate and a per-chat rate, measured on a monotonic clock.

Telegram allows about 30 messages per second overall (1000 with paid broadcasts) and about one per second
in a chat. The pacer spaces sends evenly at the configured rate and, whatever happens to the event loop,
never lets more than ``floor(rate)`` sends fall into any window of one second plus a small guard (the guard
absorbs network jitter, so Telegram, which counts on its side, never sees more than the cap either).

It counts sends actually attempted: the dispatcher asks just before each call. A 429 answer pauses every
send for ``retry_after`` seconds. The clock and the sleep are injectable, so tests run on a fake clock.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]

WINDOW_GUARD_SECONDS = 0.02
"""Added to the one-second window: 1000/s becomes at most 1000 sends per 1.02 s (0.98 of the cap)."""
CATCH_UP_SECONDS = 0.01
"""How far behind schedule the pacer may catch up with quicker sends after a late wake-up."""


class RateWindow:
    """At most ``count`` events in any window of ``window`` seconds, evenly spaced.

    Args:
        rate: events per second (may be fractional, e.g. 0.5 for one every two seconds).
        guard: seconds added to the window.
        catch_up: seconds of lateness that may be made up with quicker events (0: none).
    """

    __slots__ = ("_log", "_next", "catch_up", "count", "interval", "window")

    def __init__(self, rate: float, *, guard: float = WINDOW_GUARD_SECONDS, catch_up: float = 0.0) -> None:
        if rate <= 0:
            raise ValueError("rate must be positive")
        self.count = max(1, math.floor(rate))
        self.window = self.count / rate + guard
        self.interval = self.window / self.count
        self.catch_up = catch_up
        self._log: deque[float] = deque(maxlen=self.count)
        self._next = -math.inf

    def ready_at(self) -> float:
        """The earliest time of the next event."""
        earliest = self._next
        if len(self._log) == self.count:
            earliest = max(earliest, self._log[0] + self.window)
        return earliest

    def record(self, at: float) -> None:
        """Count an event that happens at ``at``."""
        self._log.append(at)
        on_schedule = at - self._next <= self.catch_up  # a little late: keep the schedule, catch up
        self._next = (self._next if on_schedule else at) + self.interval


class SendPacer:
    """The overall and per-chat limits of one dispatcher.

    Args:
        global_rate: sends per second overall.
        per_chat_rate: sends per second to one chat.
        clock: monotonic seconds (``time.monotonic`` by default).
        sleep: coroutine that waits a number of seconds of that clock.
        guard: seconds added to each window (see :data:`WINDOW_GUARD_SECONDS`).
    """

    def __init__(
        self,
        *,
        global_rate: float,
        per_chat_rate: float,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        guard: float = WINDOW_GUARD_SECONDS,
    ) -> None:
        self.clock = clock
        self.sleep = sleep
        self.per_chat_rate = per_chat_rate
        self.guard = guard
        self._global = RateWindow(global_rate, guard=guard, catch_up=CATCH_UP_SECONDS)
        self._chats: dict[int, RateWindow] = {}
        self._paused_until = -math.inf
        self._recorded = 0

    @property
    def paused_until(self) -> float:
        """Clock time until which sending is paused (after a 429)."""
        return self._paused_until

    def pause(self, seconds: float) -> None:
        """Stop every send for ``seconds`` from now (Telegram's ``retry_after``)."""
        self._paused_until = max(self._paused_until, self.clock() + seconds)

    def chat_ready_at(self, chat_id: int) -> float:
        """The earliest time of the next send to a chat."""
        window = self._chats.get(chat_id)
        return -math.inf if window is None else window.ready_at()

    def global_ready_at(self) -> float:
        """The earliest time of the next send overall (pauses included)."""
        return max(self._global.ready_at(), self._paused_until)

    async def wait_global(self) -> None:
        """Wait until the overall limit (and any pause) allows one more send."""
        while True:
            delay = self.global_ready_at() - self.clock()
            if delay <= 0:
                return
            await self.sleep(delay)

    def record(self, chat_id: int) -> None:
        """Count a send to ``chat_id`` happening now (call it right before the Telegram call)."""
        now = self.clock()
        self._global.record(now)
        window = self._chats.get(chat_id)
        if window is None:
            window = self._chats[chat_id] = RateWindow(self.per_chat_rate, guard=self.guard)
        window.record(now)
        self._recorded += 1
        if self._recorded % 1024 == 0:
            self._forget_idle_chats(now)

    def _forget_idle_chats(self, now: float) -> None:
        idle = [chat for chat, window in self._chats.items() if window.ready_at() <= now]
        for chat in idle:
            del self._chats[chat]
