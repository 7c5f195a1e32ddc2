"""Updates reach the bot by getUpdates long polling or by webhook, as on Telegram."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import telegram
from aiohttp import web
from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, Conflict

from bot.sandbox.emulator import BotApiEmulator
from tests.auxil.emulator import ptb_bot

CARLOS = 700000001
MARIA = 700000002


async def test_long_poll_wakes_when_a_user_writes(emu: BotApiEmulator, tg: telegram.Bot) -> None:
    loop = asyncio.get_running_loop()
    poll = asyncio.create_task(tg.get_updates(timeout=10))
    await emu.wait_until(lambda: emu.bot.waiting_polls == 1)  # the request is waiting in the emulator
    assert not poll.done()

    started = loop.time()
    emu.send_text(emu.personas[1], "/situacao agora")
    [update] = await asyncio.wait_for(poll, 5)
    assert loop.time() - started < 1  # woken by the message, not by the 10 s timeout
    assert update.message.text == "/situacao agora"
    assert update.message.from_user.id == MARIA and update.message.chat.type == "private"
    assert [(e.type, e.offset, e.length) for e in update.message.entities] == [("bot_command", 0, 9)]
    assert update.message.from_user.language_code == "pt-br"


async def test_offset_confirms_and_limit_caps(emu: BotApiEmulator, tg: telegram.Bot) -> None:
    for n in range(5):
        emu.send_text(CARLOS, f"mensagem {n}")
    first = await tg.get_updates(limit=2)
    assert [u.message.text for u in first] == ["mensagem 0", "mensagem 1"]
    again = await tg.get_updates(limit=2)
    assert [u.update_id for u in again] == [u.update_id for u in first]  # not confirmed yet

    rest = await tg.get_updates(offset=first[-1].update_id + 1)
    assert [u.message.text for u in rest] == ["mensagem 2", "mensagem 3", "mensagem 4"]
    assert await tg.get_updates(offset=rest[-1].update_id + 1) == ()
    assert emu.pending_updates == []


async def test_long_poll_times_out_empty(tg: telegram.Bot) -> None:
    loop = asyncio.get_running_loop()
    started = loop.time()
    assert await tg.get_updates(timeout=1) == ()
    assert 0.9 <= loop.time() - started < 3


async def test_allowed_updates_filters_what_is_queued(emu: BotApiEmulator, tg: telegram.Bot) -> None:
    sent = await tg.send_message(
        CARLOS, "Escolha", reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton("A", callback_data="a")]])
    )
    await tg.get_updates(allowed_updates=["message"])
    emu.press_button(CARLOS, sent, "a")
    emu.send_text(CARLOS, "texto")
    assert [u.message.text for u in await tg.get_updates()] == ["texto"]


async def test_a_second_instance_polling_ends_the_first_with_conflict(emu: BotApiEmulator, tg: telegram.Bot) -> None:
    first = asyncio.create_task(tg.get_updates(timeout=10))
    await emu.wait_until(lambda: emu.bot.waiting_polls == 1)
    async with ptb_bot(emu) as second_instance:
        second = asyncio.create_task(second_instance.get_updates(timeout=10))
        with pytest.raises(Conflict, match="terminated by other getUpdates request"):
            await asyncio.wait_for(first, 5)
        emu.send_text(CARLOS, "oi")
        assert [u.message.text for u in await asyncio.wait_for(second, 5)] == ["oi"]


async def test_callback_query_flow(emu: BotApiEmulator, tg: telegram.Bot) -> None:
    sent = await tg.send_message(
        MARIA,
        "Confirma o envio?",
        reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton("Confirmar", callback_data="ok")]]),
    )
    query_id = emu.press_button(MARIA, sent, "ok")
    [update] = await tg.get_updates()
    query = update.callback_query
    assert (query.id, query.data, query.from_user.id) == (query_id, "ok", MARIA)
    assert query.message.message_id == sent.message_id and query.message.text == "Confirma o envio?"
    assert not emu.callback_query(query_id).answered
    assert [r.id for r in emu.unanswered_callbacks()] == [query_id]

    assert await query.answer("Enviado", show_alert=True) is True
    record = await emu.wait_for_answer(query_id, timeout=1)
    assert (record.answered, record.answer_text, record.show_alert) == (True, "Enviado", True)
    assert emu.unanswered_callbacks() == []
    with pytest.raises(BadRequest, match="Query is too old"):
        await query.answer()

    with pytest.raises(LookupError, match="no button"):
        emu.press_button(MARIA, sent, "not-there")


@pytest.fixture
async def webhook_receiver() -> AsyncIterator[
    tuple[str, asyncio.Queue[tuple[str | None, dict[str, object]]], list[int]]
]:
    """A tiny webhook endpoint on 127.0.0.1; answers with the statuses queued in the list (then 200)."""
    received: asyncio.Queue[tuple[str | None, dict[str, object]]] = asyncio.Queue()
    statuses: list[int] = []

    async def hook(request: web.Request) -> web.Response:
        received.put_nowait((request.headers.get("X-Telegram-Bot-Api-Secret-Token"), await request.json()))
        return web.Response(status=statuses.pop(0) if statuses else 200)

    app = web.Application()
    app.router.add_post("/hook", hook)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    try:
        yield f"http://{host}:{port}/hook", received, statuses
    finally:
        await runner.cleanup()


async def test_webhook_delivery_with_secret(
    emu: BotApiEmulator,
    tg: telegram.Bot,
    webhook_receiver: tuple[str, asyncio.Queue[tuple[str | None, dict[str, object]]], list[int]],
) -> None:
    url, received, statuses = webhook_receiver
    assert await tg.set_webhook(url, secret_token="segredo-123") is True
    info = await tg.get_webhook_info()
    assert info.url == url and info.pending_update_count == 0
    with pytest.raises(Conflict, match="can't use getUpdates method while webhook is active"):
        await tg.get_updates()

    emu.send_text(CARLOS, "via webhook")
    secret, update = await asyncio.wait_for(received.get(), 5)
    assert secret == "segredo-123"
    assert telegram.Update.de_json(update, tg).message.text == "via webhook"
    await emu.wait_until(lambda: not emu.pending_updates)

    statuses.extend([500])  # the endpoint fails once: Telegram retries and reports the error
    emu.send_text(CARLOS, "de novo")
    _, failed = await asyncio.wait_for(received.get(), 5)
    _, retried = await asyncio.wait_for(received.get(), 5)
    assert failed == retried
    info = await tg.get_webhook_info()
    assert info.last_error_message == "Wrong response from the webhook: 500 Internal Server Error"

    assert await tg.delete_webhook() is True
    assert (await tg.get_webhook_info()).url == ""
    emu.send_text(CARLOS, "polling de novo")
    assert [u.message.text for u in await tg.get_updates()] == ["polling de novo"]


async def test_webhook_without_secret_sends_no_header(
    emu: BotApiEmulator,
    tg: telegram.Bot,
    webhook_receiver: tuple[str, asyncio.Queue[tuple[str | None, dict[str, object]]], list[int]],
) -> None:
    url, received, _ = webhook_receiver
    emu.send_text(MARIA, "antes")
    await tg.set_webhook(url, drop_pending_updates=True)
    emu.send_text(MARIA, "depois")
    secret, update = await asyncio.wait_for(received.get(), 5)
    assert secret is None and update["message"]["text"] == "depois"  # type: ignore[index]
    with pytest.raises(BadRequest, match=r"^Secret token contains unallowed characters$"):
        await tg.set_webhook(url, secret_token="com espaço")
