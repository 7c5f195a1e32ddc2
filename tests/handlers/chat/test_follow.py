"""/acompanhar end to end: the list, a case by protocol (typed, or by deep link), someone else's case stays
hidden, bad protocols get a clear answer, and a late answer to a complementação is refused."""

import datetime as dt
from typing import Any

from sqlmodel import select

from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.cases.filing import file_ombudsman_case, file_representation
from models.cases.handling import answer_case, request_complement
from models.cases.tables import Case, CaseEvent, CaseStatus, EventKind, Satisfaction
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
                                         now=utcnow() - dt.timedelta(days=32), city=cities_of(settings).default)
        await request_complement(session=session, telegram_user_id=OTAVIO, case_id=mine.case_id,
                                 question="Qual é o endereço do posto?", now=utcnow() - dt.timedelta(days=30),
                                 cities=cities_of(settings))
        theirs = await file_representation(session=session, person_id=people[MARIA], form=representation(),
                                           now=utcnow(), cities=cities_of(settings))
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


async def _answered(sessions: SessionFactory, settings: Settings, telegram_id: int, locale: str) -> Case:
    """An ombudsman case of ``telegram_id``, closed by its conclusive answer (L13460 Art. 12)."""
    async with sessions() as session:
        session.add(Person(telegram_user_id=telegram_id, chat_id=telegram_id, first_name="João", locale=locale))
        session.add(Person(telegram_user_id=OTAVIO, chat_id=OTAVIO, first_name="Otávio", locale="en"))
        await session.commit()
        await add_staff(session=session, telegram_user_id=OTAVIO, role=Role.OMBUDSMAN, name="Otávio", actor="test")
        person = (await session.exec(select(Person).where(Person.telegram_user_id == telegram_id))).one()
        filed = await file_ombudsman_case(session=session, person_id=person.id, form=ombudsman(), now=utcnow(),
                                          city=cities_of(settings).default)
        await answer_case(session=session, cities=cities_of(settings), telegram_user_id=OTAVIO, case_id=filed.case_id,
                          text="O médico começa na segunda-feira.", now=utcnow())
        case = await session.get(Case, filed.case_id)
        assert case is not None
        person.municipality = case.municipality  # the city chosen: a new case starts with its first question
        await session.commit()
        await session.refresh(case)
        return case


async def test_a_no_says_why_and_the_reason_is_stored(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    # Issue 20 §3, L13460 Art. 23: after "No", the author may say why; the reason is kept on the case
    case = await _answered(sessions, settings, JOAO, "en")
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    detail = await joao.send(f"/acompanhar {case.protocol}", case.protocol)
    asked = await joao.press(detail, f"acomp:rate:{case.id}", "Were you satisfied")
    thanked = await joao.press(asked, f"acomp:sat:{case.id}:unsatisfied", "Would you like to tell us why?")
    assert {f"svy:why:{case.id}", f"svy:reopen:{case.id}"} <= set(joao.buttons(thanked))
    await joao.press(thanked, f"svy:why:{case.id}", "why you were not fully satisfied")
    await joao.send("Oi", "at least 5 characters")  # too short: asked again, nothing stored
    done = await joao.send("O médico não apareceu na segunda.", "Your reason was recorded")
    assert "cannot be reopened" not in done.text
    async with sessions() as session:
        stored = await session.get(Case, case.id)
        events = (await session.exec(select(CaseEvent).where(CaseEvent.case_id == case.id))).all()
    assert stored is not None and stored.satisfaction is Satisfaction.UNSATISFIED
    assert stored.satisfaction_reason == "O médico não apareceu na segunda."
    assert [e.note for e in events if e.kind is EventKind.RATING_EXPLAINED] == [stored.satisfaction_reason]
    timeline = await joao.send(f"/acompanhar {case.protocol}", "Reason for the rating")
    assert "O médico não apareceu na segunda." in timeline.text
    assert emulator.unanswered_callbacks() == []


async def test_a_partly_reopen_files_the_reason_and_offers_a_new_case_of_its_kind(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    # L13460 Art. 12: the conclusive answer closed the case; the disagreement is a new manifestação (item 80)
    case = await _answered(sessions, settings, MARIA, "pt_BR")
    maria = Talk(emulator, emulator.add_user(MARIA, "Maria", language_code="pt-br"))
    detail = await maria.send(f"/acompanhar {case.protocol}", case.protocol)
    asked = await maria.press(detail, f"acomp:rate:{case.id}", "satisfeito")
    thanked = await maria.press(asked, f"acomp:sat:{case.id}:partly", "Quer nos dizer o porquê?")
    assert "🔁 Reabrir o caso" in [b.get("text") for b in thanked.inline_buttons]
    await maria.press(thanked, f"svy:reopen:{case.id}", "por que")
    told = await maria.send("Só resolveram metade do problema.", "não pode ser reaberto")
    assert "cmd:ouvidoria" in maria.buttons(told) and "cmd:representacao" not in maria.buttons(told)
    await maria.press(told, "cmd:ouvidoria", "A Ouvidoria responde em até 30 dias")
    async with sessions() as session:
        stored = await session.get(Case, case.id)
    assert stored is not None and stored.satisfaction is Satisfaction.PARTLY
    assert stored.satisfaction_reason == "Só resolveram metade do problema."
    assert stored.status is CaseStatus.ANSWERED  # the case stays closed
