"""The transparency log on SQLite: the cost one commit adds, and an inclusion proof, with N entries already logged.

Builds a temporary database with N audit rows already in the log (``models.tlog.appending.backfill``), then times:

- ``commit with one audit row``: a session commits one audit row (the commit hook reads the row back and
  integrates its entry; heads are signed by the head job, on a schedule, as in ``run``), against a baseline of
  the same commit with the log's hook switched off (the cost the log adds);
- ``head job``: one run of :func:`models.tlog.signing.sign_pending_head` over the entries those commits left
  waiting (hashing them into the tree, storing their subtrees, signing one head), per entry and per head;
- ``inclusion proof``: reading the proof of a leaf from the stored subtrees, against recomputing the root from
  every stored leaf hash (what a log that keeps no subtrees would do for each proof).

Each line prints milliseconds per operation and its ratio to its baseline, measured in the same run; the commit
also as the ratio of the medians of commits made one of each in turn, and of the CPU time the process spent in
them (both steadier on a loaded machine, where the wall clock mostly measures waiting for a core).

    python bench/bench_tlog.py              # 200,000 entries
    python bench/bench_tlog.py --n 20000    # smaller
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


async def main(n: int, repeat: int) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from sqlalchemy import event, text
    from sqlalchemy.orm import Session
    from sqlmodel import SQLModel

    import models  # noqa: F401
    from core.db import create_engine, session_factory
    from models.audit import record
    from models.tlog import appending, merkle
    from models.tlog.heads import use_signing_key
    from models.tlog.proofs import inclusion_proof
    from models.tlog.signing import sign_pending_head, use_head_interval

    use_signing_key(Ed25519PrivateKey.generate())
    use_head_interval(5)  # run's default: the head job signs (BALCAO_TLOG_HEAD_INTERVAL)
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{Path(folder) / 'bench.db'}"
        engine = create_engine(url)
        async with engine.begin() as connection:
            await connection.run_sync(SQLModel.metadata.create_all)
            await connection.execute(text(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :n) "
                "INSERT INTO audit_event (at, actor, action, entity, entity_id, details) "
                "SELECT '2026-03-02 14:00:00.000000', 'cli', 'bench', 'x', i, '{}' FROM n"), {"n": n})
            await connection.run_sync(appending.backfill)
        sessions = session_factory(engine)

        cpu: dict[bool, float] = {True: 0.0, False: 0.0}  # CPU seconds of this process (both threads), by log on

        async def commits(count: int = repeat) -> float:
            start, start_cpu = time.perf_counter(), time.process_time()
            for i in range(count):
                async with sessions() as session:
                    await record(session=session, actor="cli", action="bench", entity="x", entity_id=str(i))
                    await session.commit()
            logging_on = event.contains(Session, "before_commit", appending._append_before_commit)
            cpu[logging_on] += time.process_time() - start_cpu
            return (time.perf_counter() - start) / count

        await commits()  # warm up
        cpu[True] = 0.0
        logged, plain = [], []
        for _ in range(3):  # interleaved, best of three each
            logged.append(await commits())
            event.remove(Session, "before_commit", appending._append_before_commit)
            plain.append(await commits())
            event.listen(Session, "before_commit", appending._append_before_commit)
        logged_best, plain_best = min(logged), min(plain)
        print(f"commit with one audit row ({n:,} entries): {logged_best * 1000:.2f} ms with the log, "
              f"{plain_best * 1000:.2f} ms without; ratio {logged_best / plain_best:.2f}")
        pairs = []  # on a shared machine: one commit of each in turn, so that both see the same load
        for i in range(3 * repeat):  # which one goes first alternates
            with_log = await commits(1) if i % 2 == 0 else None
            event.remove(Session, "before_commit", appending._append_before_commit)
            without = await commits(1)
            event.listen(Session, "before_commit", appending._append_before_commit)
            pairs.append((with_log if with_log is not None else await commits(1), without))
        median_log = statistics.median(p[0] for p in pairs)
        median_plain = statistics.median(p[1] for p in pairs)
        print(f"  the same, {len(pairs)} commits of each in turn: median {median_log * 1000:.2f} ms with the log, "
              f"{median_plain * 1000:.2f} ms without; ratio of medians {median_log / median_plain:.2f}")
        print(f"  CPU time of all those commits (what they cost, whatever the machine's load): ratio "
              f"{cpu[True] / cpu[False]:.2f}")

        async with engine.begin() as connection:
            waiting = int((await connection.execute(text("SELECT count(*) FROM tlog_entry"))).scalar_one()) - n
            start = time.perf_counter()
            await connection.run_sync(sign_pending_head)
            job = time.perf_counter() - start
        print(f"head job over {waiting:,} waiting entries: {job * 1000:.1f} ms for one signed head "
              f"({job / max(1, waiting) * 1000:.3f} ms per entry)")

        async with engine.connect() as connection:
            size = int((await connection.execute(text("SELECT size FROM tlog_state"))).scalar_one())
            start = time.perf_counter()
            for i in range(repeat):
                await connection.run_sync(inclusion_proof, (i * 7919) % size, size)
            proof = (time.perf_counter() - start) / repeat
            start = time.perf_counter()
            for _ in range(max(1, repeat // 20)):
                leaves = [bytes(row[0]) for row in await connection.execute(
                    text("SELECT leaf_hash FROM tlog_entry ORDER BY idx"))]
                frontier = merkle.Frontier()
                for leaf in leaves:
                    frontier.append(leaf)
                frontier.root()
            full = (time.perf_counter() - start) / max(1, repeat // 20)
        print(f"inclusion proof ({size:,} entries): {proof * 1000:.2f} ms from stored subtrees, "
              f"{full * 1000:.1f} ms rehashing every leaf; ratio {proof / full:.4f}")
        await engine.dispose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=100)
    args = parser.parse_args()
    asyncio.run(main(args.n, args.repeat))
