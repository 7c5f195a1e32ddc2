"""The demo drivers: every interesting state of Lei 1.533/2020 on any day, and a second load changes nothing."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.sandbox.demo_data import seed_drivers
from core.municipality import cities_of
from core.settings import Settings
from models.audit import AuditEvent
from models.drivers.registry import situation_of
from models.drivers.status import StatusKind, StepCode
from models.drivers.tables import Driver


@pytest.mark.parametrize("today", [dt.date(2026, 6, 1), dt.date(2027, 2, 28), dt.date(2028, 12, 31)])
async def test_every_state_is_there_on_any_day(session: AsyncSession, settings: Settings, today: dt.date) -> None:
    hints = await seed_drivers(session=session, settings=settings, today=today)
    assert any("dígitos do CPF 123" in hint for hint in hints)  # pt_BR, the default BALCAO_CLI_LOCALE
    events = len((await session.exec(select(AuditEvent))).all())
    await seed_drivers(session=session, settings=settings, today=today)
    assert len((await session.exec(select(AuditEvent))).all()) == events
    states = {}
    for driver in (await session.exec(select(Driver))).all():
        situation = await situation_of(session=session, driver=driver, on=today, city=cities_of(settings).default)
        assert situation is not None
        states[driver.name.split()[0]] = situation.status
    kinds = {name: status.kind for name, status in states.items()}
    assert kinds == {
        "Carlos": StatusKind.EXPIRING_SOON,
        "Ana": StatusKind.ACTIVE,
        "Bruno": StatusKind.AWAITING_INSPECTION,
        "Denise": StatusKind.INSPECTION_FAILED,  # Art. 16 §2: not "ativa", though she may work for 5 days
        "Eduardo": StatusKind.EXPIRED,
        "Fábio": StatusKind.SUSPENDED,
        "Gustavo": StatusKind.REVOKED,
        "Helena": StatusKind.CASSADA,
        "Igor": StatusKind.ACTIVE,
    }
    assert states["Denise"].next_steps[0].code is StepCode.FIX_INSPECTION and states["Denise"].may_serve
    assert StepCode.REPLACE_VEHICLE in {step.code for step in states["Igor"].next_steps}
    assert states["Fábio"].days_left == 5
