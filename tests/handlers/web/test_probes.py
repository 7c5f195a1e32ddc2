"""``/readyz`` and ``/healthz`` when the database cannot write or does not answer (issue 22, finding 6).

``/readyz`` said 200 while SQLite could not write (a read-only file, a lock another process held), and both probes
hung on a frozen PostgreSQL. Now each answers within 2 s, with 503 naming the part.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, closing
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.web import build_web_app
from core import migrate
from core.db import create_engine, session_factory
from core.settings import Settings
from tests.auxil.postgres import ThrowawayCluster
from tests.auxil.stalling_proxy import stalling_proxy
from tests.auxil.tmpfs import small_disk

ANSWER_WITHIN = 2.0


@pytest.fixture
async def migrated(tmp_path: Path) -> str:
    """A migrated SQLite database (``/readyz`` is 200 on it while it takes writes)."""
    path = tmp_path / "ready.db"
    await asyncio.to_thread(migrate.upgrade, f"sqlite+aiosqlite:///{path}")
    return str(path)


@asynccontextmanager
async def serving(settings: Settings, engine: AsyncEngine) -> AsyncIterator[TestClient]:
    try:
        async with TestClient(TestServer(build_web_app(settings, session_factory(engine)))) as client:
            yield client
    finally:
        await engine.dispose()


async def timed(get: Callable[[], Awaitable[Any]]) -> tuple[Any, float]:
    started = time.monotonic()
    response = await asyncio.wait_for(get(), timeout=10)  # on the old code: a hang (30 s lock wait, 60 s connect)
    return response, time.monotonic() - started


async def test_readyz_is_503_when_sqlite_is_read_only(settings: Settings, migrated: str) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///file:{migrated}?mode=ro&uri=true")
    async with serving(settings, engine) as client:
        response = await client.get("/readyz")
        body = await response.json()
    assert response.status == 503, body
    assert body["failing"]["database"].startswith("database refuses writes (failed: OperationalError")
    assert "schema" not in body["failing"]  # the read and the migration check did work


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 96 MiB tmpfs (needs root, as CI has); skipped where mounting is not allowed."""
    with small_disk(tmp_path, "96m") as mount:
        yield mount


async def test_readyz_is_503_when_the_sqlite_disk_is_nearly_full_and_200_once_there_is_room(
    settings: Settings, disk: Path
) -> None:
    """A heartbeat row may still be written on a full disk (SQLite reuses its WAL's pages): readiness also asks
    for room for the next filing (``handlers.web.probes.MIN_FREE_BYTES``)."""
    path = disk / "ready.db"
    await asyncio.to_thread(migrate.upgrade, f"sqlite+aiosqlite:///{path}")
    engine = create_engine(f"sqlite+aiosqlite:///{path}")
    filler = disk / "filler"
    async with serving(settings, engine) as client:
        assert (await client.get("/readyz")).status == 200
        with filler.open("wb") as handle:  # leave less than 64 MiB free
            handle.write(b"\0" * (40 * 1024 * 1024))
        full = await client.get("/readyz")
        body = await full.json()
        health = await client.get("/healthz")
        health_body = await health.json()
        filler.unlink()
        assert (await client.get("/readyz")).status == 200
    assert full.status == 503 and "disk nearly full" in body["failing"]["database"], body
    assert health.status == 503 and health_body["failed"] == "database_write"


async def test_both_probes_answer_503_in_2_s_while_another_process_holds_the_sqlite_write_lock(
    settings: Settings, migrated: str
) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{migrated}")
    with closing(sqlite3.connect(migrated, isolation_level=None)) as other:
        async with serving(settings, engine) as client:
            assert (await client.get("/readyz")).status == 200
            other.execute("BEGIN IMMEDIATE")  # e.g. a stuck process; writes would wait for busy_timeout (30 s)
            try:
                ready, ready_seconds = await timed(lambda: client.get("/readyz"))
                ready_body = await ready.json()
                health, health_seconds = await timed(lambda: client.get("/healthz"))
                health_body = await health.json()
            finally:
                other.execute("ROLLBACK")
    assert ready.status == 503 and ready_seconds < ANSWER_WITHIN, (ready_body, ready_seconds)
    assert ready_body["failing"]["database"] == "database refuses writes (failed: no answer in 1.5 s)"
    assert health.status == 503 and health_seconds < ANSWER_WITHIN, (health_body, health_seconds)
    assert health_body["failed"] == "database_write"


@asynccontextmanager
async def frozen_server() -> AsyncIterator[int]:
    """A TCP port on loopback that accepts connections and never says a word (a frozen PostgreSQL)."""
    held: list[asyncio.StreamWriter] = []

    async def accept(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        for writer in held:
            writer.close()
        server.close()
        await server.wait_closed()


async def test_both_probes_answer_503_in_2_s_on_a_frozen_postgresql(settings: Settings) -> None:
    async with frozen_server() as port:
        engine = create_engine(f"postgresql+asyncpg://balcao@127.0.0.1:{port}/balcao")
        async with serving(settings, engine) as client:
            ready, ready_seconds = await timed(lambda: client.get("/readyz"))
            ready_body = await ready.json()
            health, health_seconds = await timed(lambda: client.get("/healthz"))
            health_body = await health.json()
    assert ready.status == 503 and ready_seconds < ANSWER_WITHIN, (ready_body, ready_seconds)
    assert ready_body["failing"]["database"].startswith("database unavailable (failed: no answer in 1.5 s")
    assert health.status == 503 and health_seconds < ANSWER_WITHIN, (health_body, health_seconds)
    assert health_body["failed"] == "database_read"


async def test_both_probes_answer_503_in_2_s_when_a_running_postgresql_freezes_then_200_when_it_thaws(
    settings: Settings, postgres_cluster: ThrowawayCluster | None, db_url: str
) -> None:
    if postgres_cluster is None:
        pytest.skip("a real PostgreSQL cluster: pytest --db=postgres")
    async with stalling_proxy(postgres_cluster.root / ".s.PGSQL.5432") as proxy:
        engine = create_engine(f"postgresql+asyncpg://{postgres_cluster.user}@127.0.0.1:{proxy.port}/balcao_test")
        async with serving(settings, engine) as client:
            assert (await client.get("/healthz")).status == 200  # the pool holds an open connection now
            proxy.freeze()
            ready, ready_seconds = await timed(lambda: client.get("/readyz"))
            ready_body = await ready.json()
            health, health_seconds = await timed(lambda: client.get("/healthz"))
            proxy.thaw()
            statuses = [(await client.get("/healthz")).status for _ in range(3)]
    assert ready.status == 503 and ready_seconds < ANSWER_WITHIN, (ready_body, ready_seconds)
    assert ready_body["failing"]["database"].startswith("database unavailable (failed: no answer in 1.5 s")
    assert health.status == 503 and health_seconds < ANSWER_WITHIN
    assert statuses[-1] == 200, statuses  # the stuck probe finished once the server answered again
