"""In the chat, each act cites its own law and names its provision (issue 18 §3): /emitir asks the provision of an
"Outros" item (CP Art. 34 III), and the delivery screen of a Lei 1.533 auto lists Lei 1.533's means (Art. 22 §1)."""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from models.columns import utcnow
from models.notices.tables import Notice, NoticeDelivery
from models.people import Role, add_staff
from tests.auxil.case_chat import Talk
from tests.auxil.notices import issue, l1533_auto


async def _staff(emulator: Any, sessions: Any, user_id: int, name: str, role: Role = Role.INSPECTOR) -> Talk:
    user = emulator.add_user(user_id, name, language_code="pt-br")
    talk = Talk(emulator, user)
    await talk.send("/start", "O que você quer fazer?")
    async with sessions() as session:
        await add_staff(session=session, telegram_user_id=user.id, role=role, name=name, actor="test")
    return talk


async def test_emitir_asks_the_provision_infringed_of_an_outros_item_cp_art_34_iii(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    talk = await _staff(emulator, sessions, 850101, "Inês")
    law = await talk.send("/emitir", "Qual lei")
    chosen = await talk.press(law, "emit:rb:nx-posturas", "Qual tipo")
    await talk.press(chosen, "emit:type:auto", "Qual infração")
    await talk.send("CP-I-11", "não descreve nenhuma conduta")
    await talk.send("Art. 50, IX", "Nome do infrator")
    async with sessions() as session:
        assert (await session.exec(select(Notice))).first() is None


async def test_the_delivery_screen_of_a_lei_1533_auto_lists_lei_1533s_means_not_cp_art_36(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    # CF Art. 30 I: Sapezal's act under Sapezal's law (L1533 Art. 22 §1), not Nova Xavantina's CP Art. 36.
    talk = await _staff(emulator, sessions, 850201, "Clara", Role.CLERK)
    async with sessions() as session:
        await issue(session, settings, l1533_auto(), now=utcnow())
        delivery = (await session.exec(select(NoticeDelivery))).one()
    listing = await talk.send("/entregas", "Notificações a entregar")
    screen = await talk.press_and_edit(listing, f"ent:dlv:{delivery.id}", "Lei 1.533/2020, Art. 22 §1")
    assert "comprovante do Correio" in screen.text and "Art. 36" not in screen.text
    assert "dday:open:" + str(delivery.id) + ":postal" in talk.buttons(screen)
    day = await talk.press(screen, f"dday:open:{delivery.id}:postal", "Em que dia foi entregue")
    confirm = await talk.press(day, "dday:today", "Comprovante do Correio (via postal)")
    assert "AR" not in confirm.text
