"""Broadcast audiences of drivers: the same status rules as /situacao, linked drivers only, erased people left out."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from zoneinfo import ZoneInfo

import pytest
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.settings import Settings, get_settings
from models.drivers.tables import Driver
from models.people import Person, ensure_person
from notifications.audiences import AUDIENCES, AudienceParams, recipients
from notifications.plugins import load_all
from tests.auxil.drivers import cnh, cpf, driver_row, renavam, seed_registry

NOW = dt.datetime(2027, 2, 20, 10, tzinfo=ZoneInfo("America/Cuiaba"))


@pytest.fixture(autouse=True)
def fresh_settings(settings: Settings) -> Iterator[None]:
    get_settings.cache_clear()
    load_all()
    yield
    get_settings.cache_clear()


def driver(n: int, **overrides: str) -> dict[str, str]:
    """Driver number n with its own identifiers (authorized 2026-03-10, inspected the same day)."""
    return driver_row(cpf=cpf(f"{n:03d}456789"), nome=f"Motorista {n}", telefone=f"65 99900-00{n:02d}",
                      cnh_numero=cnh("026503064"), placa=f"QBX{n:04d}", renavam=renavam(f"{n:03d}4567890"),
                      autorizacao_numero=f"2026/{n:03d}", **overrides)


async def linked(
    session: AsyncSession, settings: Settings, rows: dict[int, dict[str, str]], unlinked: frozenset[int] = frozenset()
) -> dict[int, int]:
    await seed_registry(session, settings, list(rows.values()), today=dt.date(2027, 2, 20))
    people = {}
    for n in rows:
        person = await ensure_person(session=session, telegram_user_id=5000 + n, chat_id=5000 + n,
                                     first_name=f"M{n}", language_code="pt")
        people[n] = person.id
        if n not in unlinked:
            found = (await session.exec(select(Driver).where(Driver.name == f"Motorista {n}"))).one()
            found.person_id = person.id
    await session.commit()
    return people


async def audience(session: AsyncSession, name: str, days: int | None = None) -> list[int]:
    return await recipients(name, session=session, now=NOW, params=AudienceParams(days=days))


async def test_the_driver_audiences_follow_the_status_rules(session: AsyncSession, settings: Settings) -> None:
    rows = {
        1: driver(1),  # valid until 2027-03-10: 18 days left; inspection due the same day
        2: driver(2, autorizacao_emissao="2026-09-01", vistoria_data="2026-09-01"),  # valid until 2027-09-01
        3: driver(3, autorizacao_emissao="2027-02-18", vistoria_data="", vistoria_resultado=""),  # Art. 9 window
        4: driver(4, autorizacao_emissao="2026-09-01", vistoria_data="2027-02-19", vistoria_resultado="reprovado"),
        5: driver(5),  # same as 1 but not linked
    }
    people = await linked(session, settings, rows, unlinked=frozenset({5}))
    assert set(AUDIENCES) >= {"drivers", "drivers-expiring", "drivers-inspection-due", "drivers-open-obligation"}
    assert AUDIENCES["drivers-expiring"].takes_days
    assert await audience(session, "drivers") == sorted(people[n] for n in (1, 2, 3, 4))
    assert await audience(session, "drivers-expiring", days=30) == [people[1]]
    assert await audience(session, "drivers-expiring", days=200) == sorted(people[n] for n in (1, 2, 4))
    assert await audience(session, "drivers-inspection-due") == [people[1]]
    assert await audience(session, "drivers-open-obligation") == sorted([people[3], people[4]])


async def test_erased_people_are_left_out(session: AsyncSession, settings: Settings) -> None:
    people = await linked(session, settings, {1: driver(1)})
    person = await session.get(Person, people[1])
    assert person is not None
    person.erased_at = NOW
    await session.commit()
    assert await audience(session, "drivers") == []
    assert await audience(session, "drivers-expiring", days=30) == []
