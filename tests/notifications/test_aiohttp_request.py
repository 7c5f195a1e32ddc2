"""The dispatcher's aiohttp transport behaves like PTB's own: answers, uploads, and the same errors."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator

import pytest
import telegram
from aiohttp import web
from telegram.error import NetworkError, TimedOut

from notifications.aiohttp_request import AiohttpRequest

TOKEN = "123456:ABCDEFGHIJKLMNOP"


@pytest.fixture
async def silent_server() -> AsyncIterator[str]:
    """A server that accepts the request and never answers."""
    never = asyncio.Event()

    async def hang(_request: web.Request) -> web.Response:
        await never.wait()
        return web.Response()

    app = web.Application()
    app.router.add_route("*", "/bot{token}/{method}", hang)
    runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=0.1)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    yield f"http://127.0.0.1:{port}"
    never.set()
    await runner.cleanup()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_no_answer_in_time_is_timed_out(silent_server: str) -> None:
    request = AiohttpRequest(read_timeout=0.2)
    await request.initialize()
    try:
        with pytest.raises(TimedOut):
            await request.post(f"{silent_server}/bot{TOKEN}/sendMessage", request_data=None)
    finally:
        await request.shutdown()


async def test_a_refused_connection_is_a_network_error() -> None:
    request = AiohttpRequest()
    await request.initialize()
    try:
        with pytest.raises(NetworkError, match=r"aiohttp\.ClientConnectorError"):
            await request.post(f"http://127.0.0.1:{_free_port()}/bot{TOKEN}/getMe")
    finally:
        await request.shutdown()


async def test_a_message_and_a_document_go_through_a_real_bot(emu) -> None:
    emu.add_user(4242, "Rosa")
    bot = telegram.Bot(emu.token, base_url=emu.bot_base_url, request=AiohttpRequest())
    async with bot:
        sent = await bot.send_message(chat_id=4242, text="<b>Oi</b>", parse_mode="HTML")
        document = await bot.send_document(chat_id=4242, document=telegram.InputFile(b"%PDF-1.4", filename="a.pdf"))
    assert sent.text == "Oi" and document.document is not None and document.document.file_name == "a.pdf"


async def test_it_must_be_initialized() -> None:
    with pytest.raises(RuntimeError, match="not initialized"):
        await AiohttpRequest().do_request("http://127.0.0.1:1/x", "POST")
