"""A case's timeline, and the messages each step causes (enqueued in the same transaction as the step).

Every change of a case is a :class:`~models.cases.tables.CaseEvent`; the author hears of it through the
outbox (kind ``cases.update``), and staff hear of new work (``cases.staff``). Payloads hold the protocol,
the step and the note meant for the reader — never the author's identity, which staff messages do not need
and which must not reach anyone who may not see it.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from sqlalchemy import or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.audit import record
from models.cases.tables import Case, CaseAuthor, CaseEvent, EventKind
from models.outbox import enqueue
from models.people import Person, Role, StaffMember

logger = logging.getLogger("balcao.cases")

CITIZEN_UPDATE = "cases.update"
"""Outbox kind: a step of the author's case (status change, question, answer)."""
STAFF_NOTICE = "cases.staff"
"""Outbox kind: something for staff to do on a case (new case, citizen answered, deadline coming)."""
AUTHOR_ACTOR = "author"
"""The actor of the author's own steps (filing, complementação, rating) in the timeline and the audit log: the
author is known only through :class:`~models.cases.tables.CaseAuthor`, so the log never ties a person to the case
they reported (LGPD; Lei 13.460/2017 Art. 10 §7)."""


class CaseNotFound(LookupError):
    """No case with this id or protocol (or not one the caller may see)."""


async def get_case(*, session: AsyncSession, case_id: int | None = None, protocol: str | None = None) -> Case:
    """A case by id or protocol.

    Raises:
        CaseNotFound: no such case.
    """
    if case_id is not None:
        case = await session.get(Case, case_id)
    else:
        case = (await session.exec(select(Case).where(Case.protocol == (protocol or "").upper()))).first()
    if case is None:
        raise CaseNotFound(f"no case {case_id or protocol!r}")
    return case


async def get_author(*, session: AsyncSession, case_id: int) -> CaseAuthor:
    """The author row of a case (only for code paths allowed to see it)."""
    author = (await session.exec(select(CaseAuthor).where(CaseAuthor.case_id == case_id))).first()
    if author is None:
        raise CaseNotFound(f"case {case_id} has no author")
    return author


async def record_event(
    *,
    session: AsyncSession,
    case: Case,
    kind: EventKind,
    actor: str,
    now: dt.datetime,
    note: str | None = None,
    details: dict[str, Any] | None = None,
    notify_author: bool = True,
) -> CaseEvent:
    """Append a step to the timeline, audit it, and tell the author (the caller commits).

    Args:
        session: the session holding the change.
        case: the case, already updated (its status is recorded with the event).
        kind: what happened.
        actor: ``"staff:<telegram id>"``, :data:`AUTHOR_ACTOR` or ``"system"`` (never who the author is).
        now: when.
        note: text for the author (a question, a reason, an answer).
        details: JSON-safe facts for the timeline (no personal data).
        notify_author: whether the author gets a message about it.
    """
    assert case.id is not None
    case.updated_at = now
    event = CaseEvent(
        case_id=case.id, at=now, kind=kind, status=case.status, actor=actor, note=note, details=details or {}
    )
    session.add(event)
    await session.flush()
    await record(
        session=session,
        actor=actor,
        action=f"case.{kind.value}",
        entity="citizen_case",
        entity_id=str(case.id),
        details={"protocol": case.protocol, "status": case.status.value},
    )
    logger.info("case %s: %s (status %s)", case.protocol, kind.value, case.status.value)
    author = await get_author(session=session, case_id=case.id) if notify_author else None
    if author is not None and author.person_id is not None:  # Open311 clients follow servicerequestupdates
        await enqueue(
            session=session,
            person_id=author.person_id,
            kind=CITIZEN_UPDATE,
            dedupe_key=f"case-event:{event.id}",
            payload={
                "case_id": case.id,
                "protocol": case.protocol,
                "kind": case.kind.value,
                "event": kind.value,
                "status": case.status.value,
                "note": note,
                "due_on": case.due_on.isoformat(),
                "complement_due_on": case.complement_due_on.isoformat() if case.complement_due_on else None,
                "author": (details or {}).get("author"),  # the act's author, where it names one (issue 18 §1)
            },
        )
    return event


async def staff_recipients(*, session: AsyncSession, case: Case) -> list[int]:
    """Person ids of the staff to tell about a case: the assignee, or every active member of its role there.

    When the municipality has nobody of that role (a small deployment, the demo), its admins are told instead, so a
    case is never filed in silence; not of a restricted ombudsman case, which is the Ombudsman's alone (Lei
    13.460/2017 Art. 10 §7).
    """
    statement = select(Person.id).join(StaffMember, col(StaffMember.telegram_user_id) == Person.telegram_user_id)
    statement = statement.where(StaffMember.active == True)  # noqa: E712
    if case.assigned_staff_id is not None:
        return _ids(await session.exec(statement.where(StaffMember.id == case.assigned_staff_id)))
    here = statement.where(or_(col(StaffMember.municipality).is_(None),
                               col(StaffMember.municipality) == case.municipality))
    found = _ids(await session.exec(here.where(StaffMember.role == case.handling_role)))
    if found or case.identity_restricted:
        return found
    return _ids(await session.exec(here.where(StaffMember.role == Role.ADMIN)))


def _ids(rows: Any) -> list[int]:
    return list(dict.fromkeys(int(person_id) for person_id in rows.all() if person_id is not None))


async def notify_staff(
    *, session: AsyncSession, case: Case, what: str, dedupe: str, extra: dict[str, Any] | None = None
) -> int:
    """Tell the staff in charge of a case that something needs them (the caller commits).

    Args:
        session: the session of the change.
        case: the case.
        what: ``"new"``, ``"complement_answered"``, ``"deadline"``, ``"complement_lapsed"``.
        dedupe: a key unique to this occasion (the recipient is appended).
        extra: more JSON-safe data for the renderer (dates as ISO strings).

    Returns:
        How many messages were enqueued.
    """
    assert case.id is not None
    count = 0
    for person_id in await staff_recipients(session=session, case=case):
        added = await enqueue(
            session=session,
            person_id=person_id,
            kind=STAFF_NOTICE,
            dedupe_key=f"case-staff:{dedupe}:{person_id}",
            payload={
                "case_id": case.id,
                "protocol": case.protocol,
                "kind": case.kind.value,
                "what": what,
                "due_on": case.due_on.isoformat(),
                **(extra or {}),
            },
        )
        count += int(added)
    return count
