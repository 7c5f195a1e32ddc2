"""The outbox: one row per message Balcão sends on its own initiative.

Domain code enqueues in the same transaction as the change that causes the message (a status change and
its notification commit together or not at all). The dispatcher in ``notifications/`` claims due rows
atomically, renders them in the recipient's locale at send time, sends them and records the result.
"""

from __future__ import annotations

import datetime as dt
import enum
from typing import Any

from sqlalchemy import BigInteger, Column, Enum, Index, Integer, String, Text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Field, SQLModel
from sqlmodel.ext.asyncio.session import AsyncSession

from models.columns import JSONData, UTCDateTime, json_default, utcnow


class OutboxStatus(enum.StrEnum):
    """Life of an outbox row."""

    PENDING = "pending"
    SENDING = "sending"
    SENT = "sent"
    FAILED = "failed"
    UNREACHABLE = "unreachable"
    CANCELLED = "cancelled"


class OutboxMessage(SQLModel, table=True):
    """A message to send: who, what (kind + data, rendered at send time), when, and what happened."""

    __tablename__ = "outbox_message"
    __table_args__ = (Index("ix_outbox_due", "status", "not_before"),)

    id: int | None = Field(default=None, primary_key=True)
    person_id: int = Field(foreign_key="person.id", index=True)
    kind: str = Field(sa_column=Column(String(48), nullable=False))
    payload: dict[str, Any] = Field(default_factory=json_default, sa_column=Column(JSONData, nullable=False))
    dedupe_key: str = Field(sa_column=Column(String(160), nullable=False, unique=True))
    mandatory: bool = Field(default=False, description="Legal notices: cannot be muted.")
    broadcast_id: int | None = Field(default=None, index=True)
    not_before: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))
    status: OutboxStatus = Field(
        default=OutboxStatus.PENDING,
        sa_column=Column(Enum(OutboxStatus, native_enum=False, length=16), nullable=False),
    )
    attempts: int = Field(default=0, sa_column=Column(Integer, nullable=False, default=0))
    last_error: str | None = Field(default=None, sa_column=Column(Text))
    lease_until: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    claimed_by: str | None = Field(default=None, sa_column=Column(String(64)))
    telegram_message_id: int | None = Field(default=None, sa_column=Column(BigInteger))
    sent_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))


async def enqueue(
    *,
    session: AsyncSession,
    person_id: int,
    kind: str,
    dedupe_key: str,
    payload: dict[str, Any] | None = None,
    not_before: dt.datetime | None = None,
    mandatory: bool = False,
    broadcast_id: int | None = None,
) -> bool:
    """Add a message to the outbox unless one with the same dedupe key exists (the caller commits).

    Args:
        session: the session of the change that causes the message.
        person_id: recipient.
        kind: renderer name registered in ``notifications.rendering`` (e.g. ``"driver.renewal"``).
        dedupe_key: unique key, e.g. ``"renewal:auth-42:30d"``; enqueueing it twice is a no-op.
        payload: JSON-safe data the renderer needs (dates as ISO strings, money as strings).
        not_before: earliest send time (aware); now when omitted.
        mandatory: a legal notice that the person cannot mute.
        broadcast_id: the staff broadcast it belongs to, if any.

    Returns:
        True when a row was added, False when the key already existed.
    """
    if not_before is not None and not_before.tzinfo is None:
        raise ValueError("not_before must be timezone-aware")
    values = {
        "person_id": person_id,
        "kind": kind,
        "payload": payload or {},
        "dedupe_key": dedupe_key,
        "mandatory": mandatory,
        "broadcast_id": broadcast_id,
        "not_before": not_before or utcnow(),
        "status": OutboxStatus.PENDING,
        "attempts": 0,
        "created_at": utcnow(),
    }
    dialect = session.bind.dialect.name if session.bind is not None else "sqlite"
    insert = pg_insert if dialect == "postgresql" else sqlite_insert
    statement = insert(OutboxMessage).values(**values).on_conflict_do_nothing(index_elements=["dedupe_key"])
    result = await session.exec(statement)
    return bool(result.rowcount)
