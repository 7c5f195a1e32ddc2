"""What the notice scans must send: reminders before each window closes, and the 90-day warning to staff.

- Reminders (issue 6, item 6): before the window of the act the offender can still do closes — the defence
  (and, under Lei 1.533, the payment the notice sets, Art. 13 XXIII) while notified, the appeal after a decision,
  the payment after a final decision (CP Art. 47 I; L1533 Art. 13 XXIII) — ``BALCAO_NOTICE_REMINDER_DAYS``
  days before its last day (by default 3 and 1). A person notified late gets only the nearest reminder, never a
  burst. There is no deposit reminder: no appeal depends on a deposit (STF Súmula Vinculante 21).
- The 90-day limit (L1533 Art. 22 §1): staff are warned ``BALCAO_NOTICE_LIMIT_WARNING_DAYS`` days
  before the last day to deliver a notice still without ciência, counted as :func:`delivery_limit` reads §1–§2
  (``BALCAO_L1533_NOTICE_90D_START``; the *juntada* of §2 is the notice's issue).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import Cities, Municipality
from models.calendar import BusinessCalendar
from models.deadlines import Window, WindowRole, delivery_windows
from models.notices.delivery import civil_date
from models.notices.status import notice_view
from models.notices.tables import Notice, NoticeOutcome, NoticeStage
from models.notices.windows import choices_for
from models.people import Person, Role, StaffMember
from models.rulebooks.catalogue import L1533


@dataclass(frozen=True, slots=True)
class Reminder:
    """A reminder to send to the offender."""

    notice: Notice
    window: Window
    offset: int  # the BALCAO_NOTICE_REMINDER_DAYS entry it answers

    @property
    def dedupe_key(self) -> str:
        """One reminder per notice, window, last day and offset."""
        return (f"notice:{self.notice.id}:remind:{self.window.rule.id}:"
                f"{self.window.final_date.isoformat()}:{self.offset}")


def reminder_offset(days_left: int, offsets: list[int]) -> int | None:
    """The reminder due with ``days_left`` days to go: the smallest offset not below it (None if none)."""
    if days_left < 0:
        return None
    candidates = [offset for offset in offsets if offset >= days_left]
    return min(candidates) if candidates else None


async def due_reminders(*, session: AsyncSession, cities: Cities, now: dt.datetime) -> list[Reminder]:
    """Every reminder due now (the scan enqueues them; dedupe keys make repeats harmless)."""
    stages = [NoticeStage.NOTIFIED, NoticeStage.DECIDED, NoticeStage.CLOSED]
    notices = (
        await session.exec(
            select(Notice).where(col(Notice.person_id).is_not(None), col(Notice.stage).in_(stages),
                                 or_(col(Notice.outcome).is_(None), col(Notice.outcome) == NoticeOutcome.UPHELD))
        )
    ).all()
    found: list[Reminder] = []
    for notice in notices:
        city = cities.of(notice.municipality)
        today = civil_date(now, city)
        view = await notice_view(session=session, city=city, notice=notice, today=today)
        windows: list[Window] = []
        if notice.stage is NoticeStage.NOTIFIED:
            windows += [w for w in (view.acts.defence, view.acts.payment) if w is not None]
        elif notice.stage is NoticeStage.DECIDED and view.acts.appeal is not None:
            windows.append(view.acts.appeal)
        elif notice.stage is NoticeStage.CLOSED and view.acts.payment is not None:
            windows.append(view.acts.payment)
        for window in windows:
            offset = reminder_offset((window.final_date - today).days, city.readings.notice_reminder_days)
            if offset is not None:
                found.append(Reminder(notice=notice, window=window, offset=offset))
    return found


@dataclass(frozen=True, slots=True)
class LimitWarning:
    """A Lei 1.533 notice nearing the 90-day limit to be delivered, for staff."""

    notice: Notice
    window: Window


def delivery_limit(*, notice: Notice, city: Municipality, calendar: BusinessCalendar) -> Window | None:
    """L1533 Art. 22 §§1–2: the last day to deliver the notice, as ``BALCAO_L1533_NOTICE_90D_START`` reads it.

    §1 counts from the drawing up of the auto (``drawn_up_at``); §2 from the *juntada* of the notice in the case
    file, which here is its issue (``issued_at``): the system is the case file. None for other rulebooks.
    """
    if notice.rulebook != L1533:
        return None
    windows = delivery_windows(lavratura=civil_date(notice.drawn_up_at, city),
                               juntada=civil_date(notice.issued_at, city), calendar=calendar,
                               choices=choices_for(notice, city))
    return next((w for w in windows if w.role is not WindowRole.ALTERNATIVE), None)


async def limit_warnings(*, session: AsyncSession, cities: Cities, now: dt.datetime) -> list[LimitWarning]:
    """Lei 1.533 notices without ciência whose delivery limit (Art. 22 §1) is near or past."""
    if cities.with_rulebook(L1533) is None:
        return []
    notices = (
        await session.exec(
            select(Notice).where(Notice.rulebook == L1533, Notice.stage == NoticeStage.AWAITING_CIENCIA)
        )
    ).all()
    found = []
    for notice in notices:
        city = cities.of(notice.municipality)
        chosen = delivery_limit(notice=notice, city=city, calendar=BusinessCalendar.of(city))
        if chosen is None:
            continue
        if (chosen.final_date - civil_date(now, city)).days <= city.readings.notice_limit_warning_days:
            found.append(LimitWarning(notice=notice, window=chosen))
    return found


async def notice_staff(*, session: AsyncSession, municipality: str) -> list[int]:
    """Person ids of the active staff who deliver notices (clerks, inspectors, admins) in a municipality.

    Staff holding their role in every municipality count too; those of another municipality do not.
    """
    rows = (
        await session.exec(
            select(Person.id)
            .join(StaffMember, col(StaffMember.telegram_user_id) == Person.telegram_user_id)
            .where(StaffMember.active == True,  # noqa: E712
                   col(StaffMember.role).in_([Role.CLERK, Role.INSPECTOR, Role.ADMIN]),
                   or_(col(StaffMember.municipality).is_(None), col(StaffMember.municipality) == municipality))
            .distinct()
            .order_by(col(Person.id))
        )
    ).all()
    return [person_id for person_id in rows if person_id is not None]
