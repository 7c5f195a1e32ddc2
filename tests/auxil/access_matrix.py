"""The matrix of who reads what (:mod:`models.cases.access`): one case of every kind, and what each role gets.

Shared by the domain, console, API and chat tests, so the four answer the same table.
"""

from __future__ import annotations

import datetime as dt
import enum

from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import cities_of
from core.settings import Settings
from models.cases.filing import (
    Place,
    RideHailingForm,
    file_ombudsman_case,
    file_representation,
    file_ride_hailing_report,
)
from models.people import Role
from tests.auxil.case_people import ANA, JOAO, NOW, Cast, ombudsman, representation

KINDS = ("representation", "ride_hailing", "ombudsman", "ombudsman_restricted")
ROLES = (Role.ADMIN, Role.CLERK, Role.INSPECTOR, Role.OMBUDSMAN)


class Gets(enum.Enum):
    """What a member gets when opening a case."""

    AUTHOR = "the case with its author"
    REFUSED = "refused: another role's case"
    ABSENT = "answered as a protocol that does not exist"


R, X, A = Gets.AUTHOR, Gets.REFUSED, Gets.ABSENT
EXPECTED: dict[Role, tuple[Gets, Gets, Gets, Gets]] = {
    # representação (CP Art. 31–32), ride-hailing (L1533 Art. 13–14), ouvidoria, restricted (L13460 Art. 10 §7)
    Role.ADMIN: (R, R, R, A),
    Role.CLERK: (R, X, X, A),
    Role.INSPECTOR: (X, R, X, A),
    Role.OMBUDSMAN: (X, X, R, R),
}
MATRIX = [(role, kind, EXPECTED[role][index]) for role in ROLES for index, kind in enumerate(KINDS)]
"""(role, kind, what the role gets): the parameters of every matrix test."""
AUTHOR_NAME = JOAO.name


def member_of(cast: Cast, role: Role) -> int:
    """The Telegram id of the cast member holding ``role`` (Ana is the admin: ``make_cast(with_admin=True)``)."""
    return {Role.ADMIN: ANA, Role.CLERK: cast.clara.telegram_user_id, Role.INSPECTOR: cast.ines.telegram_user_id,
            Role.OMBUDSMAN: cast.otavio.telegram_user_id}[role]


async def file_every_kind(session: AsyncSession, settings: Settings, cast: Cast) -> dict[str, tuple[int, str]]:
    """João files one case of every kind; (case id, protocol) by kind."""
    rep = await file_representation(session=session, person_id=cast.joao.id, form=representation(), now=NOW,
                                    cities=cities_of(settings))
    ride = await file_ride_hailing_report(session=session, person_id=cast.joao.id, now=NOW, cities=cities_of(settings),
                                          form=RideHailingForm(
                                              author=JOAO, vehicle_ref="ABC1D23", reason="street",
                                              facts="Pegou passageiros na rodoviária sem o aplicativo.",
                                              occurred_on=NOW.date() - dt.timedelta(days=1),
                                              place=Place(text="Rodoviária")))
    identified = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(restricted=False),
                                           now=NOW, city=cities_of(settings).default)
    restricted = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                           city=cities_of(settings).default)
    return {kind: (filed.case_id, filed.protocol) for kind, filed in zip(KINDS, (rep, ride, identified, restricted),
                                                                         strict=True)}
