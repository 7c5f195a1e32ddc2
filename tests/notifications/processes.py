"""Run ``python -m bot dispatch`` in real processes against the test database and the emulator."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from alembic import command

from bot.sandbox.emulator import BotApiEmulator
from core.migrate import alembic_config

ROOT = Path(__file__).resolve().parents[2]


async def stamp_head(db_url: str) -> None:
    """Mark the test database (created from the models) as migrated, so the CLI's schema check passes."""
    await asyncio.to_thread(command.stamp, alembic_config(db_url), "head")


def dispatch_env(db_url: str, emulator: BotApiEmulator, **settings: str) -> dict[str, str]:
    """The environment of a dispatcher process: the database, the emulator, and ``BALCAO_*`` overrides."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("BALCAO_")}
    env.update(
        PYTHONPATH=str(ROOT),
        BALCAO_DATABASE_URL=db_url,
        BALCAO_TELEGRAM_TOKEN=emulator.token,
        BALCAO_TELEGRAM_API_URL=emulator.root_url,
    )
    env.update({f"BALCAO_{name.upper()}": value for name, value in settings.items()})
    return env


async def start_dispatch(env: dict[str, str], cwd: Path) -> asyncio.subprocess.Process:
    """Start ``python -m bot dispatch``."""
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "dispatch", cwd=cwd, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )


async def finish(process: asyncio.subprocess.Process, timeout: float = 60) -> str:  # noqa: ASYNC109
    """Wait for a process to exit 0; return its standard output."""
    stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=timeout)
    assert process.returncode == 0, stderr.decode()[-3000:]
    return stdout.decode()
