"""Audiences that need no area's tables: everyone who has talked to the bot.

The areas register their own (``drivers`` and the other driver audiences live with the driver registry).
"""

from __future__ import annotations

import datetime as dt

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from models.people import Person
from notifications.audiences import AudienceParams, audience


@audience("everyone", label=N_("Everyone who has used the bot"))
async def everyone(*, session: AsyncSession, now: dt.datetime, params: AudienceParams) -> list[int]:
    """Every person who started the bot and did not erase their data."""
    rows = await session.exec(select(Person.id).where(col(Person.erased_at).is_(None)))
    return [person_id for person_id in rows.all() if person_id is not None]
