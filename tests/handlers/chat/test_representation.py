"""/representacao end to end through the emulator: every step, bad input at each, the Art. 31 rules, the review,
the protocol and the PDF receipt, and a restart in the middle of the conversation."""

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

from sqlmodel import select

from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.cases.filing import file_ombudsman_case
from models.cases.tables import Case, CaseAttachment, CaseAuthor, CaseKind, Relation
from models.columns import utcnow
from models.drafts import get_draft
from models.outbox import OutboxMessage
from models.people import Person, Role, add_staff
from tests.auxil.bot_harness import running_bot
from tests.auxil.case_chat import Talk
from tests.auxil.case_files import ZIP, png
from tests.auxil.case_people import ombudsman
from tests.auxil.drivers import driver_row, seed_registry

JOAO, CLARA = 830001, 830101
CUIABA = ZoneInfo("America/Cuiaba")


async def _clara(sessions: SessionFactory) -> None:
    async with sessions() as session:
        session.add(Person(telegram_user_id=CLARA, chat_id=CLARA, first_name="Clara", locale="en"))
        await session.commit()
        await add_staff(session=session, telegram_user_id=CLARA, role=Role.CLERK, name="Clara", actor="test")


async def test_a_representation_from_start_to_protocol_with_bad_input_at_every_step(
    emulator: Any, bot_app: Any, sessions: SessionFactory
) -> None:
    await _clara(sessions)
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    kind = await joao.send("/representacao", "What would you like to report?")
    name = await joao.press(kind, "rep:kind:cp", "What is your full name?")
    assert "Art. 31" in name.text
    await joao.send("João", "full name (first name and surname)")
    await joao.send("João Batista Pereira", "profession")
    await joao.send("x", "at least 2 characters")
    await joao.send("Pedreiro", "What is your address")
    await joao.send("123", "at least 5 characters")
    await joao.send("Rua das Flores, 123, Centro", "type your CPF")
    await joao.send("123.456.789-00", "not valid")
    await joao.send("529.982.247-25", "Type one or two words")
    results = await joao.send("lixo na rua", "Is it one of these?")
    assert "rep:inf:CP-I-9" in joao.buttons(results)
    await joao.send("zzzzz", "I found nothing")
    await joao.press(results, "rep:inf:CP-I-9", "Describe briefly what happened")
    await joao.send("lixo", "at least 10 characters")
    accused = await joao.send("Um caminhão despeja entulho na calçada toda sexta.", "Who is responsible?")
    where = await joao.press(accused, "rep:skip:accused", "Where did it happen?")
    assert where.reply_markup and where.reply_markup["keyboard"][0][0]["request_location"] is True
    await joao.send("12", "at least 5 characters")
    when = await joao.location(-14.6722, -52.3545, "When did it happen?")
    await joao.send("amanhã", "in the future")  # read as a day (models/when.py), then refused as to come
    future = (dt.datetime.now(CUIABA).date() + dt.timedelta(days=3)).strftime("%d/%m/%Y")
    await joao.send(future, "in the future")
    evidence = await joao.press(when, "rep:when:1", "Send photos or documents")
    assert "rep:files:done" not in joao.buttons(evidence)
    await joao.document(ZIP, "provas.zip", "application/zip", "only accept photos (JPEG or PNG) and PDF")
    with_file = await joao.photo(png(), "File received (1 of 5)")
    await joao.photo(png(), "already sent this file")
    learned = await joao.press(with_file, "rep:files:done", "How did you learn of it?")
    relation = await joao.press(learned, "rep:learn:saw", "partner, director, agent or employee")
    await joao.send("talvez", "Please press one of the buttons")
    await joao.press(relation, "rep:rel:former", "On what date did you leave?")
    await joao.send("ontem à tarde", "could not read that date")
    review = await joao.send("hoje", "Please check your report")  # the bot's today, whatever the clock says now
    assert "João Batista Pereira" in review.text and "***.982.247-**" in review.text
    assert "Rule broken: Atirar animais, lixos, detritos" in review.text and "1 file" in review.text
    assert "How you learned of it: I saw it myself" in review.text  # the reader's language; the record pt_BR
    refused = await joao.press(review, "rep:send", "sole paragraph")
    assert "rep:edit:relation" in joao.buttons(refused)
    relation = await joao.press(refused, "rep:edit:relation", "partner, director")
    review = await joao.press(relation, "rep:rel:none", "Please check your report")
    sent = await joao.press(review, "rep:send", "Your protocol number is")
    assert "REP-" in sent.text
    receipt = await emulator.wait_for_message(JOAO, lambda m: m.document is not None, after=sent.message_id)
    assert receipt.document["file_name"].startswith("REP-") and receipt.document["file_name"].endswith(".pdf")
    assert emulator.file(receipt.document["file_id"]).data.startswith(b"%PDF-")

    async with sessions() as session:
        case = (await session.exec(select(Case))).one()
        author = (await session.exec(select(CaseAuthor))).one()
        files = (await session.exec(select(CaseAttachment))).all()
        staff = (await session.exec(select(OutboxMessage).where(OutboxMessage.kind == "cases.staff"))).all()
        person = (await session.exec(select(Person).where(Person.telegram_user_id == JOAO))).one()
        draft = await get_draft(session=session, person_id=person.id)
    assert (case.kind, case.infraction_code, case.relation, case.latitude) == (
        CaseKind.REPRESENTATION, "CP-I-9", Relation.NONE, -14.6722
    )
    assert case.learned_how == "Vi pessoalmente" and case.accused is None
    assert (author.name, author.profession, author.cpf) == ("João Batista Pereira", "Pedreiro", "52998224725")
    assert [f.case_id for f in files] == [case.id]
    assert len(staff) == 1 and draft is None
    assert emulator.unanswered_callbacks() == []


async def test_a_restart_in_the_middle_loses_nothing(
    emulator: Any, settings: Settings, sessions: SessionFactory
) -> None:
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    async with running_bot(settings, sessions, emulator):
        kind = await joao.send("/representacao", "What would you like to report?")
        await joao.press(kind, "rep:kind:cp", "What is your full name?")
        await joao.send("João Batista Pereira", "profession")
        await joao.send("Pedreiro", "What is your address")
    async with running_bot(settings, sessions, emulator):  # a new application on the same database
        await joao.send("Rua das Flores, 123, Centro", "type your CPF")
        await joao.press(kind, "rep:kind:app", "That button belongs to an earlier question")
        menu = await joao.send("/representacao", "You have a report in progress")
        cpf = await joao.press(menu, "rep:resume", "type your CPF")
        await joao.press(cpf, "rep:skip:cpf", "Type one or two words")
    async with sessions() as session:
        person = (await session.exec(select(Person).where(Person.telegram_user_id == JOAO))).one()
        draft = await get_draft(session=session, person_id=person.id)
    assert draft is not None and draft.step == "what"
    assert draft.data["name"] == "João Batista Pereira" and draft.data["address"] == "Rua das Flores, 123, Centro"
    assert draft.data["cpf"] is None


async def test_a_ride_hailing_driver_is_reported_by_plate_and_routed_to_the_inspectors(
    emulator: Any, bot_app: Any, sessions: SessionFactory, settings: Settings
) -> None:
    """L1533 Art. 7 (boarding on the street); the car is found in the drivers' registry."""
    async with sessions() as session:
        await seed_registry(session, settings, [driver_row()])
        session.add(Person(telegram_user_id=830102, chat_id=830102, first_name="Inês", locale="en"))
        await session.commit()
        await add_staff(session=session, telegram_user_id=830102, role=Role.INSPECTOR, name="Inês", actor="test")
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    kind = await joao.send("/representacao", "What would you like to report?")
    vehicle = await joao.press(kind, "rep:kind:app", "plate, or the authorization number")
    await joao.send("not a plate!", "Please type the car's plate")
    found = await joao.send("qbx 1234", "Found in the registry: plate QBX-1234, authorization nº 2026/001")
    assert "Maria" not in found.text  # nothing about the driver as a person
    again = await joao.press(found, "rep:veh:again", "plate, or the authorization number")
    assert again and vehicle
    found = await joao.send("2026/001", "Found in the registry")
    reason = await joao.press(found, "rep:veh:ok", "What did the driver do?")
    await joao.send("ele foi grosso", "Please press one of the buttons")
    await joao.press(reason, "rep:why:street", "Describe briefly what happened")
    await joao.send("Pegou passageiros na rodoviária sem o aplicativo.", "Where did it happen?")
    when = await joao.send("Rodoviária de Sapezal", "When did it happen?")
    evidence = await joao.press(when, "rep:when:0", "Send photos or documents")
    name = await joao.press(evidence, "rep:skip:evidence", "What is your full name?")
    assert "never shown to the driver" in name.text
    review = await joao.send("João Batista Pereira", "Please check your report")
    assert "QBX-1234" in review.text and "Picked up passengers on the street" in review.text
    await joao.press(review, "rep:send", "Your protocol number is")
    async with sessions() as session:
        case = (await session.exec(select(Case))).one()
        staff = (await session.exec(select(OutboxMessage).where(OutboxMessage.kind == "cases.staff"))).all()
    assert case.protocol.startswith("APP-") and case.kind is CaseKind.RIDE_HAILING
    assert (case.infraction_code, case.vehicle_ref, case.handling_role) == ("L1533-26-IV", "QBX-1234", Role.INSPECTOR)
    assert case.driver_id is not None
    assert [m.payload["protocol"] for m in staff] == [case.protocol]


async def test_cancel_another_form_in_progress_and_the_daily_limit(
    emulator: Any, bot_app: Any, sessions: SessionFactory, settings: Settings
) -> None:
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    kind = await joao.send("/representacao", "What would you like to report?")
    cancelled = await joao.press_and_edit(kind, "rep:cancel", "Cancelled: nothing was sent")
    assert "menu:main" in joao.buttons(cancelled)
    kind = await joao.send("/representacao", "What would you like to report?")
    await joao.press(kind, "rep:kind:cp", "What is your full name?")
    await joao.send("/ouvidoria", "You are in the middle of your report")  # nothing is discarded silently
    await joao.send("João Batista Pereira", "profession")
    await joao.send("/cancelar", "Cancelled")
    bot_app.bot_data["settings"] = settings.model_copy(update={"cases_per_day": 1})
    bot_app.bot_data["cities"] = cities_of(bot_app.bot_data["settings"])
    async with sessions() as session:
        person = (await session.exec(select(Person).where(Person.telegram_user_id == JOAO))).one()
        await file_ombudsman_case(session=session, person_id=person.id, form=ombudsman(), now=utcnow(),
                                  city=cities_of(settings).default)
    await joao.send("/representacao", "You have already filed 1 case today")


async def test_the_place_step_says_what_is_published_and_refuses_a_location_off_the_earth(
    emulator: Any, bot_app: Any, sessions: SessionFactory
) -> None:
    """LEGAL-CHOICES item 32 (BALCAO_OPEN311_PLACE=rounded by default): the author reads what the open data publish
    of the place before giving it; a location at latitude 1000 (a forged update) is refused, not stored."""
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    kind = await joao.send("/representacao", "What would you like to report?")
    await joao.press(kind, "rep:kind:cp", "What is your full name?")
    await joao.send("João Batista Pereira", "profession")
    await joao.send("Pedreiro", "What is your address")
    await joao.send("Rua das Flores, 123, Centro", "type your CPF")
    results = await joao.send("529.982.247-25", "Type one or two words")
    results = await joao.send("lixo na rua", "Is it one of these?")
    await joao.press(results, "rep:inf:CP-I-9", "Describe briefly what happened")
    accused = await joao.send("Um caminhão despeja entulho na calçada toda sexta.", "Who is responsible?")
    where = await joao.press(accused, "rep:skip:accused", "Where did it happen?")
    assert "area only (about 1 km), without the address" in where.text
    await joao.forged_location(1000.0, -52.3545, "not a place on Earth")
    await joao.forged_location(-14.6722, 200.0, "not a place on Earth")
    await joao.location(-14.6722, -52.3545, "When did it happen?")
