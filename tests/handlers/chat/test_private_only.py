"""LGPD: outside a private chat the bot shows nothing — every update is stopped before any area runs.

Issue 10 item 6: an anonymous group admin (sent as GroupAnonymousBot on behalf of the group) and a channel post
used to crash the guard, and the normal handlers then ran anyway, answering twice in the group.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from telegram import Update

GROUP = {"id": -100123, "type": "supergroup", "title": "Família Souza"}
CHANNEL = {"id": -100777, "type": "channel", "title": "Notícias"}
JOAO = {"id": 810020, "is_bot": False, "first_name": "João", "language_code": "pt-br"}
JOHN = {"id": 810021, "is_bot": False, "first_name": "John", "language_code": "en"}
ANONYMOUS_ADMIN = {"id": 1087968824, "is_bot": True, "first_name": "Group", "username": "GroupAnonymousBot"}
APOLOGY_PT = "Por privacidade, só respondo numa conversa privada comigo."


def _message(text: str, update_id: int, *, chat: dict[str, Any] = GROUP, sender: dict[str, Any] | None = JOAO,
             kind: str = "message", **extra: Any) -> dict[str, Any]:
    entities = [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}] if text.startswith("/") else []
    message: dict[str, Any] = {"message_id": update_id, "date": 1790000000, "chat": chat, "text": text,
                               "entities": entities, **extra}
    if sender is not None:
        message["from"] = sender
    return {"update_id": update_id, kind: message}


def _answers(emulator: Any) -> list[tuple[str, Any]]:
    """Every message-bearing call the bot made: (method, chat or query)."""
    return [(call.method, call.params.get("chat_id", call.params.get("callback_query_id")))
            for call in emulator.calls
            if call.method.startswith(("send", "edit", "answerCallback", "copy", "forward"))]


@pytest.mark.parametrize("command", ["/meusdados", "/situacao", "/acompanhar", "/pendencias", "/notificacoes",
                                     "/representacao", "/start case-REP-2026-000001", "/start link-ABCDEFGHJK"])
async def test_a_command_in_a_group_says_why_once_and_nothing_else_runs(
    bot_app: Any, emulator: Any, command: str
) -> None:
    await bot_app.process_update(Update.de_json(_message(command, 1), bot_app.bot))
    sent = emulator.calls_to("sendMessage")
    assert [(call.params["chat_id"], call.params["text"]) for call in sent] == [(GROUP["id"], APOLOGY_PT)]
    assert _answers(emulator) == [("sendMessage", GROUP["id"])]


async def test_the_apology_is_in_the_senders_language(bot_app: Any, emulator: Any) -> None:
    await bot_app.process_update(Update.de_json(_message("/ajuda", 4, sender=JOHN), bot_app.bot))
    assert [call.params["text"] for call in emulator.calls_to("sendMessage")] == [
        "For your privacy, I answer only in a private chat with me."]


async def test_a_button_pressed_in_a_group_says_why_in_an_alert(bot_app: Any, emulator: Any) -> None:
    press = {"update_id": 2, "callback_query": {
        "id": "q1", "from": JOAO, "chat_instance": "g", "data": "dados:export",
        "message": {"message_id": 9, "date": 1790000000, "chat": GROUP, "text": "…"}}}
    await bot_app.process_update(Update.de_json(press, bot_app.bot))
    assert _answers(emulator) == [("answerCallbackQuery", "q1")]
    assert emulator.calls_to("answerCallbackQuery")[0].params["text"] == APOLOGY_PT


async def test_plain_talk_in_a_group_is_ignored(bot_app: Any, emulator: Any) -> None:
    await bot_app.process_update(Update.de_json(_message("bom dia a todos", 3), bot_app.bot))
    assert _answers(emulator) == []


@pytest.mark.parametrize(
    ("name", "update"),
    [
        ("anonymous admin /ajuda", _message("/ajuda", 10, sender=ANONYMOUS_ADMIN, sender_chat=GROUP)),
        ("anonymous admin /start", _message("/start", 11, sender=ANONYMOUS_ADMIN, sender_chat=GROUP)),
        ("channel post /start", _message("/start", 12, chat=CHANNEL, sender=None, kind="channel_post",
                                         sender_chat=CHANNEL)),
        ("edited channel post", _message("/meusdados", 13, chat=CHANNEL, sender=None, kind="edited_channel_post",
                                         sender_chat=CHANNEL, edit_date=1790000100)),
        ("edited group message", _message("/meusdados", 14, kind="edited_message", edit_date=1790000100)),
        ("channel sends as itself in a group", _message("/start", 15, sender=None, sender_chat=CHANNEL)),
        ("private chat but sent on behalf of a channel", _message(
            "/start", 16, chat={"id": JOAO["id"], "type": "private", "first_name": "João"}, sender_chat=CHANNEL)),
    ],
)
async def test_every_shape_from_outside_a_private_chat_is_stopped_without_an_error(
    bot_app: Any, emulator: Any, caplog: pytest.LogCaptureFixture, name: str, update: dict[str, Any]
) -> None:
    with caplog.at_level(logging.WARNING):
        await bot_app.process_update(Update.de_json(update, bot_app.bot))
    answers = _answers(emulator)
    assert len(answers) <= 1, name
    if answers:
        assert emulator.calls_to("sendMessage")[0].params["text"] == APOLOGY_PT
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], name


async def test_an_update_without_any_chat_is_stopped(bot_app: Any, emulator: Any,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    inline = {"update_id": 20, "inline_query": {"id": "i1", "from": JOAO, "query": "cpf", "offset": ""}}
    with caplog.at_level(logging.WARNING):
        await bot_app.process_update(Update.de_json(inline, bot_app.bot))
        await bot_app.process_update(Update.de_json({"update_id": 21}, bot_app.bot))
    assert _answers(emulator) == []
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
