"""/aviso on the form engine (issue 19 §1), through the Bot API emulator, in Portuguese.

A double tap on "✅ Enviar o aviso" queues one broadcast (claim-once); a role withdrawn in the middle of the form
stops its next answer (``Form.roles``); typed "voltar" asks the step before again and is never the notice's text.
Updates queued without an ``await`` between them arrive in one ``getUpdates`` batch, as a double tap does.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from core.db import SessionFactory
from core.settings import Settings
from models.broadcasts import Broadcast
from models.drafts import get_draft
from models.outbox import OutboxMessage
from models.people import Person, Role, StaffMember, add_staff
from tests.auxil.bot_harness import running_bot
from tests.auxil.case_chat import Talk

CLARA = 880101
RECIPIENTS = (880002, 880003)


async def _clara(emulator: Any, sessions: SessionFactory) -> Talk:
    async with sessions() as session:
        for telegram_id, name in ((CLARA, "Clara"), (RECIPIENTS[0], "Maria"), (RECIPIENTS[1], "Pedro")):
            session.add(Person(telegram_user_id=telegram_id, chat_id=telegram_id, first_name=name, locale="pt_BR",
                               locale_chosen=True))
        await session.commit()
        await add_staff(session=session, telegram_user_id=CLARA, role=Role.CLERK, name="Clara", actor="test")
    for telegram_id in RECIPIENTS:
        emulator.add_user(telegram_id, "Munícipe")
    return Talk(emulator, emulator.add_user(CLARA, "Clara", language_code="pt-br"))


async def _draft(sessions: SessionFactory) -> Any:
    async with sessions() as session:
        found = (await session.exec(select(Person).where(Person.telegram_user_id == CLARA))).one()
        return await get_draft(session=session, person_id=found.id or 0)


async def test_a_double_tap_on_enviar_o_aviso_queues_one_broadcast(
    emulator: Any, settings: Settings, sessions: SessionFactory
) -> None:
    """Two presses of Send at the same instant: one broadcast, and the second press is told its number."""
    clara = await _clara(emulator, sessions)
    async with running_bot(settings, sessions, emulator):
        await clara.send("/aviso", "Escreva o aviso")
        audiences = await clara.send("Mutirão de limpeza na praça.", "Quem deve receber")
        when = await clara.press(audiences, "aviso:aud:everyone", "Quando deve ser enviado")
        review = await clara.press(when, "aviso:now", "Enviar este aviso agora para 3 pessoas")
        assert {"text": "✅ Enviar o aviso", "callback_data": "aviso:send"}.items() <= next(
            b for b in review.inline_buttons if b.get("callback_data") == "aviso:send").items()
        first = emulator.press_button(clara.user, review, "aviso:send")
        second = emulator.press_button(clara.user, review, "aviso:send")  # the same getUpdates batch
        await emulator.wait_until(lambda: emulator.callback_query(first).answered
                                  and emulator.callback_query(second).answered)
        await emulator.wait_until(
            lambda: any("Este aviso já foi enviado: #1" in (m.text or "") for m in emulator.messages(CLARA)))
    async with sessions() as session:
        assert len((await session.exec(select(Broadcast))).all()) == 1
        assert len((await session.exec(select(OutboxMessage))).all()) == 3  # Clara, Maria and Pedro, once each
    assert await _draft(sessions) is None


async def test_a_role_withdrawn_in_the_middle_of_aviso_stops_the_next_answer(
    emulator: Any, settings: Settings, sessions: SessionFactory
) -> None:
    """The role is checked on every update of the form (Form.roles), not only at /aviso; refused, the form is
    closed (nothing half-done waits for a role to come back, and no other form is blocked by it)."""
    clara = await _clara(emulator, sessions)
    async with running_bot(settings, sessions, emulator):
        await clara.send("/aviso", "Escreva o aviso")
        audiences = await clara.send("Mutirão de limpeza na praça.", "Quem deve receber")
        async with sessions() as session:
            for member in (await session.exec(select(StaffMember).where(StaffMember.telegram_user_id == CLARA))):
                member.active = False
                session.add(member)
            await session.commit()
        await clara.press(audiences, "aviso:aud:everyone", "Só servidores com o perfil certo")
        await clara.send("voltar", "Não entendi")  # no form is in progress any more
    assert await _draft(sessions) is None  # nothing taken, the draft closed
    async with sessions() as session:
        assert (await session.exec(select(Broadcast))).all() == []


async def test_typed_voltar_asks_the_step_before_again_and_is_never_an_answer(
    emulator: Any, settings: Settings, sessions: SessionFactory
) -> None:
    """Issue 19 §4.3: at the audience, "voltar" asks the text again; at the moment, the audience again."""
    clara = await _clara(emulator, sessions)
    async with running_bot(settings, sessions, emulator):
        await clara.send("/aviso", "Escreva o aviso")
        await clara.send("Primeiro texto.", "Quem deve receber")
        await clara.send("voltar", "Escreva o aviso")
        assert (await _draft(sessions)).step == "text"
        audiences = await clara.send("Segundo texto.", "Quem deve receber")
        await clara.press(audiences, "aviso:aud:everyone", "Quando deve ser enviado")
        await clara.send("Voltar", "Quem deve receber")
        draft = await _draft(sessions)
        assert draft.step == "audience" and "Segundo texto." in draft.data["text"]
        when = await clara.press(audiences, "aviso:aud:everyone", "Quando deve ser enviado")
        review = await clara.send("agora", "Enviar este aviso agora")
        assert "Segundo texto." in review.text and "voltar" not in review.text.lower()
        assert when
