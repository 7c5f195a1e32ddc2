"""The platforms' monthly list of vehicles, owners and drivers (L1533 Art. 5 IX), tracked per platform.

Art. 5 IX: the platform must "encaminhar […] a cada 30 (trinta) dias" the list of vehicles, their owners and the
registered drivers. The Law does not say from when the first 30 days run (``DEADLINES.md`` A2.3): they are
counted from the platform's accreditation with the SMFO (Art. 3), then from each list received — a list that
arrives early starts the next 30 days early, so no period is ever longer than 30 days
(``docs/LEGAL-CHOICES.md``). The 30 days are calendar days and the next list is due on the 30th day; a due day
the office is closed moves to the next business day (Código Civil Art. 132 §1). Staff record each list received;
the scan warns them, with one row per late platform, from the day after a list was due.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import Column, Date, ForeignKey, Integer, String, UniqueConstraint, func
from sqlmodel import Field, SQLModel, col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.calendar import BusinessCalendar
from models.columns import UTCDateTime, utcnow

LIST_PERIOD_DAYS = 30
"""Lei 1.533/2020 Art. 5 IX: "a cada 30 (trinta) dias"."""
ARTICLE = "Art. 5º, IX"


class Platform(SQLModel, table=True):
    """A ride-hailing platform accredited with the SMFO (L1533 Art. 3)."""

    __tablename__ = "platform"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_column=Column(String(120), nullable=False, unique=True))
    accredited_on: dt.date = Field(sa_column=Column(Date, nullable=False))
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))


class PlatformListReceipt(SQLModel, table=True):
    """One list of vehicles, owners and drivers received from a platform (Art. 5 IX); one per platform and day."""

    __tablename__ = "platform_list_receipt"
    __table_args__ = (UniqueConstraint("platform_id", "received_on", name="uq_platform_list_day"),)

    id: int | None = Field(default=None, primary_key=True)
    platform_id: int = Field(sa_column=Column(Integer, ForeignKey("platform.id"), nullable=False, index=True))
    received_on: dt.date = Field(sa_column=Column(Date, nullable=False))
    recorded_by: str = Field(sa_column=Column(String(64), nullable=False))
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))


class PlatformRefused(ValueError):
    """A platform or a list receipt that cannot be recorded (English msgid in ``message``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class ListStatus:
    """Where a platform stands with its Art. 5 IX list.

    Attributes:
        platform: the platform.
        last_received_on: the latest list received, or None.
        due_on: the day the next list is due (30 days after the last one, or the accreditation).
        days_late: days past ``due_on`` (0 or less: not late).
    """

    platform: Platform
    last_received_on: dt.date | None
    due_on: dt.date
    days_late: int

    @property
    def late(self) -> bool:
        """Whether the list is overdue (Art. 5 IX)."""
        return self.days_late > 0


def list_due_on(*, since: dt.date, calendar: BusinessCalendar) -> dt.date:
    """Art. 5 IX: the day the next list is due, 30 days after ``since``, moved off a day the office is closed."""
    return calendar.roll_forward(since + dt.timedelta(days=LIST_PERIOD_DAYS))


async def add_platform(*, session: AsyncSession, name: str, accredited_on: dt.date) -> Platform:
    """Register an accredited platform; commits.

    Raises:
        PlatformRefused: no name, or a platform with that name exists.
    """
    clean = " ".join(name.split())[:120]
    if not clean:
        raise PlatformRefused("Give the platform's name.")
    exists = (await session.exec(select(Platform).where(func.lower(Platform.name) == clean.lower()))).first()
    if exists is not None:
        raise PlatformRefused("This platform is already registered.")
    platform = Platform(name=clean, accredited_on=accredited_on)
    session.add(platform)
    await session.commit()
    await session.refresh(platform)
    return platform


async def record_list(*, session: AsyncSession, platform_id: int, received_on: dt.date, actor: str,
                      today: dt.date) -> PlatformListReceipt:
    """Record that a platform's Art. 5 IX list arrived on a day; commits (the same day twice changes nothing).

    Raises:
        PlatformRefused: no such platform, or a day in the future or before the accreditation.
    """
    platform = await session.get(Platform, platform_id)
    if platform is None:
        raise PlatformRefused("There is no such platform.")
    if received_on > today or received_on < platform.accredited_on:
        raise PlatformRefused("The day must be between the accreditation and today.")
    existing = (await session.exec(select(PlatformListReceipt).where(
        PlatformListReceipt.platform_id == platform_id, PlatformListReceipt.received_on == received_on))).first()
    if existing is not None:
        return existing
    receipt = PlatformListReceipt(platform_id=platform_id, received_on=received_on, recorded_by=actor)
    session.add(receipt)
    await session.commit()
    await session.refresh(receipt)
    return receipt


async def list_statuses(*, session: AsyncSession, today: dt.date,
                        calendar: BusinessCalendar) -> list[ListStatus]:
    """Every platform with its last list and the next due day (Art. 5 IX), most late first."""
    latest = (
        select(PlatformListReceipt.platform_id, func.max(PlatformListReceipt.received_on).label("last"))
        .group_by(col(PlatformListReceipt.platform_id))
        .subquery()
    )
    rows = (await session.exec(
        select(Platform, latest.c.last).outerjoin(latest, latest.c.platform_id == Platform.id)
        .order_by(col(Platform.id))
    )).all()
    found = []
    for platform, last in rows:
        due = list_due_on(since=last or platform.accredited_on, calendar=calendar)
        found.append(ListStatus(platform=platform, last_received_on=last, due_on=due,
                                days_late=(today - due).days))
    return sorted(found, key=lambda status: -status.days_late)
