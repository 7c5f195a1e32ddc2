"""Typed answers understood outside a form (issue 9 item 12): a greeting, a protocol number alone."""

from typing import Any

import pytest
from sqlmodel import select

from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from handlers.chat.greetings import is_greeting
from models.cases.filing import file_representation
from models.cases.tables import Case
from models.columns import utcnow
from models.people import Person
from tests.auxil.case_chat import Talk
from tests.auxil.case_people import representation


@pytest.mark.parametrize("typed", ["oi", "Olá!", "Bom dia", "oi, tudo bem?", "Boa noite 👋", "hola", "Hi"])
async def test_a_greeting_as_first_message_greets_and_shows_the_menu(
    emulator: Any, bot_app: Any, typed: str
) -> None:
    maria = Talk(emulator, emulator.add_user(870001, "Maria", language_code="pt-br"))
    hello = await maria.send(typed, "Olá, Maria!")
    menu = await emulator.wait_for_message(870001, lambda m: "O que você quer fazer?" in (m.text or ""),
                                           after=hello.message_id)
    assert "cmd:representacao" in maria.buttons(menu)
    assert not any("Não entendi" in text for text in maria.since(0))


@pytest.mark.parametrize("typed", ["oi, quero denunciar um terreno", "bom", "dia 4", "olá olá olá " * 6])
def test_a_sentence_that_only_starts_with_a_greeting_is_not_a_greeting(typed: str) -> None:
    assert not is_greeting(typed)


async def test_a_protocol_typed_alone_opens_the_persons_own_case_and_never_anothers(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    async with sessions() as session:
        for telegram_id, name in ((870001, "Maria"), (870002, "João")):
            session.add(Person(telegram_user_id=telegram_id, chat_id=telegram_id, first_name=name, locale="pt_BR"))
        await session.commit()
        joao = (await session.exec(select(Person).where(Person.telegram_user_id == 870002))).one()
        await file_representation(session=session, person_id=joao.id, form=representation(), now=utcnow(),
                                  cities=cities_of(settings))
        case = (await session.exec(select(Case))).one()
    joao_chat = Talk(emulator, emulator.add_user(870002, "João", language_code="pt-br"))
    mine = await joao_chat.send(case.protocol.lower().replace("-", " "), case.protocol)  # "rep 2026 000001"
    assert "Histórico" in mine.text
    maria = Talk(emulator, emulator.add_user(870001, "Maria", language_code="pt-br"))
    refused = await maria.send(case.protocol, "Não encontrei nenhum caso seu com esse número")
    assert "Depósito Bom Preço" not in refused.text and "entulho" not in refused.text
    assert not any("Histórico" in text for text in maria.since(0))
