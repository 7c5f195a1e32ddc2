"""The daily driver reminder scan over 1,000,000 authorizations on SQLite: elapsed time and peak memory.

Builds a temporary SQLite database with N linked drivers (person, driver, vehicle, authorization, inspections;
validity ends spread over a year, 1% with a failed inspection, 0.5% suspended), then runs the scan
(``notifications.driver_reminders``) in a fresh process for three days:

- ``daily``: a normal day (the previous day was scanned);
- ``after 7 days down``: the process was down for a week and catches up;
- ``1 January``: the day every vehicle entering its last year of service is told (Art. 2 §§1–2).

Each scan prints its elapsed seconds, the messages it enqueued, the peak resident memory of the process that ran
it (imports included), and its time
as a ratio of a baseline measured in the same process on the same database: ``SELECT count(*)`` over the
authorizations, and a full read of their validity dates (``SELECT sum(julianday(valid_until))``).

    python bench/bench_driver_scan.py              # 1,000,000 authorizations
    python bench/bench_driver_scan.py --n 100000   # smaller
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TODAY = dt.date(2026, 6, 15)
SCENARIOS = (
    ("daily", TODAY, TODAY - dt.timedelta(days=1)),
    ("after 7 days down", TODAY + dt.timedelta(days=10), TODAY + dt.timedelta(days=3)),
    ("1 January", dt.date(2027, 1, 1), dt.date(2026, 12, 31)),
)


def build(path: Path, n: int) -> float:
    """Create the schema and N linked drivers; return the seconds it took."""
    from sqlalchemy import create_engine
    from sqlmodel import SQLModel

    import models  # noqa: F401  (registers every table)

    started = time.perf_counter()
    engine = create_engine(f"sqlite:///{path}")
    SQLModel.metadata.create_all(engine)
    engine.dispose()
    db = sqlite3.connect(path)
    db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-64000;")
    today = TODAY.isoformat()
    numbers = f"WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < {n})"
    now = "'2026-06-01 12:00:00.000000'"
    db.execute(
        f"{numbers} INSERT INTO person (id, telegram_user_id, chat_id, first_name, locale, locale_chosen, "
        f"created_at) SELECT i, 1000000000 + i, 1000000000 + i, 'P', 'pt_BR', 0, {now} FROM k"
    )
    db.execute(
        f"{numbers} INSERT INTO driver (id, cpf, name, phone, cnh_number, cnh_category, cnh_issued_on, person_id, "
        f"linked_at, created_at, updated_at) SELECT i, printf('%011d', i), 'Motorista', NULL, printf('%011d', i), "
        f"'B', '2015-01-01', i, {now}, {now}, {now} FROM k"
    )
    db.execute(
        f"{numbers} INSERT INTO vehicle (id, plate, renavam, model_year, created_at) "
        f"SELECT i, printf('B%06d', i), printf('%011d', i), 2021 + i % 6, {now} FROM k"
    )
    paid = f"date('{today}', '-' || (i % 395) || ' days')"
    suspended = "CASE WHEN i % 200 = 0 THEN"
    db.execute(
        f"{numbers} INSERT INTO driver_authorization (id, number, driver_id, vehicle_id, approved_on, fee_paid_on, "
        f"valid_until, vehicle_since, suspended_since, suspended_until, created_at, updated_at) "
        f"SELECT i, printf('A%07d', i), i, i, {paid}, {paid}, date({paid}, '+12 months'), {paid}, "
        f"{suspended} date('{today}', '-30 days') END, {suspended} date('{today}', '+' || (i % 60) || ' days') END, "
        f"{now}, {now} FROM k"
    )
    db.execute(
        f"{numbers} INSERT INTO vehicle_inspection (vehicle_id, inspected_on, result, notes, created_at) "
        f"SELECT i, {paid}, 'APPROVED', '', {now} FROM k"
    )
    db.execute(
        f"{numbers} INSERT INTO vehicle_inspection (vehicle_id, inspected_on, result, notes, created_at) "
        f"SELECT i, date('{today}', '-' || (i % 9) || ' days'), 'FAILED', '', {now} FROM k "
        f"WHERE i % 100 = 0 AND date('{today}', '-' || (i % 9) || ' days') > {paid}"
    )
    db.commit()
    db.execute("ANALYZE")
    db.close()
    return time.perf_counter() - started


async def _measure(path: Path, today: dt.date, last_scanned: dt.date) -> dict[str, float]:
    from sqlalchemy import text

    from core.db import create_engine, session_factory
    from core.settings import load_settings
    from models.drivers.tables import ReminderScanMark
    from notifications.driver_reminders import SCAN_NAME
    from notifications.scans import ScanInputs, run_scan

    url = f"sqlite+aiosqlite:///{path}"
    settings = load_settings(database_url=url, municipal_holidays=[])
    engine = create_engine(url)
    sessions = session_factory(engine)
    async with sessions() as session:
        mark = await session.get(ReminderScanMark, SCAN_NAME)
        if mark is None:
            session.add(ReminderScanMark(name=SCAN_NAME, last_day=last_scanned))
        else:
            mark.last_day = last_scanned
        await session.commit()
        started = time.perf_counter()
        await session.exec(text("SELECT count(*) FROM driver_authorization"))  # type: ignore[call-overload]
        count_seconds = time.perf_counter() - started
        started = time.perf_counter()
        await session.exec(text("SELECT sum(julianday(valid_until)) FROM driver_authorization"))  # type: ignore[call-overload]
        read_seconds = time.perf_counter() - started
    now = dt.datetime.combine(today, dt.time(6, 0), tzinfo=settings.tz)
    async with sessions() as session:
        started = time.perf_counter()
        enqueued = await run_scan(SCAN_NAME, session=session, now=now, inputs=ScanInputs.of(settings))
        scan_seconds = time.perf_counter() - started
    await engine.dispose()
    return {
        "scan": scan_seconds, "enqueued": enqueued, "count": count_seconds, "read": read_seconds, "peak_mb": peak_mb()
    }


def peak_mb() -> float:
    """This process's peak resident memory in MB.

    Linux's ``VmHWM`` (``getrusage``'s ``ru_maxrss`` would include the parent's peak, inherited across fork and
    exec); ``ru_maxrss`` elsewhere.
    """
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)


def main() -> int:
    """Build the data, run the three scans each in a fresh process, print their figures; 1 when over budget."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=1_000_000, help="authorizations (default 1,000,000)")
    parser.add_argument("--measure", nargs=3, metavar=("DB", "TODAY", "LAST_SCANNED"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        path, today, last = Path(args.measure[0]), *map(dt.date.fromisoformat, args.measure[1:])
        print(json.dumps(asyncio.run(_measure(path, today, last))))
        return 0
    with tempfile.TemporaryDirectory(prefix="balcao-bench-") as directory:
        path = Path(directory) / "drivers.db"
        print(f"building {args.n:,} linked drivers with their authorizations in {path} ...", flush=True)
        print(f"built in {build(path, args.n):.1f} s ({path.stat().st_size / 1e6:.0f} MB)")
        worst_seconds = worst_mb = 0.0
        for name, today, last in SCENARIOS:
            command = [sys.executable, __file__, "--measure", str(path), today.isoformat(), last.isoformat()]
            figures = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
            worst_seconds, worst_mb = max(worst_seconds, figures["scan"]), max(worst_mb, figures["peak_mb"])
            print(
                f"{name:>18} ({today}): scan {figures['scan']:.2f} s, {figures['enqueued']:,} enqueued, "
                f"peak RSS {figures['peak_mb']:.0f} MB; baseline count(*) {figures['count']:.3f} s "
                f"(scan = {figures['scan'] / figures['count']:.1f}x), full read of valid_until {figures['read']:.3f} s "
                f"(scan = {figures['scan'] / figures['read']:.2f}x)"
            )
        verdict = "within" if worst_seconds <= 10 and worst_mb <= 300 else "OVER"
        print(f"worst: {worst_seconds:.2f} s, {worst_mb:.0f} MB peak: {verdict} the 10 s / 300 MB budget")
        return 0 if verdict == "within" else 1


if __name__ == "__main__":
    sys.exit(main())
