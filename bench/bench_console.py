"""The staff console on SQLite with 100,000 cases: the first page of the case list, and an XLSX export.

Builds a temporary SQLite database with N cases (every kind and status, deadlines spread over ±60 days, each with
its author row, in the two municipalities of the default settings: representações in Nova Xavantina, ride-hailing
reports in Sapezal, ombudsman cases in both), then in one process:

- ``bare SELECT``: the baseline, ``SELECT * FROM citizen_case WHERE <open> ORDER BY <working deadline>, id
  LIMIT 50`` on a raw sqlite3 connection — the same rows the list shows first;
- ``list_cases``: the domain function behind the list (role check, the municipalities shown, filters, the same
  ORDER BY, LIMIT 51);
- ``GET /painel/casos``: the whole page through the aiohttp server (session, role and CSRF middleware, the query,
  Jinja2 rendering), as an admin signed in with a one-time link;

each the median of several runs, printed as a ratio of the baseline. Then ``GET /painel/exportar/casos.xlsx`` of
all N rows: seconds, file size, and the peak resident memory of the process before and after (the export streams,
so the growth should stay far below the size of the data).

    python bench/bench_console.py              # 100,000 cases
    python bench/bench_console.py --n 20000    # smaller
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import re
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TODAY = dt.date(2026, 6, 15)
ADMIN = 900001
RUNS = 15
OPEN = "('received', 'in_progress', 'awaiting_complement')"
BARE = (f"SELECT * FROM citizen_case WHERE status IN {OPEN} ORDER BY CASE WHEN status = 'awaiting_complement' "
        "THEN complement_due_on ELSE due_on END, id LIMIT 50")


def build(path: Path, n: int) -> float:
    """Create the schema and N cases with authors; return the seconds it took."""
    from sqlalchemy import create_engine
    from sqlmodel import SQLModel

    import models  # noqa: F401  (registers every table)

    started = time.perf_counter()
    engine = create_engine(f"sqlite:///{path}")
    SQLModel.metadata.create_all(engine)
    engine.dispose()
    db = sqlite3.connect(path)
    db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;")
    numbers = f"WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < {n})"
    db.execute("INSERT INTO person (telegram_user_id, chat_id, first_name, locale, locale_chosen, created_at) "
               "VALUES (700001, 700001, 'João', 'pt_BR', 0, '2026-06-01 12:00:00')")
    db.execute(f"""{numbers} INSERT INTO citizen_case (protocol, kind, status, handling_role, summary, legal_refs,
        place_text, identity_restricted, received_at, due_on, updated_at, complement_due_on, municipality)
        SELECT printf('REP-2026-%06d', i),
               CASE i % 3 WHEN 0 THEN 'representation' WHEN 1 THEN 'ride_hailing' ELSE 'ombudsman' END,
               CASE i % 7 WHEN 0 THEN 'archived' WHEN 1 THEN 'answered' WHEN 2 THEN 'awaiting_complement'
                          WHEN 3 THEN 'in_progress' ELSE 'received' END,
               CASE i % 3 WHEN 0 THEN 'CLERK' WHEN 1 THEN 'INSPECTOR' ELSE 'OMBUDSMAN' END,
               'Entulho jogado na calçada da rua ' || i, '[]', 'Rua ' || (i % 500), i % 2,
               '2026-06-01 12:00:00', date('{TODAY.isoformat()}', ((i * 7919) % 121 - 60) || ' days'),
               '2026-06-01 12:00:00', date('{TODAY.isoformat()}', ((i * 104729) % 41 - 20) || ' days'),
               CASE i % 3 WHEN 0 THEN 'nova-xavantina' WHEN 1 THEN 'sapezal'
                          ELSE CASE i % 2 WHEN 0 THEN 'sapezal' ELSE 'nova-xavantina' END END
        FROM k""")
    db.execute("INSERT INTO case_author (case_id, person_id, name, pseudonym) "
               "SELECT id, 1, 'João Batista Pereira', printf('%04X', id % 65536) FROM citizen_case")
    db.execute("INSERT INTO staff_member (telegram_user_id, name, role, active, created_at) "
               f"VALUES ({ADMIN}, 'Ana', 'ADMIN', 1, '2026-06-01 12:00:00')")
    db.commit()
    db.close()
    return time.perf_counter() - started


def peak_mb() -> float:
    """The process's peak resident memory so far, MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def measure(path: Path, n: int) -> None:
    import time_machine
    from aiohttp.test_utils import TestClient, TestServer

    from bot.web import build_web_app
    from core.db import create_engine, session_factory
    from core.municipality import ConsoleTimes
    from core.settings import load_settings
    from models.console.case_list import CaseFilters, list_cases
    from models.console.signin import issue_link

    url = f"sqlite+aiosqlite:///{path}"
    settings = load_settings(database_url=url)
    engine = create_engine(url)
    sessions = session_factory(engine)
    raw = sqlite3.connect(path)
    places = tuple(settings.municipalities)

    def bare() -> float:
        started = time.perf_counter()
        rows = raw.execute(BARE).fetchall()
        assert len(rows) == 50
        return time.perf_counter() - started

    async def domain() -> float:
        started = time.perf_counter()
        async with sessions() as session:
            page = await list_cases(session=session, telegram_user_id=ADMIN, filters=CaseFilters(), today=TODAY,
                                    municipalities=places)  # as the page: the municipalities the console shows
        assert len(page.items) == 50
        return time.perf_counter() - started

    with time_machine.travel(dt.datetime(2026, 6, 15, 15, 0, tzinfo=dt.UTC), tick=True):
        async with TestClient(TestServer(build_web_app(settings, sessions))) as client:
            async with sessions() as session:
                link = await issue_link(session=session, telegram_user_id=ADMIN,
                                        now=dt.datetime.now(dt.UTC), times=ConsoleTimes.of(settings))
            signed = await client.post(f"/painel/entrar/{link.token}")
            assert signed.status == 200

            async def page() -> float:
                started = time.perf_counter()
                response = await client.get("/painel/casos")
                html = await response.text()
                assert response.status == 200 and len(re.findall(r'name="ids"', html)) == 50
                return time.perf_counter() - started

            bare(), await domain(), await page()  # warm the caches once
            baseline = statistics.median(bare() for _ in range(RUNS))
            listed = statistics.median([await domain() for _ in range(RUNS)])
            served = statistics.median([await page() for _ in range(RUNS)])
            print(f"first page of {n:,} cases (median of {RUNS}):")
            print(f"  bare SELECT … LIMIT 50       {baseline * 1000:8.2f} ms   1.0x")
            print(f"  list_cases (domain)          {listed * 1000:8.2f} ms   {listed / baseline:.1f}x")
            print(f"  GET /painel/casos (HTTP)     {served * 1000:8.2f} ms   {served / baseline:.1f}x")

            before = peak_mb()
            started = time.perf_counter()
            response = await client.get("/painel/exportar/casos.xlsx")
            size = 0
            async for chunk in response.content.iter_chunked(64 * 1024):
                size += len(chunk)
            elapsed = time.perf_counter() - started
            assert response.status == 200
            after = peak_mb()
            print(f"XLSX export of {n:,} cases: {elapsed:.1f} s, {size / 1e6:.1f} MB file; peak RSS {before:.0f} MB "
                  f"before, {after:.0f} MB after (+{after - before:.0f} MB)")
    raw.close()
    await engine.dispose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100_000, help="cases (default 100,000)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="balcao-bench-console-") as folder:
        path = Path(folder) / "console.db"
        print(f"building {args.n:,} cases … {build(path, args.n):.1f} s")
        asyncio.run(measure(path, args.n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
