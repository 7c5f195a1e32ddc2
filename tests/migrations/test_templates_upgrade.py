"""Migration 0015 (trust-identity): reply templates written before it, offered to every city, become each
municipality's own (CF Art. 30): the first keeps the row, every other gets an identical copy; nothing is lost."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from sqlalchemy import text

from core import migrate
from core.db import create_engine
from core.municipalities import MunicipalityConfig
from tests.auxil.postgres import ThrowawayCluster

NOVA_XAVANTINA = MunicipalityConfig(slug="nova-xavantina", name="Nova Xavantina", state="MT", ibge_code="5106257",
                                    rulebooks=("nx-posturas",))


async def _database(db_kind: str, tmp_path: Path, cluster: ThrowawayCluster | None) -> str:
    if db_kind != "postgres":
        return f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    assert cluster is not None
    admin = create_engine(cluster.url("postgres"), isolation_level="AUTOCOMMIT")
    async with admin.connect() as connection:
        await connection.execute(text("DROP DATABASE IF EXISTS upgrade_templates"))
        await connection.execute(text("CREATE DATABASE upgrade_templates"))
    await admin.dispose()
    return cluster.url("upgrade_templates")


async def test_each_municipality_keeps_its_own_copy_of_an_old_template(
    db_kind: str, tmp_path: Path, postgres_cluster: ThrowawayCluster | None
) -> None:
    url = await _database(db_kind, tmp_path, postgres_cluster)
    await asyncio.to_thread(migrate.upgrade, url, "0009", default_municipality=NOVA_XAVANTINA)
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.execute(text(
                "INSERT INTO municipality (slug, name, state, ibge_code, served, synced_at) "
                "VALUES ('sapezal', 'Sapezal', 'MT', '5107875', true, '2026-05-04 12:00:00+00:00')"))
            await connection.execute(text(
                "INSERT INTO response_template (name, texts, updated_at, active) "
                "VALUES ('Posto', :texts, '2026-05-04 12:00:00+00:00', true)"),
                {"texts": json.dumps({"pt_BR": "O posto."})})
        await asyncio.to_thread(migrate.upgrade, url, "head", default_municipality=NOVA_XAVANTINA)
        async with engine.connect() as connection:
            rows: list[Any] = list((await connection.execute(text(
                "SELECT id, municipality, name, texts, active FROM response_template ORDER BY municipality"))).all())
    finally:
        await engine.dispose()
    texts = [row.texts if isinstance(row.texts, dict) else json.loads(row.texts) for row in rows]
    assert [(row.municipality, row.name, bool(row.active)) for row in rows] == [
        ("nova-xavantina", "Posto", True), ("sapezal", "Posto", True)]
    assert texts == [{"pt_BR": "O posto."}] * 2
    assert rows[0].id == 1  # the old row is Nova Xavantina's (the first), the copy is new
