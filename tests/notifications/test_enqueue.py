"""The outbox's enqueueing: one row per dedupe key, in bulk too; broadcasts go after messages to one person."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import func
from sqlmodel import select

from core.db import SessionFactory
from models.outbox import BROADCAST_PRIORITY, NewMessage, OutboxMessage, enqueue, enqueue_many
from tests.notifications.conftest import add_people


async def test_enqueue_many_skips_keys_that_exist_and_says_how_many_it_added(sessions: SessionFactory) -> None:
    people = await add_people(sessions, None, 3)
    async with sessions() as session:
        assert await enqueue(session=session, person_id=people[0], kind="k", dedupe_key="renewal:auth-42:30d")
        assert not await enqueue(session=session, person_id=people[0], kind="k", dedupe_key="renewal:auth-42:30d")
        batch = [NewMessage(person_id=people[i % 3], kind="broadcast", dedupe_key=f"broadcast:1:{i}", broadcast_id=1)
                 for i in range(5000)]
        added = await enqueue_many(session=session, batch_rows=700, messages=[
            NewMessage(person_id=people[0], kind="k", dedupe_key="renewal:auth-42:30d"), *batch])
        assert added == 5000
        assert await enqueue_many(session=session, messages=batch) == 0
        await session.commit()
        total = (await session.exec(select(func.count()).select_from(OutboxMessage))).one()
        priorities = set((await session.exec(select(OutboxMessage.priority).where(
            OutboxMessage.broadcast_id == 1))).all())
    assert total == 5001 and priorities == {BROADCAST_PRIORITY}


async def test_a_naive_send_time_is_refused(sessions: SessionFactory) -> None:
    people = await add_people(sessions, None, 1)
    async with sessions() as session:
        with pytest.raises(ValueError, match="timezone-aware"):
            await enqueue_many(session=session, messages=[NewMessage(
                person_id=people[0], kind="k", dedupe_key="x", not_before=dt.datetime(2027, 1, 4, 8))])  # noqa: DTZ001
