"""/ouvidoria end to end: the manifestação with a file and restricted identity, the Ombudsman's queue, a request
for complementação answered in the chat, the single extension, the answer and the satisfaction question
(L13460 Art. 10 §7, 16, 23; D9492 Art. 18), with bad input and a restart on the way."""

import logging
from typing import Any

import pytest
from sqlmodel import select

from core.db import SessionFactory
from core.settings import Settings
from models.cases.tables import Case, CaseAttachment, CaseStatus, Satisfaction
from models.people import Person, Role, add_staff
from tests.auxil.bot_harness import running_bot
from tests.auxil.case_chat import Talk, deliver
from tests.auxil.case_files import pdf, png

JOAO, OTAVIO, CLARA = 840001, 840103, 840101


async def _staff(sessions: SessionFactory) -> None:
    async with sessions() as session:
        for telegram_id, name in ((OTAVIO, "Otávio"), (CLARA, "Clara")):
            session.add(Person(telegram_user_id=telegram_id, chat_id=telegram_id, first_name=name, locale="en"))
        await session.commit()
        await add_staff(session=session, telegram_user_id=OTAVIO, role=Role.OMBUDSMAN, name="Otávio", actor="test")
        await add_staff(session=session, telegram_user_id=CLARA, role=Role.CLERK, name="Clara", actor="test")


async def test_an_ombudsman_case_from_filing_to_rating(
    emulator: Any, settings: Settings, sessions: SessionFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="balcao")
    await _staff(sessions)
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    otavio = Talk(emulator, emulator.add_user(OTAVIO, "Otávio", language_code="en"))
    clara = Talk(emulator, emulator.add_user(CLARA, "Clara", language_code="en"))
    async with running_bot(settings, sessions, emulator):
        city = await joao.send("/ouvidoria", "Choose your city")  # the deployment serves two (first time only)
        kinds = await joao.press(city, "city:sapezal:ouvidoria", "What kind of message is it?")
        assert len([d for d in joao.buttons(kinds) if d.startswith("ouv:type:")]) == 5
        await joao.send("reclamação", "Please press one of the buttons")
        await joao.press(kinds, "ouv:type:reclamacao", "Write your message")
        await joao.send("ruim", "at least 10 characters")
        files = await joao.send("O posto de saúde do bairro está sem médico há duas semanas.", "If you want, send")
    async with running_bot(settings, sessions, emulator):  # restart in the middle: nothing is lost
        await joao.document(b"not a pdf at all", "x.doc", "application/msword", "only accept")
        done = await joao.document(pdf(), "receita.pdf", "application/pdf", "File received (1 of 5)")
        assert files
        identity = await joao.press(done, "ouv:files:done", "Who may see your name?")
        assert "Art. 10 §7" in identity.text
        name = await joao.press(identity, "ouv:id:restricted", "What is your full name?")
        await joao.send("J", "full name")
        review = await joao.send("João Batista Pereira", "Please check your message")
        assert "only the Ombudsman" in review.text and "1 file" in review.text
        change = await joao.press(review, "ouv:edit", "What do you want to change?")
        identity = await joao.press(change, "ouv:edit:identity", "Who may see your name?")
        review = await joao.press(identity, "ouv:id:open", "Please check your message")  # back to the review
        assert "the staff who handle your case" in review.text and "João Batista Pereira" in review.text
        change = await joao.press(review, "ouv:edit", "What do you want to change?")
        identity = await joao.press(change, "ouv:edit:identity", "Who may see your name?")
        review = await joao.press(identity, "ouv:id:restricted", "only the Ombudsman")
        sent = await joao.send("yes", "Your protocol number is")
        assert "OUV-" in sent.text and name
        await emulator.wait_for_message(JOAO, lambda m: m.document is not None, after=sent.message_id)

        empty = await clara.send("/pendencias", "Nothing pending in your queue")
        assert empty
        queue = await otavio.send("/pendencias", "Pending cases")
        async with sessions() as session:
            case = (await session.exec(select(Case))).one()
        opened = await otavio.press(queue, f"pend:case:{case.id}", case.protocol)
        assert "João Batista Pereira" in opened.text  # the Ombudsman sees the author
        assert f"pend:extend:{case.id}" in otavio.buttons(opened)
        prompt = await otavio.press(opened, f"pend:ask:{case.id}", "Type the question for the author")
        assert prompt
        await otavio.send("?", "at least 10 characters")
        confirm = await otavio.send("Qual é o endereço do posto de saúde?", "Confirm?")
        await otavio.press(confirm, "pact:send", "Sent to the author")

        await deliver(settings, sessions, emulator)
        asked = await emulator.wait_for_message(JOAO, lambda m: "needs more information" in (m.text or ""), after=0)
        assert "Qual é o endereço do posto de saúde?" in asked.text and "Decreto" not in asked.text  # issue 20 §3
        answer = await joao.press(asked, f"acomp:compl:{case.id}", "Type your answer")
        assert answer
        await joao.photo(png(), "File received (1 of 5)")
        confirm = await joao.send("Rua das Acácias, 45.", "Send it?")
        await joao.press(confirm, "cpl:send", "Your answer was added")

        await deliver(settings, sessions, emulator)
        await emulator.wait_for_message(OTAVIO, lambda m: "sent the information asked for" in (m.text or ""), after=0)
        queue = await otavio.send("/pendencias", "Pending cases")
        opened = await otavio.press(queue, f"pend:case:{case.id}", case.protocol)
        await otavio.press(opened, f"pend:extend:{case.id}", "reason for extending")
        confirm = await otavio.send("Aguardando resposta da Secretaria de Saúde.", "Confirm?")
        done = await otavio.press(confirm, "pact:send", "Deadline extended to")
        opened = await emulator.wait_for_message(OTAVIO, lambda m: "Pending cases" in (m.text or ""),
                                                 after=done.message_id)  # back on the queue
        opened = await otavio.press(opened, f"pend:case:{case.id}", case.protocol)
        assert f"pend:extend:{case.id}" not in otavio.buttons(opened)  # only once (Art. 16)
        await otavio.press(opened, f"pend:answer:{case.id}", "Type the answer to the author")
        confirm = await otavio.send("O médico foi contratado e começa na segunda-feira.", "Confirm?")
        await otavio.press(confirm, "pact:send", "Answer sent to the author")

        await deliver(settings, sessions, emulator)
        answered = await emulator.wait_for_message(JOAO, lambda m: "The Ouvidoria answered" in (m.text or ""), after=0)
        assert "O médico foi contratado" in answered.text
        await joao.press(answered, f"acomp:sat:{case.id}:satisfied", "Thank you for your rating")
        listing = await joao.send("/acompanhar", "Your cases")
        detail = await joao.press(listing, f"acomp:case:{case.id}", case.protocol)
        for step in ("Filed", "More information asked for", "Information sent", "Deadline extended", "Answered"):
            assert step in detail.text
    async with sessions() as session:
        case = (await session.exec(select(Case))).one()
        files = (await session.exec(select(CaseAttachment))).all()
    assert case.status is CaseStatus.ANSWERED and case.satisfaction is Satisfaction.SATISFIED
    assert case.identity_restricted and case.extended_at is not None
    assert len(files) == 2 and {f.case_id for f in files} == {case.id}
    assert "João Batista Pereira" not in caplog.text
    assert emulator.unanswered_callbacks() == []
