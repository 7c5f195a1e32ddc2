"""The webhook's memory of the update ids it already took, so a replayed update runs once.

Telegram resends an update until it gets a 200, and anyone who learnt the secret could replay one; the ids
live in the database so that several processes and restarts agree. Telegram keeps an undelivered update for
24 hours, so ids older than :data:`KEEP` are forgotten.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import BigInteger, Column, delete
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Field, SQLModel, col
from sqlmodel.ext.asyncio.session import AsyncSession

from models.columns import UTCDateTime

KEEP = dt.timedelta(hours=48)
"""How long an update id is remembered (Telegram gives up on an update after 24 hours)."""


class SeenUpdate(SQLModel, table=True):
    """One update id a bot's webhook already accepted."""

    __tablename__ = "seen_update"

    bot_id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    update_id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    seen_at: dt.datetime = Field(sa_column=Column(UTCDateTime, nullable=False, index=True))


async def first_sight(*, session: AsyncSession, bot_id: int, update_id: int, now: dt.datetime) -> bool:
    """Remember an update id; True the first time it is seen, False for a replay (committed).

    Args:
        session: database session.
        bot_id: the bot's numeric id (the token's first part).
        update_id: Telegram's update id.
        now: the moment (aware).
    """
    dialect = session.bind.dialect.name if session.bind is not None else "sqlite"
    insert = pg_insert if dialect == "postgresql" else sqlite_insert
    statement = (
        insert(SeenUpdate.__table__)  # type: ignore[attr-defined]
        .values(bot_id=bot_id, update_id=update_id, seen_at=now)
        .on_conflict_do_nothing(index_elements=["bot_id", "update_id"])
    )
    result = await session.exec(statement)
    await session.commit()
    return bool(result.rowcount)


async def forget_seen(*, session: AsyncSession, now: dt.datetime) -> int:
    """Forget update ids older than :data:`KEEP` (committed); return how many."""
    result = await session.exec(delete(SeenUpdate).where(col(SeenUpdate.seen_at) < now - KEEP))
    await session.commit()
    return int(result.rowcount)
