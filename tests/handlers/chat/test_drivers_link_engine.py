"""The driver link on the form engine (issue 19 §1): the shared contact is a step input like a location.

Through the emulator: the link by a shared contact still links (L1533 Art. 13 XX: the phone the city hall has),
a restart between the contact and the CPF digits resumes at the digits, typed "voltar" at the digits asks for the
contact again (before, it was taken as a wrong CPF).
"""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from core.db import SessionFactory
from core.settings import Settings
from models.drafts import get_draft
from models.drivers.tables import Driver
from models.people import Person
from tests.auxil.bot_harness import running_bot
from tests.handlers.chat.test_drivers import MARIA_ID, PHONE, maria, registered


async def _draft(sessions: SessionFactory) -> Any:
    async with sessions() as session:
        found = (await session.exec(select(Person).where(Person.telegram_user_id == MARIA_ID))).one()
        return await get_draft(session=session, person_id=found.id or 0)


async def test_the_link_by_a_shared_contact_survives_a_restart_and_voltar_goes_back_to_the_contact(
    emulator: Any, settings: Settings, sessions: SessionFactory
) -> None:
    await registered(sessions, settings)
    talk = maria(emulator)
    async with running_bot(settings, sessions, emulator):
        offer = await talk.send("/vincular", "How do you want to do it?")
        await talk.press(offer, "drivers:contact", "share your phone number")
        mark = talk._mark()
        emulator.share_contact(talk.user, PHONE)
        await talk._expect(mark, "type the first 3 digits of your CPF")
    assert (await _draft(sessions)).step == "cpf"
    async with running_bot(settings, sessions, emulator):  # a restart: the step is kept
        await talk.send("voltar", "share your phone number")  # not a wrong CPF: the contact is asked again
        assert emulator.reply_keyboard(MARIA_ID)["keyboard"][0][0]["request_contact"] is True
        mark = talk._mark()
        emulator.share_contact(talk.user, PHONE)
        await talk._expect(mark, "type the first 3 digits of your CPF")
        linked = await talk.send("123", "Authorization nº 2026/001")
    assert "Done: your Telegram is linked" in emulator.messages(MARIA_ID)[-2].text and linked
    assert await _draft(sessions) is None
    async with sessions() as session:
        assert (await session.exec(select(Driver))).one().person_id is not None
