"""Fixtures shared by every test: the network guard, the database, settings and named example people.

Run against SQLite (default) or a throwaway PostgreSQL cluster with ``pytest --db=postgres``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import SQLModel
from sqlmodel.ext.asyncio.session import AsyncSession

import models  # noqa: F401  (registers every table)
from core.db import SessionFactory, create_engine, session_factory
from core.municipality import Cities, Municipality, cities_of
from core.settings import Settings, get_settings, load_settings
from models.tlog.heads import use_signing_key
from models.tlog.signing import use_head_interval
from tests.auxil import network_guard
from tests.auxil.municipalities import seed_municipality_rows, write_municipalities
from tests.auxil.postgres import ThrowawayCluster

network_guard.install()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--db",
        choices=("sqlite", "postgres"),
        default="sqlite",
        help="database engine for the tests (postgres starts a throwaway cluster)",
    )


@pytest.fixture(scope="session")
def log_key() -> Any:
    """The Ed25519 key that signs the transparency log's heads in every test (as BALCAO_LOG_SIGNING_KEY_FILE would)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.generate()


@pytest.fixture(autouse=True)
def _sign_log_heads(log_key: Any) -> Iterator[None]:
    """Every commit signs its head (BALCAO_TLOG_HEAD_INTERVAL=0, as one-off commands do); the tests of the head job
    (tests/models/tlog/test_scheduled_heads.py) install a schedule."""
    use_signing_key(log_key)
    use_head_interval(0)
    yield
    use_signing_key(None)
    use_head_interval(0)


@pytest.fixture(autouse=True)
def _fresh_process_settings() -> Iterator[None]:
    """Each test reads the environment it sets: ``get_settings`` (the CLI's process-wide settings, cached once) is
    forgotten before and after, so a CLI test never sees the settings an earlier test left cached."""
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.fixture(scope="session")
def db_kind(request: pytest.FixtureRequest) -> str:
    return str(request.config.getoption("--db"))


@pytest.fixture(scope="session")
def postgres_cluster(db_kind: str) -> Iterator[ThrowawayCluster | None]:
    if db_kind != "postgres":
        yield None
        return
    cluster = ThrowawayCluster()
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def _postgres_schema(postgres_cluster: ThrowawayCluster | None) -> Iterator[str | None]:
    if postgres_cluster is None:
        yield None
        return
    import asyncio

    url = postgres_cluster.url("balcao_test")

    async def create() -> None:
        engine = create_engine(url)
        async with engine.begin() as connection:
            await connection.run_sync(SQLModel.metadata.create_all)
        await engine.dispose()

    asyncio.run(create())
    yield url


@pytest.fixture
async def db_url(tmp_path: Path, _postgres_schema: str | None) -> AsyncIterator[str]:
    """A database with the full schema, empty, for one test."""
    if _postgres_schema is None:
        url = f"sqlite+aiosqlite:///{tmp_path / 'balcao.db'}"
        engine = create_engine(url)
        async with engine.begin() as connection:
            await connection.run_sync(SQLModel.metadata.create_all)
            await seed_municipality_rows(connection)
        await engine.dispose()
        yield url
        return
    engine = create_engine(_postgres_schema)
    async with engine.begin() as connection:
        await seed_municipality_rows(connection)
    await engine.dispose()
    yield _postgres_schema
    engine = create_engine(_postgres_schema)
    tables = ", ".join(f'"{table.name}"' for table in SQLModel.metadata.sorted_tables)
    async with engine.begin() as connection:
        await connection.execute(text(f"TRUNCATE {tables} RESTART IDENTITY CASCADE"))
    await engine.dispose()


@pytest.fixture
async def engine(db_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(db_url)
    yield engine
    await engine.dispose()


@pytest.fixture
def sessions(engine: AsyncEngine) -> SessionFactory:
    """A session factory on the test database."""
    return session_factory(engine)


@pytest.fixture
async def session(sessions: SessionFactory) -> AsyncIterator[AsyncSession]:
    async with sessions() as session:
        yield session


@pytest.fixture
def settings(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Settings for a test: the test database, no token, no stray .env or BALCAO_* variable, and the two
    municipalities of ``tests/auxil/municipalities.py`` (each with its law and configured unit values)."""
    monkeypatch.chdir(tmp_path)
    for name in list(__import__("os").environ):
        if name.startswith("BALCAO_"):
            monkeypatch.delenv(name)
    return load_settings(database_url=db_url, municipalities_file=write_municipalities(tmp_path))


@pytest.fixture
def cities(settings: Settings) -> Cities:
    """The test deployment's municipalities as domain functions receive them (built once, as the root does)."""
    return cities_of(settings)


@pytest.fixture
def city(cities: Cities) -> Municipality:
    """The default municipality of the test deployment (Sapezal, Lei 1.533/2020)."""
    return cities.default


@pytest.fixture
def nx_city(cities: Cities) -> Municipality:
    """Nova Xavantina, where the Código de Posturas (Lei 1.101/2004) is in force."""
    return cities["nova-xavantina"]


@pytest.fixture
def signed_settings(settings: Settings, tmp_path: Path) -> Settings:
    """The test settings where each municipality signs its PDFs with a certificate of the local test CA."""
    from bot.sandbox.signing_ca import with_test_certificates

    return with_test_certificates(settings, tmp_path / "ca")


@pytest.fixture
def paying_settings(settings: Settings, db_url: str, tmp_path: Path) -> Settings:
    """The test settings where Nova Xavantina has a DAM office and a PIX key (``tests/auxil/payments.py``)."""
    from tests.auxil.payments import payment_toml

    return load_settings(database_url=db_url, municipalities_file=write_municipalities(
        tmp_path, nx_extra=payment_toml(), sapezal_extra=payment_toml("financas@sapezal.mt.gov.br")))


@pytest.fixture
async def emulator() -> AsyncIterator[Any]:
    """A started Bot API emulator with its default personas (Carlos the driver, Maria, Ana the clerk)."""
    from bot.sandbox.emulator import BotApiEmulator

    async with BotApiEmulator() as running:
        yield running


@pytest.fixture
async def bot_app(settings: Settings, sessions: SessionFactory, emulator: Any) -> AsyncIterator[Any]:
    """The real Balcão application, polling the emulator."""
    from tests.auxil.bot_harness import running_bot

    async with running_bot(settings, sessions, emulator) as application:
        yield application


@pytest.fixture
def reply_waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The waits before each retry in place of a refused reply (``bot.telegram_bot``), recorded instead of slept."""
    from bot import telegram_bot

    waited: list[float] = []

    async def pause(seconds: float) -> None:
        waited.append(seconds)

    monkeypatch.setattr(telegram_bot, "pause", pause)
    return waited
