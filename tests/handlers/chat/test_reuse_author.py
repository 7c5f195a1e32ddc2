"""One-tap reuse (issue 19 §4.5): the name, profession and address of the person's last case are offered as one
answer ("Usar: João Batista Pereira, Rua das Flores, 123, Centro") in /representacao and /ouvidoria."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlmodel import select

from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.cases.filing import file_ombudsman_case, file_representation
from models.columns import utcnow
from models.drafts import get_draft
from models.municipalities import sync_municipalities
from models.people import Person, ensure_person
from tests.auxil.bot_harness import running_bot
from tests.auxil.case_chat import Talk
from tests.auxil.case_people import ombudsman, representation

JOAO, MARIA = 890001, 890002


async def _person_with_a_case(sessions: SessionFactory, settings: Settings, telegram_id: int, *,
                              ombudsman_case: bool = False) -> int:
    async with sessions() as session:
        await sync_municipalities(session=session, served=settings.municipalities)
        person = await ensure_person(session=session, telegram_user_id=telegram_id, chat_id=telegram_id,
                                     first_name="Pessoa", language_code="en")
        filed_at = utcnow() - dt.timedelta(days=3)
        if ombudsman_case:
            await file_ombudsman_case(session=session, person_id=person.id, form=ombudsman(), now=filed_at,
                                      city=cities_of(settings).default)
        else:
            await file_representation(session=session, person_id=person.id, form=representation(), now=filed_at,
                                      cities=cities_of(settings))
        return person.id


async def _draft(sessions: SessionFactory, person_id: int) -> Any:
    async with sessions() as session:
        return await get_draft(session=session, person_id=person_id)


async def test_the_last_reports_name_profession_and_address_are_one_tap(
    emulator: Any, bot_app: Any, sessions: SessionFactory, settings: Settings
) -> None:
    person_id = await _person_with_a_case(sessions, settings, JOAO)
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    kind = await joao.send("/representacao", "What would you like to report?")
    name = await joao.press(kind, "rep:kind:cp", "What is your full name?")
    assert "Use: João Batista Pereira, Rua das Flores, 123, Centro" in str(name.reply_markup)
    await joao.press(name, "rep:reuse:last", "type your CPF")  # profession and address not asked again
    assert any("Noted: João Batista Pereira, Pedreiro, Rua das Flores, 123, Centro." in text
               for text in joao.since(0))
    draft = await _draft(sessions, person_id)
    assert (draft.data["name"], draft.data["profession"], draft.data["address"]) == (
        "João Batista Pereira", "Pedreiro", "Rua das Flores, 123, Centro")


async def test_the_ombudsman_form_offers_the_last_cases_name(
    emulator: Any, settings: Settings, sessions: SessionFactory
) -> None:
    await _person_with_a_case(sessions, settings, MARIA, ombudsman_case=True)
    async with sessions() as session:
        person = (await session.exec(select(Person).where(Person.telegram_user_id == MARIA))).one()
        person.municipality = "sapezal"
        session.add(person)
        await session.commit()
    maria = Talk(emulator, emulator.add_user(MARIA, "Maria", language_code="en"))
    async with running_bot(settings, sessions, emulator):
        kinds = await maria.send("/ouvidoria", "What kind of message is it?")
        await maria.press(kinds, "ouv:type:sugestao", "Write your message")
        files = await maria.send("Mais bancos na praça central, por favor.", "If you want, send")
        identity = await maria.press(files, "ouv:files:done", "Who may see your name?")
        name = await maria.press(identity, "ouv:id:open", "What is your full name?")
        assert "ouv:reuse:last" in maria.buttons(name)
        review = await maria.press(name, "ouv:reuse:last", "Please check your message")
    assert "Name: João Batista Pereira" in review.text

