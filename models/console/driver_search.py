"""Finding a driver for the console: by authorization number, by CPF, or by part of the name."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.console.case_list import like_pattern
from models.drivers.identifiers import InvalidIdentifier, mask_cpf, parse_cpf
from models.drivers.tables import Authorization, Driver

LIMIT = 20


@dataclass(frozen=True, slots=True)
class DriverHit:
    """A driver found, with the authorization to open (the CPF only masked)."""

    name: str
    cpf_masked: str
    authorization_number: str


async def find_drivers(*, session: AsyncSession, text: str, municipalities: tuple[str, ...] | None = None
                       ) -> list[DriverHit]:
    """Drivers whose authorization number or CPF is ``text``, or whose name contains it (at most 20).

    Args:
        session: database session.
        text: an authorization number, a CPF, or part of a name.
        municipalities: only these municipalities' registries; ``None``: every one.
    """
    wanted = text.strip()[:100]
    if len(wanted) < 2:
        return []
    statement = select(Driver, Authorization).join(Authorization, col(Authorization.driver_id) == Driver.id)
    if municipalities is not None:
        statement = statement.where(col(Driver.municipality).in_(municipalities))
    try:
        cpf = parse_cpf(wanted)
    except InvalidIdentifier:
        cpf = None
    if cpf is not None:
        statement = statement.where(Driver.cpf == cpf)
    elif "/" in wanted:  # authorization numbers look like 2026/0012
        statement = statement.where(Authorization.number == wanted)
    else:
        statement = statement.where(col(Driver.name).ilike(like_pattern(wanted), escape="\\"))
    rows = (await session.exec(statement.order_by(col(Driver.name)).limit(LIMIT))).all()
    return [DriverHit(name=driver.name, cpf_masked=mask_cpf(driver.cpf), authorization_number=auth.number)
            for driver, auth in rows]
