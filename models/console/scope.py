"""Which municipalities a staff member works in and which the console shows, decided in one place for every page.

A staff role is held in a municipality (CF Art. 30: each city hall has its own staff), or deployment-wide. The
console shows the records of every municipality where the member holds a console role, or only the one an admin
of several chose (:func:`console_scope`); every record opened or acted on is checked again in its own
municipality (:func:`may_work_in`), so a page or a form of another municipality's record does nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel.ext.asyncio.session import AsyncSession

from bot.settings import Settings
from models.people import ANY_MUNICIPALITY, PermissionDenied, Role, require_role
from models.people import staff_municipalities as places_with_role


@dataclass(frozen=True, slots=True)
class ConsoleScope:
    """The municipalities a member works in, those the console shows now, and the member's role there."""

    places: tuple[tuple[str, str], ...]
    """(slug, name) of every municipality where the member holds a console role, in the deployment's order."""
    shown: tuple[str, ...]
    """The slugs the console shows: the chosen one, or all of :attr:`places`."""
    role: Role
    """The member's role where the console is looking (the chosen municipality's, else the widest one)."""

    @property
    def names(self) -> tuple[str, ...]:
        """The names of the municipalities shown."""
        return tuple(name for slug, name in self.places if slug in self.shown)


async def staff_municipalities(*, session: AsyncSession, telegram_user_id: int, settings: Settings
                               ) -> tuple[tuple[str, str], ...]:
    """The (slug, name) of the municipalities whose records this staff member may see and work.

    Args:
        session: database session.
        telegram_user_id: the staff member.
        settings: the deployment's settings (its municipalities).
    """
    places = await places_with_role(session=session, telegram_user_id=telegram_user_id, allowed=frozenset(Role))
    served = settings.municipalities
    return tuple((slug, served[slug].name) for slug in served if places is None or slug in places)


async def console_scope(*, session: AsyncSession, telegram_user_id: int, settings: Settings, allowed: frozenset[Role],
                        chosen: str | None) -> ConsoleScope:
    """What the console shows a member on this request, the role checked now.

    Args:
        session: database session.
        telegram_user_id: the staff member.
        settings: the deployment's settings.
        allowed: the console's roles.
        chosen: the municipality the member chose to look at (ignored unless the member works there).

    Raises:
        PermissionDenied: not active staff with a console role anywhere.
    """
    places = await staff_municipalities(session=session, telegram_user_id=telegram_user_id, settings=settings)
    slugs = tuple(slug for slug, _name in places)
    if chosen is not None and chosen in slugs:
        role = await require_role(session=session, telegram_user_id=telegram_user_id, allowed=allowed,
                                  municipality=chosen)
        return ConsoleScope(places=places, shown=(chosen,), role=role)
    role = await require_role(session=session, telegram_user_id=telegram_user_id, allowed=allowed,
                              municipality=ANY_MUNICIPALITY)
    return ConsoleScope(places=places, shown=slugs, role=role)


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
