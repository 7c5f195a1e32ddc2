"""The async database engine and sessions (SQLite by default, PostgreSQL by URL)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlmodel.ext.asyncio.session import AsyncSession

SessionFactory = async_sessionmaker[AsyncSession]


def create_engine(database_url: str, **kwargs: Any) -> AsyncEngine:
    """Create the async engine.

    SQLite gets WAL, foreign keys and a busy timeout, so the bot, the dispatcher and a CLI command can share
    one file. PostgreSQL gets a pre-ping pool, large enough for the turns of the updates in flight.

    Args:
        database_url: SQLAlchemy async URL.
        **kwargs: passed to ``create_async_engine``.
    """
    if database_url.startswith("sqlite"):
        engine = create_async_engine(database_url, connect_args={"timeout": 30}, **kwargs)

        @event.listens_for(engine.sync_engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            if ":memory:" not in database_url:
                cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        return engine
    kwargs.setdefault("pool_pre_ping", True)
    # each update in flight holds a connection for its person's turn (bot.turns) besides its handler's own
    kwargs.setdefault("pool_size", 10)
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
