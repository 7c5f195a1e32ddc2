"""/acompanhar end to end: the list, a case by protocol (typed, or by deep link), someone else's case stays
hidden, bad protocols get a clear answer, and a late answer to a complementação is refused."""

import datetime as dt
from typing import Any

from sqlmodel import select

from core.db import SessionFactory
from core.settings import Settings
from models.cases.filing import file_ombudsman_case, file_representation
from models.cases.handling import request_complement
from models.cases.tables import Case
from models.columns import utcnow
from models.people import Person, Role, add_staff
from tests.auxil.case_chat import Talk
from tests.auxil.case_people import ombudsman, representation

JOAO, MARIA, OTAVIO = 860001, 860002, 860103


async def _cases(sessions: SessionFactory, settings: Settings) -> tuple[Case, Case]:
    async with sessions() as session:
        for telegram_id, name in ((JOAO, "João"), (MARIA, "Maria"), (OTAVIO, "Otávio")):
            session.add(Person(telegram_user_id=telegram_id, chat_id=telegram_id, first_name=name, locale="en"))
        await session.commit()
        await add_staff(session=session, telegram_user_id=OTAVIO, role=Role.OMBUDSMAN, name="Otávio", actor="test")
        people = {p.telegram_user_id: p.id for p in (await session.exec(select(Person))).all()}
        mine = await file_ombudsman_case(session=session, person_id=people[JOAO], form=ombudsman(),
                                         now=utcnow() - dt.timedelta(days=32), settings=settings)
        await request_complement(session=session, telegram_user_id=OTAVIO, case_id=mine.case_id,
                                 question="Qual é o endereço do posto?", now=utcnow() - dt.timedelta(days=30),
                                 settings=settings)
        theirs = await file_representation(session=session, person_id=people[MARIA], form=representation(),
                                           now=utcnow(), settings=settings)
        first = await session.get(Case, mine.case_id)
        second = await session.get(Case, theirs.case_id)
        assert first is not None and second is not None
        return first, second


async def test_following_cases(emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory) -> None:
    mine, theirs = await _cases(sessions, settings)
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    listing = await joao.send("/acompanhar", "Your cases")
    assert mine.protocol in listing.text and theirs.protocol not in listing.text
    assert "Waiting for more information from you (" in listing.text and "days ago)" in listing.text  # issue 19 §2
    detail = await joao.press(listing, f"acomp:case:{mine.id}", mine.protocol)
    assert "Answer from you by" in detail.text and "Qual é o endereço do posto?" in detail.text
    await joao.send(f"/acompanhar {theirs.protocol.lower()}", "I found no case of yours with that number")
    await joao.send("/acompanhar xyz", "Your cases")  # after "A protocol number looks like REP-2026-000123"
    linked = await joao.send(f"/start case-{mine.protocol}", mine.protocol)
    assert "Timeline" in linked.text
    answer = await joao.press(detail, f"acomp:compl:{mine.id}", "Type your answer")
    confirm = await joao.send("Rua das Acácias, 45.", "Send it?")
    await joao.press(confirm, "cpl:send", "The period to complete this case ended")  # 30 days > 20
    assert answer


async def test_a_person_without_cases_is_offered_to_file_one(emulator: Any, bot_app: Any) -> None:
    maria = Talk(emulator, emulator.add_user(MARIA, "Maria", language_code="pt-br"))
    empty = await maria.send("/acompanhar", "Você ainda não tem nenhum caso.")
    assert {"cmd:representacao", "cmd:ouvidoria", "menu:main"} <= set(maria.buttons(empty))
