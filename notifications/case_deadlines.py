"""Scans for citizens' cases: deadlines, complementação periods, abandoned files.

Staff are warned before a deadline passes; the author is reminded to complete a case; staff are told when
the 20 days to complete it lapsed; files of forms that were abandoned are deleted.

Each warning has a dedupe key naming the case and the date it is about, so it goes once — and again only if
the date changes (an extension, a restarted deadline).
"""

from __future__ import annotations

import datetime as dt

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.sql.expression import SelectOfScalar

from core.municipality import Cities
from models.cases.attachments import discard_abandoned
from models.cases.tables import FINAL_STATUSES, Case, CaseStatus
from models.cases.timeline import CITIZEN_UPDATE, get_author, notify_staff
from models.outbox import enqueue
from notifications.scans import scan

ABANDONED_FILES_AFTER = dt.timedelta(days=1)


@scan("case-deadlines")
async def case_deadlines(*, session: AsyncSession, now: dt.datetime, cities: Cities) -> int:
    """Warn staff ``BALCAO_CASE_WARNING_DAYS`` before a case is due; handle the complementação period.

    Each municipality's cases are dated by its own civil today (CF Art. 30 I: its deadlines are its own).
    """
    count = 0
    for city in cities.values():
        today = now.astimezone(city.tz).date()
        horizon = today + dt.timedelta(days=city.readings.case_warning_days)
        open_cases = select(Case).where(col(Case.status).not_in([s.value for s in FINAL_STATUSES]),
                                        Case.municipality == city.slug)
        count += await _warn(session, open_cases, today=today, horizon=horizon)
    return count


async def _warn(session: AsyncSession, open_cases: SelectOfScalar[Case], *, today: dt.date, horizon: dt.date) -> int:
    count = 0
    due_soon = open_cases.where(
        Case.status != CaseStatus.AWAITING_COMPLEMENT, col(Case.due_on) >= today, col(Case.due_on) <= horizon
    )
    for case in (await session.exec(due_soon)).all():
        count += await notify_staff(
            session=session, case=case, what="deadline", dedupe=f"deadline:{case.id}:{case.due_on.isoformat()}"
        )
    waiting = open_cases.where(Case.status == CaseStatus.AWAITING_COMPLEMENT, col(Case.complement_due_on).is_not(None))
    for case in (await session.exec(waiting)).all():
        assert case.id is not None and case.complement_due_on is not None
        due = case.complement_due_on.isoformat()
        if case.complement_due_on < today:
            count += await notify_staff(session=session, case=case, what="complement_lapsed",
                                        dedupe=f"lapsed:{case.id}:{due}", extra={"complement_due_on": due})
        elif case.complement_due_on <= horizon:
            author = await get_author(session=session, case_id=case.id)
            if author.person_id is None:  # filed through Open311: the client system follows the updates
                continue
            added = await enqueue(
                session=session,
                person_id=author.person_id,
                kind=CITIZEN_UPDATE,
                dedupe_key=f"case-complement-reminder:{case.id}:{due}",
                payload={
                    "case_id": case.id, "protocol": case.protocol, "kind": case.kind.value,
                    "event": "complement_reminder", "status": case.status.value, "note": case.complement_question,
                    "due_on": case.due_on.isoformat(), "complement_due_on": due,
                },
            )
            count += int(added)
    return count


@scan("case-abandoned-files")
async def case_abandoned_files(*, session: AsyncSession, now: dt.datetime) -> int:
    """Delete files received for a form that was cancelled or replaced (no case, no draft, older than a day)."""
    await discard_abandoned(session=session, older_than=now - ABANDONED_FILES_AFTER)
    return 0
