"""The outbox: one row per message Balcão sends on its own initiative.

Domain code enqueues in the same transaction as the change that causes the message (a status change and
its notification commit together or not at all). The dispatcher in ``notifications/`` claims due rows
atomically, renders them in the recipient's locale at send time, sends them and records the result.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import BigInteger, Column, Enum, Index, Integer, SmallInteger, String, Text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Field, SQLModel, func, select
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
    __table_args__ = (
        Index("ix_outbox_due", "status", "priority", "not_before"),
        Index("ix_outbox_broadcast_status", "broadcast_id", "status"),
    )

    id: int | None = Field(default=None, primary_key=True)
    person_id: int = Field(foreign_key="person.id", index=True)
    kind: str = Field(sa_column=Column(String(48), nullable=False))
    payload: dict[str, Any] = Field(default_factory=json_default, sa_column=Column(JSONData, nullable=False))
    dedupe_key: str = Field(sa_column=Column(String(160), nullable=False, unique=True))
    mandatory: bool = Field(default=False, description="Legal notices: cannot be muted.")
    broadcast_id: int | None = Field(default=None, index=True)
    priority: int = Field(
        default=0,
        sa_column=Column(SmallInteger, nullable=False, default=0),
        description="Lower goes first: 0 for messages to one person, 1 for broadcasts (a notice about one "
        "person's case never waits behind a broadcast to thousands).",
    )
    not_before: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))
    status: OutboxStatus = Field(
        default=OutboxStatus.PENDING,
        sa_column=Column(Enum(OutboxStatus, native_enum=False, length=16), nullable=False),
    )
    attempts: int = Field(default=0, sa_column=Column(Integer, nullable=False, default=0))
    parts_sent: int = Field(
        default=0,
        sa_column=Column(Integer, nullable=False, default=0),
        description="Telegram calls of this message already made (a long text goes out in parts, then a document); "
        "a retry resumes after them.",
    )
    last_error: str | None = Field(default=None, sa_column=Column(Text))
    lease_until: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    claimed_by: str | None = Field(default=None, sa_column=Column(String(64)))
    telegram_message_id: int | None = Field(default=None, sa_column=Column(BigInteger))
    sent_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))


BROADCAST_PRIORITY = 1
"""``priority`` of broadcast messages (others have 0 and go first)."""
DEFAULT_BATCH_ROWS = 2_000
"""Rows per INSERT statement in :func:`enqueue_many` (each row binds 11 parameters; SQLite allows 32,766)."""


@dataclass(frozen=True, slots=True)
class NewMessage:
    """One message for :func:`enqueue_many` (the same fields as :func:`enqueue`)."""

    person_id: int
    kind: str
    dedupe_key: str
    payload: dict[str, Any] = field(default_factory=json_default)
    not_before: dt.datetime | None = None
    mandatory: bool = False
    broadcast_id: int | None = None


def _row(message: NewMessage, now: dt.datetime) -> dict[str, Any]:
    if message.not_before is not None and message.not_before.tzinfo is None:
        raise ValueError("not_before must be timezone-aware")
    return {
        "person_id": message.person_id,
        "kind": message.kind,
        "payload": message.payload,
        "dedupe_key": message.dedupe_key,
        "mandatory": message.mandatory,
        "broadcast_id": message.broadcast_id,
        "priority": BROADCAST_PRIORITY if message.broadcast_id is not None else 0,
        "not_before": message.not_before or now,
        "status": OutboxStatus.PENDING,
        "attempts": 0,
        "parts_sent": 0,
        "created_at": now,
    }


def _insert_ignoring_duplicates(session: AsyncSession) -> Any:
    dialect = session.bind.dialect.name if session.bind is not None else "sqlite"
    insert = pg_insert if dialect == "postgresql" else sqlite_insert
    table = OutboxMessage.__table__  # type: ignore[attr-defined]
    return insert(table).on_conflict_do_nothing(index_elements=["dedupe_key"])


async def enqueue_many(
    *, session: AsyncSession, messages: Iterable[NewMessage], batch_rows: int = DEFAULT_BATCH_ROWS
) -> int:
    """Add many messages at once, skipping those whose dedupe key exists (the caller commits).

    Built for broadcasts: 100,000 rows take a few seconds on SQLite (multi-row ``INSERT … ON CONFLICT DO
    NOTHING`` statements of ``batch_rows`` rows each).

    Args:
        session: the session of the change that causes the messages.
        messages: the messages; their dedupe keys should be distinct.
        batch_rows: rows per statement.

    Returns:
        How many rows were added.
    """
    now = utcnow()
    added = 0
    batch: list[dict[str, Any]] = []
    statement = _insert_ignoring_duplicates(session).returning(OutboxMessage.__table__.c.id)  # type: ignore[attr-defined]
    for message in messages:
        batch.append(_row(message, now))
        if len(batch) >= batch_rows:
            added += await _insert_batch(session, statement, batch)
            batch = []
    if batch:
        added += await _insert_batch(session, statement, batch)
    return added


async def _insert_batch(session: AsyncSession, statement: Any, batch: Sequence[dict[str, Any]]) -> int:
    result = await session.exec(statement, params=list(batch))
    return len(result.all())


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
    message = NewMessage(
        person_id=person_id,
        kind=kind,
        dedupe_key=dedupe_key,
        payload=payload or {},
        not_before=not_before,
        mandatory=mandatory,
        broadcast_id=broadcast_id,
    )
    result = await session.exec(_insert_ignoring_duplicates(session).values(**_row(message, utcnow())))
    return bool(result.rowcount)


@dataclass(frozen=True, slots=True)
class OutboxSummary:
    """How many rows the outbox holds in each status, and how late the oldest due message is."""

    by_status: dict[OutboxStatus, int]
    oldest_due_age_seconds: float


async def outbox_summary(*, session: AsyncSession, now: dt.datetime) -> OutboxSummary:
    """Count the outbox rows by status and find the oldest pending row that is due (for ``/metrics``).

    Args:
        session: a database session.
        now: the present (aware).

    Returns:
        Every status with its count (0 when none), and the age in seconds of the oldest due pending row.
    """
    status_column = OutboxMessage.__table__.c.status  # type: ignore[attr-defined]
    counts = dict((await session.exec(select(status_column, func.count()).group_by(status_column))).all())
    oldest = (
        await session.exec(
            select(func.min(OutboxMessage.not_before)).where(
                OutboxMessage.status == OutboxStatus.PENDING, OutboxMessage.not_before <= now
            )
        )
    ).one()
    return OutboxSummary(
        by_status={status: int(counts.get(status, 0)) for status in OutboxStatus},
        oldest_due_age_seconds=max(0.0, (now - oldest).total_seconds()) if oldest is not None else 0.0,
    )
