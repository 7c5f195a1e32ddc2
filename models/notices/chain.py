"""The tamper-evident event chain of each notice (issue 6, item 7).

Every event carries the hash of the one before it: ``hash = sha256(canonical JSON of [prev_hash, notice_id,
seq, at, kind, actor, data])``, the first event's ``prev_hash`` being 64 zeros. Rows are only inserted (the
flush guard in :mod:`models.notices.tables` refuses updates and deletes; production should also deny UPDATE
and DELETE on ``notice_event`` to the application's database user). :func:`verify_chains` walks every chain
and reports each broken link; it also recomputes the digest of each notice's legal elements and compares it
with the one the ``issued`` event recorded, so a notice edited behind the application's back is caught.

The rows that change over a notice's life are checked against the chain too (:func:`check_records`): every
filing, decision and ciência must have its event, and agree with it (the filing's and the decision's text
digests, the outcome, the day of ciência). So removing the last events of a chain — which leaves the links
intact — or editing a date of ciência, a decision or a petition in its own table is caught as well.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.i18n import N_
from models.columns import utcnow
from models.notices.tables import IMMUTABLE_FIELDS, LATER_ELEMENTS, Notice, NoticeDelivery, NoticeEvent, NoticeFiling

GENESIS = "0" * 64
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


def event_hash(
    *, prev_hash: str, notice_id: int, seq: int, at: dt.datetime, kind: str, actor: str, data: dict[str, Any]
) -> str:
    """The hash of one event, given the hash of the previous one."""
    stamp = at.astimezone(dt.UTC).isoformat()
    payload = canonical_json([prev_hash, notice_id, seq, stamp, kind, actor, data])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


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
    """Add the next event to a notice's chain (the caller commits with the change it records).

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
    # One writer per chain at a time on PostgreSQL, where several processes write: two appending at once would
    # both take the same seq, and the second would fail on uq_notice_event_seq. (SQLite ignores FOR UPDATE; its
    # deployments are one process, where such a collision fails that one action, which can simply be retried.)
    await session.exec(select(Notice.id).where(Notice.id == notice_id).with_for_update())
    last = (
        await session.exec(
            select(NoticeEvent)
            .where(NoticeEvent.notice_id == notice_id)
            .order_by(col(NoticeEvent.seq).desc())
            .limit(1)
        )
    ).first()
    prev_hash, seq = (last.hash, last.seq + 1) if last is not None else (GENESIS, 1)
    digest = event_hash(prev_hash=prev_hash, notice_id=notice_id, seq=seq, at=moment, kind=kind, actor=actor,
                        data=facts)
    row = NoticeEvent(notice_id=notice_id, seq=seq, at=moment, kind=kind, actor=actor, data=facts,
                      prev_hash=prev_hash, hash=digest)
    session.add(row)
    await session.flush()
    return row


@dataclass(frozen=True, slots=True)
class ChainBreak:
    """A problem found in one notice's chain."""

    notice_id: int
    number: str
    seq: int | None
    problem: str  # English msgid


@dataclass(slots=True)
class ChainReport:
    """What :func:`verify_chains` found."""

    notices: int = 0
    events: int = 0
    breaks: list[ChainBreak] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every chain is intact."""
        return not self.breaks


def check_chain(notice: Notice, events: list[NoticeEvent]) -> list[ChainBreak]:
    """The broken links of one notice's chain (events in ``seq`` order); empty when intact."""
    assert notice.id is not None
    breaks: list[ChainBreak] = []

    def broken(seq: int | None, problem: str) -> None:
        breaks.append(ChainBreak(notice_id=notice.id or 0, number=notice.number, seq=seq, problem=problem))

    if not events:
        broken(None, N_("no events: the issue was never recorded"))
        return breaks
    prev_hash = GENESIS
    for expected_seq, row in enumerate(events, start=1):
        if row.seq != expected_seq:
            broken(row.seq, N_("sequence gap: an event is missing before this one"))
        if row.prev_hash != prev_hash:
            broken(row.seq, N_("prev_hash does not match the previous event's hash"))
        recomputed = event_hash(prev_hash=row.prev_hash, notice_id=row.notice_id, seq=row.seq, at=row.at,
                                kind=row.kind, actor=row.actor, data=row.data)
        if recomputed != row.hash:
            broken(row.seq, N_("hash does not match the event's content (the event was altered)"))
        prev_hash = row.hash
    first = events[0]
    if first.kind != ISSUED:
        broken(first.seq, N_("the first event is not the issue"))
    elif first.data.get("elements_sha256") != elements_digest(notice):
        broken(first.seq, N_("the notice's elements differ from those recorded at issue (the notice was altered)"))
    return breaks


def _sha256(text: str | None) -> str:
    return hashlib.sha256((text or "").encode("utf-8")).hexdigest()


def check_records(
    notice: Notice, events: list[NoticeEvent], filings: list[NoticeFiling], deliveries: list[NoticeDelivery]
) -> list[ChainBreak]:
    """The filings, decisions and ciências of one notice that have no event in its chain, or differ from it."""
    breaks: list[ChainBreak] = []

    def broken(seq: int | None, problem: str) -> None:
        breaks.append(ChainBreak(notice_id=notice.id or 0, number=notice.number, seq=seq, problem=problem))

    def by(kinds: tuple[str, ...], key: str) -> dict[Any, NoticeEvent]:
        return {event.data.get(key): event for event in events if event.kind in kinds}

    filed, decided, known = by(("filing",), "filing_id"), by(("decision", "decision.lapsed"), "filing_id"), by(
        ("ciencia",), "delivery_id")
    for filing in filings:
        event = filed.get(filing.id)
        if event is None:
            broken(None, N_("a filing has no event in the chain (an event was removed)"))
        elif event.data.get("text_sha256") != _sha256(filing.text):
            broken(event.seq, N_("a filing's text differs from the one recorded (it was altered)"))
        if filing.decided_at is None:
            continue
        event = decided.get(filing.id)
        if event is None:
            broken(None, N_("a decision has no event in the chain (an event was removed)"))
        elif event.kind == "decision" and (
            event.data.get("outcome") != (filing.outcome.value if filing.outcome else None)
            or event.data.get("text_sha256") != _sha256(filing.decision_text)
        ):
            broken(event.seq, N_("a decision differs from the one recorded (it was altered)"))
    for delivery in deliveries:
        if delivery.ciencia_on is None:
            continue
        event = known.get(delivery.id)
        if event is None:
            broken(None, N_("a ciência has no event in the chain (an event was removed)"))
        elif event.data.get("on") != delivery.ciencia_on.isoformat():
            broken(event.seq, N_("the day of a ciência differs from the one recorded (it was altered)"))
    return breaks


async def verify_chains(*, session: AsyncSession, batch: int = 500) -> ChainReport:
    """Walk every notice's chain and report each broken link.

    Args:
        session: a session (read only).
        batch: notices read at a time.
    """
    report = ChainReport()
    last_id = 0
    while True:
        notices = (
            await session.exec(select(Notice).where(col(Notice.id) > last_id).order_by(col(Notice.id)).limit(batch))
        ).all()
        if not notices:
            return report
        ids = [notice.id for notice in notices]
        rows = (
            await session.exec(
                select(NoticeEvent)
                .where(col(NoticeEvent.notice_id).in_(ids))
                .order_by(col(NoticeEvent.notice_id), col(NoticeEvent.seq))
            )
        ).all()
        by_notice: dict[int, list[NoticeEvent]] = {}
        for row in rows:
            by_notice.setdefault(row.notice_id, []).append(row)
        filings: dict[int, list[NoticeFiling]] = {}
        for filing in (await session.exec(select(NoticeFiling).where(col(NoticeFiling.notice_id).in_(ids)))).all():
            filings.setdefault(filing.notice_id, []).append(filing)
        deliveries: dict[int, list[NoticeDelivery]] = {}
        for delivery in (
            await session.exec(select(NoticeDelivery).where(col(NoticeDelivery.notice_id).in_(ids)))
        ).all():
            deliveries.setdefault(delivery.notice_id, []).append(delivery)
        for notice in notices:
            assert notice.id is not None
            events = by_notice.get(notice.id, [])
            report.notices += 1
            report.events += len(events)
            report.breaks.extend(check_chain(notice, events))
            report.breaks.extend(check_records(notice, events, filings.get(notice.id, []),
                                               deliveries.get(notice.id, [])))
        last_id = ids[-1] or last_id


async def events_of(*, session: AsyncSession, notice_id: int) -> list[NoticeEvent]:
    """A notice's events in order."""
    return list(
        (
            await session.exec(
                select(NoticeEvent).where(NoticeEvent.notice_id == notice_id).order_by(col(NoticeEvent.seq))
            )
        ).all()
    )
