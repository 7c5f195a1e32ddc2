"""Broadcast audiences of linked drivers (Lei 1.533/2020): all of them, or those with something due.

Each is computed with the same status rules as /situacao (``models.drivers.status``) on the civil today, so a
staff broadcast to "drivers with an open obligation" reaches exactly the drivers whose /situacao shows one.
Audiences receive no settings: they use the process's municipalities (``BALCAO_*``), the one where Lei 1.533/2020 is
in force, for the time zone and the legal readings. People who asked for their data to be erased are left out.
"""

from __future__ import annotations

import datetime as dt

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from core.municipality import Municipality, cities_of
from core.settings import get_settings
from models.drivers.registry import linked_statuses, registry_city
from models.drivers.status import AuthorizationStatus, StatusKind
from models.drivers.tables import Driver
from models.people import Person
from models.when import municipal_today
from notifications.audiences import AudienceParams, audience
from notifications.driver_reminders import INSPECTION_DAYS

ENDED = frozenset({StatusKind.REVOKED, StatusKind.CASSADA})


def _registry() -> Municipality:
    return registry_city(cities_of(get_settings()))


async def _statuses(session: AsyncSession, now: dt.datetime) -> list[tuple[int, AuthorizationStatus]]:
    city = _registry()
    return await linked_statuses(session=session, on=municipal_today(city.tz, now=now), city=city)


@audience("drivers", label=N_("All linked drivers"))
async def linked_drivers(*, session: AsyncSession, now: dt.datetime, params: AudienceParams) -> list[int]:
    """Every driver whose registration is linked to a Telegram account."""
    rows = await session.exec(
        select(Driver.person_id)
        .join(Person, col(Person.id) == Driver.person_id)
        .where(col(Person.erased_at).is_(None))
    )
    return [person_id for person_id in rows.all() if person_id is not None]


@audience("drivers-expiring", label=N_("Drivers whose authorization ends within N days"), takes_days=True)
async def expiring_drivers(*, session: AsyncSession, now: dt.datetime, params: AudienceParams) -> list[int]:
    """Linked drivers whose validity ends within ``params.days`` days (today included; Art. 3 par. único).

    Without a number of days, the "expiring soon" threshold (``BALCAO_DRIVER_EXPIRING_SOON_DAYS``) is used.
    """
    days = params.days if params.days is not None else _registry().readings.driver_expiring_soon_days
    return [
        person_id
        for person_id, status in await _statuses(session, now)
        if status.kind not in ENDED and 0 <= status.validity_days_left <= days
    ]


@audience("drivers-inspection-due", label=N_("Drivers whose vehicle inspection is due within 30 days or late"))
async def inspection_due_drivers(*, session: AsyncSession, now: dt.datetime, params: AudienceParams) -> list[int]:
    """Linked drivers whose annual inspection (Art. 16) is due within 30 days or overdue."""
    return [
        person_id
        for person_id, status in await _statuses(session, now)
        if status.kind not in ENDED
        and status.inspection.days_left is not None
        and status.inspection.days_left <= INSPECTION_DAYS[0]
    ]


@audience("drivers-open-obligation", label=N_("Drivers with an open legal deadline (Art. 9, Art. 16 §2)"))
async def obligated_drivers(*, session: AsyncSession, now: dt.datetime, params: AudienceParams) -> list[int]:
    """Linked drivers who must present their vehicle (Art. 9) or fix a failed inspection (Art. 16 §2)."""
    statuses = await _statuses(session, now)
    return [person_id for person_id, status in statuses if status.kind not in ENDED and status.obligations]
