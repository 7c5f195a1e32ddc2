"""A sentence typed at the menu is answered with the form it most likely means, and kept as its first answer
(issue 19 §4.4). Through the emulator: the offer, the button, the form that does not ask it again, the review."""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from core.db import SessionFactory
from models.drafts import get_draft
from models.municipalities import sync_municipalities
from models.people import Person
from tests.auxil.bot_harness import running_bot
from tests.auxil.case_chat import Talk

JOAO, MARIA, PEDRO = 880001, 880002, 880003


async def _draft(sessions: SessionFactory, telegram_id: int) -> Any:
    async with sessions() as session:
        person = (await session.exec(select(Person).where(Person.telegram_user_id == telegram_id))).one()
        return await get_draft(session=session, person_id=person.id)


async def test_a_report_typed_at_the_menu_starts_the_representacao_with_it(
    emulator: Any, bot_app: Any, sessions: SessionFactory
) -> None:
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    offer = await joao.send("quero denunciar queimada de lixo", "I think this is what you want")
    assert "«quero denunciar queimada de lixo»" in offer.text and joao.buttons(offer)[0] == "say:rep:cp"
    await joao.press(offer, "say:rep:cp", "What is your full name?")
    assert any("I kept what you wrote as the description" in text for text in joao.since(0))
    await joao.send("João Batista Pereira", "profession")
    await joao.send("Pedreiro", "What is your address")
    cpf = await joao.send("Rua das Flores, 123, Centro", "type your CPF")
    what = await joao.press(cpf, "rep:skip:cpf", "Type one or two words")
    await joao.press(what, "rep:inf:none", "Who is responsible?")  # the description is not asked again
    draft = await _draft(sessions, JOAO)
    assert draft.data["facts"] == "quero denunciar queimada de lixo" and draft.data["kind"] == "cp"


async def test_a_complaint_typed_at_the_menu_is_a_reclamacao_to_the_ombudsman(
    emulator: Any, settings: Any, sessions: SessionFactory
) -> None:
    async with sessions() as session:
        await sync_municipalities(session=session, served=settings.municipalities)
        session.add(Person(telegram_user_id=MARIA, chat_id=MARIA, first_name="Maria", locale="en",
                           locale_chosen=True, municipality="sapezal"))
        await session.commit()
    maria = Talk(emulator, emulator.add_user(MARIA, "Maria", language_code="en"))
    async with running_bot(settings, sessions, emulator):
        offer = await maria.send("Quero reclamar do posto de saúde", "I think this is what you want")
        assert maria.buttons(offer)[0] == "say:ouv:reclamacao"
        files = await maria.press(offer, "say:ouv:reclamacao", "If you want, send photos")  # type and text told
        identity = await maria.press(files, "ouv:files:done", "Who may see your name?")
        name = await maria.press(identity, "ouv:id:restricted", "What is your full name?")
        review = await maria.send("Maria Aparecida da Silva", "Please check your message")
        assert name and "Type: Complaint" in review.text
        assert "Your message: Quero reclamar do posto de saúde" in review.text
        change = await maria.press(review, "ouv:edit", "What do you want to change?")
        assert {"ouv:edit:text", "ouv:edit:type"} <= set(maria.buttons(change))  # both changeable


async def test_no_keyword_is_still_not_understood_and_a_short_word_is_no_message(
    emulator: Any, bot_app: Any, sessions: SessionFactory
) -> None:
    pedro = Talk(emulator, emulator.add_user(PEDRO, "Pedro", language_code="en"))
    await pedro.send("asdf qwerty", "I did not understand")
    offer = await pedro.send("lixo", "I think this is what you want")  # one word is a guess, too short to keep
    await pedro.press(offer, "say:rep:cp", "What is your full name?")
    draft = await _draft(sessions, PEDRO)
    assert "facts" not in draft.data and draft.data["kind"] == "cp"
