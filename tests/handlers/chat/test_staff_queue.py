"""/pendencias end to end: the clerk's queue by deadline, taking a case, deciding per CP Art. 32 (auto, with the
hand-over to the penalty notices; archive with a reason), the author told each time; only staff get in."""

import datetime as dt
from typing import Any

from sqlmodel import select

from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.cases.attachments import store_attachment
from models.cases.filing import Open311Origin, file_ombudsman_case, file_representation
from models.cases.limits import CaseLimits
from models.cases.tables import Case, CaseStatus, Outcome
from models.columns import utcnow
from models.open311.keys import client_for_key, issue_key
from models.people import Person, Role, add_staff
from tests.auxil.case_chat import Talk, deliver
from tests.auxil.case_files import pdf
from tests.auxil.case_people import ombudsman, representation

JOAO, CLARA, OTAVIO = 850001, 850101, 850103


async def _setup(sessions: SessionFactory, settings: Settings) -> list[Case]:
    async with sessions() as session:
        for telegram_id, name, locale in ((JOAO, "João", "en"), (CLARA, "Clara", "en"), (OTAVIO, "Otávio", "en")):
            session.add(Person(telegram_user_id=telegram_id, chat_id=telegram_id, first_name=name, locale=locale))
        await session.commit()
        await add_staff(session=session, telegram_user_id=CLARA, role=Role.CLERK, name="Clara", actor="test")
        await add_staff(session=session, telegram_user_id=OTAVIO, role=Role.OMBUDSMAN, name="Otávio", actor="test")
        joao = (await session.exec(select(Person).where(Person.telegram_user_id == JOAO))).one()
        assert joao.id is not None
        for _ in range(2):
            await file_representation(session=session, person_id=joao.id, form=representation(), now=utcnow(),
                                      cities=cities_of(settings))
        return list((await session.exec(select(Case).order_by(Case.id))).all())  # type: ignore[arg-type]


async def test_a_clerk_decides_representations_and_the_author_is_told(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    first, second = await _setup(sessions, settings)
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    clara = Talk(emulator, emulator.add_user(CLARA, "Clara", language_code="en"))
    otavio = Talk(emulator, emulator.add_user(OTAVIO, "Otávio", language_code="en"))
    await joao.send("/pendencias", "only for city hall staff")
    await otavio.send("/pendencias", "Nothing pending in your queue")
    queue = await clara.send("/pendencias", "Pending cases")
    assert queue.text.index(first.protocol) < queue.text.index(second.protocol)
    assert "unassigned" in queue.text
    opened = await clara.press(queue, f"pend:case:{first.id}", first.protocol)
    assert "João Batista Pereira" in opened.text and "Depósito Bom Preço" in opened.text
    await clara.press(opened, f"pend:take:{first.id}", "The case is yours now")
    opened = await emulator.wait_for_message(CLARA, lambda m: "Assigned to: Clara" in (m.text or ""), after=0)
    note = await clara.press(opened, f"pend:auto:{first.id}", "Type a note for the author, or press Skip")
    confirm = await clara.press(note, "pact:skip", "Confirm?")
    done = await clara.press(confirm, "pact:send", "Decided")
    assert "auto de infração" in done.text and first.protocol in done.text
    assert "João" not in done.text

    # back on the queue page the case was opened from, without typing /pendencias again
    queue = await emulator.wait_for_message(CLARA, lambda m: "Pending cases" in (m.text or ""),
                                            after=done.message_id)
    opened = await clara.press(queue, f"pend:case:{second.id}", second.protocol)
    await clara.press(opened, f"pend:archive:{second.id}", "reason for archiving")
    await clara.send("no", "at least 5 characters")
    confirm = await clara.send("Fiscal foi ao local e não havia entulho.", "Confirm?")
    await clara.press(confirm, "pact:send", "Archived. The author was told the reason.")
    await clara.send("/pendencias", "Nothing pending in your queue")
    await clara.press(opened, f"pend:notify:{second.id}", "already closed")  # checked on the press, not at the end
    await clara.send("Nota tardia.", "I did not understand")  # so no form was opened for a text

    await deliver(settings, sessions, emulator)
    await emulator.wait_for_message(JOAO, lambda m: "an infraction report (auto de infração) was drawn up"
                                    in (m.text or ""), after=0)
    archived = await emulator.wait_for_message(JOAO, lambda m: "checked and archived" in (m.text or ""), after=0)
    assert "Fiscal foi ao local e não havia entulho." in archived.text
    async with sessions() as session:
        statuses = [(c.status, c.outcome) for c in (await session.exec(select(Case).order_by(Case.id))).all()]  # type: ignore[arg-type]
    assert statuses == [(CaseStatus.AUTO_ISSUED, Outcome.AUTO), (CaseStatus.ARCHIVED, Outcome.ARCHIVE)]
    assert emulator.unanswered_callbacks() == []


async def _forged_press(emulator: Any, talk: Talk, message: Any, data: str) -> Any:
    """A callback query with data no button carries, as a modified client sends it."""
    mark = talk._mark()
    emulator.press_button(talk.user, message, data, forged=True)
    return await emulator.wait_for_message(talk.user.id, lambda m: True, after=mark, timeout=8)


async def test_a_restricted_case_and_its_files_are_the_ombudsmans_alone(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    """L13460 Art. 10 §7: no other staff member, admins included, opens it — not by the queue, not by
    a forged button for its id, not its files — and the files carry neutral names, never the sender's."""
    await _setup(sessions, settings)
    admin_id = 850104
    async with sessions() as session:
        session.add(Person(telegram_user_id=admin_id, chat_id=admin_id, first_name="Ana", locale="pt_BR"))
        await session.commit()
        await add_staff(session=session, telegram_user_id=admin_id, role=Role.ADMIN, name="Ana", actor="test")
        joao = (await session.exec(select(Person).where(Person.telegram_user_id == JOAO))).one()
        assert joao.id is not None
        stored = await store_attachment(session=session, person_id=joao.id, content=pdf(),
                                        file_name="Joaquim_Sigiloso_Ferreira_comprovante.pdf",
                                        limits=CaseLimits.of(settings), already=[])
        assert stored.id is not None
        filed = await file_ombudsman_case(session=session, person_id=joao.id,
                                          form=ombudsman(restricted=True, attachment_ids=[stored.id]),
                                          now=utcnow(), city=cities_of(settings).default)
    clara = Talk(emulator, emulator.add_user(CLARA, "Clara", language_code="en"))
    ana = Talk(emulator, emulator.add_user(admin_id, "Ana", language_code="pt-br"))
    otavio = Talk(emulator, emulator.add_user(OTAVIO, "Otávio", language_code="en"))
    clara_queue = await clara.send("/pendencias", "Pending cases")
    assert filed.protocol not in clara_queue.text  # not the clerk's queue
    ana_queue = await ana.send("/pendencias", "Pendências")
    assert filed.protocol not in ana_queue.text  # nor in an admin's, who sees every other queue
    for talk, queue in ((clara, clara_queue), (ana, ana_queue)):
        for forged in (f"pend:case:{filed.case_id}", f"pend:files:{filed.case_id}", f"pend:take:{filed.case_id}",
                       f"pend:answer:{filed.case_id}"):
            answer = await _forged_press(emulator, talk, queue, forged)
            assert filed.protocol not in answer.text and "João" not in answer.text, forged
        assert talk.last_document() is None
    queue = await otavio.send("/pendencias", filed.protocol)
    opened = await otavio.press(queue, f"pend:case:{filed.case_id}", "Author: João Batista Pereira")
    await otavio.press(opened, f"pend:files:{filed.case_id}", "Files of")
    document = otavio.last_document()
    assert document is not None and document["file_name"] == f"{filed.protocol}-anexo-1.pdf"



async def test_the_queue_pages_through_every_case_and_says_how_many(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    """A newcomer's walk (issue 20 §5): the first 20 cases were shown with no hint of more, the rest unreachable."""
    await _setup(sessions, settings)
    async with sessions() as session:
        joao = (await session.exec(select(Person).where(Person.telegram_user_id == JOAO))).one()
        for days_ago in range(1, 22):  # 23 in all with _setup's two; one a day, within the daily limit
            await file_representation(session=session, person_id=joao.id, form=representation(),
                                      now=utcnow() - dt.timedelta(days=days_ago), cities=cities_of(settings))
        by_deadline = [case.id for case in (await session.exec(select(Case))).all()]
    clara = Talk(emulator, emulator.add_user(CLARA, "Clara", language_code="pt-br"))
    first = await clara.send("/pendencias", "23 casos na sua fila; aqui, do 1 ao 10.")
    assert "pend:page:2" in clara.buttons(first) and not [b for b in clara.buttons(first) if b == "pend:page:0"]
    second = await clara.press_and_edit(first, "pend:page:2", "aqui, do 11 ao 20.")
    assert {"pend:page:1", "pend:page:3"} <= set(clara.buttons(second))
    third = await clara.press_and_edit(second, "pend:page:3", "aqui, do 21 ao 23.")
    assert not [b for b in clara.buttons(third) if b.startswith("pend:page:") and b != "pend:page:2"]
    shown = {int(b.split(":")[2]) for page in (first, second, third) for b in clara.buttons(page)
             if b.startswith("pend:case:")}
    assert shown == set(by_deadline)  # every case is reachable, each on one page

async def test_a_case_from_open311_without_evidence_tells_the_clerk_to_ask_for_it(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    """CP Art. 31: an Open311 representação is filed without evidence (LEGAL-CHOICES #39); the clerk is told."""
    await _setup(sessions, settings)
    async with sessions() as session:
        key = await issue_key(session=session, name="fixmystreet", now=utcnow(), actor="test")
        client = await client_for_key(session=session, key=key)
        assert client is not None and client.id is not None
        await file_representation(
            session=session, person_id=None, form=representation(evidence_note=None), now=utcnow(),
            cities=cities_of(settings), origin=Open311Origin(client_id=client.id, account_sha256="0" * 64,
                                                             service_code="CP-I"))
        cases = list((await session.exec(select(Case).order_by(Case.id))).all())  # type: ignore[arg-type]
    clara = Talk(emulator, emulator.add_user(CLARA, "Clara", language_code="en"))
    queue = await clara.send("/pendencias", "Pending cases")
    with_evidence = await clara.press(queue, f"pend:case:{cases[0].id}", cases[0].protocol)
    assert "none was sent" not in with_evidence.text
    queue = await clara.send("/pendencias", "Pending cases")
    opened = await clara.press(queue, f"pend:case:{cases[-1].id}", cases[-1].protocol)
    assert "Evidence: none was sent: ask for it before deciding (Código de Posturas, Art. 31)" in opened.text


async def test_the_ombudsman_of_the_city_opens_the_restricted_complaint_the_queue_lists(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    """Issue 20 §1: the admin of the deployment, named the city's Ombudsman, saw the complaint listed and opening
    it said "Esse caso não existe" (the deployment-wide admin role counted there, which reads no restricted case)."""
    ombudsman_id = 850105
    async with sessions() as session:
        session.add(Person(telegram_user_id=JOAO, chat_id=JOAO, first_name="João", locale="pt_BR"))
        session.add(Person(telegram_user_id=ombudsman_id, chat_id=ombudsman_id, first_name="Olga", locale="pt_BR"))
        await session.commit()
        await add_staff(session=session, telegram_user_id=ombudsman_id, role=Role.ADMIN, name="Olga", actor="test")
        await add_staff(session=session, telegram_user_id=ombudsman_id, role=Role.OMBUDSMAN, name="Olga",
                        actor="test", municipality=settings.municipality_slug)
        joao = (await session.exec(select(Person).where(Person.telegram_user_id == JOAO))).one()
        assert joao.id is not None
        filed = await file_ombudsman_case(session=session, person_id=joao.id, form=ombudsman(restricted=True),
                                          now=utcnow(), city=cities_of(settings).default)
    olga = Talk(emulator, emulator.add_user(ombudsman_id, "Olga", language_code="pt-br"))
    queue = await olga.send("/pendencias", filed.protocol)
    opened = await olga.press(queue, f"pend:case:{filed.case_id}", "João Batista Pereira")
    assert "não existe" not in opened.text and filed.protocol in opened.text
    await olga.press(opened, f"pend:take:{filed.case_id}", "agora é seu")  # and acts on it as its Ombudsman


async def test_without_an_ombudsman_the_admin_is_told_a_restricted_complaint_waits_and_nothing_of_it(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    """Issue 20 §1: João's restricted complaint was in no list and "Caso não encontrado" for the admin, unknown to
    all. Now the admin learns that one waits and what to do, never its protocol or content (L13460 Art. 10 §7)."""
    admin_id = 850106
    async with sessions() as session:
        session.add(Person(telegram_user_id=JOAO, chat_id=JOAO, first_name="João", locale="pt_BR"))
        session.add(Person(telegram_user_id=admin_id, chat_id=admin_id, first_name="Ana", locale="pt_BR"))
        await session.commit()
        await add_staff(session=session, telegram_user_id=admin_id, role=Role.ADMIN, name="Ana", actor="test")
        joao = (await session.exec(select(Person).where(Person.telegram_user_id == JOAO))).one()
        assert joao.id is not None
        filed = await file_ombudsman_case(session=session, person_id=joao.id, form=ombudsman(restricted=True),
                                          now=utcnow(), city=cities_of(settings).default)
    ana = Talk(emulator, emulator.add_user(admin_id, "Ana", language_code="pt-br"))
    queue = await ana.send("/pendencias", "identidade restrita")
    city = settings.municipalities[settings.municipality_slug].name
    assert f"1 manifestação com identidade restrita aguarda em {city}, que não tem Ouvidor" in queue.text
    assert "python -m bot staff add ID --role ombudsman" in queue.text
    assert filed.protocol not in queue.text and "João" not in queue.text
