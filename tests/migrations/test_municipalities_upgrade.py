"""Migration 0002 upgrades a database of one municipality: existing rows go to the configured one (issue 11 item 2).

The rows are written at migration 0001 with plain SQL (the models already describe 0002), each NOT NULL column filled
by its type, so the test does not depend on today's models.
"""

import asyncio
import datetime as dt
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import text
from sqlalchemy.engine import Connection

from core import migrate
from core.db import create_engine
from core.municipalities import MunicipalityConfig
from tests.auxil.postgres import ThrowawayCluster

ROWS = ("person", "staff_member", "driver", "broadcast", "citizen_case", "notice")
CHILDREN = ("case_author", "case_event", "notice_delivery", "notice_filing", "vehicle", "driver_authorization")
"""Rows that refer to those (every id is 1): SQLite copies a table to alter it, and they must survive."""
NOVA_XAVANTINA = MunicipalityConfig(slug="nova-xavantina", name="Nova Xavantina", state="MT", ibge_code="5106257",
                                    rulebooks=("nx-posturas",))


def _value(column: sa.Column[Any], row: int) -> Any:
    kind = column.type
    if isinstance(kind, sa.Enum):
        return kind.enums[0]
    python = kind.python_type if not isinstance(kind, sa.types.TypeDecorator) else dt.datetime
    if python is dt.datetime:
        return dt.datetime(2026, 5, 4, 12, 0, tzinfo=dt.UTC)
    if python is dt.date:
        return dt.date(2026, 5, 4)
    if python is bool:
        return False
    if python is int:
        return row
    if python is bytes:
        return b"%PDF"
    if python is dict or python is list:
        return "[]"
    length = getattr(kind, "length", None) or 12
    return f"{column.name[:6]}{row}"[:length]


def _insert_0001_rows(connection: Connection) -> None:
    metadata = sa.MetaData()
    metadata.reflect(connection, only=[*ROWS, *CHILDREN])
    for name in (*ROWS, *CHILDREN):
        table = metadata.tables[name]
        values = {column.name: _value(column, 1) for column in table.columns
                  if not column.nullable and column.name != "id"}
        connection.execute(table.insert().values(**values))


async def _upgrade_with_data(url: str) -> dict[str, list[Any]]:
    await asyncio.to_thread(migrate.upgrade, url, "0001")
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_insert_0001_rows)
        await asyncio.to_thread(migrate.upgrade, url, default_municipality=NOVA_XAVANTINA)
        found: dict[str, list[Any]] = {}
        async with engine.connect() as connection:
            for name in ROWS:
                found[name] = list((await connection.execute(text(f"SELECT municipality FROM {name}"))).scalars())
            for name in CHILDREN:
                found[name] = list((await connection.execute(text(f"SELECT count(*) FROM {name}"))).scalars())
            found["municipality"] = list((await connection.execute(
                text("SELECT slug || ' ' || name || ' ' || ibge_code FROM municipality"))).scalars())
        return found
    finally:
        await engine.dispose()


async def test_existing_rows_go_to_the_configured_municipality(db_kind: str, tmp_path: Path,
                                                               postgres_cluster: ThrowawayCluster | None) -> None:
    if db_kind == "postgres":
        assert postgres_cluster is not None
        admin = create_engine(postgres_cluster.url("postgres"), isolation_level="AUTOCOMMIT")
        async with admin.connect() as connection:
            await connection.execute(text("DROP DATABASE IF EXISTS upgrade_0002"))
            await connection.execute(text("CREATE DATABASE upgrade_0002"))
        await admin.dispose()
        url = postgres_cluster.url("upgrade_0002")
    else:
        url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    found = await _upgrade_with_data(url)
    assert found["municipality"] == ["nova-xavantina Nova Xavantina 5106257"]
    for name in ("staff_member", "driver", "broadcast", "citizen_case", "notice"):
        assert found[name] == ["nova-xavantina"], name
    assert all(found[name] == [1] for name in CHILDREN)  # nothing referring to them was lost
    assert found["person"] == [None]  # a person's city is chosen by them (or comes from a driver registration)
    assert await migrate.current_revision(url) == migrate.head_revision()
