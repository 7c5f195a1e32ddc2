"""Which municipality a staff member works in, decided in one place for every console page and export.

Wave 1 deployments serve one municipality (``BALCAO_MUNICIPALITY_NAME``), so every staff member works in it and
nothing is filtered; when staff roles are held per municipality, this function is the one that changes.
"""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from bot.settings import Settings


async def staff_municipalities(*, session: AsyncSession, telegram_user_id: int, settings: Settings) -> tuple[str, ...]:
    """The municipalities whose records this staff member may see and work (the deployment's single one).

    Args:
        session: database session (unused until roles are held per municipality).
        telegram_user_id: the staff member.
        settings: the deployment's settings.
    """
    del session, telegram_user_id
    return (settings.municipality_name,)
