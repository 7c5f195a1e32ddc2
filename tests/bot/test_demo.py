"""The offline sandbox: a person in the web chat talks to the real bot, with demo data loaded."""

import asyncio
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.sandbox.demo import ROLE_PERSONAS, STAFF_PERSONA, run_demo
from bot.sandbox.state import DEFAULT_PERSONAS
from core.settings import Settings
from models.people import Role


async def _wait_for_text(http: aiohttp.ClientSession, root: str, user_id: int, needle: str) -> dict[str, Any]:
    version = -1
    for _ in range(20):  # each call long-polls until the chat changes
        async with http.get(f"{root}/sandbox/chat", params={"user_id": user_id, "since": version}) as response:
            chat = await response.json()
        for message in chat["messages"]:
            if message["from"] == "bot" and needle in message["text"]:
                return message
        version = chat["version"]
    raise AssertionError(f"no bot message with {needle!r}")


@pytest.fixture
def demo_settings(settings: Settings, tmp_path: Path, db_kind: str) -> Settings:
    if db_kind == "postgres":
        pytest.skip("the demo runs on its own SQLite file")
    return settings.model_copy(update={"database_url": f"sqlite+aiosqlite:///{tmp_path / 'demo.db'}",
                                       "http_port": 0})


async def test_the_demo_serves_the_web_chat_and_the_bot_answers_each_persona(demo_settings: Settings) -> None:
    ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    stop = asyncio.Event()
    demo = asyncio.create_task(run_demo(demo_settings, emulator_port=0, ready=ready, stop=stop))
    try:
        root = await asyncio.wait_for(ready, timeout=30)
        async with aiohttp.ClientSession() as http:
            async with http.get(f"{root}/") as page:
                assert page.status == 200 and "<html" in (await page.text()).lower()
            carlos = DEFAULT_PERSONAS[0]
            async with http.post(f"{root}/sandbox/send", json={"user_id": carlos.user_id, "text": "/start"}) as sent:
                assert sent.status == 200
            menu = await _wait_for_text(http, root, carlos.user_id, "O que você quer fazer?")
            assert menu["inline_keyboard"], "the main menu has buttons"
            async with http.post(f"{root}/sandbox/send",
                                 json={"user_id": STAFF_PERSONA.user_id, "text": "/start"}) as sent:
                assert sent.status == 200
            await _wait_for_text(http, root, STAFF_PERSONA.user_id, "O que você quer fazer?")
            # issue 20 §1: a persona for each staff role, an Ombudsman among them, each staff in the demo
            for persona, _role, _acts in ROLE_PERSONAS:
                async with http.post(f"{root}/sandbox/send",
                                     json={"user_id": persona.user_id, "text": "/pendencias"}) as sent:
                    assert sent.status == 200
                await _wait_for_text(http, root, persona.user_id, "Nada pendente na sua fila")
            assert {role for _persona, role, _acts in ROLE_PERSONAS} == {Role.CLERK, Role.INSPECTOR, Role.OMBUDSMAN}
    finally:
        stop.set()
        await asyncio.wait_for(demo, timeout=30)


async def test_the_demo_serves_sapezal_and_nova_xavantina(settings: Settings, tmp_path: Path, db_kind: str) -> None:
    """``python -m bot demo`` loads bot/sandbox/municipalities.toml: a person is offered both cities, and the demo
    drivers are Sapezal's registrations (Lei 1.533/2020 is Sapezal's law)."""
    if db_kind == "postgres":
        pytest.skip("the demo runs on its own SQLite file")
    import sqlite3

    from bot.sandbox.demo import DEMO_MUNICIPALITIES_FILE
    from core.settings import load_settings

    path = tmp_path / "demo-both.db"
    both = load_settings(database_url=f"sqlite+aiosqlite:///{path}", municipalities_file=DEMO_MUNICIPALITIES_FILE,
                         http_port=0)
    ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    stop = asyncio.Event()
    demo = asyncio.create_task(run_demo(both, emulator_port=0, ready=ready, stop=stop))
    try:
        root = await asyncio.wait_for(ready, timeout=30)
        async with aiohttp.ClientSession() as http:
            maria = DEFAULT_PERSONAS[1]
            async with http.post(f"{root}/sandbox/send", json={"user_id": maria.user_id, "text": "/start"}) as sent:
                assert sent.status == 200
            greeting = await _wait_for_text(http, root, maria.user_id, "Prefeituras de Sapezal e Nova Xavantina")
            data = [button.get("callback_data") for row in greeting["inline_keyboard"] for button in row]
            assert data == ["city:sapezal:", "city:nova-xavantina:"]
    finally:
        stop.set()
        await asyncio.wait_for(demo, timeout=30)
    with sqlite3.connect(path) as connection:
        places = {row[0] for row in connection.execute("SELECT municipality FROM driver")}
        served = sorted(row[0] for row in connection.execute("SELECT slug FROM municipality WHERE served"))
    assert places == {"sapezal"} and served == ["nova-xavantina", "sapezal"]
