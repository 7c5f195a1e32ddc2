"""The figures of the console's dashboard, read from the same tables the chat and the scans use.

- open cases by queue (the role they are routed to) and status;
- open cases due within 7 days, and overdue (by the working deadline, :func:`models.cases.handling.queue_deadline`);
- the share of cases closed in the last 30 days on or before their deadline;
- the outbox per day over the last 14 days: sent, unreachable, failed;
- notice documents awaiting ciência (sent in the bot) and awaiting delivery by staff (in person, post, edital).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from sqlalchemy import ColumnElement, and_, func, true
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.cases.handling import cases_visible_to, queue_deadline
from models.cases.tables import FINAL_STATUSES, Case, CaseStatus
from models.notices.tables import DeliveryState, Notice, NoticeDelivery
from models.outbox import OutboxMessage, OutboxStatus
from models.people import Role, staff_roles

OUTBOX_DAYS = 14
OUTBOX_SHOWN = (OutboxStatus.SENT, OutboxStatus.UNREACHABLE, OutboxStatus.FAILED)


@dataclass(frozen=True, slots=True)
class Dashboard:
    """Everything the dashboard shows."""

    open_by_queue: dict[tuple[Role, CaseStatus], int]
    due_this_week: int
    overdue: int
    closed_last_30: int
    closed_on_time_last_30: int
    outbox_by_day: list[tuple[dt.date, dict[OutboxStatus, int]]]
    notices_awaiting_ciencia: int
    notices_awaiting_delivery: int

    @property
    def on_time_share(self) -> float | None:
        """Closed on time / closed, over the last 30 days (None when nothing was closed)."""
        return self.closed_on_time_last_30 / self.closed_last_30 if self.closed_last_30 else None


async def dashboard(*, session: AsyncSession, today: dt.date, now: dt.datetime, tz: ZoneInfo,
                    municipalities: tuple[str, ...] | None = None, reader: int | None = None) -> Dashboard:
    """Read the dashboard's figures (a handful of grouped queries; no row is loaded for the open counts).

    Args:
        session: database session.
        today: the civil date.
        now: the current time.
        tz: the deployment's time zone.
        municipalities: only these municipalities' cases and notices (the outbox is the deployment's, one queue for
            every municipality); ``None``: every one.
        reader: the staff member's Telegram id: the case figures count only the cases they may open (their
            role's queue per municipality; a restricted complaint only for the Ombudsman, L13460 Art. 10 §7), as
            their lists show them (issue 20 §1). ``None``: every case.
    """
    places: ColumnElement[bool] = true() if municipalities is None else col(Case.municipality).in_(municipalities)
    if reader is not None:
        places = and_(places, cases_visible_to(await staff_roles(session=session, telegram_user_id=reader)))
    still_open = and_(places, col(Case.status).not_in([s.value for s in FINAL_STATUSES]))
    grouped = (await session.exec(
        select(Case.handling_role, Case.status, func.count()).where(still_open)
        .group_by(Case.handling_role, Case.status)
    )).all()
    deadline = queue_deadline()
    due_week = (await session.exec(select(func.count()).select_from(Case).where(
        still_open, deadline >= today, deadline <= today + dt.timedelta(days=7)))).one()
    overdue = (await session.exec(select(func.count()).select_from(Case).where(still_open, deadline < today))).one()
    closed = (await session.exec(select(col(Case.closed_at), col(Case.due_on)).where(
        places, col(Case.closed_at) >= now - dt.timedelta(days=30)))).all()
    on_time = sum(1 for closed_at, due_on in closed if closed_at is not None and closed_at.astimezone(tz).date()
                  <= due_on)
    since = now - dt.timedelta(days=OUTBOX_DAYS)
    sent_rows = (await session.exec(select(OutboxMessage.status, OutboxMessage.sent_at, OutboxMessage.created_at)
                                    .where(col(OutboxMessage.status).in_([s.value for s in OUTBOX_SHOWN]),
                                           col(OutboxMessage.created_at) >= since))).all()
    per_day: dict[dt.date, Counter[OutboxStatus]] = {today - dt.timedelta(days=n): Counter()
                                                     for n in range(OUTBOX_DAYS - 1, -1, -1)}
    for status, sent_at, created_at in sent_rows:
        day = (sent_at or created_at).astimezone(tz).date()
        if day in per_day:
            per_day[day][OutboxStatus(status)] += 1
    notices_here = true() if municipalities is None else col(Notice.municipality).in_(municipalities)
    deliveries = dict((await session.exec(
        select(NoticeDelivery.state, func.count()).join(Notice, col(Notice.id) == NoticeDelivery.notice_id)
        .where(notices_here, col(NoticeDelivery.state).in_(
            [DeliveryState.ELECTRONIC.value, DeliveryState.STAFF.value, DeliveryState.EDITAL.value]))
        .group_by(NoticeDelivery.state))).all())
    return Dashboard(
        open_by_queue={(Role(role), CaseStatus(status)): count for role, status, count in grouped},
        due_this_week=due_week,
        overdue=overdue,
        closed_last_30=len(closed),
        closed_on_time_last_30=on_time,
        outbox_by_day=[(day, {s: counts[s] for s in OUTBOX_SHOWN}) for day, counts in per_day.items()],
        notices_awaiting_ciencia=deliveries.get(DeliveryState.ELECTRONIC, 0),
        notices_awaiting_delivery=deliveries.get(DeliveryState.STAFF, 0) + deliveries.get(DeliveryState.EDITAL, 0),
    )
