"""Scans of the penalty notices: ciência (tacit, or the staff list), reminders, the 90-day and decision warnings.

The decision warning tells the competent authority the last day to decide a reclamação (CP Art. 40, or §2 after
vista) or an appeal (Art. 45). All four
look at database state only and every message has a dedupe key, so running them twice is harmless and a process
that was down catches up (see ``notifications.scans``).
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import Cities
from models.notices.authority import deciders_to_warn
from models.notices.delivery import close_running_editals, scan_electronic_deliveries
from models.notices.reminders import due_reminders, limit_warnings, notice_staff
from models.notices.review import decision_warnings
from models.outbox import enqueue
from notifications.notice_messages import DECISION_WARNING, LIMIT_WARNING, enqueue_reminder
from notifications.scans import scan

QUIET_BEFORE = dt.time(8, 0)
QUIET_AFTER = dt.time(20, 0)


def polite_moment(now: dt.datetime, tz: ZoneInfo) -> dt.datetime:
    """``now``, or 08:00 civil time when ``now`` falls in the night (20:00–08:00): reminders wait for morning."""
    local = now.astimezone(tz)
    if QUIET_BEFORE <= local.time() < QUIET_AFTER:
        return now
    day = local.date() if local.time() < QUIET_BEFORE else local.date() + dt.timedelta(days=1)
    return dt.datetime.combine(day, QUIET_BEFORE, tzinfo=tz).astimezone(dt.UTC)


@scan("notice-ciencia")
async def notice_ciencia(*, session: AsyncSession, now: dt.datetime, cities: Cities) -> int:
    """Tacit ciência after ``BALCAO_TACIT_CIENCIA_DAYS``, or the staff list; editals whose period ended."""
    changed = await scan_electronic_deliveries(session=session, cities=cities, now=now)
    return changed + await close_running_editals(session=session, cities=cities, now=now)


@scan("notice-reminders")
async def notice_reminders(*, session: AsyncSession, now: dt.datetime, cities: Cities) -> int:
    """Remind the offender ``BALCAO_NOTICE_REMINDER_DAYS`` days before each open window closes."""
    count = 0
    for reminder in await due_reminders(session=session, cities=cities, now=now):
        notice = reminder.notice
        assert notice.id is not None and notice.person_id is not None
        count += int(await enqueue_reminder(
            session=session, person_id=notice.person_id, notice_id=notice.id, number=notice.number,
            rule_id=reminder.window.rule.id, final_date=reminder.window.final_date,
            dedupe_key=reminder.dedupe_key, not_before=polite_moment(now, cities.of(notice.municipality).tz)))
    return count


@scan("notice-limit-warnings")
async def notice_limit_warnings(*, session: AsyncSession, now: dt.datetime, cities: Cities) -> int:
    """Warn clerks, inspectors and admins before a Lei 1.533 notice passes its 90-day limit (Art. 22 §1)."""
    warnings = await limit_warnings(session=session, cities=cities, now=now)
    if not warnings:
        return 0
    count = 0
    for warning in warnings:
        notice = warning.notice
        for person_id in await notice_staff(session=session, municipality=notice.municipality):
            count += int(await enqueue(
                session=session, person_id=person_id, kind=LIMIT_WARNING,
                dedupe_key=f"notice:{notice.id}:limit:{warning.window.final_date.isoformat()}:{person_id}",
                payload={"notice_id": notice.id, "number": notice.number,
                         "final_date": warning.window.final_date.isoformat()},
                not_before=polite_moment(now, cities.of(notice.municipality).tz)))
    return count


@scan("notice-decision-warnings")
async def notice_decision_warnings(*, session: AsyncSession, now: dt.datetime, cities: Cities) -> int:
    """Warn the competent authority before (and on) the last day to decide a reclamação or an appeal.

    A reclamação (CP Art. 40, or §2 after vista) goes to the Chefe do Departamento, an appeal (Art. 45) to the
    Prefeito; never to an impeded member (:func:`models.notices.authority.deciders_to_warn`).
    """
    warnings = await decision_warnings(session=session, cities=cities, now=now)
    if not warnings:
        return 0
    count = 0
    for warning in warnings:
        for person_id in await deciders_to_warn(session=session, notice=warning.notice, filing=warning.filing):
            count += int(await enqueue(
                session=session, person_id=person_id, kind=DECISION_WARNING,
                dedupe_key=f"{warning.dedupe_key}:{person_id}",
                payload={"number": warning.notice.number, "filing_id": warning.filing.id,
                         "filing_kind": warning.filing.kind.value,
                         "rule": warning.window.rule.id, "final_date": warning.window.final_date.isoformat()},
                not_before=polite_moment(now, cities.of(warning.notice.municipality).tz)))
    return count
