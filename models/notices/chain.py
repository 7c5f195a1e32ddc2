"""Each notice's events, in order: what happened to it, when and by whom (``notice_event``).

Every event is numbered within its notice (``seq`` from 1) and only ever inserted (the flush guard in
:mod:`models.notices.tables` refuses updates and deletes). The tamper evidence of events, and of every other
row with a legal effect, is the transparency log (:mod:`models.tlog`): the commit that inserts an event
appends it to the log, and ``python -m bot notice verify`` checks both directions (each row has its entry,
each entry its row, and both agree). The ``issued`` event keeps :func:`elements_digest`, the notice's legal
elements as written at issue.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.columns import utcnow
from models.notices.tables import IMMUTABLE_FIELDS, LATER_ELEMENTS, Notice, NoticeEvent

ISSUED = "issued"


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: the same bytes for the same value, on any database.

    Raises:
        TypeError: a value that does not survive a JSON round trip unchanged (floats, Decimals, dates).
    """
    _check_json(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _check_json(value: Any) -> None:
    if value is None or isinstance(value, (str, bool, int)):
        return
    if isinstance(value, list):
        for item in value:
            _check_json(item)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError("event data keys must be strings")
            _check_json(item)
        return
    raise TypeError(f"event data must be JSON strings, integers, booleans, lists or objects, not {type(value)}")


def elements_digest(notice: Notice) -> str:
    """A sha256 over the notice's legal elements (the fields that never change after issue)."""
    values: dict[str, Any] = {}
    for name in IMMUTABLE_FIELDS:
        value = getattr(notice, name)
        if isinstance(value, bytes):
            value = hashlib.sha256(value).hexdigest()
        elif isinstance(value, dt.datetime):
            value = value.astimezone(dt.UTC).isoformat()
        elif hasattr(value, "value"):  # enums
            value = value.value
        values[name] = value
    for name in LATER_ELEMENTS:  # digested only when set: older notices keep their digest
        later = getattr(notice, name)
        if later is not None and later is not False:
            if isinstance(later, dt.datetime):
                later = later.astimezone(dt.UTC)
            values[name] = later.isoformat() if isinstance(later, dt.date) else later
    return hashlib.sha256(canonical_json(values).encode("utf-8")).hexdigest()


async def append_event(
    *,
    session: AsyncSession,
    notice_id: int,
    kind: str,
    actor: str,
    data: dict[str, Any] | None = None,
    at: dt.datetime | None = None,
) -> NoticeEvent:
    """Add the next event of a notice (the caller commits with the change it records; the commit logs it).

    Args:
        session: the session holding the change.
        notice_id: the notice.
        kind: dotted name, e.g. ``"ciencia"``, ``"filing"``.
        actor: ``"person:<id>"``, ``"staff:<telegram id>"``, ``"cli"``, ``"api"`` or ``"system"``.
        data: JSON facts (ids, dates as ISO strings, digests); never CPF, address or free text.
        at: the moment (server time, UTC); now when omitted.

    Returns:
        The new event, already added to the session.
    """
    moment = (at or utcnow()).astimezone(dt.UTC)
    facts = dict(data or {})
    canonical_json(facts)  # refuse what would not read back the same
    # One writer per notice at a time on PostgreSQL, where several processes write: two appending at once would
    # both take the same seq, and the second would fail on uq_notice_event_seq. (SQLite ignores FOR UPDATE; its
    # deployments are one process, where such a collision fails that one action, which can simply be retried.)
    await session.exec(select(Notice.id).where(Notice.id == notice_id).with_for_update())
    last = (
        await session.exec(
            select(NoticeEvent.seq)
            .where(NoticeEvent.notice_id == notice_id)
            .order_by(col(NoticeEvent.seq).desc())
            .limit(1)
        )
    ).first()
    row = NoticeEvent(notice_id=notice_id, seq=(last or 0) + 1, at=moment, kind=kind, actor=actor, data=facts)
    session.add(row)
    await session.flush()
    return row


async def events_of(*, session: AsyncSession, notice_id: int) -> list[NoticeEvent]:
    """A notice's events in order."""
    return list(
        (
            await session.exec(
                select(NoticeEvent).where(NoticeEvent.notice_id == notice_id).order_by(col(NoticeEvent.seq))
            )
        ).all()
    )
