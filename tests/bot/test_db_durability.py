"""Durable by default: every SQLite connection Balcão opens is in WAL mode with ``synchronous=FULL``.

Issue 22, finding 2: with ``synchronous=NORMAL`` a power loss or a VM crash rolled back the last seconds of commits —
a filed case after the citizen had its protocol and receipt, drafts, broadcast messages. FULL syncs the WAL at each
commit. The test watches every ``sqlite3`` connection opened while the app's pool, a migration, the schema check, a
backup and a restore run, and reads the pragmas each one had when it was closed.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from bot import backups
from core import migrate
from core.db import create_engine, database
from models.columns import utcnow

FULL = 2  # PRAGMA synchronous: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA


class Watched:
    """The connections opened while it is installed, and the pragmas each had when it was closed."""

    def __init__(self) -> None:
        self.opened: list[str] = []
        self.closed: list[tuple[str, str, int]] = []  # (database, journal_mode, synchronous)

    def connect(self, real: Any) -> Any:
        watched = self

        class Recording(sqlite3.Connection):
            def close(self) -> None:
                try:
                    (mode,) = self.execute("PRAGMA journal_mode").fetchone()
                    (synchronous,) = self.execute("PRAGMA synchronous").fetchone()
                    (_seq, _name, path) = self.execute("PRAGMA database_list").fetchone()
                    watched.closed.append((path, str(mode).lower(), int(synchronous)))
                finally:
                    super().close()

        def connecting(*args: Any, **kwargs: Any) -> sqlite3.Connection:
            watched.opened.append(str(args[0] if args else kwargs.get("database")))
            return real(*args, factory=Recording, **kwargs)

        return connecting


@pytest.fixture
def watched(monkeypatch: pytest.MonkeyPatch) -> Watched:
    watching = Watched()
    monkeypatch.setattr(sqlite3, "connect", watching.connect(sqlite3.connect))
    return watching


async def test_every_sqlite_connection_the_app_opens_is_wal_and_synchronous_full(
    tmp_path: Path, watched: Watched
) -> None:
    path = tmp_path / "balcao.db"
    url = f"sqlite+aiosqlite:///{path}"

    await asyncio.to_thread(migrate.upgrade, url)  # the migration's connection (migrations/env.py)
    await migrate.check_schema(url)  # the start's schema check
    engine = create_engine(url)  # the app's pool (run, dispatch): several connections at once
    try:
        connections = [await engine.connect() for _ in range(3)]
        for connection in connections:
            await connection.execute(text("SELECT count(*) FROM person"))
        for connection in connections:
            await connection.close()
    finally:
        await engine.dispose()
    async with database(url) as (_engine, sessions), sessions() as session:  # CLI commands, the sandbox
        await session.exec(text("SELECT 1"))  # type: ignore[call-overload]
    copy = tmp_path / "copia.db"
    await asyncio.to_thread(backups.backup_sqlite, database_url=url, target=copy)
    await asyncio.to_thread(backups.restore_sqlite, database_url=url, backup=copy, now=utcnow())

    assert len(watched.opened) >= 8
    assert len(watched.closed) == len(watched.opened), "every connection was closed and read"
    assert all(synchronous >= FULL for _, _, synchronous in watched.closed), watched.closed
    on_the_database = [mode for database_path, mode, _ in watched.closed if database_path == str(path)]
    assert len(on_the_database) >= 6
    assert set(on_the_database) == {"wal"}, watched.closed
