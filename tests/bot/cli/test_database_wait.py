"""``run`` and ``dispatch`` started while the database is down (issue 22, finding 6).

They exited 1 with a 115-line traceback. Now each attempt logs one line and the start goes on once the database
answers; after ``BALCAO_DATABASE_WAIT_SECONDS`` the command stops with one line and exit code 1 (systemd restarts it).
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main
from core import database_wait
from core.settings import get_settings

ROOT = Path(__file__).resolve().parents[3]
TOKEN = "123456:TEST-token-abcdefghij"


def closed_port() -> int:
    """A loopback port nobody listens on (connections to it are refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("command", [["dispatch", "--forever"], ["run"]])
def test_with_the_database_down_the_start_retries_one_line_per_attempt_then_stops_without_a_traceback(
    tmp_path: Path, command: list[str]
) -> None:
    env = {name: value for name, value in os.environ.items() if not name.startswith("BALCAO_")}
    env.update({
        "PYTHONPATH": str(ROOT),
        "BALCAO_DATABASE_URL": f"postgresql+asyncpg://balcao@127.0.0.1:{closed_port()}/balcao",
        "BALCAO_DATABASE_WAIT_SECONDS": "3",
        "BALCAO_TELEGRAM_TOKEN": TOKEN,
        "BALCAO_TELEGRAM_API_URL": f"http://127.0.0.1:{closed_port()}",
        "BALCAO_HTTP_PORT": "0",
    })
    result = subprocess.run([sys.executable, "-m", "bot", *command], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=60, check=False)

    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "Traceback" not in output
    attempts = [line for line in output.splitlines() if "database unreachable" in line]
    assert len(attempts) >= 2, output  # 1 s, then 2 s: the third would pass the 3 s
    assert all("ConnectionRefusedError" in line or "OSError" in line for line in attempts), attempts
    assert "attempt 1, next in 1 s" in attempts[0]
    # besides the attempts: the final line, and run's start warnings (a municipality without a signing certificate)
    others = [line for line in output.splitlines()
              if "database unreachable" not in line and "has no signing certificate" not in line]
    assert len(others) <= 2, output
    assert "O banco de dados não respondeu em" in result.stderr and "BALCAO_DATABASE_WAIT_SECONDS" in result.stderr


def test_dispatch_goes_on_once_the_database_answers(
    database: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    later = tmp_path / "montado-depois" / "balcao.db"  # e.g. a disk mounted after the service started
    monkeypatch.setenv("BALCAO_DATABASE_URL", f"sqlite+aiosqlite:///{later}")
    monkeypatch.setenv("BALCAO_TELEGRAM_TOKEN", TOKEN)
    monkeypatch.setenv("BALCAO_TELEGRAM_API_URL", f"http://127.0.0.1:{closed_port()}")
    get_settings.cache_clear()
    pauses: list[float] = []

    async def pause(seconds: float) -> None:  # instead of sleeping: the second pause finds the disk there
        pauses.append(seconds)
        if len(pauses) == 2:
            later.parent.mkdir()
            shutil.move(database, later)

    monkeypatch.setattr(database_wait, "sleep", pause)
    caplog.set_level(logging.INFO, logger="balcao.start")

    assert main(["dispatch"]) == 0

    assert pauses == [1.0, 2.0]
    lines = [record.getMessage() for record in caplog.records if record.name == "balcao.start"]
    assert len(lines) == 3, lines
    assert lines[0].startswith("database unreachable (OperationalError: unable to open database file); attempt 1")
    assert lines[-1] == "database answers after 3 attempts"
