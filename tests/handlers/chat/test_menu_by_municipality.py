"""The main menu offers a journey only where its law is in force (CF Art. 30 I: each municipality its own laws).

A newcomer's walk found a Nova Xavantina citizen offered "Motorista: minha autorização", the journey of Sapezal's
Lei 1.533/2020 (L1533 Art. 8: the authorization is Sapezal's), which Nova Xavantina never enacted.
"""

from __future__ import annotations

from typing import Any

from core.db import SessionFactory
from core.settings import Settings
from tests.auxil.bot_harness import running_bot
from tests.auxil.case_chat import Talk

DRIVER = "cmd:situacao"


async def test_nova_xavantina_people_get_no_driver_item_and_sapezal_people_do(
    emulator: Any, settings: Settings, sessions: SessionFactory
) -> None:
    nina = Talk(emulator, emulator.add_user(860001, "Nina", language_code="pt-br"))
    sa = Talk(emulator, emulator.add_user(860002, "Sá", language_code="pt-br"))
    async with running_bot(settings, sessions, emulator):
        for talk, city in ((nina, "nova-xavantina"), (sa, "sapezal")):
            menu = await talk.send("/cidade", "cidade")
            await talk.press_and_edit(menu, f"city:{city}:", "sua cidade é")
        nina_menu = await nina.send("/start", "O que você quer fazer?")
        sa_menu = await sa.send("/start", "O que você quer fazer?")
    assert DRIVER not in nina.buttons(nina_menu)
    assert "cmd:representacao" in nina.buttons(nina_menu)  # the Código de Posturas' journey is hers
    assert DRIVER in sa.buttons(sa_menu)


async def test_on_nova_xavantinas_own_bot_the_menu_has_no_driver_item(
    emulator: Any, settings: Settings, sessions: SessionFactory
) -> None:
    ze = Talk(emulator, emulator.add_user(860003, "Zé", language_code="pt-br"))
    async with running_bot(settings, sessions, emulator, bot_key="nova-xavantina"):
        menu = await ze.send("/start", "O que você quer fazer?")
    assert DRIVER not in ze.buttons(menu)
