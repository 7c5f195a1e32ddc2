"""Issue 22 item 1: a person's turn is held in PostgreSQL, so two processes never handle one person's updates at
once; a replayed update id is not run again, and the id of an update that failed is not kept (it runs when
Telegram delivers it again). Two engines stand for two processes (each has its own connections)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import text
from telegram import Update

from bot.turns import PersonTurns
from core.db import SessionFactory, create_engine, session_factory

BOT = 444444444


def _update(update_id: int, user_id: int) -> Update:
    user = {"id": user_id, "is_bot": False, "first_name": "P"}
    message = {"message_id": update_id, "date": 0, "chat": {"id": user_id, "type": "private"}, "from": user,
               "text": "x"}
    return Update.de_json({"update_id": update_id, "message": message}, None)


@pytest.fixture
async def two_processes(db_url: str) -> AsyncIterator[tuple[PersonTurns, PersonTurns, SessionFactory]]:
    if not db_url.startswith("postgresql"):
        pytest.skip("a person's turn is held in PostgreSQL (on SQLite a bot has one process): run with --db=postgres")
    engines = [create_engine(db_url), create_engine(db_url)]
    sessions = [session_factory(engine) for engine in engines]
    try:
        yield (PersonTurns(sessions[0], bot_id=BOT, remember_updates=True),
               PersonTurns(sessions[1], bot_id=BOT, remember_updates=True), sessions[0])
    finally:
        for engine in engines:
            await engine.dispose()


async def _waiting_for_a_turn(sessions: SessionFactory) -> int:
    async with sessions() as session:
        return int((await session.exec(text(  # type: ignore[call-overload]
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"))).scalar_one())


async def test_one_persons_updates_wait_for_each_other_across_processes(
    two_processes: tuple[PersonTurns, PersonTurns, SessionFactory]
) -> None:
    first, second, sessions = two_processes
    log: list[str] = []

    async def in_second(update: Update, person: int) -> None:
        async with second.hold(update, person) as ticket:
            assert ticket.fresh
            log.append(f"second {update.update_id}")

    async with first.hold(_update(1, 7), 7) as ticket:
        assert ticket.fresh
        same_person = asyncio.create_task(in_second(_update(2, 7), 7))
        await in_second(_update(3, 8), 8)  # someone else is not held up
        for _ in range(500):  # each look is a query: until the second process waits for person 7's turn
            if await _waiting_for_a_turn(sessions):
                break
        assert await _waiting_for_a_turn(sessions) == 1 and not same_person.done()
        log.append("first 1")
    await same_person
    assert log == ["second 3", "first 1", "second 2"]


async def test_a_replay_is_not_run_and_a_failed_update_runs_again(
    two_processes: tuple[PersonTurns, PersonTurns, SessionFactory]
) -> None:
    first, second, _sessions = two_processes
    async with first.hold(_update(10, 7), 7) as ticket:
        assert ticket.fresh
    async with second.hold(_update(10, 7), 7) as ticket:
        assert not ticket.fresh  # handled by the other process: a replay
    async with first.hold(_update(11, 7), 7) as ticket:
        ticket.failed = True  # not handled (the database, Telegram): its id is not kept
    async with second.hold(_update(11, 7), 7) as ticket:
        assert ticket.fresh
    with pytest.raises(RuntimeError):
        async with first.hold(_update(12, 7), 7):
            raise RuntimeError("the process died mid-update")
    async with second.hold(_update(12, 7), 7) as ticket:
        assert ticket.fresh
