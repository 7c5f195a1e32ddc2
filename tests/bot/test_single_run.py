"""Issue 22: on SQLite a bot has one ``run`` process, and a second one for the same bot refuses to start.

SQLite cannot hold a person's turn across processes (``bot.turns``), so two ``run`` processes of one bot would
handle one person's updates at once (photos lost, answers in the wrong field). The second names the first
(pid, host, start time); a lock left by a process killed with ``kill -9`` is stale and taken over.
"""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

from bot.sandbox.emulator import BotApiEmulator
from core import migrate
from tests.auxil.processes import clean_env, commands

TOKEN = "555555555:ONE-run-per-bot-token"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _running(command: Any) -> None:
    """Until the process says it runs (it has taken its bot's lock and started polling)."""
    async with asyncio.timeout(60):
        while "Balcão is running" not in command.output():
            assert command.process.returncode is None, command.output()
            await asyncio.sleep(0.05)  # a subprocess's log has no event to await


async def test_a_second_run_of_a_bot_on_sqlite_refuses_and_names_the_first(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'balcao.db'}"
    await asyncio.to_thread(migrate.upgrade, url)
    async with BotApiEmulator(token=TOKEN) as emulator:
        env = clean_env(BALCAO_DATABASE_URL=url, BALCAO_TELEGRAM_TOKEN=TOKEN,
                        BALCAO_TELEGRAM_API_URL=emulator.root_url, BALCAO_HTTP_HOST="127.0.0.1")
        async with commands(tmp_path, env) as processes:
            try:
                first = await processes.start("first", "run", env={"BALCAO_HTTP_PORT": str(_free_port())})
                await _running(first)  # it holds the lock (its own log says so; a getUpdates may be anyone's)
                second = await processes.start("second", "run", env={"BALCAO_HTTP_PORT": str(_free_port())})
                assert await asyncio.wait_for(second.process.wait(), timeout=60) != 0
                said = second.output()
                assert "Outro processo run já atende o bot default" in said
                assert f"processo {first.pid} em {socket.gethostname()}" in said
                assert "Traceback" not in said
                assert first.process.returncode is None  # the first one goes on

                await processes.kill(first)  # kill -9: its lock file stays behind, but nobody holds it
                polls = len(emulator.calls_to("getUpdates"))
                third = await processes.start("third", "run", env={"BALCAO_HTTP_PORT": str(_free_port())})
                await emulator.wait_until(lambda: len(emulator.calls_to("getUpdates")) > polls, timeout=60)
                assert third.process.returncode is None
                assert await processes.stop(third) == 0
            except BaseException as failure:
                failure.add_note(processes.logs())
                raise
