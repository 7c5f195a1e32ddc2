"""Migration 0017 keeps the decisions already given valid as given: no document of their own ("unsigned, before
this version"), their text, outcome and author unchanged, and the transparency log still verifying, with one new
leaf for each filing (issue 18 "Done when")."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import text

from core import migrate
from core.db import create_engine
from models.tlog.heads import signing_key
from models.tlog.verification import verify_log
from tests.migrations.test_tlog_backfill import ROWS, SQLITE_MOMENT

DECIDED = ("INSERT INTO notice_filing (id, notice_id, kind, text, person_id, filed_by, filed_at, decided_at, "
           "decided_by, outcome, decision_text) VALUES (1, 1, 'RECLAMACAO', 'Não sou a dona.', 1, 'person:1', :at, "
           ":at, 'staff:97002', 'DENIED', 'Improcedente: as fotos mostram o mato alto na data da vistoria.')")


async def test_0017_leaves_existing_decisions_unsigned_and_the_log_valid(tmp_path: Any) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    await asyncio.to_thread(migrate.upgrade, url, "0001")
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            for statement in [*ROWS, DECIDED]:
                params: dict[str, Any] = {"at": SQLITE_MOMENT, "pdf": b"%PDF-1.4 old notice"}
                await connection.execute(text(statement), {k: v for k, v in params.items() if f":{k}" in statement})
        await asyncio.to_thread(migrate.upgrade, url, "0016")
        async with engine.connect() as connection:
            before = (await connection.execute(text(
                "SELECT count(*) FROM tlog_entry WHERE tbl = 'notice_filing'"))).scalar_one()
        await asyncio.to_thread(migrate.upgrade, url, "0017")
        async with engine.connect() as connection:
            after = (await connection.execute(text(
                "SELECT count(*) FROM tlog_entry WHERE tbl = 'notice_filing'"))).scalar_one()
        await asyncio.to_thread(migrate.upgrade, url)  # and the later migrations keep the log verifying
        key = signing_key()
        assert key is not None
        async with engine.connect() as connection:
            report = await connection.run_sync(lambda sync: verify_log(sync, key=key.public_key()))
            row = (await connection.execute(text(
                "SELECT decision_pdf, decision_pdf_sha256, decision_text, outcome FROM notice_filing"))).one()
    finally:
        await engine.dispose()
    assert report.ok, report.problems
    assert after == before + 1  # 0017's new covered columns enter the filing's leaf once
    assert tuple(row) == (None, None, "Improcedente: as fotos mostram o mato alto na data da vistoria.", "DENIED")
