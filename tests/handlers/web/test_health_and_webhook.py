"""The aiohttp server: /healthz and the webhook's secret-token check."""

import asyncio
import datetime as dt
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from telegram import Bot, Update

from bot.ordering import PerPersonUpdateProcessor
from bot.turns import PersonTurns
from bot.web import SECRET_HEADER, WEBHOOK_PATH, WebhookBot, build_web_app
from core.db import SessionFactory, create_engine, session_factory
from core.settings import Settings
from models.columns import utcnow
from models.seen_updates import KEEP, first_sight, forget_seen


class FakeBotApplication:
    """Just what the webhook route touches on PTB's Application: ``bot``, the real update processor, and
    ``process_update``, which here only puts the update in ``update_queue`` (what was run)."""

    def __init__(self, sessions: SessionFactory) -> None:
        self.bot = Bot("123456:TEST-TOKEN-abcdefghij")
        self.update_queue: asyncio.Queue[Any] = asyncio.Queue()
        self.update_processor = PerPersonUpdateProcessor(
            max_running=4, turns=PersonTurns(sessions, bot_id=123456, remember_updates=True))

    async def process_update(self, update: object) -> None:
        await self.update_queue.put(update)


def served(application: FakeBotApplication, settings: Settings) -> dict[str, WebhookBot]:
    """The one bot of a single-bot deployment, at ``/telegram/webhook`` with ``BALCAO_WEBHOOK_SECRET``."""
    assert settings.webhook_secret is not None
    return {"": WebhookBot(application, settings.webhook_secret.get_secret_value())}


@pytest.fixture
def webhook_settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"webhook_url": "https://balcao.example.gov.br",
                                       "webhook_secret": __import__("pydantic").SecretStr("s3cr3t-Token_1")})


@pytest.fixture
async def client(webhook_settings: Settings, sessions: SessionFactory) -> AsyncIterator[tuple[TestClient, Any]]:
    bot_application = FakeBotApplication(sessions)
    app: web.Application = build_web_app(webhook_settings, sessions, served(bot_application, webhook_settings))
    async with TestClient(TestServer(app)) as test_client:
        yield test_client, bot_application


UPDATE = {"update_id": 10, "message": {"message_id": 1, "date": 1700000000, "chat": {"id": 42, "type": "private"},
                                       "from": {"id": 42, "is_bot": False, "first_name": "Maria"}, "text": "/start"}}


async def test_healthz_answers_ok_when_the_database_answers(client: tuple[TestClient, Any]) -> None:
    test_client, _ = client
    response = await test_client.get("/healthz")
    assert response.status == 200
    assert await response.json() == {"status": "ok", "checks": {"database_read": "ok", "database_write": "ok"}}


@pytest.mark.parametrize("headers", [{}, {SECRET_HEADER: "wrong"}, {SECRET_HEADER: "s3cr3t-Token_"}])
async def test_a_webhook_call_without_the_right_secret_is_refused_and_not_processed(
    client: tuple[TestClient, Any], headers: dict[str, str]
) -> None:
    test_client, bot_application = client
    response = await test_client.post(WEBHOOK_PATH, json=UPDATE, headers=headers)
    assert response.status == 403
    assert bot_application.update_queue.empty()


async def test_a_webhook_call_with_the_secret_queues_the_update(client: tuple[TestClient, Any]) -> None:
    test_client, bot_application = client
    response = await test_client.post(WEBHOOK_PATH, json=UPDATE, headers={SECRET_HEADER: "s3cr3t-Token_1"})
    assert response.status == 200
    update = bot_application.update_queue.get_nowait()
    assert isinstance(update, Update) and update.message is not None and update.message.text == "/start"


SECRET = {SECRET_HEADER: "s3cr3t-Token_1"}


async def test_healthz_says_the_database_refuses_writes_on_a_read_only_file(
    webhook_settings: Settings, db_url: str
) -> None:
    """Issue 10 item 10: a read-only database answered 200 although every filing would fail."""
    if not db_url.startswith("sqlite"):
        pytest.skip("a read-only file is a SQLite case")
    path = db_url.split(":///", 1)[1]
    read_only = create_engine(f"sqlite+aiosqlite:///file:{path}?mode=ro&uri=true")
    try:
        app = build_web_app(webhook_settings, session_factory(read_only))
        async with TestClient(TestServer(app)) as test_client:
            response = await test_client.get("/healthz")
            assert response.status == 503
            body = await response.json()
    finally:
        await read_only.dispose()
    assert body["failed"] == "database_write" and body["status"] == "database refuses writes"
    assert body["checks"]["database_read"] == "ok" and body["checks"]["database_write"].startswith("failed")


@pytest.mark.parametrize("body", ["[1, 2]", "42", '"update"', "{}", '{"update_id": "7"}', '{"update_id": true}',
                                  '{"update_id": ' + "9" * 30 + "}", "[" * 50_000 + "]" * 50_000, "{nope"])
async def test_a_webhook_body_that_is_not_one_update_is_a_400(client: tuple[TestClient, Any], body: str) -> None:
    """Issue 10 item 7: a JSON array, a number, an object without update_id answered 500."""
    test_client, bot_application = client
    response = await test_client.post(WEBHOOK_PATH, data=body, headers={**SECRET, "Content-Type": "application/json"})
    assert response.status == 400
    assert (await response.json())["error"] == "bad_update"
    assert bot_application.update_queue.empty()


async def test_a_replayed_update_runs_once(client: tuple[TestClient, Any], sessions: SessionFactory) -> None:
    """Issue 10 item 9: the same update_id posted three times ran three times."""
    test_client, bot_application = client
    for _ in range(3):
        response = await test_client.post(WEBHOOK_PATH, json=UPDATE, headers=SECRET)
        assert response.status == 200
    assert bot_application.update_queue.qsize() == 1
    other = {**UPDATE, "update_id": 11}
    assert (await test_client.post(WEBHOOK_PATH, json=other, headers=SECRET)).status == 200
    assert bot_application.update_queue.qsize() == 2


async def test_replays_are_refused_across_processes_and_old_ids_are_forgotten(
    webhook_settings: Settings, sessions: SessionFactory
) -> None:
    """Two servers (processes) on one database agree; ids older than two days are pruned."""
    first, second = FakeBotApplication(sessions), FakeBotApplication(sessions)
    one_app = build_web_app(webhook_settings, sessions, served(first, webhook_settings))
    two_app = build_web_app(webhook_settings, sessions, served(second, webhook_settings))
    async with TestClient(TestServer(one_app)) as one, TestClient(TestServer(two_app)) as two:
        answers = await asyncio.gather(*(client.post(WEBHOOK_PATH, json=UPDATE, headers=SECRET)
                                         for client in (one, two, one, two)))
        assert [a.status for a in answers] == [200] * 4
    assert first.update_queue.qsize() + second.update_queue.qsize() == 1
    async with sessions() as session:
        later = utcnow() + KEEP + dt.timedelta(minutes=1)
        assert await forget_seen(session=session, now=later) == 1
        assert await first_sight(session=session, bot_id=123456, update_id=10, now=later)


async def test_an_update_the_library_cannot_read_is_answered_200_and_skipped(
    client: tuple[TestClient, Any]
) -> None:
    """Issue 10 item 3 in webhook mode: a 500 made Telegram resend it forever, blocking the rest."""
    test_client, bot_application = client
    bad = {"update_id": 12, "poll": {"id": "1", "question": "?", "options": [], "total_voter_count": 0,
                                     "is_closed": False, "is_anonymous": True, "type": "regular",
                                     "allows_multiple_answers": False}}
    response = await test_client.post(WEBHOOK_PATH, json=bad, headers=SECRET)
    assert response.status == 200
    queued = bot_application.update_queue.get_nowait()
    assert queued.update_id == 12 and queued.poll is None  # an empty update: no handler acts on it


async def test_the_webhook_is_served_at_the_path_the_url_names(
    webhook_settings: Settings, sessions: SessionFactory
) -> None:
    """Issue 9 item 4: with https://host/balcao the bot registers …/balcao/telegram/webhook but served only
    /telegram/webhook; now both answer (the second for a proxy that strips the prefix)."""
    prefixed = webhook_settings.model_copy(update={"webhook_url": "https://balcao.example.gov.br/balcao"})
    bot_application = FakeBotApplication(sessions)
    app = build_web_app(prefixed, sessions, served(bot_application, prefixed))
    async with TestClient(TestServer(app)) as test_client:
        response = await test_client.post("/balcao/telegram/webhook", json=UPDATE, headers=SECRET)
        assert response.status == 200
        assert (await test_client.post("/telegram/webhook", json={**UPDATE, "update_id": 13},
                                       headers=SECRET)).status == 200
        assert (await test_client.post("/other/telegram/webhook", json=UPDATE, headers=SECRET)).status in (404, 405)
    assert bot_application.update_queue.qsize() == 2
