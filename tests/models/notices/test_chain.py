"""The event chain (issue 6, item 7): each event carries the previous one's hash; tampering is found."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

import pytest
from sqlalchemy import text
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.settings import Settings
from models.notices.chain import GENESIS, append_event, event_hash, events_of, verify_chains
from models.notices.delivery import record_explicit_ciencia
from models.notices.filings import decide_filing, file_filing
from models.notices.tables import (
    FilingOutcome,
    Notice,
    NoticeDelivery,
    NoticeEvent,
    NoticeEventsAreAppendOnly,
    NoticeIsImmutable,
)
from tests.auxil.notices import cp_auto, issue
from tests.models.notices.conftest import NOW, Cast


async def _two_notices(session: AsyncSession, settings: Settings) -> tuple[Notice, Notice]:
    first = (await issue(session, settings, cp_auto(), now=NOW)).notice
    second = (await issue(session, settings, cp_auto(infraction_code="CP-I-2"), now=NOW)).notice
    assert first.id is not None
    await append_event(session=session, notice_id=first.id, kind="note", actor="test", data={"n": 1},
                       at=NOW + dt.timedelta(hours=1))
    await session.commit()
    return first, second


async def test_each_event_carries_the_hash_of_the_one_before(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    first, _ = await _two_notices(session, settings)
    assert first.id is not None
    events = await events_of(session=session, notice_id=first.id)
    assert [e.seq for e in events] == [1, 2, 3]
    assert events[0].prev_hash == GENESIS
    assert [e.prev_hash for e in events[1:]] == [e.hash for e in events[:-1]]
    last = events[-1]
    assert last.hash == event_hash(prev_hash=last.prev_hash, notice_id=first.id, seq=3, at=last.at, kind="note",
                                   actor="test", data={"n": 1})
    report = await verify_chains(session=session)
    assert report.ok and (report.notices, report.events) == (2, 5)


async def test_changing_or_deleting_an_event_through_the_application_is_refused(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    await _two_notices(session, settings)
    event = (await session.exec(select(NoticeEvent))).first()
    assert event is not None
    event.kind = "forged"
    with pytest.raises(NoticeEventsAreAppendOnly):
        await session.flush()
    await session.rollback()
    event = (await session.exec(select(NoticeEvent))).first()
    await session.delete(event)
    with pytest.raises(NoticeEventsAreAppendOnly):
        await session.flush()


async def test_an_issued_notices_elements_cannot_change_through_the_application(
    session: AsyncSession, settings: Settings
) -> None:
    notice = (await issue(session, settings, cp_auto(), now=NOW)).notice
    notice.fine_cents = 1
    with pytest.raises(NoticeIsImmutable, match="fine_cents"):
        await session.flush()


@pytest.mark.parametrize(
    ("statement", "problem"),
    [
        ("UPDATE notice_event SET data = '{\"n\": 2}' WHERE kind = 'note'", "was altered"),
        ("UPDATE notice_event SET at = '2026-03-01 00:00:00' WHERE kind = 'note'", "was altered"),
        ("DELETE FROM notice_event WHERE seq = 2 AND notice_id = 1", "sequence gap"),
        ("UPDATE notice SET fine_cents = 100 WHERE id = 1", "the notice was altered"),
        ("UPDATE notice SET offender_name = 'Outra Pessoa' WHERE id = 1", "the notice was altered"),
    ],
)
async def test_tampering_with_raw_sql_is_found_and_located(
    session: AsyncSession, settings: Settings, db_kind: str, statement: str, problem: str
) -> None:
    await _two_notices(session, settings)
    if db_kind == "postgres":
        statement = statement.replace("'2026-03-01 00:00:00'", "'2026-03-01 00:00:00+00'")
    await session.exec(text(statement))  # type: ignore[call-overload]
    await session.commit()
    session.expunge_all()
    report = await verify_chains(session=session)
    assert not report.ok
    assert {b.number for b in report.breaks} == {"AI-2026-000001"}
    assert any(problem in b.problem for b in report.breaks), report.breaks


async def test_rewriting_an_event_and_its_own_hash_still_breaks_the_next_link(
    session: AsyncSession, settings: Settings
) -> None:
    first, _ = await _two_notices(session, settings)
    assert first.id is not None
    events = await events_of(session=session, notice_id=first.id)
    forged = event_hash(prev_hash=events[1].prev_hash, notice_id=first.id, seq=2, at=events[1].at,
                        kind=events[1].kind, actor="someone", data=events[1].data)
    await session.exec(text("UPDATE notice_event SET actor = 'someone', hash = :h WHERE id = :id").bindparams(  # type: ignore[call-overload]
        h=forged, id=events[1].id))
    await session.commit()
    session.expunge_all()
    [broken] = (await verify_chains(session=session)).breaks
    assert (broken.seq, broken.problem) == (3, "prev_hash does not match the previous event's hash")


@pytest.mark.parametrize(
    ("statement", "problem"),
    [
        ("DELETE FROM notice_event WHERE notice_id = {notice} AND seq = {last}",
         "a ciência has no event in the chain"),
        ("UPDATE notice_delivery SET ciencia_on = '2026-03-20' WHERE notice_id = {notice} AND document = 'NOTICE'",
         "the day of a ciência differs"),
        ("UPDATE notice_filing SET text = 'Outro texto' WHERE notice_id = {notice}", "a filing's text differs"),
        ("UPDATE notice_filing SET outcome = 'GRANTED' WHERE notice_id = {notice}", "a decision differs"),
    ],
)
async def test_the_rows_that_change_over_a_notices_life_are_checked_against_the_chain(
    session: AsyncSession, settings: Settings, cast: Cast, statement: str, problem: str
) -> None:
    """Removing the last events keeps the links intact; the ciência, filing and decision rows must still match."""
    notice = (await issue(session, settings, cp_auto(person_id=cast.maria.id), now=NOW)).notice
    assert notice.id is not None
    for day in (2, 5):  # the notice's ciência on 2/3, then the decision's on 5/3
        delivery = (await session.exec(select(NoticeDelivery).order_by(col(NoticeDelivery.id).desc()))).first()
        assert delivery is not None and delivery.id is not None
        await record_explicit_ciencia(session=session, settings=settings, delivery_id=delivery.id,
                                      person_id=cast.maria.id, now=dt.datetime(2026, 3, day, 15, tzinfo=dt.UTC))
        if day == 2:
            filing = await file_filing(session=session, settings=settings, notice_id=notice.id,
                                       person_id=cast.maria.id, text="Reclamo.", now=NOW + dt.timedelta(hours=2))
            assert filing.id is not None
            await decide_filing(session=session, settings=settings, filing_id=filing.id,
                                outcome=FilingOutcome.DENIED, text="Improcedente.", actor="staff:9102",
                                now=NOW + dt.timedelta(days=2))
    events = await events_of(session=session, notice_id=notice.id)
    assert events[-1].kind == "ciencia" and (await verify_chains(session=session)).ok
    await session.exec(text(statement.format(notice=notice.id, last=events[-1].seq)))  # type: ignore[call-overload]
    await session.commit()
    session.expunge_all()
    report = await verify_chains(session=session)
    assert [b.problem for b in report.breaks if problem in b.problem], report.breaks


async def test_two_writers_of_one_chain_take_turns(
    session: AsyncSession, settings: Settings, sessions: Any, db_kind: str
) -> None:
    """On PostgreSQL two processes may append at once; the second waits for the first and takes the next seq."""
    if db_kind != "postgres":
        pytest.skip("row locks are PostgreSQL's; an SQLite deployment is one process")
    notice = (await issue(session, settings, cp_auto(), now=NOW)).notice
    assert notice.id is not None
    async with sessions() as first, sessions() as second:
        await append_event(session=first, notice_id=notice.id, kind="note", actor="one", at=NOW)
        racing = asyncio.create_task(append_event(session=second, notice_id=notice.id, kind="note", actor="two",
                                                  at=NOW))
        await asyncio.sleep(0.2)  # let the second writer reach the chain while the first holds it
        await first.commit()
        await racing
        await second.commit()
    assert [(e.seq, e.actor) for e in await events_of(session=session, notice_id=notice.id)][-2:] == [
        (3, "one"), (4, "two")]
    assert (await verify_chains(session=session)).ok
