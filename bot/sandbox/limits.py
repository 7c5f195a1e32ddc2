"""Flood control and injected faults: the ways the emulator refuses a call on purpose."""

from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import dataclass

from bot.sandbox.errors import ApiError, too_many_requests

WINDOW_SECONDS = 1.0


class FloodLimiter:
    """Telegram's flood control for sent messages: at most N per chat and M overall per second, per bot.

    Off until :meth:`configure` gives a limit. A refused call answers 429 with ``retry_after``: the
    whole seconds until the oldest message in the one-second window leaves it (at least 1). Each bot has
    its own windows, as on Telegram, where the caps are per bot token.
    """

    def __init__(self) -> None:
        self.per_chat: int | None = None
        self.overall: int | None = None
        self._per_chat: dict[tuple[str, int], deque[float]] = {}
        self._overall: dict[str, deque[float]] = {}

    def configure(self, *, per_chat_per_second: int | None, global_per_second: int | None) -> None:
        """Set the limits (None turns one off) and forget past traffic."""
        self.per_chat = per_chat_per_second
        self.overall = global_per_second
        self._per_chat.clear()
        self._overall.clear()

    @property
    def enabled(self) -> bool:
        """True when any limit is set."""
        return self.per_chat is not None or self.overall is not None

    def check(self, chat_id: int, now: float | None = None, *, bot: str = "") -> None:
        """Refuse a message over the limit; otherwise count it.

        Args:
            chat_id: the chat the message goes to.
            now: monotonic time; defaults to ``time.monotonic()``.
            bot: the sending bot's token (each bot has its own limits).

        Raises:
            ApiError: 429 "Too Many Requests: retry after N".
        """
        if not self.enabled:
            return
        now = time.monotonic() if now is None else now
        chat_window = self._per_chat.setdefault((bot, chat_id), deque())
        overall = self._overall.setdefault(bot, deque())
        waits: list[float] = []
        if self.per_chat is not None:
            _expire(chat_window, now)
            if len(chat_window) >= self.per_chat:
                waits.append(chat_window[0] + WINDOW_SECONDS - now)
        if self.overall is not None:
            _expire(overall, now)
            if len(overall) >= self.overall:
                waits.append(overall[0] + WINDOW_SECONDS - now)
        if waits:
            raise too_many_requests(max(1, math.ceil(max(waits))))
        if self.per_chat is not None:
            chat_window.append(now)
        if self.overall is not None:
            overall.append(now)


def _expire(window: deque[float], now: float) -> None:
    while window and window[0] <= now - WINDOW_SECONDS:
        window.popleft()


@dataclass
class _Fault:
    error_code: int
    description: str
    retry_after: int | None
    remaining: int
    chat_id: int | str | None


class FaultInjector:
    """Errors scheduled by tests for the next calls of a method."""

    def __init__(self) -> None:
        self._faults: dict[str, deque[_Fault]] = {}

    def add(
        self,
        method: str,
        *,
        error_code: int,
        description: str,
        retry_after: int | None,
        times: int,
        chat_id: int | str | None,
    ) -> None:
        """Make the next ``times`` calls of ``method`` (to ``chat_id``, if given) fail."""
        if times < 1:
            raise ValueError("times must be at least 1")
        fault = _Fault(error_code, description, retry_after, times, chat_id)
        self._faults.setdefault(method.lower(), deque()).append(fault)

    def clear(self) -> None:
        """Drop every scheduled fault."""
        self._faults.clear()

    def check(self, method: str, chat_id: object) -> None:
        """Raise the first scheduled fault that matches this call, using it up.

        Raises:
            ApiError: the scheduled error.
        """
        queue = self._faults.get(method.lower())
        if not queue:
            return
        for fault in queue:
            if fault.chat_id is None or fault.chat_id == chat_id:
                fault.remaining -= 1
                if fault.remaining == 0:
                    queue.remove(fault)
                raise ApiError(fault.error_code, fault.description, retry_after=fault.retry_after)
