"""The engine's pool: an SQLite database keeps a connection for each update in flight (issue 21).

A py-spy profile of ``bench/bench_chat.py`` showed aiosqlite threads being started during the rounds: with
SQLAlchemy's default pool of 5, the 6th to 8th of the chat's concurrent handlers (``bot.app.CONCURRENT_HANDLERS``)
each opened a connection (a new aiosqlite thread, the WAL and durability pragmas) and closed it again when done,
on every update.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from sqlalchemy import event, text

from bot.app import CONCURRENT_HANDLERS
from core.db import POOL_SIZE, create_engine, session_factory


async def test_an_sqlite_file_keeps_a_connection_for_each_concurrent_handler(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'pool.db'}")
    opened: list[Any] = []
    event.listen(engine.sync_engine, "connect", lambda connection, _record: opened.append(connection))
    sessions = session_factory(engine)
    try:
        for _ in range(5):  # five waves of updates, every handler busy at once
            together = asyncio.Barrier(CONCURRENT_HANDLERS)

            async def handler(barrier: asyncio.Barrier = together) -> None:
                async with sessions() as session:
                    await session.execute(text("SELECT 1"))
                    await barrier.wait()  # each handler holds its connection while the others take theirs

            await asyncio.gather(*(handler() for _ in range(CONCURRENT_HANDLERS)))
    finally:
        await engine.dispose()
    assert POOL_SIZE >= CONCURRENT_HANDLERS
    assert len(opened) == CONCURRENT_HANDLERS  # opened once, then kept; the old pool of 5 opened 8 + 4 × 3
