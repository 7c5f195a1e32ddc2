"""A backup onto a disk that is full, or refuses the write, says so (issue 22, finding 6: it said "not an SQLite
database", sending the operator to check a database that was fine)."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.auxil.tmpfs import small_disk
from tests.bot.cli.test_backup_cli import add_person

ROOT = Path(__file__).resolve().parents[3]


def backup_in_a_process(target: Path, *, file_size_limit: int | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m bot backup TARGET`` as its own process, optionally under a file size limit (RLIMIT_FSIZE)."""

    def limit() -> None:  # in the child: a write past the limit fails with EFBIG instead of killing it (SIGXFSZ)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        if file_size_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "bot", "backup", str(target)], capture_output=True, text=True,
                          env=env, preexec_fn=limit, timeout=120, check=False)


def fill(database: Path) -> None:
    for number in range(300):
        add_person(database, 840000 + number, "Maria " + "x" * 200)


def test_a_backup_whose_writes_fail_says_the_write_failed_and_leaves_no_file(database: Path, tmp_path: Path) -> None:
    fill(database)
    target = tmp_path / "copia.db"
    limit = database.stat().st_size // 4  # the copy outgrows what this process may write
    assert limit > 0

    result = backup_in_a_process(target, file_size_limit=limit)

    assert result.returncode == 2, result.stdout + result.stderr
    assert "Não foi possível gravar a cópia ali (o disco recusou a gravação)" in result.stderr
    assert "não é um banco de dados SQLite" not in result.stderr
    assert "Traceback" not in result.stderr
    assert not target.exists() and not list(tmp_path.glob(".copia.db*"))


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs (needs root, as CI has); skipped where mounting is not allowed."""
    with small_disk(tmp_path, "64k") as mount:
        yield mount


def test_a_backup_onto_a_full_disk_says_the_disk_is_full(database: Path, tiny_disk: Path) -> None:
    fill(database)
    target = tiny_disk / "copia.db"

    result = backup_in_a_process(target)

    assert result.returncode == 2, result.stdout + result.stderr
    assert "O disco onde vai a cópia está cheio" in result.stderr
    assert "não é um banco de dados SQLite" not in result.stderr
    assert not list(tiny_disk.iterdir())
