"""/painel end to end: a staff member gets a one-time console link in the chat (no link preview), a citizen gets
nothing, and the link opens a console session once."""

from __future__ import annotations

import json
import re
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from bot.web import build_web_app
from core.db import SessionFactory
from core.settings import Settings
from models.people import Person, Role, add_staff
from tests.auxil.case_chat import Talk

CLARA, JOAO = 860101, 860001
LINK = re.compile(r"(https?://\S+/painel/entrar/[A-Za-z0-9_-]+)")


async def test_staff_get_a_one_time_link_and_citizens_do_not(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    async with sessions() as session:
        session.add(Person(telegram_user_id=CLARA, chat_id=CLARA, first_name="Clara", locale="pt_BR"))
        await session.commit()
        await add_staff(session=session, telegram_user_id=CLARA, role=Role.CLERK, name="Clara", actor="test")
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="pt-br"))
    clara = Talk(emulator, emulator.add_user(CLARA, "Clara", language_code="pt-br"))
    refused = await joao.send("/painel", "servidores")
    assert "/painel/entrar/" not in refused.text

    message = await clara.send("/painel", "Painel dos servidores")
    assert "10 minutos" in message.text and "só uma vez" in message.text
    found = LINK.search(message.text)
    assert found is not None and found.group(1).startswith(settings.http_root)
    sent = [call for call in emulator.calls_to("sendMessage") if "/painel/entrar/" in str(call.params.get("text"))]
    preview = sent[-1].params.get("link_preview_options")
    if isinstance(preview, str):
        preview = json.loads(preview)
    assert preview == {"is_disabled": True}  # no server fetches the link on the person's behalf

    path = found.group(1).removeprefix(settings.http_root)
    async with TestClient(TestServer(build_web_app(settings, sessions))) as client:
        first = await client.post(path)
        assert first.status == 200 and "Painel" in await first.text()
        client.session.cookie_jar.clear()
        assert (await client.post(path)).status == 410
