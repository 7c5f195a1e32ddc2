"""Balcão's own commands as real subprocesses (``python -m bot …``), always cleaned up, their logs kept for failures.

Each process writes its stdout and stderr to a file (a pipe nobody reads would fill up and block it). Leaving the
``async with`` block stops every process still running: SIGTERM, then SIGKILL after a deadline, also when the test
failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STOP_SECONDS = 20.0


@dataclass
class Command:
    """One started ``python -m bot`` process."""

    name: str
    args: tuple[str, ...]
    process: asyncio.subprocess.Process
    log: Path

    @property
    def pid(self) -> int:
        """Its process id (the dispatcher's worker ids contain it)."""
        return self.process.pid

    def output(self) -> str:
        """What it printed (stdout and stderr), for a failure's message."""
        return self.log.read_text(encoding="utf-8", errors="replace")


@dataclass
class Commands:
    """The processes of one test: start, kill and stop them."""

    directory: Path
    env: Mapping[str, str]
    started: list[Command] = field(default_factory=list)

    async def start(self, name: str, *args: str, env: Mapping[str, str] | None = None) -> Command:
        """Start ``python -m bot ARGS…`` with the test's environment (plus ``env``); its log is ``name.log``."""
        log = self.directory / f"{name}-{len(self.started)}.log"
        with log.open("wb") as sink:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", *args, cwd=self.directory, env={**self.env, **(env or {})},
                stdout=sink, stderr=asyncio.subprocess.STDOUT,
            )
        command = Command(name, args, process, log)
        self.started.append(command)
        return command

    @staticmethod
    async def kill(command: Command) -> None:
        """``kill -9``: no clean-up at all, as when the machine loses the process."""
        command.process.send_signal(signal.SIGKILL)
        await command.process.wait()

    async def stop(self, command: Command) -> int:
        """SIGTERM and wait for the exit (SIGKILL after :data:`STOP_SECONDS`); the exit code."""
        if command.process.returncode is None:
            command.process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(command.process.wait(), timeout=STOP_SECONDS)
            except TimeoutError:
                command.process.kill()
                await command.process.wait()
        assert command.process.returncode is not None
        return command.process.returncode

    def logs(self) -> str:
        """Every process's output, headed by its name and arguments."""
        return "\n".join(f"--- {c.name} {' '.join(c.args)} (exit {c.process.returncode})\n{c.output()[-4000:]}"
                         for c in self.started)


def clean_env(**settings: str) -> dict[str, str]:
    """The environment of this test run without any ``BALCAO_*`` variable, plus ``settings`` and the repository
    on ``PYTHONPATH``."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("BALCAO_")}
    return {**env, "PYTHONPATH": str(ROOT), **settings}


@asynccontextmanager
async def commands(directory: Path, env: Mapping[str, str]) -> AsyncIterator[Commands]:
    """Processes that are all stopped when the block ends, however it ends."""
    started = Commands(directory, env)
    try:
        yield started
    finally:
        for command in started.started:
            with contextlib.suppress(ProcessLookupError):
                await started.stop(command)
