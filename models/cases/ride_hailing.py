"""Finding the car a citizen reports (Lei 1.533/2020): by plate or by the authorization number on its sticker.

The registry is the drivers' (read only, through :mod:`models.drivers`). A car that is not in it is reported
anyway: carrying passengers for pay without authorization is itself an infraction (Art. 27).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from models.drivers.identifiers import InvalidIdentifier, format_plate, parse_plate
from models.drivers.registry import authorization_by_number
from models.drivers.tables import Authorization, Vehicle
from models.invalid_input import InvalidInput

_AUTHORIZATION = re.compile(r"[A-Za-z0-9][A-Za-z0-9/\-.]{0,31}")


@dataclass(frozen=True, slots=True)
class ReportedVehicle:
    """The car as found (or not) in the registry. Shown to the citizen: no driver's personal data.

    Attributes:
        reference: what identifies the car in the case (the plate as printed, or the authorization number).
        registered: whether the registry knows it.
        driver_id: the authorized driver, when registered.
        plate: the plate as printed, when known.
        authorization_number: the authorization number, when known.
    """

    reference: str
    registered: bool
    driver_id: int | None = None
    plate: str | None = None
    authorization_number: str | None = None


async def find_reported_vehicle(*, session: AsyncSession, text: str) -> ReportedVehicle:
    """Look a plate (``ABC1D23``, ``ABC-1234``) or an authorization number up in the registry.

    Raises:
        InvalidInput: neither a plate nor something that looks like an authorization number.
    """
    try:
        plate = parse_plate(text)
    except InvalidIdentifier:
        plate = None
    if plate is not None:
        row = (
            await session.exec(
                select(Authorization)
                .join(Vehicle, col(Vehicle.id) == Authorization.vehicle_id)
                .where(Vehicle.plate == plate)
            )
        ).first()
        if row is None:
            return ReportedVehicle(reference=format_plate(plate), registered=False, plate=format_plate(plate))
        return ReportedVehicle(
            reference=format_plate(plate), registered=True, driver_id=row.driver_id, plate=format_plate(plate),
            authorization_number=row.number,
        )
    number = text.strip()
    if not _AUTHORIZATION.fullmatch(number) or not any(char.isdigit() for char in number):
        raise InvalidInput(
            N_("Please type the car's plate (like ABC1D23 or ABC-1234) or the authorization number on its sticker.")
        )
    authorization = await authorization_by_number(session=session, number=number)
    if authorization is None:
        return ReportedVehicle(reference=number.upper(), registered=False, authorization_number=number.upper())
    vehicle = await session.get(Vehicle, authorization.vehicle_id)
    shown = format_plate(vehicle.plate) if vehicle else None
    return ReportedVehicle(
        reference=shown or authorization.number, registered=True, driver_id=authorization.driver_id, plate=shown,
        authorization_number=authorization.number,
    )
