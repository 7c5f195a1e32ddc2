"""Staff broadcasts: one row per notice sent to an audience; its messages are outbox rows.

The broadcast holds the text once (its outbox rows carry only the recipient), who asked for it, when it
goes out and where its progress message lives in the requester's chat. Progress is counted from the
outbox rows' statuses, so it is right whichever process sends them.
"""

from __future__ import annotations

import datetime as dt
import enum

from sqlalchemy import BigInteger, Column, Enum, ForeignKey, Integer, String, Text, func, update
from sqlmodel import Field, SQLModel, col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.audit import record
from models.columns import UTCDateTime, utcnow
from models.outbox import OutboxMessage, OutboxStatus


class BroadcastStatus(enum.StrEnum):
    """Life of a broadcast: active (scheduled or sending), then finished or cancelled."""

    ACTIVE = "active"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class Broadcast(SQLModel, table=True):
    """A notice written by staff for an audience."""

    __tablename__ = "broadcast"

    id: int | None = Field(default=None, primary_key=True)
    audience: str = Field(sa_column=Column(String(48), nullable=False))
    municipality: str = Field(
        sa_column=Column(String(40), ForeignKey("municipality.slug"), nullable=False, index=True),
        description="The municipality it belongs to (its Prefeitura acts; its calendar and unit values apply).",
    )
    audience_days: int | None = Field(default=None, sa_column=Column(Integer))
    audience_topic: str | None = Field(default=None, sa_column=Column(String(64)))
    text: str = Field(sa_column=Column(Text, nullable=False), description="Telegram HTML, as the staff wrote it.")
    created_by: str = Field(sa_column=Column(String(64), nullable=False), description="Actor, as in the audit log.")
    requester_person_id: int | None = Field(
        default=None, foreign_key="person.id", description="Who gets the progress message and the final report."
    )
    recipients: int = Field(default=0, sa_column=Column(Integer, nullable=False, default=0))
    send_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))
    status: BroadcastStatus = Field(
        default=BroadcastStatus.ACTIVE,
        sa_column=Column(Enum(BroadcastStatus, native_enum=False, length=16), nullable=False, index=True),
    )
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))
    finished_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    cancelled_by: str | None = Field(default=None, sa_column=Column(String(64)))
    progress_chat_id: int | None = Field(default=None, sa_column=Column(BigInteger))
    progress_message_id: int | None = Field(default=None, sa_column=Column(BigInteger))
    progress_updated_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    request_key: str | None = Field(
        default=None,
        sa_column=Column(String(96), unique=True),
        description="Idempotency key of the request that created it (a double tap creates one broadcast).",
    )


async def status_counts(*, session: AsyncSession, broadcast_id: int) -> dict[OutboxStatus, int]:
    """How many of a broadcast's messages are in each status (every status present, zero if none)."""
    rows = await session.exec(
        select(OutboxMessage.status, func.count())
        .where(OutboxMessage.broadcast_id == broadcast_id)
        .group_by(OutboxMessage.status)
    )
    counts = dict.fromkeys(OutboxStatus, 0)
    for status, count in rows.all():
        counts[OutboxStatus(status)] = count
    return counts


async def cancel_broadcast(*, session: AsyncSession, broadcast_id: int, actor: str) -> int | None:
    """Stop a broadcast: its messages not yet sent are cancelled; those in flight finish (commits).

    Args:
        session: database session.
        broadcast_id: the broadcast.
        actor: who cancels, for the audit log.

    Returns:
        How many messages were cancelled, or None when the broadcast was not active (unknown, finished
        or already cancelled).
    """
    won = await session.exec(  # conditional: of two cancels, or a cancel and the finish, one wins
        update(Broadcast)
        .where(col(Broadcast.id) == broadcast_id, col(Broadcast.status) == BroadcastStatus.ACTIVE)
        .values(status=BroadcastStatus.CANCELLED, cancelled_by=actor)
        .execution_options(synchronize_session="fetch")
    )
    if not won.rowcount:
        await session.rollback()
        return None
    result = await session.exec(
        update(OutboxMessage)
        .where(col(OutboxMessage.broadcast_id) == broadcast_id, col(OutboxMessage.status) == OutboxStatus.PENDING)
        .values(status=OutboxStatus.CANCELLED, last_error="broadcast cancelled")
    )
    cancelled = int(result.rowcount)
    await record(
        session=session,
        actor=actor,
        action="broadcast.cancel",
        entity="broadcast",
        entity_id=str(broadcast_id),
        details={"cancelled_messages": cancelled},
    )
    await session.commit()
    return cancelled


async def past_broadcast_ids(*, session: AsyncSession, municipalities: list[str] | tuple[str, ...],
                             limit: int = 20) -> list[int]:
    """The latest broadcasts of these municipalities that have ended (sent to the end or stopped), newest first."""
    rows = await session.exec(
        select(Broadcast.id)
        .where(col(Broadcast.municipality).in_(list(municipalities)),
               col(Broadcast.finished_at).is_not(None) | (col(Broadcast.status) != BroadcastStatus.ACTIVE))
        .order_by(col(Broadcast.id).desc())
        .limit(limit)
    )
    return [broadcast_id for broadcast_id in rows.all() if broadcast_id is not None]
