"""The commit hook: what a commit changed is logged once, whatever the path (savepoints, many rows, no-op edits)."""

from __future__ import annotations

from sqlalchemy import text
from sqlmodel.ext.asyncio.session import AsyncSession

from models.audit import record
from tests.auxil.tlog import verify


async def _entries(session: AsyncSession) -> list[tuple[str, int]]:
    rows = (await session.exec(text("SELECT tbl, row_id FROM tlog_entry ORDER BY idx"))).all()  # type: ignore[call-overload]
    return [(r[0], int(r[1])) for r in rows]


async def test_a_savepoint_is_logged_with_its_transaction_and_a_rolled_back_one_not_at_all(
    session: AsyncSession,
) -> None:
    await record(session=session, actor="cli", action="outer", entity="x", entity_id="1")
    async with session.begin_nested():
        await record(session=session, actor="cli", action="kept", entity="x", entity_id="2")
    nested = await session.begin_nested()
    await record(session=session, actor="cli", action="undone", entity="x", entity_id="3")
    await session.flush()
    await nested.rollback()
    await session.commit()
    assert await _entries(session) == [("audit_event", 1), ("audit_event", 2)]
    assert (await verify(session)).ok


async def test_a_thousand_rows_in_one_commit_get_a_thousand_consecutive_entries(session: AsyncSession) -> None:
    for n in range(1200):
        await record(session=session, actor="cli", action="import", entity="x", entity_id=str(n))
    await session.commit()
    assert [row_id for _, row_id in await _entries(session)] == list(range(1, 1201))
    assert (await verify(session)).ok


async def test_a_later_migration_that_fills_a_covered_column_logs_exactly_the_rows_it_changed(
    session: AsyncSession,
) -> None:
    from models.tlog.appending import backfill
    from models.tlog.proofs import run

    for n in range(3):
        await record(session=session, actor="cli", action="before", entity="x", entity_id=str(n))
    await session.commit()
    await session.exec(text("UPDATE audit_event SET entity = 'y' WHERE id = 2"))  # type: ignore[call-overload]
    assert not (await verify(session)).ok  # a change the log has not seen
    assert await run(session, backfill) == 1  # what the migration runs after its UPDATE
    await session.commit()
    assert (await _entries(session))[-1] == ("audit_event", 2)
    assert (await verify(session)).ok
