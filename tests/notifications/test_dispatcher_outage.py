"""A database outage longer than the dispatcher's lease re-sends nothing the dispatcher knew it had sent.

Issue 22, finding 7: the outcomes of sends made while the database was away waited in memory; when it came back
the dispatcher claimed the rows whose lease had lapsed meanwhile — its own, already sent — and sent them again
(18 duplicates in one run). Now a known send is written before any claim, and a worker never reclaims its own rows.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import select

from core.i18n import Translator
from models.columns import utcnow
from models.outbox import OutboxMessage, OutboxStatus, enqueue
from notifications.outbox_claims import Outcome, claim_due, record_outcomes
from notifications.rendering import KINDS, Rendered, renderer
from tests.notifications.conftest import add_people

KIND = "test.outage"
if KIND not in KINDS:

    @renderer(KIND)
    def render_outage(payload: dict[str, Any], tr: Translator) -> Rendered:
        return Rendered(text=f"Aviso #{payload['n']}")


async def enqueue_all(sessions: Any, person_ids: list[int]) -> None:
    async with sessions() as session:
        for index, person_id in enumerate(person_ids):
            await enqueue(session=session, person_id=person_id, kind=KIND, dedupe_key=f"outage:{person_id}",
                          payload={"n": index})
        await session.commit()


async def rows(sessions: Any) -> list[OutboxMessage]:
    async with sessions() as session:
        return list((await session.exec(select(OutboxMessage).order_by(OutboxMessage.id))).all())


def delivered(emu: Any) -> Counter[int]:
    return Counter(call.params["chat_id"] for call in emu.calls_to("sendMessage", ok=True))


class Outage:
    """While ``on``, every statement on the engine fails as on a database that went away."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.on = False
        self.refused = 0

    def __call__(self, _conn: Any, _cursor: Any, statement: str, parameters: Any, *_args: Any) -> None:
        if self.on:
            self.refused += 1
            raise OperationalError(statement, parameters, ConnectionRefusedError("the database is down (test)"))


class Watcher(logging.Handler):
    """Sets an event when a log line starting with ``text`` is written."""

    def __init__(self, seen: asyncio.Event, text: str) -> None:
        super().__init__()
        self.seen, self.text = seen, text

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith(self.text):
            self.seen.set()


@pytest.fixture
def outage(engine: AsyncEngine) -> Iterator[Outage]:
    down = Outage(engine)
    event.listen(engine.sync_engine, "before_cursor_execute", down)
    yield down
    event.remove(engine.sync_engine, "before_cursor_execute", down)


async def test_an_outage_longer_than_the_lease_resends_nothing_already_sent(
    sessions: Any, emu: Any, make_dispatcher: Any, tg_settings: Any, outage: Outage
) -> None:
    people = await add_people(sessions, emu, 40)
    await enqueue_all(sessions, people)
    lease = tg_settings.dispatch_lease_seconds
    settings = tg_settings.model_copy(update={"dispatch_global_rate": 20.0})
    shift = [dt.timedelta(0)]  # the dispatcher's UTC clock, moved past the lease during the outage
    dispatcher = await make_dispatcher(settings, now=lambda: utcnow() + shift[0])
    run_failed = asyncio.Event()
    watcher = Watcher(run_failed, "the dispatcher failed")
    logging.getLogger("balcao.dispatch").addHandler(watcher)
    stop = asyncio.Event()
    task = asyncio.create_task(dispatcher.run_forever(stop=stop))

    def sends() -> int:
        return len(emu.calls_to("sendMessage", ok=True))

    await emu.wait_until(lambda: sends() >= 5)
    outage.on = True  # the database goes away while claimed messages are still being sent
    during = sends()
    await emu.wait_until(lambda: sends() >= during + 3)  # known sends whose outcome cannot be written
    await asyncio.wait_for(run_failed.wait(), timeout=30)  # its next claim failed too: the run stopped on it
    shift[0] = dt.timedelta(seconds=lease + 5)  # longer than the lease: every lease of the dispatcher has lapsed
    outage.on = False

    await emu.wait_until(lambda: len(delivered(emu)) == 40, timeout=30)
    stop.set()  # a stop writes every outcome still in memory
    await asyncio.wait_for(task, timeout=10)
    logging.getLogger("balcao.dispatch").removeHandler(watcher)

    twice = {chat: count for chat, count in delivered(emu).items() if count > 1}
    assert twice == {}, f"sent again after the outage: {twice}"
    outbox = await rows(sessions)
    assert Counter(row.status for row in outbox) == Counter({OutboxStatus.SENT: 40})
    assert all(row.telegram_message_id is not None for row in outbox)


async def test_a_cron_dispatch_that_fails_on_an_outage_records_its_known_sends_before_it_exits(
    sessions: Any, emu: Any, make_dispatcher: Any, tg_settings: Any, outage: Outage
) -> None:
    """``python -m bot dispatch`` (no ``--forever``) exits when the database goes away mid-run: the sends it had made
    were kept only in memory, so a later run sent them again once their lease lapsed. Now the failed run keeps
    writing them while its lease holds, and the next run sends only what was never sent."""
    people = await add_people(sessions, emu, 30)
    await enqueue_all(sessions, people)
    settings = tg_settings.model_copy(update={"dispatch_global_rate": 20.0})
    dispatcher = await make_dispatcher(settings)

    def sends() -> int:
        return len(emu.calls_to("sendMessage", ok=True))

    failed = asyncio.Event()
    watcher = Watcher(failed, "the dispatch run failed")
    logging.getLogger("balcao.dispatch").addHandler(watcher)
    run = asyncio.create_task(dispatcher.run_until_idle())
    await emu.wait_until(lambda: sends() >= 5)
    outage.on = True  # the database goes away while claimed messages are still being sent
    during = sends()
    await emu.wait_until(lambda: sends() >= during + 3)  # known sends whose outcome cannot be written yet
    await asyncio.wait_for(failed.wait(), timeout=30)  # the run failed on the outage, its sends still in memory
    logging.getLogger("balcao.dispatch").removeHandler(watcher)
    outage.on = False  # back within the lease
    with pytest.raises(OperationalError):
        await asyncio.wait_for(run, timeout=30)
    known = sends()
    async with sessions() as session:
        recorded = (await session.exec(select(OutboxMessage).where(OutboxMessage.status == OutboxStatus.SENT))).all()
    assert len(recorded) == known  # every send it made is recorded, none left only in memory

    later = await make_dispatcher(settings, now=lambda: utcnow() + dt.timedelta(seconds=settings.dispatch_lease_seconds
                                                                                      + 5))
    await later.run_until_idle()
    twice = {chat: count for chat, count in delivered(emu).items() if count > 1}
    assert twice == {} and len(delivered(emu)) == 30


async def test_a_known_send_is_recorded_sent_even_after_another_dispatcher_took_the_lapsed_row(sessions: Any) -> None:
    """A's lease lapsed during the outage and B reclaimed the row: A's record of its send still lands, so B's
    outcome (and a later reclaim) cannot send it again; A's give-back of a row it did not send is refused."""
    [maria, joao] = await add_people(sessions, None, 2)
    await enqueue_all(sessions, [maria, joao])
    start = utcnow()
    async with sessions() as session:
        held = await claim_due(session=session, worker="a", now=start, limit=10, lease_seconds=60)
    assert [row.person_id for row in held] == [maria, joao]
    later = start + dt.timedelta(seconds=61)  # A could not renew: the database was away
    async with sessions() as session:
        taken = await claim_due(session=session, worker="b", now=later, limit=10, lease_seconds=60)
    assert len(taken) == 2
    sent, given_back = held
    async with sessions() as session:
        await record_outcomes(session=session, worker="a", outcomes=[
            Outcome(id=sent.id, status=OutboxStatus.SENT, telegram_message_id=77, sent_at=later),
            Outcome(id=given_back.id, status=OutboxStatus.PENDING, attempted=False),
        ])
    first, second = await rows(sessions)
    assert (first.status, first.telegram_message_id) == (OutboxStatus.SENT, 77)
    assert (second.status, second.claimed_by) == (OutboxStatus.SENDING, "b")  # B holds it and sends it once
