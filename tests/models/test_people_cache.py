"""The people cache (issue 21): a known person's update reads nothing, and no write of any process is missed.

The "other process" of these tests is a real one: a Python subprocess that writes through its own driver
(``sqlite3`` or ``asyncpg``), as the CLI or a second ``run`` would.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from sqlalchemy import event, text
from sqlalchemy.ext.asyncio import AsyncEngine

from core.db import SessionFactory, create_engine
from models.people import Role, StaffMember, set_locale
from models.people_cache import PeopleCache, _writes_people, person_for_update
from models.people_changes import start_watching, stop_watching, watcher_of

MARIA = 810_001


@pytest.fixture
async def cache(engine: AsyncEngine) -> AsyncIterator[PeopleCache]:
    """The engine's cache, watched as ``run`` watches it."""
    watched = await start_watching(engine)
    await _until(lambda: watched.live)
    yield watched
    await stop_watching(engine)


async def _until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    async with asyncio.timeout(seconds):
        while not condition():  # noqa: ASYNC110 (a condition the watcher's task makes true)
            await asyncio.sleep(0.01)


def _statements(engine: AsyncEngine) -> list[str]:
    seen: list[str] = []
    event.listen(engine.sync_engine, "before_cursor_execute", lambda *args: seen.append(args[2]))
    return seen


async def _maria(sessions: SessionFactory, cache: PeopleCache, *, first_name: str = "Maria") -> Any:
    return await person_for_update(sessions=sessions, cache=cache, telegram_user_id=MARIA, chat_id=MARIA,
                                   first_name=first_name, language_code="pt-br")


async def _settled(engine: AsyncEngine, cache: PeopleCache, sessions: SessionFactory) -> None:
    """Maria known and kept: her creation's own announcement heard (SQLite: read once at once, not polled)."""
    await _maria(sessions, cache)
    watcher = watcher_of(engine)
    assert watcher is not None
    if engine.dialect.name == "sqlite":
        await watcher.check()
    for _ in range(50):
        await _maria(sessions, cache)
        if cache.holds(MARIA):
            return
        await asyncio.sleep(0.02)  # PostgreSQL: the creation's notification may still be on its way
    raise AssertionError("Maria was never kept")


def _elsewhere(db_url: str, sql: str) -> None:
    """Run ``sql`` in another process, through its own driver, and commit."""
    if db_url.startswith("sqlite"):
        path = db_url.split("///", 1)[1]
        code = ("import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()")
        args = [path, sql]
    else:
        code = ("import asyncio, sys, asyncpg\n"
                "async def main():\n"
                "    c = await asyncpg.connect(sys.argv[1]); await c.execute(sys.argv[2]); await c.close()\n"
                "asyncio.run(main())")
        args = [db_url.replace("postgresql+asyncpg", "postgresql"), sql]
    subprocess.run([sys.executable, "-c", code, *args], check=True, timeout=60)


async def test_a_known_person_unchanged_is_answered_without_a_statement(
    engine: AsyncEngine, sessions: SessionFactory, cache: PeopleCache
) -> None:
    await _settled(engine, cache, sessions)
    statements = _statements(engine)
    view = await _maria(sessions, cache)
    assert view.first_name == "Maria"
    assert statements == []


async def test_an_update_saying_something_new_reads_and_writes(
    engine: AsyncEngine, sessions: SessionFactory, cache: PeopleCache
) -> None:
    await _settled(engine, cache, sessions)
    statements = _statements(engine)
    view = await _maria(sessions, cache, first_name="Maria Aparecida")
    assert view.first_name == "Maria Aparecida"
    assert any(statement.startswith("UPDATE person") for statement in statements)


async def test_a_write_in_this_process_is_seen_by_the_next_update_at_once(
    engine: AsyncEngine, sessions: SessionFactory, cache: PeopleCache
) -> None:
    await _settled(engine, cache, sessions)
    view = await _maria(sessions, cache)
    async with sessions() as session:
        await set_locale(session=session, person_id=view.id, locale="es")
    assert not cache.holds(MARIA)
    assert (await _maria(sessions, cache)).locale == "es"


async def test_a_write_by_another_process_empties_the_cache(
    engine: AsyncEngine, sessions: SessionFactory, cache: PeopleCache, db_url: str
) -> None:
    await _settled(engine, cache, sessions)
    _elsewhere(db_url, f"UPDATE person SET locale = 'en', locale_chosen = true WHERE telegram_user_id = {MARIA}")
    watcher = watcher_of(engine)
    assert watcher is not None
    if engine.dialect.name == "sqlite":
        await watcher.check()  # the poll's next read, now rather than within SQLITE_POLL_SECONDS
    await _until(lambda: not cache.holds(MARIA))
    assert (await _maria(sessions, cache)).locale == "en"


async def test_a_role_given_by_another_process_shows_at_the_next_update_and_staff_are_never_kept(
    engine: AsyncEngine, sessions: SessionFactory, cache: PeopleCache, db_url: str
) -> None:
    await _settled(engine, cache, sessions)
    _elsewhere(db_url, "INSERT INTO staff_member (telegram_user_id, municipality, name, role, registration, active, "
                       f"created_at) VALUES ({MARIA}, NULL, 'Maria', 'CLERK', '', true, CURRENT_TIMESTAMP)")
    watcher = watcher_of(engine)
    assert watcher is not None
    if engine.dialect.name == "sqlite":
        await watcher.check()
    await _until(lambda: not cache.holds(MARIA))
    assert (await _maria(sessions, cache)).staff_role is Role.CLERK
    statements = _statements(engine)
    assert (await _maria(sessions, cache)).staff_role is Role.CLERK
    assert len(statements) == 1  # a staff member's role is read on every update
    assert not cache.holds(MARIA)


async def test_a_cache_whose_database_has_no_triggers_stays_off(tmp_path: Any) -> None:
    from sqlmodel import SQLModel

    from models.people_changes import remove_statements

    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'old.db'}")
    async with engine.begin() as connection:
        await connection.run_sync(SQLModel.metadata.create_all)
        for statement in remove_statements("sqlite"):
            await connection.execute(text(statement))
    try:
        cache = await start_watching(engine)
        await asyncio.sleep(0)
        assert not cache.live
        assert cache.lookup(MARIA, (MARIA, "Maria", "pt-br", "default")) is None
    finally:
        await stop_watching(engine)
        await engine.dispose()


async def test_a_lost_listening_connection_turns_the_cache_off_until_it_is_back(
    engine: AsyncEngine, sessions: SessionFactory, cache: PeopleCache, db_kind: str
) -> None:
    if db_kind != "postgres":
        pytest.skip("the listening connection is PostgreSQL's")
    await _settled(engine, cache, sessions)
    async with engine.connect() as connection:
        await connection.execute(text(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' "
            "AND pid <> pg_backend_pid()"))
    await _until(lambda: not cache.live)
    assert await _maria(sessions, cache) is not None  # read from the database meanwhile
    await _until(lambda: cache.live)  # listening again (after the watcher's first retry, 1 s)


async def test_a_write_of_people_tables_is_told_from_other_statements() -> None:
    assert _writes_people('INSERT INTO person (telegram_user_id) VALUES (?)')
    assert _writes_people('UPDATE "staff_member" SET active=false')
    assert _writes_people("DELETE FROM driver WHERE id = 1")
    assert _writes_people("WITH gone AS (SELECT 1) UPDATE person SET first_name = ''")
    assert not _writes_people("UPDATE citizen_case SET person_id = NULL")  # a column named like the table
    assert not _writes_people("INSERT INTO driver_link_code (driver_id) VALUES (1)")
    assert not _writes_people("SELECT person.id FROM person")


async def test_staff_member_rows_written_by_this_process_empty_the_cache(
    engine: AsyncEngine, sessions: SessionFactory, cache: PeopleCache
) -> None:
    await _settled(engine, cache, sessions)
    async with sessions() as session:
        session.add(StaffMember(telegram_user_id=MARIA, role=Role.INSPECTOR, name="Maria"))
        await session.commit()
    assert (await _maria(sessions, cache)).staff_role is Role.INSPECTOR
