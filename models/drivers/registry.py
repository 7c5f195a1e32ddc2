"""Reading and changing the driver registry: a driver's situation, fee payments, inspections and sanctions.

Every change goes through these functions, so ``Authorization.valid_until`` always follows the fee payment
it comes from (Art. 3 par. único) and each change lands in the audit log with its actor (never the CPF).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import StrEnum

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import Cities, Municipality
from models.audit import record
from models.columns import utcnow
from models.drivers.identifiers import format_plate, mask_cpf
from models.drivers.status import AuthorizationStatus, authorization_status, legal_deadline, validity_end
from models.drivers.tables import Authorization, Driver, FeePayment, Inspection, InspectionResult, Vehicle
from models.people import Person
from models.rulebooks.catalogue import L1533


@dataclass(frozen=True, slots=True)
class DriverSituation:
    """A driver's registration and the status of their authorization, ready to show.

    Attributes:
        driver_id: the driver.
        person_id: the linked person, if any.
        name: the driver's name.
        cpf_masked: the CPF as it may be shown (``***.456.789-**``).
        authorization_number: the authorization's number (Art. 14: on the sticker).
        plate: the plate as printed.
        model_year: the vehicle's model year.
        status: the status on the requested date.
    """

    driver_id: int
    person_id: int | None
    name: str
    cpf_masked: str
    authorization_number: str
    plate: str
    model_year: int
    status: AuthorizationStatus


def registry_city(cities: Cities) -> Municipality:
    """The municipality whose registry of drivers this is: where Lei 1.533/2020 is in force (CF Art. 30 I).

    The default municipality when none of those served enacted it.
    """
    return cities.with_rulebook(L1533) or cities.default


async def situation_of(
    *, session: AsyncSession, driver: Driver, on: dt.date, city: Municipality
) -> DriverSituation | None:
    """The situation of a driver on a date (None when the registry has no authorization for them)."""
    authorization = (
        await session.exec(select(Authorization).where(Authorization.driver_id == driver.id))
    ).first()
    if authorization is None:
        return None
    vehicle = await session.get(Vehicle, authorization.vehicle_id)
    assert vehicle is not None and driver.id is not None
    inspections = (await session.exec(select(Inspection).where(Inspection.vehicle_id == vehicle.id))).all()
    status = authorization_status(
        authorization=authorization, inspections=inspections, vehicle=vehicle, on=on, city=city
    )
    return DriverSituation(
        driver_id=driver.id,
        person_id=driver.person_id,
        name=driver.name,
        cpf_masked=mask_cpf(driver.cpf),
        authorization_number=authorization.number,
        plate=format_plate(vehicle.plate),
        model_year=vehicle.model_year,
        status=status,
    )


async def linked_driver(*, session: AsyncSession, person_id: int) -> Driver | None:
    """The driver a person's Telegram account is linked to, if any."""
    return (await session.exec(select(Driver).where(Driver.person_id == person_id))).first()


async def situation_for_person(
    *, session: AsyncSession, person_id: int, on: dt.date, city: Municipality
) -> DriverSituation | None:
    """The situation of the driver linked to a person (None when the person is not a linked driver)."""
    driver = await linked_driver(session=session, person_id=person_id)
    if driver is None:
        return None
    return await situation_of(session=session, driver=driver, on=on, city=city)


async def authorization_by_number(*, session: AsyncSession, number: str) -> Authorization | None:
    """The authorization with this number (as printed on the sticker, Art. 14)."""
    return (await session.exec(select(Authorization).where(Authorization.number == number.strip()))).first()


async def record_fee_payment(
    *, session: AsyncSession, authorization: Authorization, paid_on: dt.date, source: str, city: Municipality
) -> bool:
    """Record a payment of the fees and restart the validity from it (Art. 3 par. único); the caller commits.

    Returns:
        True when the payment was new.
    """
    existing = (
        await session.exec(
            select(FeePayment).where(FeePayment.authorization_id == authorization.id, FeePayment.paid_on == paid_on)
        )
    ).first()
    authorization.fee_paid_on = paid_on
    authorization.valid_until = validity_end(paid_on, city)
    authorization.updated_at = utcnow()
    if existing is not None:
        return False
    assert authorization.id is not None
    session.add(FeePayment(authorization_id=authorization.id, paid_on=paid_on, source=source))
    return True


async def record_inspection(
    *,
    session: AsyncSession,
    vehicle_id: int,
    inspected_on: dt.date,
    result: InspectionResult,
    actor: str,
    notes: str = "",
) -> Inspection:
    """Record (or correct) the inspection of a vehicle on a day (Art. 9, Art. 16), audited; the caller commits."""
    inspection = (
        await session.exec(
            select(Inspection).where(Inspection.vehicle_id == vehicle_id, Inspection.inspected_on == inspected_on)
        )
    ).first()
    action = "driver.inspection.update"
    if inspection is None:
        inspection = Inspection(vehicle_id=vehicle_id, inspected_on=inspected_on, result=result, notes=notes)
        session.add(inspection)
        action = "driver.inspection.create"
    elif inspection.result is result and inspection.notes == notes:
        return inspection
    else:
        inspection.result, inspection.notes = result, notes
    await session.flush()
    await record(
        session=session,
        actor=actor,
        action=action,
        entity="vehicle_inspection",
        entity_id=str(inspection.id),
        details={"vehicle_id": vehicle_id, "date": inspected_on.isoformat(), "result": result.value},
    )
    return inspection


class Sanction(StrEnum):
    """Penalties of Art. 24 I that change the authorization's status."""

    SUSPENSION = "suspension"  # Art. 24 I b, par. único (12 months); Art. 26 VI; Art. 26 §1 (30 days)
    REVOCATION = "revocation"  # Art. 24 I c
    CASSACAO = "cassacao"  # Art. 24 I f; Art. 26 §2


SUSPENSION_RULES = frozenset({"l1533-24-suspensao", "l1533-26vi-suspensao", "l1533-26-1-suspensao"})
"""The rulebook deadlines that give a suspension's length."""


async def apply_sanction(
    *,
    session: AsyncSession,
    authorization: Authorization,
    sanction: Sanction,
    since: dt.date,
    actor: str,
    city: Municipality,
    suspension_rule: str = "l1533-24-suspensao",
    until: dt.date | None = None,
) -> Authorization:
    """Apply a suspension, revocation or cassação to an authorization, audited; the caller commits.

    Args:
        session: database session.
        authorization: the authorization.
        sanction: which penalty.
        since: the day it applies from.
        actor: who decided, for the audit log.
        city: the registry's municipality: its legal choices (a repeat of Art. 26 IV lasts 30 days or 12 months,
            ``l1533_repeat_suspension``).
        suspension_rule: the rulebook deadline giving the suspension's length (:data:`SUSPENSION_RULES`).
        until: last day of a suspension, when the decision fixes it; computed from ``suspension_rule`` otherwise.
    """
    if sanction is Sanction.SUSPENSION:
        if suspension_rule not in SUSPENSION_RULES:
            raise ValueError(f"not a suspension rule: {suspension_rule}")
        if until is None:
            until = legal_deadline(suspension_rule, since, city)
        if until < since:
            raise ValueError("a suspension cannot end before it starts")
        authorization.suspended_since, authorization.suspended_until = since, until
    elif sanction is Sanction.REVOCATION:
        authorization.revoked_on = since
    else:
        authorization.cassada_on = since
    authorization.updated_at = utcnow()
    await session.flush()
    details: dict[str, str] = {"since": since.isoformat()}
    if until is not None:
        details["until"] = until.isoformat()
    await record(
        session=session,
        actor=actor,
        action=f"driver.sanction.{sanction.value}",
        entity="driver_authorization",
        entity_id=str(authorization.id),
        details=details,
    )
    return authorization


async def drivers_by_cpf(*, session: AsyncSession, cpfs: list[str]) -> dict[str, Driver]:
    """The registered drivers among these CPFs (for the import)."""
    found: dict[str, Driver] = {}
    for start in range(0, len(cpfs), 500):
        chunk = cpfs[start : start + 500]
        for driver in (await session.exec(select(Driver).where(col(Driver.cpf).in_(chunk)))).all():
            found[driver.cpf] = driver
    return found


async def linked_statuses(
    *, session: AsyncSession, on: dt.date, city: Municipality
) -> list[tuple[int, AuthorizationStatus]]:
    """``(person_id, status)`` of every linked driver whose person did not erase their data (for audiences).

    Three queries whatever the number of drivers: the authorizations with their vehicles, then the inspections.
    """
    rows = (
        await session.exec(
            select(Driver.person_id, Authorization, Vehicle)
            .join(Authorization, col(Authorization.driver_id) == Driver.id)
            .join(Vehicle, col(Vehicle.id) == Authorization.vehicle_id)
            .join(Person, col(Person.id) == Driver.person_id)
            .where(col(Person.erased_at).is_(None))
        )
    ).all()
    vehicle_ids = [vehicle.id for _person, _authorization, vehicle in rows]
    inspections: dict[int, list[Inspection]] = {}
    for start in range(0, len(vehicle_ids), 500):
        chunk = vehicle_ids[start : start + 500]
        for inspection in (await session.exec(select(Inspection).where(col(Inspection.vehicle_id).in_(chunk)))).all():
            inspections.setdefault(inspection.vehicle_id, []).append(inspection)
    return [
        (
            person_id,
            authorization_status(
                authorization=authorization,
                inspections=inspections.get(vehicle.id, []),
                vehicle=vehicle,
                on=on,
                city=city,
            ),
        )
        for person_id, authorization, vehicle in rows
        if person_id is not None and vehicle.id is not None
    ]
