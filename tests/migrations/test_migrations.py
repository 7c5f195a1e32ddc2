"""The migrations build exactly the schema the models describe, on SQLite and on PostgreSQL."""

import asyncio
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

from bot import migrate
from bot.db import create_engine
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
