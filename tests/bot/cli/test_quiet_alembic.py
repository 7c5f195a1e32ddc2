"""Alembic stays at ``BALCAO_LOG_LIBRARY_LEVEL`` (WARNING): its INFO lines ("Context impl SQLiteImpl.") are not in
any command's output; ``db upgrade`` says in the operator's language which migrations it applied."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from core.migrate import known_revisions
from tests.auxil.processes import ROOT


def balcao(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m bot ARGS`` in a process of its own, so the real logging setup (not pytest's capture) is used."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("BALCAO_")}
    env.update(BALCAO_DATABASE_URL=f"sqlite+aiosqlite:///{cwd / 'balcao.db'}", PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "bot", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def test_commands_print_no_alembic_lines_and_db_upgrade_names_each_migration_applied(tmp_path: Path) -> None:
    upgrade = balcao("db", "upgrade", cwd=tmp_path)
    assert upgrade.returncode == 0, upgrade.stderr
    assert "alembic" not in (upgrade.stdout + upgrade.stderr).lower()
    applied = [line for line in upgrade.stdout.splitlines() if line.startswith("Migração ")]
    assert applied[0].startswith("Migração 0001 aplicada: ")
    assert {line.split()[1] for line in applied} == known_revisions()

    again = balcao("db", "upgrade", cwd=tmp_path)  # nothing left to apply
    assert "Migração " not in again.stdout and "Banco de dados na migração" in again.stdout

    scan = balcao("scan", cwd=tmp_path)  # checks the schema first (alembic's MigrationContext)
    assert scan.returncode == 0, scan.stderr
    assert "alembic" not in (scan.stdout + scan.stderr).lower()
