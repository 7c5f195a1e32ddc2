"""The migrations build exactly the schema the models describe, on SQLite and on PostgreSQL."""

import asyncio
import datetime as dt
import hashlib
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel
from sqlmodel.ext.asyncio.session import AsyncSession

from core import migrate
from core.db import create_engine
from models.notices.chain import canonical_json, elements_digest
from models.notices.tables import IMMUTABLE_FIELDS, Notice, NoticeFiling
from tests.auxil.postgres import ThrowawayCluster


def _differences(connection: Connection) -> list[Any]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return compare_metadata(context, SQLModel.metadata)


async def _diff_after_upgrade(url: str) -> list[Any]:
    await asyncio.to_thread(migrate.upgrade, url)
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(_differences)
    finally:
        await engine.dispose()


async def test_upgrade_from_empty_matches_the_models(db_kind: str, tmp_path: Any,
                                                    postgres_cluster: ThrowawayCluster | None) -> None:
    if db_kind == "postgres":
        assert postgres_cluster is not None
        admin = create_engine(postgres_cluster.url("postgres"), isolation_level="AUTOCOMMIT")
        async with admin.connect() as connection:
            await connection.execute(text("DROP DATABASE IF EXISTS migrations_check"))
            await connection.execute(text("CREATE DATABASE migrations_check"))
        await admin.dispose()
        url = postgres_cluster.url("migrations_check")
    else:
        url = f"sqlite+aiosqlite:///{tmp_path / 'migrated.db'}"
    assert await _diff_after_upgrade(url) == []
    assert await migrate.current_revision(url) == migrate.head_revision()


async def test_the_schema_check_refuses_an_empty_database(tmp_path: Any) -> None:
    with pytest.raises(migrate.SchemaOutOfDate, match="python -m bot db upgrade"):
        await migrate.check_schema(f"sqlite+aiosqlite:///{tmp_path / 'empty.db'}")


async def test_0003_upgrades_existing_notices_and_filings(tmp_path: Any) -> None:
    """Migration 0003: an existing notice keeps its elements digest (its chain still verifies), gets no infraction
    date, quantity or warning; a filing loses the deposit column no appeal may depend on (STF Súmula Vinculante 21)."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    await asyncio.to_thread(migrate.upgrade, url, "0010")
    engine = create_engine(url)
    async with engine.begin() as connection:
        await connection.execute(text(
            "INSERT INTO notice (number, type, rulebook, infraction_code, infraction_article, infraction_description,"
            " offender_name, place, drawn_up_at, facts, issuer_name, fine_cents, fine_units, fine_unit, recidivist,"
            " code_hash, pdf, pdf_sha256, issued_at, stage) VALUES ('AI-2026-000001', 'AUTO', 'nx-posturas', 'CP-I-1',"
            " 'Art. 53', 'Mato', 'Maria', 'Rua 7', '2026-03-02 13:30:00.000000', 'Mato alto', 'Inês', 37800, '9.00',"
            " 'UPF-NX', 0, 'h', x'00', 's', '2026-03-02 13:31:00.000000', 'APPEALED')"))
        await connection.execute(text(
            "INSERT INTO notice_filing (notice_id, kind, text, filed_by, filed_at, deposit_at) VALUES (1, 'RECURSO',"
            " 'Recorro', 'person:1', '2026-03-20 12:00:00.000000', '2026-03-21 12:00:00.000000')"))
    await engine.dispose()
    await asyncio.to_thread(migrate.upgrade, url)
    engine = create_engine(url)
    try:
        async with AsyncSession(engine) as session:
            notice = await session.get(Notice, 1)
            filing = await session.get(NoticeFiling, 1)
            assert notice is not None and filing is not None
            assert (notice.infraction_on, notice.quantity, notice.warning_only, notice.recidivism_of) == (
                None, None, False, None)
            assert not hasattr(filing, "deposit_at") and filing.vista_first_on is None
            old: dict[str, Any] = {}
            for name in IMMUTABLE_FIELDS:  # the digest as the notice's "issued" event recorded it before 0003
                value = getattr(notice, name)
                value = (hashlib.sha256(value).hexdigest() if isinstance(value, bytes) else
                         value.astimezone(dt.UTC).isoformat() if isinstance(value, dt.datetime) else
                         getattr(value, "value", value))
                old[name] = value
            assert elements_digest(notice) == hashlib.sha256(canonical_json(old).encode("utf-8")).hexdigest()
    finally:
        await engine.dispose()
