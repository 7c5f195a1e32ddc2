"""When a failed Telegram call is tried again: one rule for the outbox dispatcher and for the bot's replies.

* 429 (``RetryAfter``): wait what Telegram asks, then try the same call again (not counted as an attempt).
* Network errors and 5xx: exponential backoff, :data:`RETRY_BASE_SECONDS` then twice as long each time, up
  to ``BALCAO_DISPATCH_RETRY_MAX_SECONDS``, at most ``BALCAO_DISPATCH_MAX_ATTEMPTS`` attempts.
* Anything else (400, 403, a refused token) is not retried: trying again would not help.
"""

from __future__ import annotations

import datetime as dt
import warnings

from telegram.error import BadRequest, NetworkError, RetryAfter
from telegram.warnings import PTBDeprecationWarning

RETRY_BASE_SECONDS = 10.0
"""The first retry after a network error waits this long; each further one twice as long."""


def backoff_seconds(attempts: int, *, cap: float) -> float:
    """Seconds to wait before the next try, after ``attempts`` failed attempts (1 for the first failure)."""
    return min(cap, RETRY_BASE_SECONDS * 2 ** max(0, attempts - 1))


def is_transient(exc: BaseException) -> bool:
    """Whether a failed call may succeed later: a 429, a network error or a 5xx (not a 400)."""
    if isinstance(exc, RetryAfter):
        return True
    return isinstance(exc, NetworkError) and not isinstance(exc, BadRequest)


def retry_after_seconds(error: RetryAfter) -> float:
    """The wait a 429 asks for, in seconds (PTB gives a number or a timedelta)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = error.retry_after
    return value.total_seconds() if isinstance(value, dt.timedelta) else float(value)
