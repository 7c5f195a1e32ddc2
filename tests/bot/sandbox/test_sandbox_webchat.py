"""The web chat's page and JSON endpoints (without a browser), and running the emulator from the command line."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.sandbox.emulator import BotApiEmulator
from tests.auxil.emulator import AnyApplication, tiny_png

REPO = Path(__file__).resolve().parents[3]
MARIA = 700000002


@pytest.fixture
async def http(emu: BotApiEmulator) -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(base_url=emu.root_url) as session:
        yield session


async def chat(http: aiohttp.ClientSession, user_id: int, since: int | None = None) -> dict[str, Any]:
    params = {"user_id": str(user_id)} | ({"since": str(since)} if since is not None else {})
    async with http.get("/sandbox/chat", params=params) as response:
        assert response.status == 200
        return await response.json()  # type: ignore[no-any-return]


async def test_page_and_static_files_are_served(http: aiohttp.ClientSession) -> None:
    async with http.get("/") as response:
        page = await response.text()
    assert response.status == 200 and 'lang="pt-BR"' in page
    for testid in ("persona-select", "chat-log", "message-input", "send-button", "share-contact", "share-location"):
        assert f'data-testid="{testid}"' in page
    for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', page):
        async with http.get(asset) as response:
            assert response.status == 200, asset
    assert "https://" not in page  # no CDN: everything is local


async def test_info_lists_the_personas(http: aiohttp.ClientSession) -> None:
    async with http.get("/sandbox/info") as response:
        info = await response.json()
    assert [p["role_label"] for p in info["personas"]] == [
        "Motorista de aplicativo",
        "Cidadã",
        "Servidora da prefeitura",
        "Atendente da prefeitura",  # issue 20: a persona for each role, an Ombudsman among them
        "Fiscal de posturas e de transporte",
        "Ouvidor",
    ]
    assert info["location"] == {"latitude": -13.5427, "longitude": -58.8145}


async def test_send_then_long_poll_until_the_reply(
    emu: BotApiEmulator, http: aiohttp.ClientSession, echo_bot: AnyApplication
) -> None:
    version = (await chat(http, MARIA))["version"]
    async with http.post("/sandbox/send", json={"user_id": MARIA, "text": "<oi>"}) as response:
        assert response.status == 200
    await emu.wait_for_message(MARIA, after=0)

    view = await chat(http, MARIA, since=version)  # returns as soon as the chat changed
    user_message, bot_message = view["messages"]
    assert (user_message["from"], user_message["text"]) == ("user", "<oi>")
    assert bot_message["from"] == "bot" and bot_message["text"] == "Eco: <oi>"
    assert bot_message["entities"] == [{"type": "bold", "offset": 5, "length": 4}]
    assert bot_message["inline_keyboard"] == [[{"text": "Marcar como lido", "callback_data": "lido"}]]

    pressed = {"user_id": MARIA, "message_id": bot_message["message_id"], "callback_data": "lido"}
    async with http.post("/sandbox/press", json=pressed) as response:
        assert response.status == 200
    await emu.wait_for_edit(MARIA, bot_message["message_id"])
    view = await chat(http, MARIA, since=view["version"])
    assert view["messages"][-1]["text"] == "Lido ✔" and view["messages"][-1]["edited"] is True
    notices = await emu.wait_until(lambda: (c := emu.bot.chats[MARIA]).notices and list(c.notices))
    assert notices[0]["text"] == "Marcado"
    async with http.post("/sandbox/press", json=pressed) as response:
        assert response.status == 400  # the button is gone


async def test_long_poll_waits_while_nothing_changes(emu: BotApiEmulator, http: aiohttp.ClientSession) -> None:
    version = (await chat(http, MARIA))["version"]
    waiting = asyncio.create_task(chat(http, MARIA, since=version))
    await emu.wait_until(lambda: emu.world.page_polls == 1)  # the request is parked in the emulator
    assert not waiting.done()
    emu.send_text(MARIA, "acordou")
    view = await asyncio.wait_for(waiting, 5)
    assert view["messages"][-1]["text"] == "acordou"


async def test_contact_location_and_uploads(
    emu: BotApiEmulator, http: aiohttp.ClientSession, echo_bot: AnyApplication
) -> None:
    async with http.post("/sandbox/contact", json={"user_id": MARIA, "phone": "+5565990000000"}) as response:
        assert response.status == 200
    assert (await emu.wait_for_message(MARIA, after=0)).text == "Telefone recebido: +5565990000000"

    async with http.post("/sandbox/location", json={"user_id": MARIA, "latitude": -13.5, "longitude": -58.8}) as r:
        assert r.status == 200
    assert (await emu.wait_for_message(MARIA, lambda m: "Local" in (m.text or ""), after=0)).text.endswith("-58.8")

    form = aiohttp.FormData({"user_id": str(MARIA), "kind": "photo", "caption": "buraco"})
    form.add_field("file", tiny_png(7, 3), filename="rua.png", content_type="image/png")
    async with http.post("/sandbox/upload", data=form) as response:
        assert response.status == 200
    assert (await emu.wait_for_message(MARIA, lambda m: "Foto" in (m.text or ""), after=0)).text == "Foto 7x3 recebida"

    form = aiohttp.FormData({"user_id": str(MARIA), "kind": "document"})
    form.add_field("file", b"a;b\n", filename="dados.csv", content_type="text/csv")
    async with http.post("/sandbox/upload", data=form) as response:
        assert response.status == 200
    echoed = await emu.wait_for_message(MARIA, lambda m: m.document is not None, after=0)

    view = await chat(http, MARIA)
    document = view["messages"][-1]["document"]
    assert document["file_name"] == "eco-dados.csv"
    async with http.get(document["url"]) as response:
        assert await response.read() == b"a;b\n"
        assert response.headers["Content-Type"].startswith("text/csv")
    assert echoed.document is not None
    photo = next(m["photo"] for m in view["messages"] if "photo" in m)
    async with http.get(photo["url"]) as response:
        assert response.headers["Content-Type"] == "image/png" and (photo["width"], photo["height"]) == (7, 3)


async def test_the_web_chat_sends_a_voice_note_and_a_video_as_telegram_does(
    emu: BotApiEmulator, http: aiohttp.ClientSession
) -> None:
    """Issue 19 §2: the demo shows that a recording is evidence, so the page sends voice notes and videos."""
    from tests.auxil.case_files import mp4, ogg

    form = aiohttp.FormData({"user_id": str(MARIA), "kind": "voice"})
    form.add_field("file", ogg(12), filename="gravacao.ogg", content_type="audio/ogg")
    async with http.post("/sandbox/upload", data=form) as response:
        assert response.status == 200
    form = aiohttp.FormData({"user_id": str(MARIA), "kind": "video", "caption": "o caminhão"})
    form.add_field("file", mp4(30), filename="rua.mp4", content_type="video/mp4")
    async with http.post("/sandbox/upload", data=form) as response:
        assert response.status == 200
    sent = [m for m in (await chat(http, MARIA))["messages"] if m["from"] == "user"]
    assert [(m["recording"]["kind"], m["recording"]["duration"], m["text"]) for m in sent[-2:]] == [
        ("voice", 12, ""), ("video", 30, "o caminhão")]
    async with http.get(sent[-2]["recording"]["url"]) as response:
        assert await response.read() == ogg(12)
    static = REPO / "bot" / "sandbox" / "static"
    assert 'data-testid="voice-input"' in (static / "index.html").read_text()
    assert 'upload(event.target, "voice")' in (static / "webchat.js").read_text()


async def test_bad_requests_get_clear_answers(http: aiohttp.ClientSession) -> None:
    async with http.post("/sandbox/send", json={"user_id": 1, "text": "oi"}) as response:
        assert response.status == 404 and (await response.json())["error"] == "pessoa desconhecida"
    async with http.post("/sandbox/send", json={"user_id": MARIA, "text": "  "}) as response:
        assert response.status == 400
    form = aiohttp.FormData({"user_id": str(MARIA), "kind": "photo"})
    form.add_field("file", b"not an image", filename="x.jpg", content_type="image/jpeg")
    async with http.post("/sandbox/upload", data=form) as response:
        assert response.status == 400


def test_help_describes_the_command_line() -> None:
    import subprocess

    result = subprocess.run(
        [sys.executable, "-m", "bot.sandbox.emulator", "--help"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 0
    assert "--port" in result.stdout and "--host" in result.stdout and "--token" in result.stdout


async def test_runs_alone_and_stops_on_sigterm() -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot.sandbox.emulator",
        "--port",
        "0",
        cwd=REPO,
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        assert process.stdout is not None
        first_line = (await asyncio.wait_for(process.stdout.readline(), 20)).decode()
        root = re.search(r"http://127\.0\.0\.1:\d+", first_line)
        assert root is not None, first_line
        url = f"{root.group()}/bot123456789:SANDBOX-balcao-local-token/getMe"
        async with aiohttp.ClientSession() as session, session.get(url) as response:
            body = await response.json()
        assert body["ok"] is True and body["result"]["username"] == "balcao_sandbox_bot"
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), 10) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
