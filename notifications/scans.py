"""Periodic scans: each finds, from database state alone, what must be sent or done now, and enqueues it.

Because a scan looks at state (not at "what happened since the last run") and every message has a dedupe
key, running a scan twice is harmless and a process that was down catches up when it comes back.
An area registers its scans::

    @scan("driver-reminders")
    async def driver_reminders(*, session: AsyncSession, now: dt.datetime, settings: Settings) -> int:
        ...  # returns how many messages it enqueued
"""

from __future__ import annotations

import datetime as dt
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import cities_of
from core.settings import Settings

ScanFunction = Callable[..., Awaitable[int]]


@dataclass(frozen=True, slots=True)
class Scan:
    """A registered scan."""

    name: str
    run: ScanFunction


SCANS: dict[str, Scan] = {}


def scan(name: str) -> Callable[[ScanFunction], ScanFunction]:
    """Register a scan: ``async def f(*, session, now, settings) -> int`` (messages enqueued)."""

    def decorate(function: ScanFunction) -> ScanFunction:
        if name in SCANS:
            raise ValueError(f"scan {name!r} registered twice")
        SCANS[name] = Scan(name=name, run=function)
        return function

    return decorate


async def run_scan(name: str, *, session: AsyncSession, now: dt.datetime, settings: Settings) -> int:
    """Run one registered scan and commit what it enqueued."""
    function = SCANS[name].run  # a scan that names ``cities`` is given the municipalities, built from the settings
    named = inspect.signature(function).parameters
    given = {"cities": cities_of(settings)} if "cities" in named else {"settings": settings}
    count = await function(session=session, now=now, **given)
    await session.commit()
    return count
