"""Webhook mode end to end through the emulator: a URL with a path (issue 9 item 4), replays (issue 10 item 9)
and an unreadable update among good ones (issue 10 item 3)."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest
from pydantic import SecretStr

from bot import update_parsing
from bot.running import serve
from bot.update_parsing import SkippedUpdates
from core.settings import Settings
from tests.bot.test_unreadable_updates import OLD_POLL


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def webhook_settings(settings: Settings, emulator: Any) -> Settings:
    port = _free_port()
    return settings.model_copy(update={
        "telegram_token": SecretStr(emulator.token), "telegram_api_url": emulator.root_url,
        "webhook_url": f"http://127.0.0.1:{port}/balcao", "webhook_secret": SecretStr("a-Very_secret-123"),
        "http_port": port,
    })


async def test_a_webhook_url_with_a_path_is_served_there_and_bad_updates_do_not_block(
    emulator: Any, webhook_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    stop = asyncio.Event()
    serving = asyncio.create_task(serve(webhook_settings, stop=stop, check_schema=False))
    skipped = SkippedUpdates()  # this test's own record (the log's rate limit is per process)
    monkeypatch.setattr(update_parsing, "SKIPPED", skipped)
    try:
        webhook = await emulator.wait_until(lambda: emulator.webhook, timeout=15)
        assert webhook.url == f"{webhook_settings.webhook_url}/telegram/webhook"
        maria = emulator.add_user(830012, "Maria", language_code="en")
        emulator.send_raw_update("poll", OLD_POLL)  # the server answers 200 and Telegram moves on
        first = emulator.send_text(maria, "/start")
        await emulator.wait_for_message(maria.id, lambda m: "What would you like to do?" in (m.text or ""),
                                        after=first.message_id, timeout=15)
        await emulator.wait_until(lambda: True if not emulator.pending_updates else None, timeout=15)
        assert skipped.total == 1
    finally:
        stop.set()
        await asyncio.wait_for(serving, timeout=30)
