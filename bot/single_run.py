"""On SQLite, one ``run`` process per bot: a second ``run`` for the same bot refuses to start and names the first.

SQLite has no lock that lasts across several processes' transactions, so a person's updates are kept in order
only inside one process (``bot.ordering``). Each bot's ``run`` process holds an exclusive ``flock`` on a file next
to the database (``balcao.db.run-<bot>.lock``) that says who holds it: pid, host and start time. The kernel
releases the lock when the process ends, however it ends (``kill -9`` too), so a lock file left behind by a dead
process is stale and simply taken over. PostgreSQL needs none of this: a person's turn is held in the database
(``bot.turns``), and a bot may have several ``run`` processes.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import socket
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from sqlalchemy.engine import make_url


class AlreadyRunning(Exception):
    """Another ``run`` process serves this bot on this SQLite database."""

    def __init__(self, bot_key: str, holder: dict[str, object], path: Path) -> None:
        super().__init__(f"bot {bot_key} is already served by pid {holder.get('pid')} on {holder.get('host')}")
        self.bot_key = bot_key
        self.holder = holder
        self.path = path


def lock_path(database_url: str, bot_key: str) -> Path | None:
    """The lock file of a bot on an SQLite file database; None for PostgreSQL or an in-memory database."""
    url = make_url(database_url)
    if not url.drivername.startswith("sqlite") or not url.database or url.database == ":memory:":
        return None
    return Path(f"{url.database}.run-{bot_key}.lock")


@contextmanager
def one_run_per_bot(database_url: str, bot_keys: Sequence[str]) -> Iterator[None]:
    """Hold every bot's lock for the block (SQLite only).

    Raises:
        AlreadyRunning: a bot's lock is held by another live process (nothing is held then).
    """
    with contextlib.ExitStack() as held:
        for key in bot_keys:
            path = lock_path(database_url, key)
            if path is not None:
                held.enter_context(_hold(path, key))
        yield


@contextmanager
def _hold(path: Path, bot_key: str) -> Iterator[None]:
    handle: IO[str] = path.open("a+", encoding="utf-8")
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            try:
                holder = json.loads(handle.read() or "{}")
            except json.JSONDecodeError:
                holder = {}
            raise AlreadyRunning(bot_key, holder, path) from None
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                 "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}))
        handle.flush()
        yield
    finally:
        handle.close()  # closing releases the flock
