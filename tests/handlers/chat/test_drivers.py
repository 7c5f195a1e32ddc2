"""Drivers end to end through the emulator: linking by contact and CPF digits or by a one-time link,
/situacao with its details, unlinking, and a reminder arriving with a button back to /situacao."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlmodel import select

from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.columns import utcnow
from models.deadlines import add_months
from models.drivers.linking import IssuedCode, create_link_code
from models.drivers.tables import Driver
from models.outbox import OutboxMessage, OutboxStatus
from models.when import municipal_today
from notifications.dispatcher import Dispatcher, build_bot
from notifications.driver_reminders import SCAN_NAME
from notifications.scans import ScanInputs, run_scan
from tests.auxil.bot_harness import settings_for
from tests.auxil.case_chat import Talk
from tests.auxil.case_files import png
from tests.auxil.drivers import MARIA_CPF, driver_row, seed_registry

MARIA_ID = 870001
PHONE = "+5565999110001"


async def registered(sessions: SessionFactory, settings: Settings, **row: str) -> None:
    today = municipal_today(settings.tz, now=utcnow())
    values = {"autorizacao_emissao": (today - dt.timedelta(days=40)).isoformat(),
              "vistoria_data": (today - dt.timedelta(days=40)).isoformat(), **row}
    async with sessions() as session:
        await seed_registry(session, settings, [driver_row(**values)], today=today)


async def registered_with_code(sessions: SessionFactory, settings: Settings, **row: str) -> IssuedCode:
    """Maria in the registry, and the one-time link code staff give her."""
    await registered(sessions, settings, **row)
    async with sessions() as session:
        return await create_link_code(session=session, cpf=MARIA_CPF, actor="cli", now=utcnow(),
                                      city=cities_of(settings).default)


def maria(emulator: Any, language: str = "en") -> Talk:
    return Talk(emulator, emulator.add_user(MARIA_ID, "Maria", language_code=language))


async def test_linking_with_my_own_contact_and_cpf_digits(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    await registered(sessions, settings)
    talk = maria(emulator)
    offer = await talk.send("/vincular", "How do you want to do it?")
    asking = await talk.press(offer, "drivers:contact", "share your phone number")
    assert emulator.reply_keyboard(MARIA_ID)["keyboard"][0][0]["request_contact"] is True
    assert asking
    mark = talk._mark()
    emulator.share_contact(talk.user, PHONE, own=False, other_user_id=555)
    await talk._expect(mark, "That is not your own contact")
    mark = talk._mark()
    emulator.share_contact(talk.user, "(65) 99911-0001")
    await talk._expect(mark, "type the first 3 digits of your CPF")
    await talk.send("12", "Type only the first 3 digits")
    await talk.send("999", "You can try 4 more times today")
    linked = await talk.send("123", "Authorization nº 2026/001")
    assert "✅ You may drive for the apps today." in linked.text
    assert "Lei 1.533/2020, Art. 3º, par. único" in linked.text
    assert MARIA_CPF not in linked.text
    async with sessions() as session:
        driver = (await session.exec(select(Driver))).one()
    assert driver.person_id is not None
    assert emulator.unanswered_callbacks() == []


async def test_a_phone_not_in_the_registry_points_to_art_13_xx(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    await registered(sessions, settings)
    talk = maria(emulator)
    offer = await talk.send("/vincular", "How do you want to do it?")
    await talk.press(offer, "drivers:contact", "share your phone number")
    mark = talk._mark()
    emulator.share_contact(talk.user, "+5565988887777")
    advice = await talk._expect(mark, "tell the city hall within 7 days")
    assert "Lei 1.533/2020, Art. 13, XX" in advice.text


async def test_the_one_time_link_from_staff_links_once(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    issued = await registered_with_code(sessions, settings)
    talk = maria(emulator)
    await talk.send(f"/start {issued.start_payload}", "Done: your Telegram is linked")
    other = Talk(emulator, emulator.add_user(870002, "Outro", language_code="en"))
    await other.send(f"/start {issued.start_payload}", "This code was already used")


async def test_typing_a_code_answers_bad_input_and_keeps_the_step(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    """A photo or a wrong code while linking by code asks for the code again; the right one then links."""
    issued = await registered_with_code(sessions, settings)
    talk = maria(emulator)
    offer = await talk.send("/vincular", "How do you want to do it?")
    await talk.press(offer, "drivers:code", "Type the code the city hall gave you")
    await talk.photo(png(), "Type the code the city hall gave you")
    await talk.send("AAAA-BBBB-CC", "That does not match. You can try 4 more times today.")
    await talk.send(issued.code.lower(), "Done: your Telegram is linked")


async def test_situacao_details_and_unlinking(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    issued = await registered_with_code(sessions, settings, ano_modelo="2022")
    talk = maria(emulator)
    await talk.send(f"/start {issued.start_payload}", "Done")
    summary = await talk.send("/status", "Authorization nº 2026/001")
    details = await talk.press_and_edit(summary, "drivers:details", "Where:")
    text = details.text or ""
    for article in ("Art. 3º, par. único", "Art. 2º, §§1º–2º", "Art. 16"):
        assert article in text
    assert "***.456.789-**" in text and "QBX-1234, model 2022" in text and "December 31, 2027" in text
    # issue 9 item 10: short, one idea per line, the validity said once; the steps one button further
    assert len(text.splitlines()) <= 10 and text.count("until") == 2  # the authorization's and the vehicle's
    steps = await talk.press_and_edit(details, "drivers:steps", "What to do")
    assert "Lei 1.533/2020, Art. 13, XX" in (steps.text or "")
    details = await talk.press_and_edit(steps, "drivers:details", "Where:")
    confirm = await talk.press_and_edit(details, "drivers:unlink", "Unlink your Telegram")
    await talk.press_and_edit(confirm, "drivers:unlink:yes", "no longer linked")
    await talk.send("/situacao", "not linked to a driver registration yet")


async def test_situacao_speaks_the_drivers_language(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    issued = await registered_with_code(sessions, settings)
    talk = maria(emulator, language="pt-br")
    await talk.send(f"/start {issued.start_payload}", "Pronto")
    summary = await talk.send("/situacao", "Autorização nº 2026/001")
    assert "Válida até" in summary.text and "Você pode dirigir pelos aplicativos hoje." in summary.text


async def test_a_renewal_reminder_arrives_and_leads_to_situacao(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    today = municipal_today(settings.tz, now=utcnow())
    paid = add_months(today + dt.timedelta(days=30), -12)  # valid until today + 30: the 30-day reminder
    await registered(sessions, settings, autorizacao_emissao=paid.isoformat(), vistoria_data=paid.isoformat())
    async with sessions() as session:
        issued = await create_link_code(session=session, cpf=MARIA_CPF, actor="cli", now=utcnow(),
                                        city=cities_of(settings).default)
    talk = maria(emulator)
    await talk.send(f"/start {issued.start_payload}", "Done")
    async with sessions() as session:
        assert await run_scan(SCAN_NAME, session=session, now=utcnow(), inputs=ScanInputs.of(settings)) >= 1
    mark = talk._mark()
    bot = build_bot(settings_for(settings, emulator))
    await bot.initialize()
    try:
        tomorrow = utcnow() + dt.timedelta(days=1)  # past 08:00 in Cuiabá, when reminders may go out
        await Dispatcher(sessions=sessions, bot=bot, settings=settings_for(settings, emulator),
                         now=lambda: tomorrow).run_until_idle()
    finally:
        await bot.shutdown()
    reminder = await talk._expect(mark, "Your authorization nº 2026/001 is valid until")
    assert "30 days left" in reminder.text and "Art. 3º, par. único" in reminder.text
    async with sessions() as session:
        row = (await session.exec(select(OutboxMessage).where(OutboxMessage.kind == "driver.renewal"))).one()
    assert row.status is OutboxStatus.SENT
    await talk.press(reminder, "drivers:status", "Authorization nº 2026/001")
