"""The demo opens the staff console: it prints how, and its staff persona gets a working link in the web chat."""

import asyncio
import re
import socket
from pathlib import Path

import aiohttp
import pytest

from bot.sandbox.demo import STAFF_PERSONA, run_demo
from core.settings import Settings

LINK = re.compile(r"(http://127\.0\.0\.1:\d+/painel/entrar/[A-Za-z0-9_-]+)")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_the_demo_prints_the_console_and_its_staff_persona_gets_a_link(
    settings: Settings, tmp_path: Path, db_kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if db_kind == "postgres":
        pytest.skip("the demo runs on its own SQLite file")
    port = _free_port()
    demo_settings = settings.model_copy(update={"database_url": f"sqlite+aiosqlite:///{tmp_path / 'demo.db'}",
                                                "http_port": port})
    ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    stop = asyncio.Event()
    demo = asyncio.create_task(run_demo(demo_settings, emulator_port=0, ready=ready, stop=stop))
    try:
        root = await asyncio.wait_for(ready, timeout=30)
        printed = capsys.readouterr().out
        assert f"http://127.0.0.1:{port}/painel/" in printed and STAFF_PERSONA.first_name in printed
        async with aiohttp.ClientSession() as http:
            async with http.post(f"{root}/sandbox/send", json={"user_id": STAFF_PERSONA.user_id, "text": "/painel"}):
                pass
            link = None
            version = -1
            for _ in range(20):
                async with http.get(f"{root}/sandbox/chat",
                                    params={"user_id": STAFF_PERSONA.user_id, "since": version}) as response:
                    chat = await response.json()
                found = [LINK.search(m["text"]) for m in chat["messages"] if m["from"] == "bot"]
                link = next((m.group(1) for m in found if m), None)
                if link:
                    break
                version = chat["version"]
            assert link is not None
            async with http.get(link) as page:
                assert page.status == 200 and "Entrar" in await page.text()
            async with http.post(link, allow_redirects=False) as signed:
                assert signed.status == 303 and "balcao_console" in signed.cookies
    finally:
        stop.set()
        await asyncio.wait_for(demo, timeout=30)
