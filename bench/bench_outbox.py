"""The outbox and the dispatcher: enqueueing 100,000 messages, and the send rate against the cap.

Prints:

- the time to enqueue 100,000 messages (one broadcast's rows, ``models.outbox.enqueue_many``) on SQLite;
- sending 10,000 messages at 1000/s (paid broadcasts) and 1,000 at 30/s to the Bot API emulator, which runs in
  its own process with Telegram's flood control switched on at the same caps (so a 429 would show any excess):
  the achieved rate as a ratio of the cap (first to last message received, by the emulator's clock), the
  largest count it saw in any one-second window, and the 429s it answered;
- the peak resident memory of the bench process (dispatcher, database) and of the emulator;
- what durability costs (issue 22): Balcão opens every SQLite connection with ``synchronous=FULL`` (``core.db``);
  the same work under FULL and under NORMAL, alternated, ``--durability-runs`` times each (3 by default): the
  enqueue of the 100,000 rows (one transaction), and 1,000 small commits of one outbox row each (what a chat step or
  an outcome write is). Median and range of each, and the ratio FULL/NORMAL of the medians, with ``uptime`` (the
  machine is shared: its load is part of the figure). Run it on the disk the database will live on (a tmpfs
  makes fsync free and the ratio meaningless).

Targets (issue 3): enqueue 100,000 in ≤ 5 s on SQLite; achieved rate ≥ 0.97 of the cap and never above it in
any second.

    python bench/bench_outbox.py                     # everything (about a minute)
    python bench/bench_outbox.py --skip-30           # without the 34-second run at 30/s
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import gc
import multiprocessing
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FIRST_USER = 900_000_000


def emulator_process(conn: Connection, users: int, per_second: int) -> None:
    """Run the emulator with ``users`` users and flood control at ``per_second``; report call times on request."""
    from bot.sandbox.emulator import BotApiEmulator

    async def serve() -> None:
        emulator = BotApiEmulator()
        root = await emulator.start()
        for index in range(users):
            emulator.add_user(FIRST_USER + index, f"U{index}")
        emulator.limits(per_chat_per_second=1, global_per_second=per_second)
        gc.collect()
        gc.freeze()  # the stand-in for Telegram should not pause to collect its start-up objects
        conn.send((root, emulator.token))
        await asyncio.get_running_loop().run_in_executor(None, conn.recv)
        sent = [call.at.timestamp() for call in emulator.calls_to("sendMessage", ok=True)]
        refused = sum(1 for call in emulator.calls_to("sendMessage", ok=False) if call.error_code == 429)
        peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        conn.send((sent, refused, peak_kb))
        await emulator.stop()

    asyncio.run(serve())


async def make_database(
    path: Path, people: int, *, synchronous: str | None = None
) -> tuple[Any, Any, str, float]:
    """A database with ``people`` people; also returns the seconds their plain bulk insert took (a baseline).

    ``synchronous`` overrides Balcão's ``PRAGMA synchronous`` (FULL) on this engine's connections, for the
    comparison.
    """
    from sqlalchemy import event, insert
    from sqlmodel import SQLModel

    import models  # noqa: F401  (registers every table)
    from core.db import create_engine, session_factory
    from core.settings import load_settings
    from models.columns import utcnow
    from models.municipalities import sync_municipalities
    from models.people import Person

    url = f"sqlite+aiosqlite:///{path}"
    engine = create_engine(url)
    if synchronous is not None:

        @event.listens_for(engine.sync_engine, "connect")
        def _override(dbapi_connection: Any, _record: Any) -> None:  # runs after core.db's own listener
            cursor = dbapi_connection.cursor()
            cursor.execute(f"PRAGMA synchronous={synchronous}")
            cursor.close()

    async with engine.begin() as connection:
        await connection.run_sync(SQLModel.metadata.create_all)
    sessions = session_factory(engine)
    async with sessions() as session:  # as run does at start: a broadcast belongs to a municipality's row
        await sync_municipalities(session=session, served=load_settings(database_url=url).municipalities)
    rows = [{"telegram_user_id": FIRST_USER + i, "chat_id": FIRST_USER + i, "first_name": f"U{i}", "locale": "pt_BR",
             "locale_chosen": False, "created_at": utcnow()} for i in range(people)]
    async with sessions() as session:
        started = time.perf_counter()
        for start in range(0, people, 5000):
            await session.exec(insert(Person.__table__), params=rows[start : start + 5000])  # type: ignore[attr-defined]
        await session.commit()
        baseline = time.perf_counter() - started
    return engine, sessions, url, baseline


async def bench_enqueue(
    directory: Path, count: int, *, synchronous: str | None = None, name: str = "enqueue"
) -> tuple[float, float]:
    """Seconds to enqueue ``count`` messages, and the baseline: a plain bulk insert of as many people."""
    from models.outbox import NewMessage, enqueue_many

    engine, sessions, _url, baseline = await make_database(directory / f"{name}.db", count, synchronous=synchronous)
    messages = [NewMessage(person_id=i + 1, kind="broadcast", dedupe_key=f"broadcast:1:{i + 1}", broadcast_id=1)
                for i in range(count)]
    async with sessions() as session:
        started = time.perf_counter()
        added = await enqueue_many(session=session, messages=messages)
        await session.commit()
        elapsed = time.perf_counter() - started
    await engine.dispose()
    assert added == count, added
    return elapsed, baseline


async def bench_small_commits(directory: Path, commits: int, *, synchronous: str, name: str) -> float:
    """Seconds for ``commits`` transactions of one outbox row each (enqueue and commit, as a chat step does)."""
    from models.outbox import enqueue

    engine, sessions, _url, _baseline = await make_database(directory / f"{name}.db", 10, synchronous=synchronous)
    async with sessions() as session:
        started = time.perf_counter()
        for index in range(commits):
            await enqueue(session=session, person_id=1 + index % 10, kind="broadcast", dedupe_key=f"small:{index}")
            await session.commit()
        elapsed = time.perf_counter() - started
    await engine.dispose()
    return elapsed


def spread(values: list[float]) -> str:
    """``median (min–max)`` of some seconds."""
    return f"{statistics.median(values):.3f} s ({min(values):.3f}–{max(values):.3f})"


async def bench_durability(directory: Path, *, runs: int, enqueue_count: int, commits: int) -> None:
    """FULL against NORMAL, alternated in one run; prints medians, ranges and the ratio (see the module's doc)."""
    uptime = (await asyncio.to_thread(subprocess.run, ["uptime"], capture_output=True, text=True, check=False)).stdout
    print(f"durability (synchronous=FULL, Balcão's setting, against NORMAL), {runs} runs each, alternated; "
          f"uptime: {uptime.strip()}")
    for part, (label, work) in enumerate((
        (f"enqueue {enqueue_count:,} in one transaction",
         lambda sync, name: bench_enqueue(directory, enqueue_count, synchronous=sync, name=name)),
        (f"{commits:,} one-row commits",
         lambda sync, name: bench_small_commits(directory, commits, synchronous=sync, name=name)),
    )):
        seconds: dict[str, list[float]] = {"FULL": [], "NORMAL": []}
        for run in range(runs):
            for sync in ("FULL", "NORMAL") if run % 2 == 0 else ("NORMAL", "FULL"):
                result = await work(sync, f"durability-{part}-{sync}-{run}")
                seconds[sync].append(result[0] if isinstance(result, tuple) else result)
        ratio = statistics.median(seconds["FULL"]) / statistics.median(seconds["NORMAL"])
        print(f"    {label}: FULL {spread(seconds['FULL'])}, NORMAL {spread(seconds['NORMAL'])}; "
              f"FULL/NORMAL = {ratio:.2f}x")


@dataclass
class SendResult:
    count: int
    cap: float
    achieved: float
    busiest_second: int
    refused: int
    emulator_peak_kb: int
    wall_seconds: float


def busiest_second(times: list[float]) -> int:
    """The largest number of events in any window of one second (sliding)."""
    ordered = sorted(times)
    return max((bisect.bisect_left(ordered, t + 1.0) - i for i, t in enumerate(ordered)), default=0)


async def bench_send(directory: Path, count: int, cap: float, *, paid: bool) -> SendResult:
    from pydantic import SecretStr

    from core.municipality import cities_of
    from core.settings import load_settings
    from models.columns import utcnow
    from notifications.broadcasts import AudienceChoice, create_broadcast
    from notifications.dispatcher import Dispatcher, sending_bot, settle_memory
    from notifications.plugins import load_all

    load_all()
    parent, child = multiprocessing.Pipe()
    process = multiprocessing.Process(target=emulator_process, args=(child, count, int(cap)), daemon=True)
    process.start()
    root, token = parent.recv()
    engine, sessions, url, _baseline = await make_database(directory / f"send-{count}.db", count)
    settings = load_settings(
        database_url=url,
        telegram_token=SecretStr(token),
        telegram_api_url=root,
        dispatch_global_rate=30.0 if paid else cap,
        dispatch_paid_broadcast=paid,
        dispatch_paid_rate=cap,
    )
    async with sessions() as session:
        created = await create_broadcast(session=session, city=cities_of(settings).default,
                                             cities=cities_of(settings), choice=AudienceChoice("everyone"),
                                         text="Bench: aviso de teste.", actor="bench", now=utcnow())
    assert created.recipients == count
    started = time.perf_counter()
    async with sending_bot(settings) as bot:
        settle_memory()  # as python -m bot dispatch does
        stats = await Dispatcher(sessions=sessions, bot=bot, settings=settings).run_until_idle()
    wall = time.perf_counter() - started
    await engine.dispose()
    parent.send("report")
    sent, refused, emulator_peak_kb = parent.recv()
    process.join(timeout=10)
    assert stats.sent == count == len(sent), (stats, len(sent))
    span = max(sent) - min(sent)
    return SendResult(count, cap, (count - 1) / span, busiest_second(sent), refused, emulator_peak_kb, wall)


def report(result: SendResult, label: str) -> None:
    ratio = result.achieved / result.cap
    verdict = "OK" if ratio >= 0.97 and result.busiest_second <= result.cap and not result.refused else "MISSED"
    print(f"send {result.count:,} at {result.cap:g}/s ({label}): achieved {result.achieved:.1f}/s = "
          f"{ratio:.3f} of the cap; busiest one-second window {result.busiest_second} (cap {result.cap:g}); "
          f"429 answers {result.refused}; {result.wall_seconds:.1f} s from start to last outcome  [{verdict}]")
    print(f"    emulator process peak memory: {result.emulator_peak_kb / 1024:.0f} MB")


async def main(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="balcao-bench-outbox-") as tmp:
        directory = Path(tmp)
        elapsed, baseline = await bench_enqueue(directory, args.enqueue)
        verdict = "OK" if elapsed <= 5 else "MISSED"
        print(f"enqueue {args.enqueue:,} messages (SQLite, one broadcast): {elapsed:.2f} s (target ≤ 5 s) [{verdict}]; "
              f"{elapsed / baseline:.2f}x a plain bulk insert of as many people in the same run ({baseline:.2f} s)")
        report(await bench_send(directory, args.paid_count, 1000.0, paid=True), "paid broadcast")
        if not args.skip_30:
            report(await bench_send(directory, args.normal_count, 30.0, paid=False), "default cap")
        if args.durability_runs:
            await bench_durability(directory, runs=args.durability_runs, enqueue_count=args.enqueue,
                                   commits=args.commits)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"peak memory of the bench process (enqueue + dispatcher + database): {peak / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--enqueue", type=int, default=100_000, help="messages to enqueue (default 100,000)")
    parser.add_argument("--paid-count", type=int, default=10_000, help="messages sent at 1000/s (default 10,000)")
    parser.add_argument("--normal-count", type=int, default=1_000, help="messages sent at 30/s (default 1,000)")
    parser.add_argument("--skip-30", action="store_true", help="skip the run at 30/s")
    parser.add_argument("--durability-runs", type=int, default=3,
                        help="runs of FULL against NORMAL each (default 3; 0 skips the comparison)")
    parser.add_argument("--commits", type=int, default=1_000, help="one-row commits per durability run (default 1,000)")
    sys.exit(asyncio.run(main(parser.parse_args())))
