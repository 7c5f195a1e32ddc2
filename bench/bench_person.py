"""What loading a known person costs before every chat update: ``ensure_person`` against a bare ``SELECT 1``.

Both run through the same session factory on the same SQLite file (``core.db.create_engine``: the pool, aiosqlite's
worker thread, WAL), one at a time and 8 at a time (``bot.app.CONCURRENT_HANDLERS``), in alternating rounds; printed:
the CPU of this process (every thread) and the wall time per call, medians of the rounds, and ensure_person's CPU
over the bare query's, which the machine's load moves much less than the absolute figures (issue 21: building the
person's SELECT on every update, and a pool smaller than the handlers, made it about three times what it is).

    python bench/bench_person.py                  # 2,000 calls per round, 5 rounds
    python bench/bench_person.py --calls 4000 --rounds 7
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PEOPLE = 30


async def timed(call: Callable[[int], Awaitable[object]], *, calls: int, together: int) -> tuple[float, float]:
    """CPU and wall milliseconds per call of ``calls`` calls, ``together`` at a time."""
    cpu, wall = time.process_time(), time.perf_counter()
    for start in range(0, calls, together):
        await asyncio.gather(*(call((start + index) % PEOPLE) for index in range(together)))
    return (time.process_time() - cpu) * 1000 / calls, (time.perf_counter() - wall) * 1000 / calls


async def main(args: argparse.Namespace) -> None:
    """Create the people, then alternate the two calls; print the medians."""
    from sqlmodel import SQLModel

    import models  # noqa: F401  (registers every table)
    from bot.app import CONCURRENT_HANDLERS
    from core.db import create_engine, session_factory
    from models.people import ensure_person

    with tempfile.TemporaryDirectory() as folder:
        engine = create_engine(f"sqlite+aiosqlite:///{Path(folder) / 'bench_person.db'}")
        async with engine.begin() as connection:
            await connection.run_sync(SQLModel.metadata.create_all)
        sessions = session_factory(engine)

        async def person(index: int) -> object:
            async with sessions() as session:
                return await ensure_person(session=session, telegram_user_id=920_000_000 + index,
                                           chat_id=920_000_000 + index, first_name=f"U{index}",
                                           language_code="pt-br")

        async def bare(_index: int) -> object:
            async with sessions() as session:
                connection = await session.connection()
                return (await connection.exec_driver_sql("SELECT 1")).scalar_one()

        for index in range(PEOPLE):
            await person(index)
        for together in (1, CONCURRENT_HANDLERS):
            figures: dict[str, list[tuple[float, float]]] = {"person": [], "bare": []}
            for _ in range(args.rounds):
                figures["person"].append(await timed(person, calls=args.calls, together=together))
                figures["bare"].append(await timed(bare, calls=args.calls, together=together))
            cpu = {name: statistics.median(c for c, _ in rounds) for name, rounds in figures.items()}
            wall = {name: statistics.median(w for _, w in rounds) for name, rounds in figures.items()}
            print(f"{together} at a time: ensure_person {cpu['person']:.3f} ms CPU ({wall['person']:.3f} ms wall), "
                  f"bare SELECT 1 {cpu['bare']:.3f} ms CPU ({wall['bare']:.3f} ms wall); "
                  f"CPU ratio {cpu['person'] / cpu['bare']:.2f}")
        await engine.dispose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    asyncio.run(main(parser.parse_args()))
