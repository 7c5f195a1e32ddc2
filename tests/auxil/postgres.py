"""A throwaway PostgreSQL cluster under a temporary directory, run as a non-root user.

The test command starts one when ``--db=postgres`` is given: ``initdb`` + ``pg_ctl`` from the machine's
PostgreSQL binaries, listening only on a Unix socket inside the temporary directory.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path


def _find_binary(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    for version in ("17", "16", "15", "14"):
        candidate = Path(f"/usr/lib/postgresql/{version}/bin/{name}")
        if candidate.exists():
            return str(candidate)
    raise RuntimeError(f"{name} not found: install PostgreSQL server binaries (apt-get install postgresql)")


class ThrowawayCluster:
    """Start and stop a private PostgreSQL server; ``url`` is an asyncpg SQLAlchemy URL."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="balcao-pg-"))
        self.data = self.root / "data"
        self.user = "postgres"
        self._run_as: list[str] = []
        if os.geteuid() == 0:
            account = "postgres"
            try:
                pwd.getpwnam(account)
            except KeyError:
                account = "nobody"
            self._run_as = ["runuser", "-u", account, "--"]
            entry = pwd.getpwnam(account)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        self.root.chmod(0o755)

    def _run(self, *args: str) -> None:
        subprocess.run([*self._run_as, *args], check=True, capture_output=True, cwd=self.root)

    def start(self) -> str:
        """Initialise and start the cluster; return the database URL of database ``balcao_test``."""
        self._run(_find_binary("initdb"), "-D", str(self.data), "-U", self.user, "-A", "trust", "-E", "UTF8",
                  "--no-sync")
        options = f"-k {self.root} -c listen_addresses='' -c fsync=off -c synchronous_commit=off " \
                  "-c full_page_writes=off -c max_connections=200"
        self._run(_find_binary("pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.root / "log"),
                  "-w", "start")
        self._run(_find_binary("createdb"), "-h", str(self.root), "-U", self.user, "balcao_test")
        return self.url("balcao_test")

    def url(self, database: str) -> str:
        """The asyncpg URL of a database in this cluster."""
        return f"postgresql+asyncpg://{self.user}@/{database}?host={self.root}"

    def stop(self) -> None:
        """Stop the server and delete its files."""
        try:
            self._run(_find_binary("pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
