"""The scheduler and the scans: due work is computed from the database, so downtime is caught up at start."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from sqlmodel import select

from bot.sandbox.emulator import BotApiEmulator
from core.db import SessionFactory
from core.i18n import Translator
from core.settings import Settings
from models.outbox import OutboxMessage, enqueue
from models.people import Person
from notifications.rendering import Rendered, renderer
from notifications.scans import SCANS, scan
from notifications.service import Sender, build_scheduler, notification_service, run_scans
from tests.notifications.conftest import FIRST_USER_ID, add_people

WELCOME = "test.welcome"
DAY = dt.timedelta(days=1)


@renderer(WELCOME)
def render_welcome(payload: dict[str, Any], tr: Translator) -> Rendered:
    return Rendered(text="Welcome, one day later.")


async def welcome_scan(*, session: Any, now: dt.datetime) -> int:
    """Everyone who joined at least a day ago gets one welcome, due a day after joining (from state alone)."""
    people = (await session.exec(select(Person).where(Person.created_at <= now - DAY))).all()
    count = 0
    for person in people:
        count += await enqueue(session=session, person_id=person.id, kind=WELCOME,
                               dedupe_key=f"welcome:{person.id}:1d", not_before=person.created_at + DAY)
    return count


async def failing_scan(*, session: Any, now: dt.datetime) -> int:
    raise RuntimeError("this scan is broken")


@pytest.fixture
def scans() -> Iterator[None]:
    """Register the test scans for one test only (other tests run every registered scan)."""
    scan("test-welcome")(welcome_scan)
    scan("test-broken")(failing_scan)
    yield
    del SCANS["test-welcome"], SCANS["test-broken"]


async def test_a_scan_after_downtime_catches_up_once(scans: None, sessions: SessionFactory,
                                                     settings: Settings) -> None:
    start = dt.datetime(2027, 1, 4, 12, tzinfo=dt.UTC)
    for day in range(3):  # people join on three days while no scan runs
        with time_machine.travel(start + day * DAY, tick=False):
            await add_people(sessions, None, 1, first=FIRST_USER_ID + day)
    back = start + 5 * DAY
    outcomes = {o.name: o for o in await run_scans(sessions=sessions, settings=settings, now=back)}
    assert outcomes["test-welcome"].enqueued == 3
    assert outcomes["test-broken"].error == "RuntimeError: this scan is broken"  # the others still ran
    again = {o.name: o for o in await run_scans(sessions=sessions, settings=settings, now=back + DAY)}
    assert again["test-welcome"].enqueued == 0  # nothing twice
    async with sessions() as session:
        due = sorted(row.not_before for row in (await session.exec(select(OutboxMessage))).all())
    assert due == [start + DAY, start + 2 * DAY, start + 3 * DAY]  # due when they should have been: now


def test_a_scan_naming_an_input_no_scan_is_given_is_refused_at_registration() -> None:
    async def wants_settings(*, session: Any, now: dt.datetime, settings: Settings) -> int:
        return 0

    with pytest.raises(TypeError, match="settings"):
        scan("test-wants-settings")(wants_settings)
    assert "test-wants-settings" not in SCANS


def test_the_scheduler_runs_in_cuiaba_time_scans_at_start_and_every_interval(settings: Settings) -> None:
    scheduler = build_scheduler(settings, scans_due=asyncio.Event(), dispatch_due=asyncio.Event())
    assert scheduler.timezone == ZoneInfo("America/Cuiaba")
    jobs = {job.id: job for job in scheduler.get_jobs()}
    assert jobs["balcao-scans"].trigger.interval == dt.timedelta(minutes=15)
    assert jobs["balcao-scans"].next_run_time <= dt.datetime.now(dt.UTC) + dt.timedelta(seconds=1)  # at start


async def test_the_service_scans_at_start_sends_and_stops_cleanly(
    scans: None, sessions: SessionFactory, tg_settings: Settings, emu: BotApiEmulator
) -> None:
    with time_machine.travel(dt.datetime.now(dt.UTC) - 2 * DAY, tick=True):
        await add_people(sessions, emu, 2)
    stop = asyncio.Event()
    service = asyncio.create_task(notification_service(tg_settings, sessions, [Sender(tg_settings)], stop))
    for index in range(2):
        message = await emu.wait_for_message(FIRST_USER_ID + index, after=0, timeout=10)
        assert message.text == "Welcome, one day later."
    stop.set()
    await asyncio.wait_for(service, timeout=10)
    assert len(emu.calls_to("sendMessage", ok=True)) == 2


async def test_without_senders_the_service_only_scans_until_stopped(
    scans: None, sessions: SessionFactory, tg_settings: Settings, emu: BotApiEmulator
) -> None:
    """``run`` with BALCAO_RUN_DISPATCHER=false: the scans queue, ``dispatch --forever`` processes send."""
    with time_machine.travel(dt.datetime.now(dt.UTC) - 2 * DAY, tick=True):
        await add_people(sessions, emu, 2)
    stop = asyncio.Event()
    service = asyncio.create_task(notification_service(tg_settings, sessions, [], stop))
    deadline = asyncio.get_running_loop().time() + 10
    while True:
        async with sessions() as session:
            if len((await session.exec(select(OutboxMessage))).all()) == 2:
                break
        assert asyncio.get_running_loop().time() < deadline, "the scans queued nothing"
        await asyncio.sleep(0.1)
    assert not service.done()  # no dispatcher to wait for, and still running: the next scans are due
    stop.set()
    await asyncio.wait_for(service, timeout=10)
    assert emu.calls_to("sendMessage") == []
