"""LGPD: in a group chat the bot shows nothing — every command and button is stopped before any area runs."""

from __future__ import annotations

from typing import Any

import pytest
from telegram import Update

from handlers.chat import private

GROUP = {"id": -100123, "type": "supergroup", "title": "Família Souza"}
JOAO = {"id": 810020, "is_bot": False, "first_name": "João", "language_code": "pt-br"}


def _message(text: str, update_id: int) -> dict[str, Any]:
    entities = [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}] if text.startswith("/") else []
    return {"update_id": update_id, "message": {"message_id": update_id, "date": 1790000000, "chat": GROUP,
                                                "from": JOAO, "text": text, "entities": entities}}


@pytest.fixture
def said(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    texts: list[str] = []

    async def capture(_update: Any, _context: Any, text: str, **_kwargs: Any) -> None:
        texts.append(text)

    monkeypatch.setattr(private, "reply", capture)
    return texts


@pytest.mark.parametrize("command", ["/meusdados", "/situacao", "/acompanhar", "/pendencias", "/notificacoes",
                                     "/representacao", "/start case-REP-2026-000001", "/start link-ABCDEFGHJK"])
async def test_a_command_in_a_group_says_why_and_nothing_else_runs(
    bot_app: Any, emulator: Any, said: list[str], command: str
) -> None:
    await bot_app.process_update(Update.de_json(_message(command, 1), bot_app.bot))
    assert said == ["Por privacidade, só respondo numa conversa privada comigo."]
    assert [call.method for call in emulator.calls if call.method.startswith(("send", "edit"))] == []


async def test_a_button_pressed_in_a_group_says_why(bot_app: Any, emulator: Any, said: list[str]) -> None:
    press = {"update_id": 2, "callback_query": {
        "id": "q1", "from": JOAO, "chat_instance": "g", "data": "dados:export",
        "message": {"message_id": 9, "date": 1790000000, "chat": GROUP, "text": "…"}}}
    await bot_app.process_update(Update.de_json(press, bot_app.bot))
    assert said == ["Por privacidade, só respondo numa conversa privada comigo."]
    assert emulator.calls_to("sendDocument") == []


async def test_plain_talk_in_a_group_is_ignored(bot_app: Any, emulator: Any, said: list[str]) -> None:
    await bot_app.process_update(Update.de_json(_message("bom dia a todos", 3), bot_app.bot))
    assert said == []
    assert [call.method for call in emulator.calls if call.method.startswith("send")] == []
