"""The webhook's memory of the update ids it already took, so a replayed update runs once; a person's turn.

Telegram resends an update until it gets a 200, and anyone who learnt the secret could replay one; the ids
live in the database so that several processes and restarts agree. Telegram keeps an undelivered update for
24 hours, so ids older than :data:`KEEP` are forgotten.

On PostgreSQL, :func:`take_turn` waits for the person's turn (a transaction-scoped advisory lock keyed by bot and
person) and records the update id in the same statement; the caller commits when the update was handled and
rolls back when it was not, so one person's updates run one at a time across every process of a bot, and an
update that failed (or whose process died) is run again when Telegram delivers it again.
"""

from __future__ import annotations

import datetime as dt
import hashlib

from sqlalchemy import BigInteger, Column, delete, func, literal, select
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


def turn_key(bot_id: int, person: int) -> int:
    """The advisory lock key of one person of one bot: 64 bits of a hash (a collision only serialises two people)."""
    digest = hashlib.blake2b(f"balcao-turn:{bot_id}:{person}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


async def take_turn(
    *, session: AsyncSession, lock_key: int | None, bot_id: int, update_id: int, now: dt.datetime
) -> bool:
    """PostgreSQL: wait for the person's turn and remember the update id, in one statement (not committed).

    The lock (``pg_advisory_xact_lock``) and the id's row last until the caller ends the transaction: commit once
    the update is handled, roll back when it was not (it then runs again when Telegram redelivers it).

    Args:
        session: a session of its own, kept open for the turn.
        lock_key: :func:`turn_key` of the person, or None for an update of nobody (no turn to wait for).
        bot_id: the bot's numeric id.
        update_id: the update's id.
        now: the moment (aware).

    Returns:
        False when the update id was already taken (a replay: do not run it), True otherwise.
    """
    lock = select(func.pg_advisory_xact_lock(lock_key).label("locked")).cte("turn") if lock_key is not None else None
    source = select(literal(bot_id, BigInteger), literal(update_id, BigInteger), literal(now, UTCDateTime))
    statement = (
        pg_insert(SeenUpdate.__table__)  # type: ignore[attr-defined]
        .from_select(["bot_id", "update_id", "seen_at"], source.select_from(lock) if lock is not None else source)
        .on_conflict_do_nothing(index_elements=["bot_id", "update_id"])
    )
    result = await session.exec(statement)
    return bool(result.rowcount)


async def forget_update(*, session: AsyncSession, bot_id: int, update_id: int) -> None:
    """Forget one update id (committed): it was not handled, and must run when Telegram delivers it again."""
    await session.exec(delete(SeenUpdate).where(col(SeenUpdate.bot_id) == bot_id,
                                                col(SeenUpdate.update_id) == update_id))
    await session.commit()
