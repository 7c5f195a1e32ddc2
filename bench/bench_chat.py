"""Chat throughput and latency: /ajuda from 30 and from 200 people, Balcão against a bare PTB echo bot.

Both bots poll the same Bot API emulator, which runs in its own process. Each round queues ``--per-user``
``/ajuda`` messages from each of ``--users`` people at the same instant and times, by the emulator's clock, the
span from the queueing to the last answer, and each message's latency: from its queueing to the answer to it (a
person's n-th answer answers their n-th message); rounds alternate between the two bots, so the shared machine's
drifting load falls on both, and the ratio printed is the median of the rounds' ratios. Latencies are pooled
over the counted rounds; printed as p50 and p95 per bot, and Balcão's p95 over the echo bot's (goal ≤ 2).
The baseline is a bare python-telegram-bot application whose only handler answers /ajuda with a fixed text, with
the same 8 concurrent updates as Balcão (so the ratio is Balcão's own cost, not a difference in concurrency);
Balcão runs as deployed (``bot.app``: the person loaded from SQLite in one statement, the translated help,
per-person ordering). Printed: both rates and their ratio (issue 9: 0.43 before per-person ordering; issue 21:
0.21 with five statements per update before the handler; the goal is ≥ 0.7). A warm-up round per bot is not
counted (Balcão creates the people then).

    python bench/bench_chat.py                    # 30 and 200 people × 20 messages, 5 rounds per bot
    python bench/bench_chat.py --users 30 --per-user 20 --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FIRST_USER = 910_000_000


def emulator_process(conn: Connection, users: int) -> None:
    """Run the emulator; on each request, queue the messages at once and answer the seconds until all are answered."""
    from bot.sandbox.emulator import BotApiEmulator

    async def serve() -> None:
        emulator = BotApiEmulator()
        root = await emulator.start()
        people = [emulator.add_user(FIRST_USER + index, f"U{index}", language_code="pt-br") for index in range(users)]
        conn.send((root, emulator.token))
        loop = asyncio.get_running_loop()
        calls = emulator.calls
        while (per_user := await loop.run_in_executor(None, conn.recv)) is not None:
            seen, answered, first = len(calls), 0, len(calls)

            def all_answered(expected: int = per_user * len(people)) -> bool:
                # counted incrementally: rescanning every call on every change would make the emulator the
                # bottleneck, slowing whichever bot runs later
                nonlocal seen, answered
                answered += sum(1 for call in calls[seen:] if call.method == "sendMessage" and call.ok)
                seen = len(calls)
                return answered >= expected

            started = time.perf_counter()
            queued = datetime.now(UTC)
            for _ in range(per_user):
                for person in people:
                    emulator.send_text(person, "/ajuda")
            await emulator.wait_until(all_answered, timeout=300)
            seconds = time.perf_counter() - started
            latencies = [(call.at - queued).total_seconds() for call in calls[first:]
                         if call.method == "sendMessage" and call.ok]
            conn.send((seconds, latencies))
        await emulator.stop()

    asyncio.run(serve())


def echo_application(root: str, token: str) -> Any:
    """The baseline: a bare PTB application answering /ajuda, 8 updates at a time like Balcão."""
    from telegram import Update
    from telegram.ext import ApplicationBuilder, CommandHandler, ContextTypes

    from bot.app import CONCURRENT_HANDLERS

    async def ajuda(update: Update, _context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message is not None
        await update.effective_message.reply_text("Ajuda: /start, /representacao, /ouvidoria")

    application = (ApplicationBuilder().token(token).base_url(f"{root}/bot").base_file_url(f"{root}/file/bot")
                   .concurrent_updates(CONCURRENT_HANDLERS).build())
    application.add_handler(CommandHandler("ajuda", ajuda))
    return application


async def balcao_application(root: str, token: str, directory: Path, engine: Any = None) -> tuple[Any, Any]:
    """Balcão's application on a SQLite database (created with the first), and its engine (to dispose of)."""
    from pydantic import SecretStr
    from sqlmodel import SQLModel

    import models  # noqa: F401  (registers every table)
    from bot.app import build_application
    from core.db import create_engine, session_factory
    from core.settings import load_settings

    url = f"sqlite+aiosqlite:///{directory / 'bench_chat.db'}"
    if engine is None:
        engine = create_engine(url)
        async with engine.begin() as connection:
            await connection.run_sync(SQLModel.metadata.create_all)
    settings = load_settings(database_url=url).model_copy(
        update={"telegram_token": SecretStr(token), "telegram_api_url": root}
    )
    return build_application(settings, session_factory(engine)), engine


async def one_round(application: Any, conn: Connection, *, per_user: int, users: int
                    ) -> tuple[float, list[float], float]:
    """Answered updates per second of one round (every person's messages queued at once, until all are answered),
    each answer's latency in seconds, and this process's CPU seconds per answered update (every thread: the
    event loop's and aiosqlite's; the emulator runs in its own process)."""
    from bot.app import start_application, stop_application
    from handlers.chat.context import SESSIONS_KEY

    cpu = time.process_time()
    deployed = SESSIONS_KEY in application.bot_data  # Balcão starts as `run` does (its people cache watched)
    if deployed:
        await start_application(application)
    else:
        await application.initialize()
        await application.start()
    await application.updater.start_polling(poll_interval=0.0, timeout=1)
    try:
        conn.send(per_user)
        seconds, latencies = await asyncio.get_running_loop().run_in_executor(None, conn.recv)
    finally:
        await application.updater.stop()
        if deployed:
            await stop_application(application)
        else:
            await application.stop()
            await application.shutdown()
    return float(per_user * users / seconds), latencies, (time.process_time() - cpu) / (per_user * users)


def percentile(values: list[float], fraction: float) -> float:
    """The ``fraction`` quantile of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


async def measure(args: argparse.Namespace, users: int) -> None:
    """Start an emulator with ``users`` people; alternate echo and Balcão rounds; print rates, ratio, latencies."""
    parent, child = multiprocessing.Pipe()
    process = multiprocessing.get_context("spawn").Process(target=emulator_process, args=(child, users))
    process.start()
    root, token = await asyncio.get_running_loop().run_in_executor(None, parent.recv)
    pairs: list[tuple[float, float]] = []
    cpu: dict[str, list[float]] = {"echo": [], "balcao": []}
    waits: dict[str, list[float]] = {"echo": [], "balcao": []}
    try:
        with tempfile.TemporaryDirectory() as folder:
            engine = None
            for index in range(args.rounds + 1):  # round 0 warms both up (Balcão creates the people)
                echo, echo_waits, echo_cpu = await one_round(echo_application(root, token), parent,
                                                   per_user=args.per_user, users=users)
                application, engine = await balcao_application(root, token, Path(folder), engine)
                balcao, balcao_waits, balcao_cpu = await one_round(application, parent, per_user=args.per_user,
                                                                   users=users)
                if index:
                    pairs.append((echo, balcao))
                    waits["echo"] += echo_waits
                    waits["balcao"] += balcao_waits
                    cpu["echo"].append(echo_cpu)
                    cpu["balcao"].append(balcao_cpu)
            if engine is not None:
                await engine.dispose()
    finally:
        parent.send(None)
        process.join(timeout=10)
    ratios = sorted(balcao / echo for echo, balcao in pairs)
    print(f"/ajuda from {users} people × {args.per_user}, {args.rounds} alternating rounds per bot")
    print(f"bare PTB echo bot: {statistics.median(e for e, _ in pairs):8.1f} answered updates/s (median)")
    print(f"Balcão:            {statistics.median(b for _, b in pairs):8.1f} answered updates/s (median)")
    print(f"ratio Balcão / echo, median of the rounds: {statistics.median(ratios):.2f}  "
          f"(range {ratios[0]:.2f}–{ratios[-1]:.2f}; goal ≥ 0.70)")
    for name, label in (("echo", "bare PTB echo bot"), ("balcao", "Balcão")):
        print(f"latency {label + ':':19} p50 {percentile(waits[name], 0.50) * 1000:7.0f} ms   "
              f"p95 {percentile(waits[name], 0.95) * 1000:7.0f} ms")
    p95 = percentile(waits["balcao"], 0.95) / percentile(waits["echo"], 0.95)
    print(f"p95 Balcão / echo: {p95:.2f}  (goal ≤ 2.00)")
    echo_ms, balcao_ms = (statistics.median(cpu[name]) * 1000 for name in ("echo", "balcao"))
    print(f"CPU of this process per answered update (median of the rounds): echo {echo_ms:.2f} ms, "
          f"Balcão {balcao_ms:.2f} ms, ratio {echo_ms / balcao_ms:.2f} (less noisy than the rates on a shared machine)")


async def main(args: argparse.Namespace) -> None:
    """Measure each number of people in turn."""
    for users in args.users:
        await measure(args, users)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--users", type=int, nargs="+", default=[30, 200])
    parser.add_argument("--per-user", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    asyncio.run(main(parser.parse_args()))
