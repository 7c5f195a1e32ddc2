"""The cast of the notice tests: Maria Aparecida (driver, opted in), João (citizen), Inês (inspector), Clara (clerk)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pytest
from sqlmodel.ext.asyncio.session import AsyncSession

from models.people import PersonView, Role
from tests.auxil.notices import MARIA_CPF, opted_in, person, staff

NOW = dt.datetime(2026, 3, 2, 14, 0, tzinfo=dt.UTC)  # Monday 2 March 2026, 10:00 in Cuiabá


@dataclass(frozen=True)
class Cast:
    maria: PersonView
    joao: PersonView
    ines: PersonView
    clara: PersonView


@pytest.fixture
async def cast(session: AsyncSession) -> Cast:
    maria = await person(session, 9001, "Maria")
    joao = await person(session, 9002, "João")
    ines = await staff(session, 9101, "Inês", Role.INSPECTOR)
    clara = await staff(session, 9102, "Clara", Role.CLERK)
    await opted_in(session, maria.id, cpf=MARIA_CPF, now=NOW - dt.timedelta(days=10))
    return Cast(maria=maria, joao=joao, ines=ines, clara=clara)
