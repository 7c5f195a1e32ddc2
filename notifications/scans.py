"""Periodic scans: each finds, from database state alone, what must be sent or done now, and enqueues it.

Because a scan looks at state (not at "what happened since the last run") and every message has a dedupe
key, running a scan twice is harmless and a process that was down catches up when it comes back.
An area registers its scans::

    @scan("driver-reminders")
    async def driver_reminders(*, session: AsyncSession, now: dt.datetime, cities: Cities) -> int:
        ...  # returns how many messages it enqueued

A scan names what it needs besides ``session`` and ``now``: the municipalities (``cities``) and, one that
timestamps, ``timestamping`` (the deployment's RFC 3161 authority, no city's). Registering a scan that names
anything else is refused at import, not found out when the scan first runs.
"""

from __future__ import annotations

import datetime as dt
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import Cities, Timestamping, cities_of
from core.settings import Settings

ScanFunction = Callable[..., Awaitable[int]]

OPTIONAL_INPUTS = ("cities", "timestamping")
"""What a scan may name besides ``session`` and ``now``; it is given exactly those it names."""


@dataclass(frozen=True, slots=True)
class Scan:
    """A registered scan."""

    name: str
    run: ScanFunction

    @property
    def inputs(self) -> frozenset[str]:
        """The optional inputs (:data:`OPTIONAL_INPUTS`) the scan names."""
        return frozenset(inspect.signature(self.run).parameters) & frozenset(OPTIONAL_INPUTS)


SCANS: dict[str, Scan] = {}


def scan(name: str) -> Callable[[ScanFunction], ScanFunction]:
    """Register a scan: ``async def f(*, session, now, cities) -> int`` (messages enqueued)."""

    def decorate(function: ScanFunction) -> ScanFunction:
        if name in SCANS:
            raise ValueError(f"scan {name!r} registered twice")
        unknown = set(inspect.signature(function).parameters) - {"session", "now", *OPTIONAL_INPUTS}
        if unknown:
            raise TypeError(f"scan {name!r} names inputs no scan is given: {sorted(unknown)}")
        SCANS[name] = Scan(name=name, run=function)
        return function

    return decorate


@dataclass(frozen=True, slots=True)
class ScanInputs:
    """What the scans are given besides the session and the moment (built once by the notification engine)."""

    cities: Cities
    timestamping: Timestamping

    @classmethod
    def of(cls, settings: Settings) -> ScanInputs:
        """The inputs of a deployment's scans: its municipalities and timestamping, built once."""
        return cls(cities=cities_of(settings), timestamping=Timestamping.of(settings))


async def run_scan(name: str, *, session: AsyncSession, now: dt.datetime, inputs: ScanInputs) -> int:
    """Run one registered scan and commit what it enqueued."""
    registered = SCANS[name]
    given = {key: getattr(inputs, key) for key in registered.inputs}
    count = await registered.run(session=session, now=now, **given)
    await session.commit()
    return count
