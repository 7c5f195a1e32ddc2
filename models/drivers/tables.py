"""The driver registry of Lei 1.533/2020: drivers, vehicles, authorizations, inspections, fee payments, links.

One authorization per driver and one vehicle per authorization (Art. 8 caput: "limitada a um veículo por
01 (um) condutor"). Inspections belong to the vehicle, fee payments to the authorization. The validity end
(``valid_until``) is stored, not recomputed in SQL: month arithmetic differs between SQLite and PostgreSQL,
and the daily reminder scan needs an indexed column (see ``notifications.driver_reminders``).
"""

from __future__ import annotations

import datetime as dt
import enum

from sqlalchemy import Column, Date, Enum, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from models.columns import UTCDateTime, utcnow


class Driver(SQLModel, table=True):
    """A driver registered with the SMFO (Art. 12). ``person_id`` is set while a Telegram account is linked."""

    __tablename__ = "driver"

    id: int | None = Field(default=None, primary_key=True)
    cpf: str = Field(sa_column=Column(String(11), nullable=False, unique=True), repr=False)
    municipality: str = Field(
        sa_column=Column(String(40), ForeignKey("municipality.slug"), nullable=False, index=True),
        description="The municipality it belongs to (its Prefeitura acts; its calendar and unit values apply).",
    )
    name: str = Field(sa_column=Column(String(128), nullable=False), repr=False)
    phone: str | None = Field(default=None, sa_column=Column(String(16), index=True), repr=False)
    cnh_number: str = Field(sa_column=Column(String(11), nullable=False), repr=False)
    cnh_category: str = Field(sa_column=Column(String(2), nullable=False))
    cnh_issued_on: dt.date = Field(sa_column=Column(Date, nullable=False))
    person_id: int | None = Field(
        default=None, sa_column=Column(Integer, ForeignKey("person.id"), unique=True, index=True)
    )
    linked_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))
    updated_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))


class Vehicle(SQLModel, table=True):
    """A car registered for the service (Art. 2 §1, Art. 15), identified by its plate and RENAVAM."""

    __tablename__ = "vehicle"

    id: int | None = Field(default=None, primary_key=True)
    plate: str = Field(sa_column=Column(String(7), nullable=False, unique=True))
    renavam: str = Field(sa_column=Column(String(11), nullable=False, unique=True))
    model_year: int = Field(sa_column=Column(Integer, nullable=False, index=True))
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))


class Authorization(SQLModel, table=True):
    """The SMFO's authorization of one driver with one vehicle (Art. 3, Art. 8) and any sanction on it.

    Attributes:
        approved_on: approval of the request; the 5 days to present the vehicle run from it (Art. 9).
        fee_paid_on: payment of the fees that started the current validity (Art. 3 par. único, Art. 10).
        valid_until: last day of validity: 12 months from ``fee_paid_on`` (or as the registry gave it).
        vehicle_since: when the current vehicle was assigned (the approval, or a replacement, Art. 8 §2).
        suspended_since, suspended_until: a suspension, both days included (Art. 24 I b, par. único).
        revoked_on: revocation (Art. 24 I c). cassada_on: cassação (Art. 24 I f, Art. 26 §2).
    """

    __tablename__ = "driver_authorization"

    id: int | None = Field(default=None, primary_key=True)
    number: str = Field(sa_column=Column(String(32), nullable=False, unique=True))
    driver_id: int = Field(sa_column=Column(Integer, ForeignKey("driver.id"), nullable=False, unique=True))
    vehicle_id: int = Field(sa_column=Column(Integer, ForeignKey("vehicle.id"), nullable=False, index=True))
    approved_on: dt.date = Field(sa_column=Column(Date, nullable=False))
    fee_paid_on: dt.date = Field(sa_column=Column(Date, nullable=False))
    valid_until: dt.date = Field(sa_column=Column(Date, nullable=False, index=True))
    vehicle_since: dt.date = Field(sa_column=Column(Date, nullable=False, index=True))
    suspended_since: dt.date | None = Field(default=None, sa_column=Column(Date))
    suspended_until: dt.date | None = Field(default=None, sa_column=Column(Date, index=True))
    revoked_on: dt.date | None = Field(default=None, sa_column=Column(Date))
    cassada_on: dt.date | None = Field(default=None, sa_column=Column(Date))
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))
    updated_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))


class InspectionResult(enum.StrEnum):
    """Outcome of a *vistoria* (Art. 16)."""

    APPROVED = "approved"
    FAILED = "failed"


class Inspection(SQLModel, table=True):
    """A *vistoria* of a vehicle (Art. 9, Art. 16); at most one per vehicle and day."""

    __tablename__ = "vehicle_inspection"
    __table_args__ = (
        UniqueConstraint("vehicle_id", "inspected_on", name="uq_vehicle_inspection_day"),
        Index("ix_vehicle_inspection_day", "inspected_on"),
    )

    id: int | None = Field(default=None, primary_key=True)
    vehicle_id: int = Field(sa_column=Column(Integer, ForeignKey("vehicle.id"), nullable=False))
    inspected_on: dt.date = Field(sa_column=Column(Date, nullable=False))
    result: InspectionResult = Field(
        sa_column=Column(Enum(InspectionResult, native_enum=False, length=16), nullable=False)
    )
    notes: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))


class FeePayment(SQLModel, table=True):
    """A payment of the authorization fees (Art. 3 par. único, Art. 10 par. único): history of renewals."""

    __tablename__ = "fee_payment"
    __table_args__ = (UniqueConstraint("authorization_id", "paid_on", name="uq_fee_payment_day"),)

    id: int | None = Field(default=None, primary_key=True)
    authorization_id: int = Field(
        sa_column=Column(Integer, ForeignKey("driver_authorization.id"), nullable=False, index=True)
    )
    paid_on: dt.date = Field(sa_column=Column(Date, nullable=False))
    source: str = Field(sa_column=Column(String(16), nullable=False))
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))


class LinkCode(SQLModel, table=True):
    """A one-time code staff give a driver to link Telegram (``/start link-<code>``); only its hash is kept."""

    __tablename__ = "driver_link_code"

    id: int | None = Field(default=None, primary_key=True)
    driver_id: int = Field(sa_column=Column(Integer, ForeignKey("driver.id"), nullable=False, index=True))
    code_hash: str = Field(sa_column=Column(String(64), nullable=False, unique=True))
    expires_at: dt.datetime = Field(sa_column=Column(UTCDateTime, nullable=False))
    used_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    created_by: str = Field(sa_column=Column(String(64), nullable=False))
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))


class LinkAttempt(SQLModel, table=True):
    """One try to link (CPF digits or a code), kept to limit wrong attempts per person and day."""

    __tablename__ = "driver_link_attempt"
    __table_args__ = (Index("ix_driver_link_attempt_person_at", "person_id", "at"),)

    id: int | None = Field(default=None, primary_key=True)
    person_id: int = Field(sa_column=Column(Integer, ForeignKey("person.id"), nullable=False))
    at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))
    method: str = Field(sa_column=Column(String(8), nullable=False))
    succeeded: bool = False


class ReminderScanMark(SQLModel, table=True):
    """The last civil day the daily driver reminder scan completed (see ``notifications.driver_reminders``).

    The next scan covers every milestone day from this day to its own, so a process that was down catches up
    on the days it missed; dedupe keys make re-covering a day harmless.
    """

    __tablename__ = "driver_reminder_scan"

    name: str = Field(sa_column=Column(String(32), primary_key=True))
    last_day: dt.date = Field(sa_column=Column(Date, nullable=False))
