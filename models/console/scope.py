"""Which municipalities a staff member works in and which the console shows, decided in one place for every page.

A staff role is held in a municipality (CF Art. 30: each city hall has its own staff), or deployment-wide. The
console shows the records of every municipality where the member holds a console role, or only the one an admin
of several chose (:func:`console_scope`); every record opened or acted on is checked again in its own
municipality (:func:`may_work_in`), so a page or a form of another municipality's record does nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import Cities
from models.people import ANY_MUNICIPALITY, PermissionDenied, Role, require_role, staff_roles
from models.people import staff_municipalities as places_with_role

PlaceRoles = tuple[tuple[str, Role], ...]
"""(slug, role) of each municipality: the member's role there."""


@dataclass(frozen=True, slots=True)
class ConsoleScope:
    """The municipalities a member works in, those the console shows now, and the member's role there."""

    places: tuple[tuple[str, str], ...]
    """(slug, name) of every municipality where the member holds a console role, in the deployment's order."""
    shown: tuple[str, ...]
    """The slugs the console shows: the chosen one, or all of :attr:`places`."""
    role: Role
    """The member's role where the console is looking (the chosen municipality's, else the widest one)."""
    roles: PlaceRoles
    """The member's role in each municipality shown: lists and exports ask each municipality's role there."""

    @property
    def names(self) -> tuple[str, ...]:
        """The names of the municipalities shown."""
        return tuple(name for slug, name in self.places if slug in self.shown)


async def staff_municipalities(*, session: AsyncSession, telegram_user_id: int, cities: Cities
                               ) -> tuple[tuple[str, str], ...]:
    """The (slug, name) of the municipalities whose records this staff member may see and work.

    Args:
        session: database session.
        telegram_user_id: the staff member.
        cities: the deployment's municipalities.
    """
    places = await places_with_role(session=session, telegram_user_id=telegram_user_id, allowed=frozenset(Role))
    return tuple((slug, city.name) for slug, city in cities.items() if places is None or slug in places)


async def console_scope(*, session: AsyncSession, telegram_user_id: int, cities: Cities, allowed: frozenset[Role],
                        chosen: str | None) -> ConsoleScope:
    """What the console shows a member on this request, the role checked now.

    Args:
        session: database session.
        telegram_user_id: the staff member.
        cities: the deployment's municipalities.
        allowed: the console's roles.
        chosen: the municipality the member chose to look at (ignored unless the member works there).

    Raises:
        PermissionDenied: not active staff with a console role anywhere.
    """
    places = await staff_municipalities(session=session, telegram_user_id=telegram_user_id, cities=cities)
    slugs = tuple(slug for slug, _name in places)
    held = await staff_roles(session=session, telegram_user_id=telegram_user_id)
    if chosen is not None and chosen in slugs:
        role = await require_role(session=session, telegram_user_id=telegram_user_id, allowed=allowed,
                                  municipality=chosen)
        shown: tuple[str, ...] = (chosen,)
    else:
        role = await require_role(session=session, telegram_user_id=telegram_user_id, allowed=allowed,
                                  municipality=ANY_MUNICIPALITY)
        shown = slugs
    roles = tuple((slug, held.get(None) or held[slug]) for slug in shown)
    return ConsoleScope(places=places, shown=shown, role=role, roles=roles)


def roles_for_page(roles: PlaceRoles, allowed: frozenset[Role]) -> PlaceRoles:
    """The municipalities shown where the member holds one of a page's roles (admins always), with that role.

    A page lists and exports only these: an admin of Sapezal who is an inspector in Nova Xavantina sees Nova
    Xavantina's records only on the inspectors' pages, and with an inspector's view (CF Art. 30).
    """
    return tuple((slug, role) for slug, role in roles if role is Role.ADMIN or role in allowed)


def widest(roles: PlaceRoles) -> Role:
    """The role that decides what a page offers when it shows several municipalities: admin if held, else the first.

    Offering is all it decides: every record opened or acted on is checked in its own municipality.
    """
    held = [role for _slug, role in roles]
    return Role.ADMIN if Role.ADMIN in held else held[0]


async def admin_of_every_municipality(*, session: AsyncSession, telegram_user_id: int, cities: Cities) -> bool:
    """Whether the member is an admin in every municipality the deployment serves (or deployment-wide).

    Pages about the whole deployment (the audit log, Open311 keys) are theirs alone; another role held elsewhere
    adds nothing.
    """
    places = await places_with_role(session=session, telegram_user_id=telegram_user_id,
                                    allowed=frozenset({Role.ADMIN}))
    return places is None or all(slug in places for slug in cities)


async def may_work_in(*, session: AsyncSession, telegram_user_id: int, municipality: str, shown: tuple[str, ...],
                      allowed: frozenset[Role]) -> bool:
    """Whether a record of ``municipality`` is open to this member on this page: shown now, and a role there.

    Args:
        session: database session.
        telegram_user_id: the staff member.
        municipality: the record's municipality (its slug).
        shown: the municipalities the console shows (:attr:`ConsoleScope.shown`).
        allowed: the roles the page is for (admins always).
    """
    if municipality not in shown:
        return False
    try:
        await require_role(session=session, telegram_user_id=telegram_user_id, allowed=allowed,
                           municipality=municipality)
    except PermissionDenied:
        return False
    return True
