"""Linking a driver to Telegram: CPF digits after the contact, one-time codes, attempt limits, unlinking."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import cities_of
from core.settings import Settings
from models.drivers.identifiers import InvalidIdentifier
from models.drivers.linking import (
    MAX_FAILED_ATTEMPTS,
    DriverNotFound,
    LinkOutcome,
    attempts_left,
    confirm_cpf_digits,
    create_link_code,
    drivers_with_phone,
    redeem_link_code,
    unlink,
)
from models.drivers.tables import Driver, LinkCode
from models.outbox import OutboxMessage, OutboxStatus, enqueue
from models.people import ensure_person
from tests.auxil.drivers import JORGE_CPF, MARIA_CPF, driver_row, renavam, seed_registry

NOW = dt.datetime(2026, 3, 20, 15, 0, tzinfo=dt.UTC)


async def person(session: AsyncSession, telegram_id: int, name: str) -> int:
    view = await ensure_person(session=session, telegram_user_id=telegram_id, chat_id=telegram_id,
                               first_name=name, language_code="pt-br")
    return view.id


async def maria_registered(session: AsyncSession, settings: Settings) -> list[int]:
    await seed_registry(session, settings, [driver_row()])
    return await drivers_with_phone(session=session, phone="+5565999110001")


async def test_the_first_three_cpf_digits_link_the_driver_found_by_phone(
    session: AsyncSession, settings: Settings
) -> None:
    candidates = await maria_registered(session, settings)
    maria = await person(session, 1001, "Maria")
    result = await confirm_cpf_digits(session=session, person_id=maria, candidates=candidates, digits="1 2 3", now=NOW)
    assert result.outcome is LinkOutcome.LINKED
    driver = (await session.exec(select(Driver))).one()
    assert (driver.person_id, driver.linked_at) == (maria, NOW)
    again = await confirm_cpf_digits(session=session, person_id=maria, candidates=candidates, digits="123", now=NOW)
    assert again.outcome is LinkOutcome.ALREADY_YOURS


async def test_wrong_digits_are_limited_to_five_a_day_even_the_right_ones_after(
    session: AsyncSession, settings: Settings
) -> None:
    candidates = await maria_registered(session, settings)
    intruder = await person(session, 6666, "Intruso")
    left = []
    for _ in range(MAX_FAILED_ATTEMPTS):
        result = await confirm_cpf_digits(session=session, person_id=intruder, candidates=candidates, digits="999",
                                          now=NOW)
        left.append((result.outcome, result.attempts_left))
    assert left == [(LinkOutcome.WRONG, 4), (LinkOutcome.WRONG, 3), (LinkOutcome.WRONG, 2), (LinkOutcome.WRONG, 1),
                    (LinkOutcome.TOO_MANY, 0)]
    blocked = await confirm_cpf_digits(session=session, person_id=intruder, candidates=candidates, digits="123",
                                       now=NOW)
    assert blocked.outcome is LinkOutcome.TOO_MANY
    tomorrow = NOW + dt.timedelta(hours=24, seconds=1)
    assert await attempts_left(session=session, person_id=intruder, now=tomorrow) == MAX_FAILED_ATTEMPTS
    later = await confirm_cpf_digits(session=session, person_id=intruder, candidates=candidates, digits="123",
                                     now=tomorrow)
    assert later.outcome is LinkOutcome.LINKED


async def test_two_drivers_sharing_a_phone_are_told_apart_by_the_cpf(
    session: AsyncSession, settings: Settings
) -> None:
    jorge = driver_row(cpf=JORGE_CPF, nome="Jorge", placa="RAB2C34", renavam=renavam("9876543210"),
                       autorizacao_numero="2026/002")
    await seed_registry(session, settings, [driver_row(), jorge])
    candidates = await drivers_with_phone(session=session, phone="+5565999110001")
    assert len(candidates) == 2
    account = await person(session, 2002, "Jorge")
    result = await confirm_cpf_digits(session=session, person_id=account, candidates=candidates, digits="987", now=NOW)
    linked = await session.get(Driver, result.driver_id)
    assert result.outcome is LinkOutcome.LINKED and linked is not None and linked.cpf == JORGE_CPF


async def test_a_link_code_is_random_hashed_single_use_and_expires(session: AsyncSession, settings: Settings) -> None:
    await maria_registered(session, settings)
    issued = await create_link_code(session=session, cpf="123.456.789-09", actor="cli", now=NOW,
                                    city=cities_of(settings).default)
    other = await create_link_code(session=session, cpf=MARIA_CPF, actor="cli", now=NOW,
                                   city=cities_of(settings).default)
    assert issued.code != other.code and len(issued.code) == 10
    assert issued.start_payload == f"link-{issued.code}" and issued.cpf_masked == "***.456.789-**"
    assert issued.deep_link("balcao_bot") == f"https://t.me/balcao_bot?start=link-{issued.code}"
    assert issued.expires_at == NOW + dt.timedelta(hours=72)
    stored = (await session.exec(select(LinkCode.code_hash))).all()
    assert issued.code not in stored and all(len(h) == 64 for h in stored)

    maria = await person(session, 1001, "Maria")
    typed = "-".join([issued.code[:5].lower(), issued.code[5:]])  # typed by hand, in lower case with a dash
    assert (await redeem_link_code(session=session, person_id=maria, code=typed, now=NOW)).outcome is LinkOutcome.LINKED
    await unlink(session=session, person_id=maria)
    reused = await redeem_link_code(session=session, person_id=maria, code=issued.code, now=NOW)
    assert (reused.outcome, reused.attempts_left) == (LinkOutcome.USED, 4)
    late = await redeem_link_code(session=session, person_id=maria, code=other.code, now=NOW + dt.timedelta(hours=73))
    assert late.outcome is LinkOutcome.EXPIRED


async def test_a_link_code_needs_a_registered_valid_cpf(session: AsyncSession, settings: Settings) -> None:
    await maria_registered(session, settings)
    with pytest.raises(InvalidIdentifier):
        await create_link_code(session=session, cpf="123", actor="cli", now=NOW, city=cities_of(settings).default)
    with pytest.raises(DriverNotFound):
        await create_link_code(session=session, cpf=JORGE_CPF, actor="cli", now=NOW, city=cities_of(settings).default)


async def test_linking_a_new_phone_moves_the_link_and_tells_the_old_account(
    session: AsyncSession, settings: Settings
) -> None:
    candidates = await maria_registered(session, settings)
    old = await person(session, 1001, "Maria")
    new = await person(session, 1009, "Maria")
    await confirm_cpf_digits(session=session, person_id=old, candidates=candidates, digits="123", now=NOW)
    moved = await confirm_cpf_digits(session=session, person_id=new, candidates=candidates, digits="123", now=NOW)
    assert (moved.outcome, moved.previous_person_id) == (LinkOutcome.LINKED, old)
    notice = (await session.exec(select(OutboxMessage))).one()
    assert (notice.person_id, notice.kind, notice.mandatory) == (old, "driver.link_moved", True)


async def test_an_account_linked_to_one_driver_cannot_link_another(session: AsyncSession, settings: Settings) -> None:
    jorge = driver_row(cpf=JORGE_CPF, nome="Jorge", telefone="", placa="RAB2C34", renavam=renavam("9876543210"),
                       autorizacao_numero="2026/002")
    candidates = await maria_registered(session, settings)
    await seed_registry(session, settings, [jorge])
    maria = await person(session, 1001, "Maria")
    await confirm_cpf_digits(session=session, person_id=maria, candidates=candidates, digits="123", now=NOW)
    issued = await create_link_code(session=session, cpf=JORGE_CPF, actor="cli", now=NOW,
                                    city=cities_of(settings).default)
    result = await redeem_link_code(session=session, person_id=maria, code=issued.code, now=NOW)
    assert result.outcome is LinkOutcome.OTHER_DRIVER


async def test_unlinking_stops_the_driver_reminders_already_queued(session: AsyncSession, settings: Settings) -> None:
    candidates = await maria_registered(session, settings)
    maria = await person(session, 1001, "Maria")
    await confirm_cpf_digits(session=session, person_id=maria, candidates=candidates, digits="123", now=NOW)
    await enqueue(session=session, person_id=maria, kind="driver.renewal", dedupe_key="r")
    await enqueue(session=session, person_id=maria, kind="cases.update", dedupe_key="c")
    await session.commit()
    assert await unlink(session=session, person_id=maria)
    statuses = dict((await session.exec(select(OutboxMessage.kind, OutboxMessage.status))).all())
    assert statuses == {"driver.renewal": OutboxStatus.CANCELLED, "cases.update": OutboxStatus.PENDING}
    assert (await session.exec(select(Driver.person_id))).one() is None
    assert not await unlink(session=session, person_id=maria)
