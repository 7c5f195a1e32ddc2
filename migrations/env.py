"""Alembic environment: runs migrations on the async engine given by the config's URL."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from alembic import context
from sqlalchemy import JSON
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

import models  # noqa: F401  (registers every table)
from core.db import create_engine
from models.columns import UTCDateTime

config = context.config
target_metadata = SQLModel.metadata


def _render_item(type_: str, obj: Any, autogen_context: Any) -> str | Literal[False]:
    """Render our column types by name, so migrations import them instead of spelling out variants."""
    if type_ == "type" and isinstance(obj, UTCDateTime):
        autogen_context.imports.add("import models.columns")
        return "models.columns.UTCDateTime()"
    if type_ == "type" and isinstance(obj, JSON) and getattr(obj, "_variant_mapping", None):
        autogen_context.imports.add("import models.columns")
        return "models.columns.JSONData"
    return False


class ForeignKeysBroken(Exception):
    """A migration left rows that refer to nothing (SQLite, checked after the migrations ran)."""


def _run(connection: Connection) -> None:
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        # SQLite alters a table by copying it and dropping the old one, which other rows still reference: its own
        # procedure turns the foreign keys off for the change and checks them after (sqlite.org/lang_altertable).
        connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        render_item=_render_item,
        on_version_apply=config.attributes.get("on_version_apply"),
    )
    with context.begin_transaction():
        context.run_migrations()
        if sqlite and (broken := connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()):
            raise ForeignKeysBroken(f"rows refer to missing rows after the migration: {broken[:5]}")


async def _run_async() -> None:
    engine = create_engine(config.get_main_option("sqlalchemy.url") or "")
    async with engine.connect() as connection:
        await connection.run_sync(_run)
        await connection.commit()
    await engine.dispose()


def run_migrations_online() -> None:
    """Run the migrations (offline SQL generation is not used)."""
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    asyncio.run(_run_async())


run_migrations_online()
