"""Fixtures of the command-line tests: a database the CLI accepts (every table, stamped at the latest migration)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from sqlmodel import SQLModel

import models  # noqa: F401  (every table)
from core.db import create_engine
from core.migrate import alembic_config
from core.settings import get_settings
from tests.auxil.municipalities import write_municipalities


@pytest.fixture
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A migrated-looking SQLite database with every table (stamped at the latest migration), serving the test
    municipalities (``tests/auxil/municipalities.py``); the CLI syncs their rows."""
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("BALCAO_"):
            monkeypatch.delenv(name)
    path = tmp_path / "balcao.db"
    url = f"sqlite+aiosqlite:///{path}"

    async def create() -> None:
        engine = create_engine(url)
        async with engine.begin() as connection:
            await connection.run_sync(SQLModel.metadata.create_all)
        await engine.dispose()

    asyncio.run(create())
    command.stamp(alembic_config(url), "head")
    monkeypatch.setenv("BALCAO_DATABASE_URL", url)
    monkeypatch.setenv("BALCAO_MUNICIPALITIES_FILE", str(write_municipalities(tmp_path)))
    get_settings.cache_clear()
    yield path
    get_settings.cache_clear()
