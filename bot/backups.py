"""Backups of an SQLite deployment with SQLite's online backup API, and their restore.

``python -m bot backup FILE`` copies the live database page by page while the bot, the dispatcher and the
scans keep writing (SQLite's backup API restarts the copy of a page changed meanwhile, so the file is one
consistent moment). ``restore FILE`` checks the backup (integrity, the migration it is at) and copies it
over the configured database with the same API, after keeping a copy of what was there.

What a restore means for the outbox: rows sent after the backup was taken are pending or ``sending`` in
it, so they go out again once their lease runs out — at least once, as everywhere in Balcão; only what
was in flight, or sent after the backup, can arrive twice. Take backups often (a systemd timer, see the
README) and restore with every Balcão process stopped.

PostgreSQL deployments use ``pg_dump``/``pg_restore`` (the README's procedure); :func:`sqlite_path`
refuses other URLs with that advice.
"""

from __future__ import annotations

import datetime as dt
import errno
import os
import sqlite3
import tempfile
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url

from core import migrate
from core.db import make_durable

PAGES_PER_STEP = 1024
"""Pages copied per step of the online backup (writers get the lock back between steps)."""


class BackupError(Exception):
    """A backup or a restore that cannot be done, with the reason for the operator."""


@dataclass(frozen=True, slots=True)
class BackupFacts:
    """What a backup file holds: its size and the migration it is at."""

    path: Path
    size_bytes: int
    revision: str | None


def sqlite_path(database_url: str) -> Path:
    """The file of an SQLite URL.

    Raises:
        BackupError: for PostgreSQL (use ``pg_dump``) and in-memory databases.
    """
    url = make_url(database_url)
    if not url.drivername.startswith("sqlite"):
        raise BackupError("postgresql")
    if not url.database or url.database == ":memory:":
        raise BackupError("memory")
    return Path(url.database)


def _check(path: Path) -> str | None:
    """Integrity-check an SQLite file and return the migration it is at.

    Raises:
        BackupError: not an SQLite database, damaged, or not a Balcão database.
    """
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as connection:
            make_durable(connection, wal=False)
            (result,) = connection.execute("PRAGMA integrity_check").fetchone()
            if result != "ok":
                raise BackupError("damaged")
            tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if "alembic_version" not in tables:
                raise BackupError("not_balcao")
            row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.DatabaseError as exc:
        raise BackupError("not_sqlite") from exc
    return str(row[0]) if row else None


_WRITE_REFUSALS = {13: "target_full", 10: "target_write_failed", 14: "target_write_failed", 8: "target_write_failed"}
"""SQLite's primary result codes for a write the copy's disk refused (FULL, IOERR, CANTOPEN, READONLY)."""


def _write_refusal(exc: sqlite3.Error) -> str | None:
    """``target_full`` / ``target_write_failed`` when SQLite failed to write the copy, else None."""
    code = getattr(exc, "sqlite_errorcode", None)
    return _WRITE_REFUSALS.get(code & 0xFF) if isinstance(code, int) else None


def _copy(source: Path, target: Path, *, self_contained: bool = False) -> None:
    """Copy ``source`` onto ``target`` page by page, durably (``synchronous=FULL``).

    Raises:
        BackupError: ``target_full`` or ``target_write_failed`` when the target's disk refused a write.
        sqlite3.DatabaseError: the source is not an SQLite database.
    """
    with closing(sqlite3.connect(source)) as origin, closing(sqlite3.connect(target)) as destination:
        make_durable(origin, wal=False)  # only read: its journal mode stays what it is
        try:
            make_durable(destination, wal=not self_contained)
            origin.backup(destination, pages=PAGES_PER_STEP)
            if self_contained:  # a WAL database's copy is in WAL mode too: one file, without -wal/-shm beside it
                destination.execute("PRAGMA journal_mode=DELETE")
        except sqlite3.Error as exc:
            refusal = _write_refusal(exc)
            if refusal is None:
                raise
            raise BackupError(refusal) from exc


def backup_sqlite(*, database_url: str, target: Path, overwrite: bool = False) -> BackupFacts:
    """Copy the live database to ``target`` with the online backup API, then check the copy.

    Args:
        database_url: the deployment's SQLite URL.
        target: the backup file to write.
        overwrite: replace an existing file (refused otherwise, so an old backup is not lost by a typo).

    Returns:
        The backup's facts.

    Raises:
        BackupError: the URL is not SQLite, the database does not exist, is not an SQLite database, is damaged
            or is not Balcão's, the target exists, or its disk is full or refused a write. Nothing is written then.
    """
    source = sqlite_path(database_url)
    if not source.exists():
        raise BackupError("no_database")
    if target.exists() and not overwrite:
        raise BackupError("target_exists")
    # Written under a temporary name beside ``target`` and renamed only once checked: a failed backup leaves no
    # file behind, and an existing ``target`` (with --overwrite) stays whole until the new copy replaces it.
    try:
        descriptor, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial")
    except OSError as exc:
        raise BackupError("target_full" if exc.errno == errno.ENOSPC else "target_write_failed") from exc
    os.close(descriptor)
    partial = Path(name)
    try:
        try:
            _copy(source, partial, self_contained=True)
        except sqlite3.DatabaseError as exc:
            raise BackupError("source_not_sqlite") from exc
        try:
            revision = _check(partial)
        except BackupError as exc:
            raise BackupError(_SOURCE_REFUSALS.get(str(exc), str(exc))) from exc
        os.replace(partial, target)
    finally:
        for leftover in (partial, partial.with_name(f"{partial.name}-wal"), partial.with_name(f"{partial.name}-shm")):
            leftover.unlink(missing_ok=True)
    return BackupFacts(path=target, size_bytes=target.stat().st_size, revision=revision)


_SOURCE_REFUSALS = {"not_balcao": "source_not_balcao", "damaged": "source_damaged", "not_sqlite": "source_not_sqlite"}
"""What a failed check of a fresh backup says about the database it was copied from."""


def restore_sqlite(*, database_url: str, backup: Path, now: dt.datetime) -> tuple[BackupFacts, Path | None]:
    """Check ``backup`` and copy it over the configured database; keep the database that was there.

    Args:
        database_url: the deployment's SQLite URL (the file to restore into).
        backup: a file written by :func:`backup_sqlite`.
        now: the present (aware), for the name of the kept copy.

    Returns:
        The backup's facts, and the path of the kept copy of the previous database (None if there was none).

    Raises:
        BackupError: the URL is not SQLite, the backup is missing, damaged, not Balcão's, or from a newer
            version of Balcão than this one.
    """
    target = sqlite_path(database_url)
    if not backup.exists():
        raise BackupError("no_backup")
    revision = _check(backup)
    if revision is not None and revision not in migrate.known_revisions():
        raise BackupError("newer")
    kept: Path | None = None
    if target.exists():
        kept = target.with_name(f"{target.name}.before-restore-{now.strftime('%Y%m%dT%H%M%SZ')}")
        _copy(target, kept)
    _copy(backup, target)
    return BackupFacts(path=backup, size_bytes=backup.stat().st_size, revision=revision), kept
