"""Run the suite on SQLite and on PostgreSQL at the same time, as ``make test`` does.

The two runs share nothing (each has its own temporary directories, its own emulator and ports, and the
PostgreSQL run its own throwaway cluster), so on a machine with two cores or more they finish in about the
time of the longer one instead of the sum of both. Each line of output is prefixed with the run it comes from,
and a summary of both is printed at the end; the exit status is non-zero when either run failed.

``python -m tests.auxil.both_databases [pytest arguments…]`` passes the arguments to both runs.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time

RUNS = {
    "sqlite": ["-q"],
    "postgres": ["-q", "--db=postgres", "-m", "not browser"],  # the browser tests read pages, not the database
}


async def _run(name: str, extra: list[str], summary: dict[str, tuple[int, str, float]]) -> None:
    started = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pytest", *RUNS[name], *extra,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    last = ""
    while line := await process.stdout.readline():
        text = line.decode(errors="replace").rstrip("\n")
        if text.strip():
            last = text
        print(f"[{name}] {text}", flush=True)
    code = await process.wait()
    summary[name] = (code, last, time.monotonic() - started)


async def _main(extra: list[str]) -> int:
    summary: dict[str, tuple[int, str, float]] = {}
    await asyncio.gather(*(_run(name, extra, summary) for name in RUNS))
    print("\n== both databases")
    for name, (code, last, seconds) in summary.items():
        print(f"{name:9} exit {code}  {seconds / 60:5.1f} min  {last}")
    return max(code for code, _, _ in summary.values())


if __name__ == "__main__":
    sys.exit(asyncio.run(_main(sys.argv[1:])))
