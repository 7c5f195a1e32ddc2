"""Start while the database is down: ``run`` and ``dispatch`` wait for it, retrying with backoff.

A database that is not up yet at boot (PostgreSQL still starting, a network not up, a mount not there) made both
exit 1 with a 115-line traceback. Now each attempt that cannot reach the database logs one line — the cause, the
attempt, the next delay — and the start goes on as soon as it answers. After ``BALCAO_DATABASE_WAIT_SECONDS``
(300 s by default) the command stops with one line and exit code 1, and the supervisor's restart takes over (the
README's systemd units restart after a delay). A database that answers but is at another migration is not waited
for: that needs ``db upgrade``, and the schema check says so at once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

logger = logging.getLogger("balcao.start")

FIRST_DELAY_SECONDS = 1.0
MAX_DELAY_SECONDS = 30.0
ATTEMPT_SECONDS = 10.0
"""One attempt's budget: a frozen server does not hold the start for a driver's 60 s connect timeout."""
UNREACHABLE: tuple[type[BaseException], ...] = (OperationalError, InterfaceError, DBAPIError, OSError, TimeoutError)
"""What a database that is down, starting or unreachable raises (a refused or timed-out connection, an unopenable
file); anything else (a schema out of date, a bug) is not waited for."""

sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
"""The pause between attempts (tests replace it)."""
clock: Callable[[], float] = time.monotonic


class DatabaseUnreachable(Exception):
    """The database did not answer within the configured wait: how long was waited, and the last cause."""

    def __init__(self, waited_seconds: float, cause: str) -> None:
        super().__init__(f"the database did not answer in {waited_seconds:.0f} s ({cause})")
        self.waited_seconds = waited_seconds
        self.cause = cause


def describe(exc: BaseException) -> str:
    """The cause in one line, without SQL or parameters (the driver's own error when SQLAlchemy wraps one)."""
    cause = getattr(exc, "orig", None) or exc
    text = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
    return f"{type(cause).__name__}: {text[:200]}" if text else type(cause).__name__


def next_delay(attempt: int) -> float:
    """Seconds before attempt ``attempt + 1``: 1, 2, 4 … up to 30."""
    return min(MAX_DELAY_SECONDS, FIRST_DELAY_SECONDS * 2.0 ** (attempt - 1))


async def wait_for_database(check: Callable[[], Awaitable[None]], *, max_wait_seconds: float) -> None:
    """Run ``check`` (the start's schema check) until the database answers it, or the wait runs out.

    Args:
        check: connects to the database and checks it; raises one of :data:`UNREACHABLE` while it is down.
        max_wait_seconds: give up once this long has passed since the first attempt (0: one attempt).

    Raises:
        DatabaseUnreachable: the database did not answer in time.
        Exception: whatever else ``check`` raises (``SchemaOutOfDate``), at once.
    """
    started = clock()
    attempt = 0
    while True:
        attempt += 1
        try:
            await asyncio.wait_for(check(), timeout=ATTEMPT_SECONDS)
        except UNREACHABLE as exc:
            cause = describe(exc) if not isinstance(exc, TimeoutError) else f"no answer in {ATTEMPT_SECONDS:g} s"
            waited = clock() - started
            delay = next_delay(attempt)
            if waited + delay > max_wait_seconds:
                logger.error("database unreachable (%s); attempt %d; gave up after %.0f s", cause, attempt, waited)
                raise DatabaseUnreachable(waited, cause) from None
            logger.warning("database unreachable (%s); attempt %d, next in %.0f s", cause, attempt, delay)
            await sleep(delay)
            continue
        if attempt > 1:
            logger.info("database answers after %d attempts", attempt)
        return
