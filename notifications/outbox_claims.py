"""The dispatcher's database side: claim due outbox rows under a lease, renew leases, record outcomes.

A claim turns due rows into ``sending`` with ``lease_until`` and ``claimed_by`` in one transaction:

* PostgreSQL: ``SELECT … FOR UPDATE SKIP LOCKED LIMIT n`` then ``UPDATE … WHERE id IN (…)``, so several
  dispatcher processes never claim the same row;
* SQLite: one ``UPDATE … WHERE id IN (SELECT … LIMIT n) RETURNING …`` (SQLite has one writer at a time).

Rows whose lease expired (their claimer died) are due again; reclaiming one counts an attempt, because
the dead process may have sent it. A worker never reclaims the rows it still holds itself (``exclude``): their
lease may have lapsed during a database outage while their outcome waits in memory. Outcomes are written only
while this worker still holds the row (``claimed_by`` matches and the status is still ``sending``), except a
send the worker knows it made: that one is recorded ``sent`` even when the lease lapsed and another worker took
the row meanwhile (still ``sending`` or ``pending``), so the row is not sent a third time.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Table, and_, bindparam, case, func, or_, select, update
from sqlmodel.ext.asyncio.session import AsyncSession

from models.columns import UTCDateTime
from models.outbox import OutboxMessage, OutboxStatus
from models.people import Person

OUTBOX: Table = OutboxMessage.__table__  # type: ignore[attr-defined]
PERSON: Table = Person.__table__  # type: ignore[attr-defined]
_RETURNED = (
    OUTBOX.c.id,
    OUTBOX.c.person_id,
    OUTBOX.c.kind,
    OUTBOX.c.payload,
    OUTBOX.c.mandatory,
    OUTBOX.c.broadcast_id,
    OUTBOX.c.attempts,
    OUTBOX.c.parts_sent,
    OUTBOX.c.priority,
    OUTBOX.c.not_before,
)


@dataclass(frozen=True, slots=True)
class ClaimedRow:
    """An outbox row this worker now holds."""

    id: int
    person_id: int
    kind: str
    payload: dict[str, Any]
    mandatory: bool
    broadcast_id: int | None
    attempts: int  # attempts made before this one
    parts_sent: int


@dataclass(frozen=True, slots=True)
class Outcome:
    """What happened to a held row.

    ``status`` PENDING gives the row back: to be retried at ``retry_at`` (after a failed attempt) or at once
    (not attempted: the dispatcher stopped first).
    """

    id: int
    status: OutboxStatus
    attempted: bool = True
    telegram_message_id: int | None = None
    sent_at: dt.datetime | None = None
    last_error: str | None = None
    retry_at: dt.datetime | None = None
    parts_sent: int = 0


def _is_postgres(session: AsyncSession) -> bool:
    return session.bind is not None and session.bind.dialect.name == "postgresql"


@dataclass(frozen=True, slots=True)
class BotScope:
    """Whose rows a dispatcher claims: the people of ``keys``' bots, or (``complement``) of every other bot.

    A municipality's own bot claims ``BotScope({"sapezal"})``; the default bot claims every row but those of
    the own bots (``complement``), so a person whose municipality dropped its own bot is still reached.
    """

    keys: frozenset[str]
    complement: bool = False

    def admits(self, bot_key: str) -> bool:
        """Whether a person talking to ``bot_key`` is in this scope."""
        return (bot_key in self.keys) != self.complement

    def where(self, bot_key: Any) -> Any:
        """The SQL condition on a ``bot_key`` column that this scope stands for."""
        among = bot_key.in_(sorted(self.keys))
        return ~among if self.complement else among


def _of_bots(query: Any, scope: BotScope | None) -> Any:
    """Only the rows of the people in ``scope`` (None: every row, as a deployment with one bot needs)."""
    if scope is None:
        return query
    return query.join(PERSON, PERSON.c.id == OUTBOX.c.person_id).where(scope.where(PERSON.c.bot_key))


def _due_pending(now: dt.datetime, limit: int, scope: BotScope | None) -> Any:
    query = select(OUTBOX.c.id).where(OUTBOX.c.status == OutboxStatus.PENDING, OUTBOX.c.not_before <= now)
    return _of_bots(query, scope).order_by(OUTBOX.c.priority, OUTBOX.c.not_before, OUTBOX.c.id).limit(limit)


def _lease_expired(now: dt.datetime, limit: int, scope: BotScope | None, exclude: Sequence[int] = ()) -> Any:
    query = select(OUTBOX.c.id).where(OUTBOX.c.status == OutboxStatus.SENDING, OUTBOX.c.lease_until < now)
    if exclude:
        query = query.where(OUTBOX.c.id.not_in(sorted(exclude)))
    return _of_bots(query, scope).order_by(OUTBOX.c.id).limit(limit)


def _claim(ids: Any, *, worker: str, lease_until: dt.datetime) -> Any:
    return (
        update(OUTBOX)
        .where(OUTBOX.c.id.in_(ids), OUTBOX.c.status.in_([OutboxStatus.PENDING, OutboxStatus.SENDING]))
        .values(
            status=OutboxStatus.SENDING,
            lease_until=lease_until,
            claimed_by=worker,
            attempts=OUTBOX.c.attempts + case((OUTBOX.c.status == OutboxStatus.SENDING, 1), else_=0),
        )
        .returning(*_RETURNED)
    )


async def claim_due(
    *,
    session: AsyncSession,
    worker: str,
    now: dt.datetime,
    limit: int,
    lease_seconds: float,
    scope: BotScope | None = None,
    exclude: Sequence[int] = (),
) -> list[ClaimedRow]:
    """Claim up to ``limit`` due rows for ``worker`` (commits).

    Due: pending rows whose ``not_before`` has come (messages to one person before broadcasts, then oldest
    first), and rows in ``sending`` whose lease expired.

    Args:
        session: database session (not in a transaction with other work).
        worker: this dispatcher's id (``claimed_by``).
        now: the current time.
        limit: at most this many rows.
        lease_seconds: how long the claim holds unless renewed.
        scope: claim only rows to the people of these bots (``Person.bot_key``); None for every row.
        exclude: rows this worker holds already (never reclaimed by it, even with their lease lapsed).

    Returns:
        The claimed rows in the order to send them.
    """
    lease_until = now + dt.timedelta(seconds=lease_seconds)
    rows: list[Any] = []
    for query in (_lease_expired(now, limit, scope, exclude), _due_pending(now, limit, scope)):
        wanted = limit - len(rows)
        if wanted <= 0:
            break
        query = query.limit(wanted)
        if _is_postgres(session):
            ids = list((await session.exec(query.with_for_update(skip_locked=True, of=OUTBOX))).scalars())
            if not ids:
                continue
            claimed = await session.exec(_claim(ids, worker=worker, lease_until=lease_until))
        else:
            claimed = await session.exec(_claim(query.scalar_subquery(), worker=worker, lease_until=lease_until))
        rows.extend(claimed.all())
    await session.commit()
    return [
        ClaimedRow(
            id=row.id,
            person_id=row.person_id,
            kind=row.kind,
            payload=dict(row.payload or {}),
            mandatory=bool(row.mandatory),
            broadcast_id=row.broadcast_id,
            attempts=row.attempts,
            parts_sent=row.parts_sent,
        )
        for row in sorted(rows, key=lambda row: (row.priority, row.not_before, row.id))
    ]


async def renew_leases(*, session: AsyncSession, worker: str, ids: Sequence[int], until: dt.datetime) -> int:
    """Extend this worker's lease on rows it still holds (commits); return how many it still holds."""
    if not ids:
        return 0
    result = await session.exec(
        update(OUTBOX)
        .where(OUTBOX.c.id.in_(list(ids)), OUTBOX.c.claimed_by == worker, OUTBOX.c.status == OutboxStatus.SENDING)
        .values(lease_until=until)
    )
    await session.commit()
    return int(result.rowcount)


_RECORD = (
    update(OUTBOX)
    .where(
        OUTBOX.c.id == bindparam("b_id"),
        or_(
            and_(OUTBOX.c.claimed_by == bindparam("b_worker"), OUTBOX.c.status == OutboxStatus.SENDING),
            # a send this worker knows it made, on a row whose lease lapsed (an outage) and that another took
            and_(bindparam("b_known_send") == 1,
                 or_(OUTBOX.c.status == OutboxStatus.SENDING, OUTBOX.c.status == OutboxStatus.PENDING)),
        ),
    )
    .values(
        status=bindparam("b_status", type_=OUTBOX.c.status.type),
        attempts=OUTBOX.c.attempts + bindparam("b_attempted"),
        telegram_message_id=func.coalesce(bindparam("b_message_id", type_=OUTBOX.c.telegram_message_id.type),
                                          OUTBOX.c.telegram_message_id),
        sent_at=bindparam("b_sent_at", type_=UTCDateTime()),
        last_error=bindparam("b_error"),
        not_before=func.coalesce(bindparam("b_retry_at", type_=UTCDateTime()), OUTBOX.c.not_before),
        parts_sent=bindparam("b_parts"),
        lease_until=None,
    )
)


async def record_outcomes(*, session: AsyncSession, worker: str, outcomes: Sequence[Outcome]) -> None:
    """Write what happened to held rows, in one statement per call (commits).

    A row another worker holds now is left alone, unless the outcome is a send this worker made (see the module).
    """
    if not outcomes:
        return
    params = [
        {
            "b_id": outcome.id,
            "b_worker": worker,
            "b_status": outcome.status,
            "b_attempted": 1 if outcome.attempted else 0,
            "b_message_id": outcome.telegram_message_id,
            "b_sent_at": outcome.sent_at,
            "b_error": outcome.last_error[:2000] if outcome.last_error else None,
            "b_retry_at": outcome.retry_at,
            "b_parts": outcome.parts_sent,
            "b_known_send": 1 if outcome.status is OutboxStatus.SENT and outcome.attempted else 0,
        }
        for outcome in outcomes
    ]
    await session.exec(_RECORD, params=params)
    await session.commit()
