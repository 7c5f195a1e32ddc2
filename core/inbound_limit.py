"""Per-person inbound limit: one person's flood of updates is answered once and the excess dropped.

Telegram delivers whatever a client sends; 500 updates from one person in 0.4 s were all handled, each reading and
writing that person's draft, while everyone else waited. :class:`InboundLimiter` counts each person's updates in a
sliding window (``BALCAO_INBOUND_UPDATES_PER_MINUTE`` per minute): under the limit an update goes on; the first one
over it is answered once (so the person knows why the bot went quiet); the rest are dropped until the window has
room again. It is kept in memory, per process: each bot's updates are read by one process (README, Operations).

This module knows nothing of Telegram: ``handlers.chat.inbound`` calls it before any other handler.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

WINDOW_SECONDS = 60.0
"""The window ``BALCAO_INBOUND_UPDATES_PER_MINUTE`` counts in."""
SWEEP_EVERY = 1024
"""Forget idle people every this many checks, so the table holds only people active in the last window."""


class Verdict(StrEnum):
    """What to do with one update."""

    ALLOW = "allow"  # under the limit: handle it
    WARN = "warn"  # the first one over the limit: answer once, do not handle it
    DROP = "drop"  # over the limit and already warned: ignore it


@dataclass(slots=True)
class _Window:
    times: deque[float] = field(default_factory=deque)
    warned: bool = False


class InboundLimiter:
    """Count each person's updates in a sliding window and say which may be handled.

    Args:
        limit: updates allowed per person in the window (``BALCAO_INBOUND_UPDATES_PER_MINUTE``).
        window: the window's length in seconds.
        clock: seconds now (the wall clock by default, so tests can freeze it).
    """

    def __init__(self, limit: int, *, window: float = WINDOW_SECONDS,
                 clock: Callable[[], float] = time.time) -> None:
        if limit < 1:
            raise ValueError("the inbound limit must be a positive integer")
        self.limit = limit
        self.window = window
        self._clock = clock
        self._people: dict[int, _Window] = {}
        self._checks = 0
        self.stopped = 0  # updates not handled (warned or dropped) since start, for the logs and the tests

    def check(self, person: int) -> Verdict:
        """Record one update of ``person`` (a Telegram user or chat id) and say what to do with it."""
        now = self._clock()
        self._checks += 1
        if self._checks % SWEEP_EVERY == 0:
            self._sweep(now)
        state = self._people.setdefault(person, _Window())
        while state.times and (state.times[0] <= now - self.window or state.times[0] > now):
            state.times.popleft()  # out of the window (or from before a clock set back)
        if len(state.times) < self.limit:
            state.times.append(now)
            state.warned = False
            return Verdict.ALLOW
        self.stopped += 1
        if state.warned:
            return Verdict.DROP
        state.warned = True
        return Verdict.WARN

    def _sweep(self, now: float) -> None:
        idle = [person for person, state in self._people.items()
                if not state.times or state.times[-1] <= now - self.window]
        for person in idle:
            del self._people[person]

    def __len__(self) -> int:
        """How many people the limiter is tracking."""
        return len(self._people)
