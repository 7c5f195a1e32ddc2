"""Which municipalities a staff member works in, decided in one place for every console page and export.

A staff role is held in a municipality (CF Art. 30: each city hall has its own staff), or deployment-wide.
The console shows the records of every municipality where the member holds a console role.
"""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from bot.settings import Settings
from models.people import Role
from models.people import staff_municipalities as places_with_role


async def staff_municipalities(*, session: AsyncSession, telegram_user_id: int, settings: Settings) -> tuple[str, ...]:
    """The names of the municipalities whose records this staff member may see and work.

    Args:
        session: database session.
        telegram_user_id: the staff member.
        settings: the deployment's settings (its municipalities).
    """
    places = await places_with_role(session=session, telegram_user_id=telegram_user_id, allowed=frozenset(Role))
    served = settings.municipalities
    return tuple(served[slug].name for slug in served if places is None or slug in places)
