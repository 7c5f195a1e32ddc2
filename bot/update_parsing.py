"""Updates that python-telegram-bot cannot read are skipped, never allowed to stop the bot.

One update in a shape the library does not know (a poll from an older Bot API server without
``persistent_id``, say) used to make a whole ``getUpdates`` batch fail, again and again, so nobody was
answered; and the library logged the raw batch, other people's messages included. Here each update is
read on its own: one that fails is replaced by an empty update with the same ``update_id`` (so polling
confirms it and moves on, and no handler acts on it) and recorded by its id, kind and size only — never
its content. Repeated failures are rate limited in the log: one line per kind per minute, with a count.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

from telegram import Bot, Update

logger = logging.getLogger("balcao.updates")

LOG_EVERY_SECONDS = 60.0
"""At most one log line per kind of unreadable update in this many seconds."""


class SkippedUpdates:
    """Counts the updates that could not be read, and logs them rate limited (no content, ever)."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.total = 0
        self._last_logged: dict[str, float] = {}
        self._unlogged: dict[str, int] = {}

    def record(self, *, update_id: object, kind: str, size: int, error: BaseException) -> None:
        """Note one skipped update; write a warning unless one for this kind was written in the last minute."""
        self.total += 1
        now = self.clock()
        last = self._last_logged.get(kind)
        if last is not None and now - last < LOG_EVERY_SECONDS:
            self._unlogged[kind] = self._unlogged.get(kind, 0) + 1
            return
        self._last_logged[kind] = now
        also = self._unlogged.pop(kind, 0)
        logger.warning(
            "skipped an update that could not be read: update_id=%s kind=%s size=%d bytes error=%s%s",
            update_id,
            kind,
            size,
            type(error).__name__,
            f" (and {also} more of this kind since the last line)" if also else "",
        )


SKIPPED = SkippedUpdates()
"""The process's record of skipped updates."""


def update_kind(data: dict[str, Any]) -> str:
    """The update's kind: its first field other than ``update_id`` (``"message"``, ``"poll"``…)."""
    kinds = [str(key)[:32] for key in data if key != "update_id"]
    return kinds[0] if kinds else "empty"


def has_update_id(data: object) -> bool:
    """Whether ``data`` is a JSON object with an integer ``update_id`` (what every update must have)."""
    return isinstance(data, dict) and type(data.get("update_id")) is int and 0 <= data["update_id"] < 2**63


def parse_update(data: dict[str, Any], bot: Bot | None, *, skipped: SkippedUpdates | None = None) -> Update:
    """Read one update; one that cannot be read becomes an empty update with its id, and is recorded.

    Args:
        data: one update as Telegram sent it, with an integer ``update_id`` (see :func:`has_update_id`).
        bot: the bot the update belongs to.
        skipped: where skipped updates are recorded (the process's :data:`SKIPPED` by default).

    Returns:
        The update, or an update with only ``update_id`` that no handler acts on.
    """
    try:
        return Update.de_json(data, bot)
    except Exception as exc:  # any shape the library cannot read: skip it, keep the others
        (skipped or SKIPPED).record(update_id=data["update_id"], kind=update_kind(data), size=_size(data), error=exc)
        return Update(update_id=data["update_id"])


def _size(data: object) -> int:
    try:
        return len(json.dumps(data, ensure_ascii=False).encode())
    except (TypeError, ValueError):
        return -1
