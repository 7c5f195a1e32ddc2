"""Dates and hours typed in the chat, read by models/when.py as everywhere else (issue 19 §2, §4.3; issue 20 §2).

"amanhã 8h" schedules an /aviso; "sábado" is a day in the representação. Both were refused.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import time_machine
from sqlmodel import select

from core.db import SessionFactory
from core.settings import Settings
from models.broadcasts import Broadcast
from models.drafts import get_draft
from models.people import Person, Role, add_staff
from tests.auxil.bot_harness import running_bot
from tests.auxil.case_chat import Talk
from tests.auxil.drivers import driver_row, seed_registry

CLARA, JOAO = 870101, 870001
NOW = dt.datetime(2026, 12, 2, 13, 0, tzinfo=dt.UTC)  # Wednesday, 09:00 in Cuiabá


async def test_an_aviso_scheduled_for_amanha_8h(emulator: Any, settings: Settings, sessions: SessionFactory) -> None:
    async with sessions() as session:
        for telegram_id, name in ((CLARA, "Clara"), (JOAO, "João")):
            session.add(Person(telegram_user_id=telegram_id, chat_id=telegram_id, first_name=name, locale="en",
                               locale_chosen=True))
        await session.commit()
        await add_staff(session=session, telegram_user_id=CLARA, role=Role.CLERK, name="Clara", actor="test")
    emulator.add_user(JOAO, "João")
    clara = Talk(emulator, emulator.add_user(CLARA, "Clara", language_code="en"))
    with time_machine.travel(NOW, tick=True):
        async with running_bot(settings, sessions, emulator):
            await clara.send("/aviso", "Write the notice")
            audiences = await clara.send("Mutirão de limpeza na praça.", "Who should receive")
            await clara.press(audiences, "aviso:aud:everyone", "When should it go?")
            await clara.send("amanhã talvez", "I did not understand that date")
            confirm = await clara.send("amanhã às 8h", "Send this notice on")
            assert "Thursday, December 3, 2026 at 8:00" in confirm.text
            await clara.press_and_edit(confirm, "aviso:send", "scheduled for")
    async with sessions() as session:
        broadcast = (await session.exec(select(Broadcast))).one()
    assert broadcast.send_at == dt.datetime(2026, 12, 3, 12, 0, tzinfo=dt.UTC)  # 08:00 in Cuiabá


async def test_a_representacao_happened_on_sabado(
    emulator: Any, bot_app: Any, sessions: SessionFactory, settings: Settings
) -> None:
    async with sessions() as session:
        await seed_registry(session, settings, [driver_row()])
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    with time_machine.travel(NOW, tick=True):
        kind = await joao.send("/representacao", "What would you like to report?")
        vehicle = await joao.press(kind, "rep:kind:app", "plate, or the authorization number")
        found = await joao.send("qbx 1234", "Found in the registry")
        reason = await joao.press(found, "rep:veh:ok", "What did the driver do?")
        await joao.press(reason, "rep:why:street", "Describe briefly what happened")
        await joao.send("Pegou passageiros na rodoviária sem o aplicativo.", "Where did it happen?")
        await joao.send("Rodoviária de Sapezal", "When did it happen?")
        await joao.send("sábado", "Send photos or documents")
    async with sessions() as session:
        person = (await session.exec(select(Person).where(Person.telegram_user_id == JOAO))).one()
        draft = await get_draft(session=session, person_id=person.id)
    assert vehicle and draft is not None and draft.data["occurred_on"] == "2026-11-28"  # the last Saturday
