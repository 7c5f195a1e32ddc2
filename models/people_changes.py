"""Writes of people's rows by any process, announced to every process's people cache (``models.people_cache``).

The database itself announces them, so no writer can forget to (the CLI, a dispatcher, a second ``run``, a
migration, an operator's ``psql``): triggers on ``person``, ``staff_member`` and ``driver`` (its link and
municipality), installed by migration 0022 and by ``create_all``.

* **PostgreSQL**: each statement that writes them runs ``pg_notify('balcao_people')``. A notification is delivered
  when its transaction commits (never for a rollback), to every connection listening; each process keeps one
  connection that listens (:class:`ChangesWatcher`). No row is locked, so writers never wait on each other for it.
* **SQLite**: each such statement adds one to the single row of ``people_version``, in the writer's transaction;
  each process reads it every :data:`SQLITE_POLL_SECONDS` (SQLite serialises writers anyway: the row costs no
  waiting). One process of a bot runs on SQLite (``bot.single_run``); the others are the CLI and the dispatcher.

While a watcher is not listening — before its first read, after it lost the database, when the triggers are
missing — the process's cache is off and every update reads the person (as before issue 21's cache).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from typing import Any

from sqlalchemy import BigInteger, Column, Connection, event, text
from sqlalchemy.engine import Engine
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import Field, SQLModel

from models.people_cache import PeopleCache, cache_of

logger = logging.getLogger("balcao.people")

CHANNEL = "balcao_people"
"""The PostgreSQL notification channel of people's writes."""
SQLITE_POLL_SECONDS = 0.5
"""How often a process reads SQLite's ``people_version``: the longest another process's write stays unseen."""
RETRY_MAX_SECONDS = 30.0
"""A watcher that lost the database tries again after 1 s, then twice as long each time, up to this."""
TRIGGER_PREFIX = "people_changed"


class PeopleVersion(SQLModel, table=True):
    """One row counting the writes of people's rows (SQLite's announcement; unused on PostgreSQL)."""

    __tablename__ = "people_version"

    id: int = Field(default=1, primary_key=True)
    n: int = Field(default=0, sa_column=Column(BigInteger, nullable=False, default=0, server_default="0"))


_WATCHED: tuple[tuple[str, str], ...] = (
    ("person", ""),
    ("staff_member", ""),
    ("driver", " OF person_id, municipality"),  # the driver's own data is not part of the person's view
)


def install_statements(dialect: str) -> tuple[str, ...]:
    """The DDL that makes the database announce people's writes (idempotent), for ``sqlite`` or ``postgresql``."""
    if dialect == "postgresql":
        return (
            "INSERT INTO people_version (id, n) VALUES (1, 0) ON CONFLICT (id) DO NOTHING",
            f"CREATE OR REPLACE FUNCTION {TRIGGER_PREFIX}() RETURNS trigger LANGUAGE plpgsql AS "
            f"$$ BEGIN PERFORM pg_notify('{CHANNEL}', ''); RETURN NULL; END $$",
            *(f"CREATE OR REPLACE TRIGGER {TRIGGER_PREFIX}_{table} AFTER INSERT OR UPDATE{columns} OR DELETE "
              f"ON {table} FOR EACH STATEMENT EXECUTE FUNCTION {TRIGGER_PREFIX}()" for table, columns in _WATCHED),
        )
    return (
        "INSERT OR IGNORE INTO people_version (id, n) VALUES (1, 0)",
        *(f"CREATE TRIGGER IF NOT EXISTS {TRIGGER_PREFIX}_{table}_{operation.split()[0].lower()} "  # noqa: S608
          f"AFTER {operation} ON {table} BEGIN UPDATE people_version SET n = n + 1 WHERE id = 1; END"
          for table, columns in _WATCHED for operation in ("INSERT", f"UPDATE{columns}", "DELETE")),
    )


def remove_statements(dialect: str) -> tuple[str, ...]:
    """The DDL that undoes :func:`install_statements` (the table itself is dropped by its owner)."""
    if dialect == "postgresql":
        return (*(f"DROP TRIGGER IF EXISTS {TRIGGER_PREFIX}_{table} ON {table}" for table, _ in _WATCHED),
                f"DROP FUNCTION IF EXISTS {TRIGGER_PREFIX}()")
    return tuple(f"DROP TRIGGER IF EXISTS {TRIGGER_PREFIX}_{table}_{operation}"
                 for table, _ in _WATCHED for operation in ("insert", "update", "delete"))


def expected_triggers(dialect: str) -> int:
    """How many triggers :func:`install_statements` creates."""
    return len(_WATCHED) * (1 if dialect == "postgresql" else 3)


@event.listens_for(SQLModel.metadata, "after_create")
def _announce_after_create_all(_metadata: Any, connection: Connection, **_: Any) -> None:
    """``create_all`` (tests, the sandbox, a new database) installs the triggers, as migration 0022 does."""
    names = {"person", "staff_member", "driver", "people_version"}
    if not names <= set(_metadata.tables):
        return
    for statement in install_statements(connection.dialect.name):
        connection.exec_driver_sql(statement)


async def _triggers_in_place(engine: AsyncEngine) -> bool:
    dialect = engine.dialect.name
    query = ("SELECT count(*) FROM pg_trigger WHERE tgname LIKE :prefix AND NOT tgisinternal"
             if dialect == "postgresql" else
             "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE :prefix")
    async with engine.connect() as connection:
        found = (await connection.execute(text(query), {"prefix": f"{TRIGGER_PREFIX}_%"})).scalar_one()
    return int(found) >= expected_triggers(dialect)


class ChangesWatcher:
    """Empties a process's people cache when another process writes people's rows (see the module's docstring)."""

    def __init__(self, engine: AsyncEngine, cache: PeopleCache) -> None:
        self._engine = engine
        self._cache = cache
        self._seen: int | None = None
        self._task: asyncio.Task[None] | None = None
        self.users = 0

    async def start(self) -> None:
        """Check the triggers, then listen in the background; the cache is live once the first read is done."""
        try:
            in_place = await _triggers_in_place(self._engine)
        except Exception:  # the database is down at start: the loop below retries; the cache stays off meanwhile
            logger.warning("people cache: cannot check the database's triggers yet; every update reads the person")
            in_place = True
        if not in_place:
            logger.error("people cache off: the database has no %s triggers (run `python -m bot db upgrade`); "
                         "every update reads the person", TRIGGER_PREFIX)
            return
        body = self._listen if self._engine.dialect.name == "postgresql" else self._poll
        self._task = asyncio.create_task(self._forever(body), name="people-changes")

    async def stop(self) -> None:
        """Stop listening; the cache goes off."""
        self._cache.go_dark()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def check(self) -> None:
        """One read of SQLite's ``people_version``: a change empties the cache; the first read makes it live."""
        async with self._engine.connect() as connection:
            version = int((await connection.execute(text("SELECT n FROM people_version WHERE id = 1"))).scalar_one())
        if self._seen is not None and version != self._seen:
            self._cache.forget_everyone()
        self._seen = version
        if not self._cache.live:
            self._cache.go_live()

    async def _poll(self) -> None:
        while True:
            await self.check()
            await asyncio.sleep(SQLITE_POLL_SECONDS)

    async def _listen(self) -> None:
        lost = asyncio.Event()
        async with self._engine.connect() as connection:
            raw = (await connection.get_raw_connection()).driver_connection
            assert raw is not None
            await raw.add_listener(CHANNEL, self._heard)
            raw.add_termination_listener(lambda _connection: lost.set())
            self._cache.go_live()
            await lost.wait()
        raise ConnectionError("the listening connection was closed")

    def _heard(self, *_: Any) -> None:
        self._cache.forget_everyone()

    async def _forever(self, body: Any) -> None:
        delay = 1.0
        while True:
            try:
                await body()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # any failure: off, and try again
                if self._cache.live:
                    delay = 1.0  # it had been working: a new outage starts the backoff again
                logger.warning("people cache off until the database answers again (%s); retrying in %.0f s",
                               type(exc).__name__, delay)
            self._cache.go_dark()
            self._seen = None
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MAX_SECONDS)


_WATCHERS: weakref.WeakKeyDictionary[Engine, ChangesWatcher] = weakref.WeakKeyDictionary()


async def start_watching(engine: AsyncEngine) -> PeopleCache:
    """The engine's people cache, with its watcher started (one per process and database, shared by its bots)."""
    cache = cache_of(engine)
    watcher = _WATCHERS.get(engine.sync_engine)
    if watcher is None:
        watcher = _WATCHERS[engine.sync_engine] = ChangesWatcher(engine, cache)
    watcher.users += 1
    if watcher.users == 1:
        await watcher.start()
    return cache


async def stop_watching(engine: AsyncEngine) -> None:
    """One user of the engine's watcher is done; the last one stops it."""
    watcher = _WATCHERS.get(engine.sync_engine)
    if watcher is None or watcher.users == 0:
        return
    watcher.users -= 1
    if watcher.users == 0:
        await watcher.stop()


def watcher_of(engine: AsyncEngine) -> ChangesWatcher | None:
    """The engine's watcher, if one was started (tests read it once instead of waiting for the poll)."""
    return _WATCHERS.get(engine.sync_engine)
