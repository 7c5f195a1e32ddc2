"""The database part of ``/healthz`` and ``/readyz``: a read, the migration it is at and a real write, in 2 s.

A read-only check said 200 while SQLite could not write (a full disk, a read-only file, a lock held by another
process) and hung, with both probes, on a frozen PostgreSQL. The probe reads, rewrites the heartbeat row
(``models.health``, committed: on SQLite that takes the write lock and syncs the WAL as a filing would) and gives
up after :data:`PROBE_SECONDS`: a load balancer or systemd watchdog then hears 503 naming the part, in time.

The probe runs in a task of its own: a connection stuck on a frozen server is left to its driver's timeouts
(the answer does not wait for it), and at most one probe runs at a time per session factory: a probe asked for
while another still waits joins it, so a frozen server does not pile up connections.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import make_url

from core import migrate
from core.db import SessionFactory
from models.columns import utcnow
from models.health import probe_write

logger = logging.getLogger("balcao.health")

PROBE_SECONDS = 1.5
"""The probe's budget: with the rest of the request, an answer within 2 s."""

MIN_FREE_BYTES = 64 * 1024 * 1024
"""Below this much free space beside an SQLite file, writes are refused in advance. A one-row heartbeat may still
succeed on a full disk (SQLite reuses the pages of its WAL), but the next filing, with its PDF, would not."""


@dataclass
class DatabaseProbe:
    """What the database did: each check is ``ok``, ``not run`` or ``failed: why``; the migration it is at."""

    read: str = "not run"
    write: str = "not run"
    revision: str | None = None

    @property
    def failed(self) -> str | None:
        """``database_read`` or ``database_write``, the first part that failed (None when both are ok)."""
        if self.read != "ok":
            return "database_read"
        return "database_write" if self.write != "ok" else None


_running: dict[int, tuple[asyncio.Task[None], DatabaseProbe]] = {}
"""The probe still running per session factory (a frozen server, a held lock): the next probe does not add another."""


def _sqlite_file(sessions: SessionFactory) -> Path | None:
    """The file of an SQLite database the sessions write to (None for PostgreSQL or an in-memory database)."""
    bind = sessions.kw.get("bind")
    url = make_url(str(bind.url)) if bind is not None else None
    if url is None or not url.get_backend_name().startswith("sqlite") or url.database in (None, "", ":memory:"):
        return None
    return Path(url.database.removeprefix("file:").split("?", 1)[0])  # a "file:…?mode=…" URI too


def _disk_full(database: Path, min_free: int) -> str | None:
    """Why the disk of an SQLite file cannot take the next filing, or None (also when the space cannot be read)."""
    try:
        free = shutil.disk_usage(database.resolve().parent).free
    except OSError:
        return None
    return None if free >= min_free else f"disk nearly full ({free // 1024} KiB free)"


async def _run(sessions: SessionFactory, probe: DatabaseProbe, min_free: int) -> None:
    try:
        async with sessions() as session:
            await session.exec(text("SELECT 1"))  # type: ignore[call-overload]
            connection = await session.connection()
            probe.revision = await connection.run_sync(migrate.current_revision_of)
            probe.read = "ok"
            await probe_write(session=session, now=utcnow())
            database = _sqlite_file(sessions)
            full = await asyncio.to_thread(_disk_full, database, min_free) if database is not None else None
            probe.write = "ok" if full is None else f"failed: {full}"
            if full is not None:
                logger.warning("database probe: %s", full)
    except Exception as exc:  # any database failure: say which part, never raise
        part = "write" if probe.read == "ok" else "read"
        setattr(probe, part, f"failed: {type(exc).__name__}")
        logger.warning("database probe: %s failed (%s)", part, type(exc).__name__)


def _timed_out(probe: DatabaseProbe, why: str) -> DatabaseProbe:
    """A copy of a probe still waiting, with the part it waits on failed for ``why``."""
    late = DatabaseProbe(read=probe.read, write=probe.write, revision=probe.revision)
    setattr(late, "write" if late.read == "ok" else "read", f"failed: {why}")
    return late


async def probe_database(sessions: SessionFactory, *, seconds: float = PROBE_SECONDS,
                         min_free: int = MIN_FREE_BYTES) -> DatabaseProbe:
    """Read, find the migration, write the heartbeat row; answer within ``seconds`` whatever the database does.

    On SQLite the write also fails while the file's disk has less than ``min_free`` bytes free.

    Returns:
        The outcome; a check that did not finish in time is ``failed: no answer in N s``.
    """
    key = id(sessions)
    earlier = _running.get(key)
    if earlier is not None and not earlier[0].done():  # still waiting on the database: wait with it, start no other
        task, probe = earlier
    else:
        probe = DatabaseProbe()
        task = asyncio.create_task(_run(sessions, probe, min_free))
        _running[key] = (task, probe)
        task.add_done_callback(lambda done: _running.pop(key, None) if _running.get(key, (None,))[0] is done else None)
    finished, _ = await asyncio.wait({task}, timeout=seconds)
    if not finished:
        logger.warning("database probe: no answer to the %s in %g s", "write" if probe.read == "ok" else "read",
                       seconds)
        return _timed_out(probe, f"no answer in {seconds:g} s")
    return probe
