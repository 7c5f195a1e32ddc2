"""Operations endpoints: /metrics in the Prometheus format, /readyz naming each part that is not ready."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from prometheus_client.parser import text_string_to_metric_families

from bot.web import build_web_app
from core import i18n, migrate
from core.db import create_engine, session_factory
from core.settings import Settings
from handlers.web.keys import EXPECTS_SCHEDULER
from models.columns import utcnow
from models.outbox import enqueue
from models.people import Person


def samples(exposition: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a Prometheus exposition, keyed by name and sorted labels (parsed by the official parser)."""
    found = {}
    for family in text_string_to_metric_families(exposition):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


@pytest.fixture
async def client(settings: Settings, sessions: Any) -> AsyncIterator[TestClient]:
    async with TestClient(TestServer(build_web_app(settings, sessions))) as test_client:
        yield test_client


async def test_metrics_report_the_outbox_by_status_and_the_age_of_the_oldest_due_message(
    client: TestClient, sessions: Any
) -> None:
    async with sessions() as session:
        maria = Person(telegram_user_id=820001, chat_id=820001, locale="pt_BR", first_name="Maria")
        session.add(maria)
        await session.flush()
        assert maria.id is not None
        for n in range(3):
            await enqueue(session=session, person_id=maria.id, kind="test.metrics", dedupe_key=f"m{n}",
                          not_before=utcnow() - dt.timedelta(minutes=10 * (n + 1)))
        await enqueue(session=session, person_id=maria.id, kind="test.metrics", dedupe_key="later",
                      not_before=utcnow() + dt.timedelta(days=1))
        await session.commit()

    response = await client.get("/metrics")

    assert response.status == 200
    assert response.content_type == "text/plain"
    found = samples(await response.text())
    assert found[("balcao_outbox_messages", (("status", "pending"),))] == 4
    assert found[("balcao_outbox_messages", (("status", "sent"),))] == 0
    # the oldest due row waited 30 minutes; the one due tomorrow does not count
    assert 30 * 60 <= found[("balcao_outbox_oldest_due_age_seconds", ())] < 31 * 60


async def test_http_requests_are_counted_by_route_template_never_by_the_id_in_the_path(
    client: TestClient,
) -> None:
    await client.get("/verificar/XK42-PRIVATE-CODE")
    await client.get("/no/such/page/12345")

    exposition = await (await client.get("/metrics")).text()

    assert "XK42-PRIVATE-CODE" not in exposition
    routes = {dict(labels)["route"] for (name, labels) in samples(exposition) if name == "balcao_http_requests_total"}
    assert not [route for route in routes if "XK42" in route or "12345" in route]  # (digits may be in timestamps)
    assert "unmatched" in routes
    assert any("{" in route and route.startswith("/verificar") for route in routes), routes


async def test_updates_are_counted_by_kind_and_outcome_after_a_real_conversation(
    emulator: Any, bot_app: Any, client: TestClient
) -> None:
    before = samples(await (await client.get("/metrics")).text())
    key = ("balcao_updates_total", (("kind", "message"), ("outcome", "ok")))
    maria = emulator.add_user(820002, "Maria", language_code="pt-br")
    emulator.send_text(maria, "/ajuda")
    await emulator.wait_for_message(maria.id, lambda m: bool(m.text))

    async def counted() -> dict[Any, float]:
        while True:
            found = samples(await (await client.get("/metrics")).text())
            if found.get(key, 0) > before.get(key, 0):
                return found
            await asyncio.sleep(0.02)

    found = await asyncio.wait_for(counted(), timeout=5)
    assert found[key] >= before.get(key, 0) + 1
    assert found[("balcao_update_handling_seconds_count", (("kind", "message"),))] >= 1
    assert "Maria" not in await (await client.get("/metrics")).text()


async def test_readyz_is_ready_on_a_migrated_database(tmp_path: Path, settings: Settings) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'ready.db'}"
    await asyncio.to_thread(migrate.upgrade, url)
    engine = create_engine(url)
    try:
        app = build_web_app(settings.model_copy(update={"database_url": url}), session_factory(engine))
        async with TestClient(TestServer(app)) as test_client:
            response = await test_client.get("/readyz")
            assert response.status == 200, await response.text()
            assert await response.json() == {"status": "ready"}
    finally:
        await engine.dispose()


async def test_readyz_names_the_schema_when_the_database_is_not_migrated(client: TestClient) -> None:
    # the test database has the tables but no Alembic revision: as after a release whose upgrade was not run
    response = await client.get("/readyz")
    assert response.status == 503
    body = await response.json()
    assert set(body["failing"]) == {"schema"}
    assert "python -m bot db upgrade" in body["failing"]["schema"]


async def test_readyz_names_the_database_when_it_does_not_answer(tmp_path: Path, settings: Settings) -> None:
    broken = tmp_path / "broken.db"
    broken.write_bytes(b"this disk sector is garbage " * 200)  # the file is there, the database is not
    engine = create_engine(f"sqlite+aiosqlite:///{broken}")
    try:
        async with TestClient(TestServer(build_web_app(settings, session_factory(engine)))) as test_client:
            response = await test_client.get("/readyz")
            assert response.status == 503
            assert "database" in (await response.json())["failing"]
    finally:
        await engine.dispose()


async def test_readyz_in_run_requires_the_scan_scheduler(settings: Settings, sessions: Any) -> None:
    app: web.Application = build_web_app(settings, sessions)
    app[EXPECTS_SCHEDULER] = True  # as bot.running.serve sets it; no scheduler was started here
    async with TestClient(TestServer(app)) as test_client:
        body = await (await test_client.get("/readyz")).json()
    assert "scheduler" in body["failing"]


async def test_readyz_names_the_locales_without_a_compiled_catalog(
    client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(i18n, "LOCALES_DIR", tmp_path / "empty-locales")
    i18n.reload_catalogs()
    try:
        body = await (await client.get("/readyz")).json()
    finally:
        monkeypatch.undo()
        i18n.reload_catalogs()
    assert "pt_BR" in body["failing"]["catalogs"]


def test_no_metric_label_can_carry_personal_data() -> None:
    from core import metrics

    allowed = {"kind", "outcome", "status", "scan", "reason", "route", "method"}
    for collector in vars(metrics).values():
        names = getattr(collector, "_labelnames", None)
        if names is not None:
            assert set(names) <= allowed, (collector, names)
