"""Importing the driver registry (``python -m bot import drivers FILE.csv``, the console and the staff API).

All or nothing: every row is read and checked first (:mod:`models.drivers.registry_csv`, each problem with its line
and a reason in the reader's language), then, only if none is bad, every row is applied in one transaction.
Re-importing the same file changes nothing; a changed row updates the records and writes one
``driver.import.update`` audit event naming the columns that changed (never their values). Drivers absent from the
file are left as they are.

A vehicle is matched by RENAVAM first (a plate converted to the Mercosul format keeps its RENAVAM), then by plate. A
new plate for a driver is a replacement vehicle (Art. 8 §2): it needs its own inspection, and the Art. 9 five days
run from the import day.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from core.municipality import Cities, Municipality
from models.audit import record
from models.columns import utcnow
from models.drivers.registry import drivers_by_cpf, record_fee_payment, record_inspection, registry_city
from models.drivers.registry_csv import DriverRow, ImportReport, read_rows, row_problem
from models.drivers.tables import Authorization, Driver, FeePayment, Inspection, Vehicle

SOURCE = "import"
"""The source of fee payments and inspections the import records."""


@dataclass(slots=True)
class _Existing:
    drivers: dict[str, Driver]
    authorizations: dict[int, Authorization]  # by driver id
    vehicles_by_plate: dict[str, Vehicle]
    vehicles_by_renavam: dict[str, Vehicle]
    numbers: dict[str, Authorization]
    holders: dict[int, list[Authorization]]  # vehicle id -> authorizations using it


async def _load_existing(session: AsyncSession, rows: list[DriverRow]) -> _Existing:
    drivers = await drivers_by_cpf(session=session, cpfs=[row.cpf for row in rows])
    driver_ids = [driver.id for driver in drivers.values()]
    authorizations: dict[int, Authorization] = {}
    numbers: dict[str, Authorization] = {}
    plates = [row.plate for row in rows]
    renavams = [row.renavam for row in rows]
    wanted_numbers = [row.authorization_number for row in rows]
    by_plate: dict[str, Vehicle] = {}
    by_renavam: dict[str, Vehicle] = {}
    for start in range(0, len(rows), 500):
        for authorization in (
            await session.exec(
                select(Authorization).where(
                    col(Authorization.driver_id).in_(driver_ids[start : start + 500])
                    | col(Authorization.number).in_(wanted_numbers[start : start + 500])
                )
            )
        ).all():
            authorizations[authorization.driver_id] = authorization
            numbers[authorization.number] = authorization
        for vehicle in (
            await session.exec(
                select(Vehicle).where(
                    col(Vehicle.plate).in_(plates[start : start + 500])
                    | col(Vehicle.renavam).in_(renavams[start : start + 500])
                )
            )
        ).all():
            by_plate[vehicle.plate] = vehicle
            by_renavam[vehicle.renavam] = vehicle
    holders: dict[int, list[Authorization]] = {}
    vehicle_ids = list({vehicle.id for vehicle in by_plate.values()} | {v.id for v in by_renavam.values()})
    for start in range(0, len(vehicle_ids), 500):
        for authorization in (
            await session.exec(
                select(Authorization).where(col(Authorization.vehicle_id).in_(vehicle_ids[start : start + 500]))
            )
        ).all():
            holders.setdefault(authorization.vehicle_id, []).append(authorization)
    return _Existing(drivers, authorizations, by_plate, by_renavam, numbers, holders)


def _check_against_registry(rows: list[DriverRow], existing: _Existing, report: ImportReport) -> None:
    """Refuse rows that would take a plate, RENAVAM or authorization number held by a driver outside the file."""
    in_file = {row.cpf: row for row in rows}
    id_to_cpf = {driver.id: cpf for cpf, driver in existing.drivers.items()}

    def moves_away(driver_id: int, *, plate: str | None = None, number: str | None = None) -> bool:
        cpf = id_to_cpf.get(driver_id)
        other = in_file.get(cpf) if cpf else None
        if other is None:
            return False
        if plate is not None:
            return other.plate != plate
        return other.authorization_number != number

    for row in rows:
        own = existing.drivers.get(row.cpf)
        own_id = own.id if own else None
        holder = existing.numbers.get(row.authorization_number)
        if holder is not None and holder.driver_id != own_id and not moves_away(
            holder.driver_id, number=row.authorization_number
        ):
            report.errors.append(row_problem(row.line, N_("autorizacao_numero belongs to another driver")))
        by_renavam = existing.vehicles_by_renavam.get(row.renavam)
        by_plate = existing.vehicles_by_plate.get(row.plate)
        if by_plate is not None and by_plate.renavam != row.renavam:
            report.errors.append(row_problem(row.line, N_("placa is registered with another RENAVAM")))
            continue
        vehicle = by_renavam or by_plate
        if vehicle is None or vehicle.id is None:
            continue
        for authorization in existing.holders.get(vehicle.id, []):
            if authorization.driver_id != own_id and not moves_away(authorization.driver_id, plate=row.plate):
                report.errors.append(row_problem(row.line, N_("the vehicle serves another driver's authorization")))
                break


async def _apply_row(
    session: AsyncSession, row: DriverRow, existing: _Existing, *, actor: str, city: Municipality, today: dt.date
) -> str:
    """Create or update one driver's records; return ``created``, ``updated`` or ``unchanged``."""
    changed: list[str] = []
    driver, created = await _apply_driver(session, row, existing, city=city, changed=changed)
    assert driver.id is not None
    vehicle = await _apply_vehicle(session, row, existing, changed=changed)
    assert vehicle.id is not None
    await _apply_authorization(session, row, existing, driver_id=driver.id, vehicle_id=vehicle.id, created=created,
                               changed=changed, city=city, today=today)
    if await _apply_inspection(session, row, vehicle_id=vehicle.id, actor=actor) and not created:
        changed.append("vistoria")
    if created:
        await record(
            session=session,
            actor=actor,
            action="driver.import.create",
            entity="driver",
            entity_id=str(driver.id),
            details={"line": row.line, "authorization": row.authorization_number},
        )
        return "created"
    if not changed:
        return "unchanged"
    driver.updated_at = utcnow()
    await record(
        session=session,
        actor=actor,
        action="driver.import.update",
        entity="driver",
        entity_id=str(driver.id),
        details={"line": row.line, "fields": sorted(set(changed))},
    )
    return "updated"


async def _apply_driver(session: AsyncSession, row: DriverRow, existing: _Existing, *, city: Municipality,
                        changed: list[str]) -> tuple[Driver, bool]:
    """The row's driver, created (True) or with the changed columns noted in ``changed``."""
    driver = existing.drivers.get(row.cpf)
    if driver is None:
        driver = Driver(
            municipality=city.slug,
            cpf=row.cpf,
            name=row.name,
            phone=row.phone,
            cnh_number=row.cnh_number,
            cnh_category=row.cnh_category,
            cnh_issued_on=row.cnh_issued_on,
        )
        session.add(driver)
        await session.flush()
        existing.drivers[row.cpf] = driver
        return driver, True
    for column, attribute, value in (
        ("nome", "name", row.name),
        ("telefone", "phone", row.phone),
        ("cnh_numero", "cnh_number", row.cnh_number),
        ("cnh_categoria", "cnh_category", row.cnh_category),
        ("cnh_emissao", "cnh_issued_on", row.cnh_issued_on),
    ):
        if getattr(driver, attribute) != value:
            setattr(driver, attribute, value)
            changed.append(column)
    return driver, False


async def _apply_vehicle(session: AsyncSession, row: DriverRow, existing: _Existing, *,
                         changed: list[str]) -> Vehicle:
    """The row's vehicle, by RENAVAM or plate, created or with the changed columns noted in ``changed``."""
    vehicle = existing.vehicles_by_renavam.get(row.renavam) or existing.vehicles_by_plate.get(row.plate)
    if vehicle is None:
        vehicle = Vehicle(plate=row.plate, renavam=row.renavam, model_year=row.model_year)
        session.add(vehicle)
        await session.flush()
        existing.vehicles_by_plate[row.plate] = existing.vehicles_by_renavam[row.renavam] = vehicle
        return vehicle
    if vehicle.plate != row.plate:
        vehicle.plate = row.plate
        changed.append("placa")
    if vehicle.model_year != row.model_year:
        vehicle.model_year = row.model_year
        changed.append("ano_modelo")
    return vehicle


async def _apply_authorization(session: AsyncSession, row: DriverRow, existing: _Existing, *, driver_id: int,
                               vehicle_id: int, created: bool, changed: list[str], city: Municipality,
                               today: dt.date) -> None:
    """The driver's authorization, created with its fee payment, or brought up to the row (noted in ``changed``)."""
    authorization = existing.authorizations.get(driver_id)
    if authorization is None:
        authorization = Authorization(
            number=row.authorization_number,
            driver_id=driver_id,
            vehicle_id=vehicle_id,
            approved_on=row.fee_paid_on,
            fee_paid_on=row.fee_paid_on,
            valid_until=row.valid_until,
            vehicle_since=row.fee_paid_on,
        )
        session.add(authorization)
        await session.flush()
        assert authorization.id is not None
        session.add(FeePayment(authorization_id=authorization.id, paid_on=row.fee_paid_on, source=SOURCE))
        existing.authorizations[driver_id] = authorization
        if not created:
            changed.append("autorizacao_numero")
        return
    if authorization.number != row.authorization_number:
        authorization.number = row.authorization_number
        changed.append("autorizacao_numero")
    if authorization.vehicle_id != vehicle_id:
        authorization.vehicle_id = vehicle_id
        authorization.vehicle_since = today  # Art. 8 §2: a replacement needs a new inspection
        changed.extend(("placa", "renavam"))
    if authorization.fee_paid_on != row.fee_paid_on:
        await record_fee_payment(
            session=session, authorization=authorization, paid_on=row.fee_paid_on, source=SOURCE, city=city
        )
        changed.append("autorizacao_emissao")
    if authorization.valid_until != row.valid_until:
        authorization.valid_until = row.valid_until
        changed.append("autorizacao_validade")
    if changed:
        authorization.updated_at = utcnow()


async def _apply_inspection(session: AsyncSession, row: DriverRow, *, vehicle_id: int, actor: str) -> bool:
    """Record the row's inspection unless the same result is already recorded that day; True when recorded."""
    if row.inspected_on is None or row.inspection_result is None:
        return False
    current = (
        await session.exec(
            select(Inspection).where(
                Inspection.vehicle_id == vehicle_id, Inspection.inspected_on == row.inspected_on
            )
        )
    ).first()
    if current is None or current.result is not row.inspection_result:
        await record_inspection(
            session=session,
            vehicle_id=vehicle_id,
            inspected_on=row.inspected_on,
            result=row.inspection_result,
            actor=actor,
            notes=current.notes if current else "",
        )
        return True
    return False


async def _free_taken_numbers(session: AsyncSession, rows: list[DriverRow], existing: _Existing) -> None:
    """Give authorizations whose number moves to another driver a placeholder, so swaps do not collide."""
    targets = {row.authorization_number: row.cpf for row in rows}
    cpf_of = {driver.id: cpf for cpf, driver in existing.drivers.items()}
    moved = False
    for number, authorization in existing.numbers.items():
        if number in targets and cpf_of.get(authorization.driver_id) != targets[number]:
            authorization.number = f"~{authorization.id}"
            moved = True
    if moved:
        await session.flush()


async def import_drivers(
    *,
    session: AsyncSession,
    text: str,
    actor: str,
    cities: Cities,
    today: dt.date,
    dry_run: bool = False,
    municipality: str | None = None,
) -> ImportReport:
    """Validate a registry CSV and, when every row is good, apply it in one transaction.

    Args:
        session: database session (committed here when applied; rolled back on any error).
        text: the CSV content.
        actor: who imports, for the audit log (``"cli"``, ``"staff:<telegram id>"``).
        cities: the municipalities served; the registry's gives the legal choices (validity check, vehicle age
            reading, month end rule).
        today: the civil date of the import (America/Cuiaba).
        dry_run: validate and count what would change, then roll back.
        municipality: whose registry it is; by default the municipality where Lei 1.533/2020 is in force.

    Returns:
        The report; ``applied`` is False when there was any error (nothing changed) or in a dry run.
    """
    city = cities.of(municipality) if municipality else registry_city(cities)
    rows, report = read_rows(text, city=city, today=today)
    if report.errors:
        return report
    existing = await _load_existing(session, rows)
    _check_against_registry(rows, existing, report)
    if report.errors:
        await session.rollback()
        return report
    try:
        await _free_taken_numbers(session, rows, existing)
        for row in rows:
            outcome = await _apply_row(session, row, existing, actor=actor, city=city, today=today)
            setattr(report, outcome, getattr(report, outcome) + 1)
        if dry_run:
            await session.rollback()
        else:
            await session.commit()
            report.applied = True
    except BaseException:
        await session.rollback()
        raise
    return report
