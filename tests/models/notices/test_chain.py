"""A notice's events (issue 6, item 7): numbered in order, append-only; two writers of one notice take turns.

Their tamper evidence is the transparency log (tests/models/tlog/test_tampering.py).
"""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

import pytest
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.settings import Settings
from models.notices.chain import append_event, events_of
from models.notices.tables import Notice, NoticeEvent, NoticeEventsAreAppendOnly, NoticeIsImmutable
from tests.auxil.notices import cp_auto, issue
from tests.auxil.tlog import verify
from tests.models.notices.conftest import NOW, Cast


async def _two_notices(session: AsyncSession, settings: Settings) -> tuple[Notice, Notice]:
    first = (await issue(session, settings, cp_auto(), now=NOW)).notice
    second = (await issue(session, settings, cp_auto(infraction_code="CP-I-2"), now=NOW)).notice
    assert first.id is not None
    await append_event(session=session, notice_id=first.id, kind="note", actor="test", data={"n": 1},
                       at=NOW + dt.timedelta(hours=1))
    await session.commit()
    return first, second


async def test_events_are_numbered_in_order_and_logged(session: AsyncSession, settings: Settings, cast: Cast) -> None:
    first, _ = await _two_notices(session, settings)
    assert first.id is not None
    events = await events_of(session=session, notice_id=first.id)
    assert [e.seq for e in events] == [1, 2, 3] and events[-1].data == {"n": 1}
    assert (await verify(session)).ok


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


async def test_two_writers_of_one_notice_take_turns(
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
        await asyncio.sleep(0.2)  # let the second writer reach the notice's lock while the first holds it
        await first.commit()
        await racing
        await second.commit()
    assert [(e.seq, e.actor) for e in await events_of(session=session, notice_id=notice.id)][-2:] == [
        (3, "one"), (4, "two")]
    assert (await verify(session)).ok
