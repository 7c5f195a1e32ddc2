"""The aiohttp server: /healthz and the webhook's secret-token check."""

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from telegram import Bot, Update

from bot.db import SessionFactory
from bot.settings import Settings
from bot.web import SECRET_HEADER, WEBHOOK_PATH, build_web_app


class FakeBotApplication:
    """Just what the webhook route touches on PTB's Application: ``bot`` and ``update_queue``."""

    def __init__(self) -> None:
        self.bot = Bot("123456:TEST-TOKEN-abcdefghij")
        self.update_queue: asyncio.Queue[Any] = asyncio.Queue()


@pytest.fixture
def webhook_settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"webhook_url": "https://balcao.example.gov.br",
                                       "webhook_secret": __import__("pydantic").SecretStr("s3cr3t-Token_1")})


@pytest.fixture
async def client(webhook_settings: Settings, sessions: SessionFactory) -> AsyncIterator[tuple[TestClient, Any]]:
    bot_application = FakeBotApplication()
    app: web.Application = build_web_app(webhook_settings, sessions, bot_application)
    async with TestClient(TestServer(app)) as test_client:
        yield test_client, bot_application


UPDATE = {"update_id": 10, "message": {"message_id": 1, "date": 1700000000, "chat": {"id": 42, "type": "private"},
                                       "from": {"id": 42, "is_bot": False, "first_name": "Maria"}, "text": "/start"}}


async def test_healthz_answers_ok_when_the_database_answers(client: tuple[TestClient, Any]) -> None:
    test_client, _ = client
    response = await test_client.get("/healthz")
    assert response.status == 200
    assert await response.json() == {"status": "ok"}


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
