"""Issue 10 item 11 and issue 22 item 3: a reply the Bot API refuses for now (500, 429) is tried again in place, so
the rest of the turn waits and comes after it; a reply still refused after that goes to the outbox, retried with
its rules. The apology for an error is in the person's language (it was always Portuguese: python-telegram-bot
gives the error handler a fresh context, without the translator)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlmodel import select
from telegram import Update

from bot import telegram_bot
from core.db import SessionFactory
from core.settings import Settings
from models.columns import utcnow
from models.outbox import OutboxMessage, OutboxStatus
from notifications.chat_replies import CHAT_REPLY
from notifications.dispatcher import Dispatcher, sending_bot
from notifications.retry_policy import RETRY_BASE_SECONDS
from tests.auxil.bot_api_proxy import BotApiProxy
from tests.auxil.bot_harness import running_bot, settings_for

JOHN = 830501


async def _queued(sessions: SessionFactory) -> list[OutboxMessage]:
    async with sessions() as session:
        return list((await session.exec(select(OutboxMessage).where(OutboxMessage.kind == CHAT_REPLY))).all())


async def _dispatch(settings: Settings, sessions: SessionFactory, emulator: Any, *, ahead: float) -> None:
    async with sending_bot(settings_for(settings, emulator)) as bot:
        dispatcher = Dispatcher(sessions=sessions, bot=bot, settings=settings_for(settings, emulator),
                                now=lambda: utcnow() + dt.timedelta(seconds=ahead))
        await dispatcher.run_until_idle()


async def _says(bot_app: Any, emulator: Any, user_id: int, text: str, update_id: int) -> None:
    """The person writes; returns when the bot has handled it (no waiting on the clock)."""
    user = emulator.user(user_id)
    data = {"update_id": update_id, "message": {
        "message_id": update_id, "date": int(utcnow().timestamp()), "text": text,
        "entities": [{"type": "bot_command", "offset": 0, "length": len(text)}],
        "chat": {"id": user.id, "type": "private", "first_name": user.first_name},
        "from": user.as_user()}}
    await bot_app.process_update(Update.de_json(data, bot_app.bot))


def _bot_texts(emulator: Any, user_id: int) -> list[str]:
    return [m.text or "" for m in emulator.messages(user_id) if m.from_bot]


async def test_a_reply_refused_twice_with_500_is_tried_again_in_place(
    bot_app: Any, emulator: Any, sessions: SessionFactory, reply_waits: list[float]
) -> None:
    """Issue 22 item 3: one 502 sent the reply to the outbox for 10 s and stopped the handler."""
    maria = emulator.personas[1]
    emulator.fail_next("sendMessage", error_code=500, description="Internal Server Error", times=2,
                       chat_id=maria.user_id)
    await _says(bot_app, emulator, maria.user_id, "/ajuda", 901)
    [help_text] = _bot_texts(emulator, maria.user_id)
    assert help_text.startswith("Como usar o Balcão")
    assert reply_waits == [telegram_bot.REPLY_FIRST_RETRY_SECONDS, 2 * telegram_bot.REPLY_FIRST_RETRY_SECONDS]
    assert await _queued(sessions) == []


async def test_a_reply_still_refused_goes_to_the_outbox_with_its_backoff(
    bot_app: Any, emulator: Any, settings: Settings, sessions: SessionFactory, reply_waits: list[float]
) -> None:
    maria = emulator.personas[1]
    emulator.fail_next("sendMessage", error_code=500, description="Internal Server Error",
                       times=telegram_bot.REPLY_TRIES + 1, chat_id=maria.user_id)
    await _says(bot_app, emulator, maria.user_id, "/ajuda", 901)
    refused = emulator.calls_to("sendMessage", ok=False)
    assert len(refused) == telegram_bot.REPLY_TRIES == len(reply_waits) + 1
    assert _bot_texts(emulator, maria.user_id) == []  # nothing reached her, and no apology for a queued reply
    [row] = await _queued(sessions)
    assert row.status is OutboxStatus.PENDING and row.payload["text"] == refused[-1].params["text"]
    assert abs((row.not_before - row.created_at).total_seconds() - RETRY_BASE_SECONDS) < 2  # first backoff step
    await _dispatch(settings, sessions, emulator, ahead=RETRY_BASE_SECONDS + 1)  # a last 500: backoff again
    [row] = await _queued(sessions)
    assert row.status is OutboxStatus.PENDING and row.attempts == 1
    await _dispatch(settings, sessions, emulator, ahead=5 * RETRY_BASE_SECONDS)
    [row] = await _queued(sessions)
    assert row.status is OutboxStatus.SENT
    assert len(_bot_texts(emulator, maria.user_id)) == 1
    delivered = [c for c in emulator.calls_to("sendMessage", ok=True) if c.params["chat_id"] == maria.user_id]
    assert delivered[-1].params["text"] == refused[-1].params["text"]


async def test_a_reply_refused_with_429_waits_what_telegram_asks(
    bot_app: Any, emulator: Any, settings: Settings, sessions: SessionFactory, reply_waits: list[float]
) -> None:
    maria = emulator.personas[1]
    emulator.fail_next("sendMessage", error_code=429, description="Too Many Requests: retry after 7",
                       retry_after=7, chat_id=maria.user_id)
    await _says(bot_app, emulator, maria.user_id, "/ajuda", 902)
    assert reply_waits == [7.0] and len(_bot_texts(emulator, maria.user_id)) == 1
    longer = telegram_bot.REPLY_WAIT_SECONDS + 10  # longer than a turn may wait: the outbox waits it
    emulator.fail_next("sendMessage", error_code=429, description=f"Too Many Requests: retry after {longer:.0f}",
                       retry_after=int(longer), chat_id=maria.user_id)
    await _says(bot_app, emulator, maria.user_id, "/ajuda", 903)
    [row] = await _queued(sessions)
    assert abs((row.not_before - row.created_at).total_seconds() - longer) < 2
    await _dispatch(settings, sessions, emulator, ahead=longer + 1)
    [row] = await _queued(sessions)
    assert row.status is OutboxStatus.SENT and len(_bot_texts(emulator, maria.user_id)) == 2


async def test_the_apology_is_in_the_persons_language_and_is_queued_when_it_fails_too(
    bot_app: Any, emulator: Any, settings: Settings, sessions: SessionFactory, reply_waits: list[float]
) -> None:
    emulator.add_user(JOHN, "John", language_code="en")
    emulator.fail_next("sendMessage", error_code=400, description="Bad Request: something odd", chat_id=JOHN)
    await _says(bot_app, emulator, JOHN, "/ajuda", 903)
    [apology] = _bot_texts(emulator, JOHN)
    assert apology.startswith("Sorry, something went wrong on our side") and "E-" in apology
    emulator.fail_next("sendMessage", error_code=400, description="Bad Request: something odd", chat_id=JOHN)
    emulator.fail_next("sendMessage", error_code=502, description="Bad Gateway", chat_id=JOHN,
                       times=telegram_bot.REPLY_TRIES)
    await _says(bot_app, emulator, JOHN, "/ajuda", 904)
    [row] = await _queued(sessions)
    assert row.payload["text"].startswith("Sorry, something went wrong on our side")


async def test_two_commands_sent_together_are_answered_in_order_when_the_first_reply_is_refused(
    bot_app: Any, emulator: Any, reply_waits: list[float]
) -> None:
    """Issue 22 item 3: the first answer went to the outbox (10 s later) and the second came first."""
    maria = emulator.personas[1]
    emulator.fail_next("sendMessage", error_code=429, description="Too Many Requests: retry after 1", retry_after=1,
                       chat_id=maria.user_id)
    first = emulator.send_text(maria.user_id, "/ajuda")
    emulator.send_text(maria.user_id, "/privacidade")
    await emulator.wait_for_message(maria.user_id, lambda m: "Seus dados" in (m.text or ""), after=first.message_id)
    texts = _bot_texts(emulator, maria.user_id)
    assert [text.split("\n", 1)[0] for text in texts] == ["Como usar o Balcão", "Seus dados no Balcão"]
    assert reply_waits == [1.0]


async def test_a_reply_telegram_is_slow_to_take_arrives_once(
    emulator: Any, settings: Settings, sessions: SessionFactory
) -> None:
    """Issue 22 item 3: a Bot API answer slower than 5 s counted as refused, so the reply was queued and came twice."""
    proxy = BotApiProxy(emulator.root_url)
    root = await proxy.start()
    try:
        maria = emulator.personas[1]
        slow = proxy.hold("sendMessage", lambda params: "Como usar" in str(params.get("text", "")), delay=6.0)
        async with running_bot(settings, sessions, emulator, api_url=root):
            sent = emulator.send_text(maria.user_id, "/ajuda")
            await emulator.wait_for_message(maria.user_id, after=sent.message_id, timeout=20)
            assert slow.arrived.is_set()
        assert len(_bot_texts(emulator, maria.user_id)) == 1
        assert await _queued(sessions) == []  # nothing queued to be sent again
    finally:
        await proxy.stop()
