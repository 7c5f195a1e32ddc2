"""Alembic, driven from code: ``python -m bot db upgrade`` and the schema check at start.

Choice (documented in the README): ``run`` and ``dispatch`` *refuse to start* when the database is not at
the latest migration and say which command fixes it. Upgrading automatically is unsafe when several
processes start at once against PostgreSQL. ``demo`` and ``make run`` upgrade first, on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection

from core.db import create_engine
from core.municipalities import MunicipalityConfig

MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"


class SchemaOutOfDate(Exception):
    """The database is behind (or ahead of) the code's migrations."""


@dataclass(frozen=True, slots=True)
class AppliedMigration:
    """One migration an upgrade applied: its revision and the first line of its docstring."""

    revision: str
    description: str


def alembic_config(database_url: str) -> Config:
    """An Alembic configuration pointing at our migrations and the given database."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def upgrade(
    database_url: str, revision: str = "head", *, default_municipality: MunicipalityConfig | None = None
) -> list[AppliedMigration]:
    """Apply migrations up to ``revision`` (runs its own event loop through Alembic's env.py).

    Args:
        database_url: the database.
        revision: the target migration.
        default_municipality: where rows of a database from before municipalities go (migration 0002); by default
            the settings' default municipality (``settings.municipalities.default``).

    Returns:
        The migrations applied, oldest first (empty when the database was at ``revision`` already).
    """
    applied: list[AppliedMigration] = []

    def record(*, step: Any, **_: Any) -> None:
        if step.is_upgrade and not step.is_stamp:
            applied.append(AppliedMigration(revision=step.up_revision_id, description=step.up_revision.doc or ""))

    config = alembic_config(database_url)
    config.attributes["default_municipality"] = default_municipality
    config.attributes["on_version_apply"] = record
    command.upgrade(config, revision)
    return applied


def head_revision() -> str | None:
    """The newest migration in the code."""
    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()


def known_revisions() -> set[str]:
    """Every migration this version of Balcão knows (a database at another one is from a newer version)."""
    return {script.revision for script in ScriptDirectory.from_config(alembic_config("sqlite://")).walk_revisions()}


def current_revision_of(connection: Connection) -> str | None:
    """The migration a (synchronous) connection's database is at; None for an empty database."""
    return MigrationContext.configure(connection).get_current_revision()


async def current_revision(database_url: str) -> str | None:
    """The migration the database is at (None for an empty database)."""
    engine = create_engine(database_url)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(current_revision_of)
    finally:
        await engine.dispose()


async def check_schema(database_url: str) -> None:
    """Refuse to go on when the database is not at the latest migration.

    Raises:
        SchemaOutOfDate: with the command that fixes it.
    """
    current, head = await current_revision(database_url), head_revision()
    if current != head:
        raise SchemaOutOfDate(
            f"The database is at migration {current or '(empty)'} but this version of Balcão needs {head}.\n"
            "Run: python -m bot db upgrade"
        )
