"""Migration 0005 upgrades a database that has notices, events and audit rows: the log is backfilled from every
existing row, its head is signed, and ``notice verify`` holds at once (issue 10, item 12)."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

from sqlalchemy import text

from core import migrate
from core.db import create_engine
from models.tlog.heads import signing_key
from models.tlog.verification import verify_log
from tests.auxil.postgres import ThrowawayCluster

MOMENT = dt.datetime(2026, 3, 2, 14, 0, tzinfo=dt.UTC)
SQLITE_MOMENT = "2026-03-02 14:00:00.000000"  # how UTCDateTime stores it there
ROWS = [
    ("INSERT INTO person (id, telegram_user_id, chat_id, first_name, locale, locale_chosen, created_at) VALUES "
     "(1, 9001, 9001, 'Maria', 'pt-br', false, :at)"),
    ("INSERT INTO notice (id, number, type, rulebook, infraction_code, infraction_article, infraction_description, "
     "offender_name, place, drawn_up_at, facts, issuer_name, fine_cents, fine_units, fine_unit, recidivist, "
     "code_hash, pdf, pdf_sha256, issued_at, stage, person_id) VALUES (1, 'AI-2026-000001', 'AUTO', 'nx-posturas', "
     "'CP-I-1', 'Art. 53', 'Mato alto', 'Maria', 'Rua 7', :at, 'Mato.', 'Inês', 37800, '9', 'UPF-NX', false, "
     "'c0de', :pdf, 'ab', :at, 'NOTIFIED', 1)"),
    ("INSERT INTO notice_event (notice_id, seq, at, kind, actor, data, prev_hash, hash) VALUES "
     "(1, 1, :at, 'issued', 'cli', '{}', '0', '1')"),
    ("INSERT INTO notice_delivery (notice_id, document, state, created_at, ciencia_on, ciencia_kind) VALUES "
     "(1, 'NOTICE', 'DONE', :at, '2026-03-02', 'EXPLICIT')"),
    ("INSERT INTO audit_event (at, actor, action, entity, entity_id, details) VALUES "
     "(:at, 'cli', 'notice.issue', 'notice', '1', '{\"n\": 1}')"),
]


async def test_upgrading_backfills_the_log_from_existing_rows(db_kind: str, tmp_path: Any,
                                                             postgres_cluster: ThrowawayCluster | None) -> None:
    if db_kind == "postgres":
        assert postgres_cluster is not None
        admin = create_engine(postgres_cluster.url("postgres"), isolation_level="AUTOCOMMIT")
        async with admin.connect() as connection:
            await connection.execute(text("DROP DATABASE IF EXISTS backfill_check"))
            await connection.execute(text("CREATE DATABASE backfill_check"))
        await admin.dispose()
        url = postgres_cluster.url("backfill_check")
    else:
        url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    await asyncio.to_thread(migrate.upgrade, url, "0001")
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            for statement in ROWS:
                params: dict[str, Any] = {"at": SQLITE_MOMENT if db_kind == "sqlite" else MOMENT}
                if ":pdf" in statement:
                    params["pdf"] = b"%PDF-1.4 old notice"
                await connection.execute(text(statement), {k: v for k, v in params.items() if f":{k}" in statement})
        await asyncio.to_thread(migrate.upgrade, url)
        key = signing_key()
        assert key is not None
        async with engine.connect() as connection:
            report = await connection.run_sync(lambda sync: verify_log(sync, key=key.public_key()))
            tables = [row[0] for row in (await connection.execute(text(
                "SELECT tbl FROM tlog_entry ORDER BY idx"))).all()]
            # issue 18 §2: an old notice stays valid as issued, its signer "unsigned, before this version"
            signed = (await connection.execute(text("SELECT signer, signed_at FROM notice"))).one()
    finally:
        await engine.dispose()
    assert report.ok, report.problems
    assert tuple(signed) == (None, None)
    # 0005 logs every row of every covered table it finds (the person too, since issue 23); 0002 (after it) gives
    # the notice and the person their municipality, a covered column: one more leaf each; 0014 (the act's elements)
    # adds the provision infringed, the issuer and the platform (empty on it): one more for the notice; 0016 adds
    # signer and signed_at (NULL: issued before signatures were recorded): one more
    assert tables == ["notice", "notice_delivery", "notice_event", "audit_event", "person", "notice", "person",
                      "notice", "notice"]
