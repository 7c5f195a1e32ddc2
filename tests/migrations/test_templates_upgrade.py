"""Migration 0011_trust_identity: reply templates written before it, offered to every city, become each
municipality's own (CF Art. 30): the first keeps the row, every other gets an identical copy; nothing is lost."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import sqlalchemy as sa

from bot import migrate
from bot.municipalities import MunicipalityConfig

NOVA_XAVANTINA = MunicipalityConfig(slug="nova-xavantina", name="Nova Xavantina", state="MT", ibge_code="5106257",
                                    rulebooks=("nx-posturas",))


def test_each_municipality_keeps_its_own_copy_of_an_old_template(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    url = f"sqlite+aiosqlite:///{path}"
    asyncio.run(asyncio.to_thread(migrate.upgrade, url, "0009", default_municipality=NOVA_XAVANTINA))
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        connection.execute(sa.text(
            "INSERT INTO municipality (slug, name, state, ibge_code, served, synced_at) "
            "VALUES ('sapezal', 'Sapezal', 'MT', '5107875', 1, '2026-05-04 12:00:00+00:00')"))
        connection.execute(sa.text(
            "INSERT INTO response_template (name, texts, updated_at, active) "
            "VALUES ('Posto', :texts, '2026-05-04 12:00:00+00:00', 1)"), {"texts": json.dumps({"pt_BR": "O posto."})})
    asyncio.run(asyncio.to_thread(migrate.upgrade, url, "head", default_municipality=NOVA_XAVANTINA))
    with engine.begin() as connection:
        rows = connection.execute(sa.text(
            "SELECT id, municipality, name, texts, active FROM response_template ORDER BY municipality")).all()
    engine.dispose()
    assert [(row.municipality, row.name, json.loads(row.texts), row.active) for row in rows] == [
        ("nova-xavantina", "Posto", {"pt_BR": "O posto."}, 1), ("sapezal", "Posto", {"pt_BR": "O posto."}, 1)]
    assert rows[0].id == 1  # the old row is Nova Xavantina's (the first), the copy is new
