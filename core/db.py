"""The async database engine and sessions (SQLite by default, PostgreSQL by URL).

Durable by default: every SQLite connection Balcão opens (the app's pool, migrations, the CLI, the sandbox, and the
backup/restore copies, :func:`make_durable`) runs in WAL mode with ``synchronous=FULL``, so a commit is on disk
before the person is told it is kept: a power loss or a VM crash keeps every committed row. ``NORMAL`` in WAL mode
would roll the last commits back on such a crash (a filed case after its protocol was given). ``bench/bench_outbox.py``
prints what FULL costs against NORMAL.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlmodel.ext.asyncio.session import AsyncSession

SessionFactory = async_sessionmaker[AsyncSession]

POOL_SIZE = 10
"""Connections an engine keeps open: the chat's concurrent handlers (``bot.app.CONCURRENT_HANDLERS``, 8) and a few
for the dispatcher, the scans and the web server; more are opened when needed and closed after."""
SQLITE_SYNCHRONOUS = "FULL"
"""``PRAGMA synchronous`` of every SQLite connection: FULL syncs the WAL at each commit (durable on power loss)."""


def make_durable(dbapi_connection: Any, *, wal: bool = True) -> None:
    """Set the durability pragmas on one SQLite DB-API connection (sqlite3 or aiosqlite's adapter).

    Args:
        dbapi_connection: a freshly opened connection.
        wal: put the database in WAL mode (False for an in-memory database and for a backup copy kept as one file).
    """
    cursor = dbapi_connection.cursor()
    try:
        if wal:
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={SQLITE_SYNCHRONOUS}")
    finally:
        cursor.close()


def create_engine(database_url: str, **kwargs: Any) -> AsyncEngine:
    """Create the async engine.

    SQLite gets WAL with ``synchronous=FULL`` (:func:`make_durable`), foreign keys and a busy timeout, so the bot,
    the dispatcher and a CLI command can share one file. PostgreSQL gets a pre-ping pool, large enough for the
    turns of the updates in flight.

    Args:
        database_url: SQLAlchemy async URL.
        **kwargs: passed to ``create_async_engine``.
    """
    if database_url.startswith("sqlite"):
        if ":memory:" not in database_url and "poolclass" not in kwargs:
            # as many kept connections as updates in flight: with SQLAlchemy's 5, the 6th to 8th handler's
            # connections were opened and closed on every use, each a new aiosqlite thread and its pragmas (issue 21)
            kwargs.setdefault("pool_size", POOL_SIZE)
        engine = create_async_engine(database_url, connect_args={"timeout": 30}, **kwargs)

        @event.listens_for(engine.sync_engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            make_durable(dbapi_connection, wal=":memory:" not in database_url)
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        return engine
    kwargs.setdefault("pool_pre_ping", True)
    # each update in flight holds a connection for its person's turn (bot.turns) besides its handler's own
    kwargs.setdefault("pool_size", POOL_SIZE)
    kwargs.setdefault("max_overflow", 20)
    return create_async_engine(database_url, **kwargs)


def session_factory(engine: AsyncEngine) -> SessionFactory:
    """A factory of sessions that keep objects usable after commit."""
    return async_sessionmaker(engine, class_=AsyncSession, expire_on_commit=False)


@asynccontextmanager
async def database(database_url: str) -> AsyncIterator[tuple[AsyncEngine, SessionFactory]]:
    """Open an engine for the duration of a block (CLI commands, tests) and dispose of it after."""
    engine = create_engine(database_url)
    try:
        yield engine, session_factory(engine)
    finally:
        await engine.dispose()
