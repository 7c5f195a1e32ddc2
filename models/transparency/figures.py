"""The figures of the public results panel, one query each, over a period of civil months.

- cases received and answered per month and per kind (a case is *answered* when it reaches a final status:
  the ombudsman's conclusive answer, L13460 Art. 12, or the CP Art. 32 decision);
- the share answered within the legal deadline (the case's ``due_on`` as it stood when answered: the 30 days of
  L13460 Art. 16, extended once, or ``BALCAO_CASE_TARGET_DAYS`` for representações and reports);
- the median days to answer (civil days from receipt to answer);
- satisfaction on Fala.BR's 0–100 scale (the chat asks satisfied / partly / unsatisfied, L13460 Art. 23,
  counted as 100 / 50 / 0 — a documented choice);
- representações by Código de Posturas chapter (the chapter of the catalogue row picked; "not named" otherwise);
- penalty notices issued, with ciência, defended (a defence, reclamação or appeal filed) and decided.

Every figure is of one municipality: the cases and notices that belong to it (``Case.municipality``,
``Notice.municipality``), never another's.
"""

from __future__ import annotations

import datetime as dt
import statistics
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Integer, and_, case, exists, func
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.cases.tables import FINAL_STATUSES, Case, CaseKind, Satisfaction
from models.notices.tables import DocumentKind, Notice, NoticeDelivery, NoticeFiling
from models.rulebooks.catalogue import CatalogueError, get_infraction

SATISFACTION_SCORE: dict[Satisfaction, int] = {
    Satisfaction.SATISFIED: 100,
    Satisfaction.PARTLY: 50,
    Satisfaction.UNSATISFIED: 0,
}
"""The chat's three answers on Fala.BR's 0–100 satisfaction scale."""
NOT_NAMED = "—"


@dataclass(frozen=True, slots=True)
class Period:
    """Whole civil months, ``first`` to ``last`` (first days of months), in the deployment's time zone."""

    first: dt.date
    last: dt.date
    tz: ZoneInfo

    @classmethod
    def last_months(cls, *, today: dt.date, months: int, tz: ZoneInfo) -> Period:
        """The ``months`` civil months up to and including the month of ``today``."""
        index = today.year * 12 + today.month - 1 - (months - 1)
        return cls(first=dt.date(index // 12, index % 12 + 1, 1), last=today.replace(day=1), tz=tz)

    def months(self) -> list[dt.date]:
        """The first day of each month of the period."""
        found, day = [], self.first
        while day <= self.last:
            found.append(day)
            day = _next_month(day)
        return found

    def bounds(self) -> tuple[dt.datetime, dt.datetime]:
        """The period as UTC instants [start, end)."""
        return _start(self.first, self.tz), _start(_next_month(self.last), self.tz)


def _next_month(day: dt.date) -> dt.date:
    return dt.date(day.year + day.month // 12, day.month % 12 + 1, 1)


def _start(day: dt.date, tz: ZoneInfo) -> dt.datetime:
    return dt.datetime.combine(day, dt.time.min, tzinfo=tz).astimezone(dt.UTC)


def _month_of(column: Any, period: Period) -> ColumnElement[str]:
    """SQL: the civil month (``2026-03``) of a UTC timestamp, by the period's month boundaries (portable)."""
    whens = [
        (and_(column >= _start(month, period.tz), column < _start(_next_month(month), period.tz)),
         month.strftime("%Y-%m"))
        for month in period.months()
    ]
    return case(*whens, else_=None)


@dataclass(frozen=True, slots=True)
class MonthCount:
    """How many cases of a kind in a month (``2026-03``)."""

    month: str
    kind: CaseKind
    count: int


async def received_per_month(*, session: AsyncSession, municipality: str, period: Period) -> list[MonthCount]:
    """The municipality's cases received per month and kind (one query)."""
    start, end = period.bounds()
    cases = (
        select(_month_of(col(Case.received_at), period).label("month"), col(Case.kind).label("kind"))
        .where(col(Case.municipality) == municipality, col(Case.received_at) >= start,
               col(Case.received_at) < end)
        .subquery()
    )
    rows = await session.exec(select(cases.c.month, cases.c.kind, func.count()).group_by(cases.c.month, cases.c.kind))
    return sorted((MonthCount(m, CaseKind(kind), int(n)) for m, kind, n in rows.all()),
                  key=lambda item: (item.month, item.kind.value))


async def answered_per_month(*, session: AsyncSession, municipality: str, period: Period) -> list[MonthCount]:
    """The municipality's cases answered (final status reached) per month and kind (one query)."""
    start, end = period.bounds()
    cases = (
        select(_month_of(col(Case.closed_at), period).label("month"), col(Case.kind).label("kind"))
        .where(col(Case.municipality) == municipality, col(Case.closed_at) >= start, col(Case.closed_at) < end,
               col(Case.status).in_([status.value for status in FINAL_STATUSES]))
        .subquery()
    )
    rows = await session.exec(select(cases.c.month, cases.c.kind, func.count()).group_by(cases.c.month, cases.c.kind))
    return sorted((MonthCount(m, CaseKind(kind), int(n)) for m, kind, n in rows.all()),
                  key=lambda item: (item.month, item.kind.value))


@dataclass(frozen=True, slots=True)
class Timeliness:
    """Cases answered in the period: how many, how many by their legal deadline, and the median days taken."""

    answered: int
    on_time: int
    median_days: float | None

    @property
    def share_on_time(self) -> float | None:
        """The share (0–1) answered by the deadline, None when nothing was answered."""
        return self.on_time / self.answered if self.answered else None


async def _answered_rows(
    session: AsyncSession, municipality: str, period: Period
) -> list[tuple[dt.datetime, dt.datetime, dt.date]]:
    start, end = period.bounds()
    rows = await session.exec(
        select(col(Case.received_at), col(Case.closed_at), col(Case.due_on))
        .where(col(Case.municipality) == municipality, col(Case.closed_at) >= start, col(Case.closed_at) < end,
               col(Case.status).in_([status.value for status in FINAL_STATUSES]))
    )
    return [(received, closed, due) for received, closed, due in rows.all() if closed is not None]


async def timeliness(*, session: AsyncSession, municipality: str, period: Period) -> Timeliness:
    """The share answered by the deadline and the median days to answer, over the municipality's cases answered.

    One query reads (received, answered, deadline) of those cases; a case is on time when answered on or before
    its deadline's civil day.
    """
    rows = await _answered_rows(session, municipality, period)
    days = [(closed.astimezone(period.tz).date() - received.astimezone(period.tz).date()).days
            for received, closed, _due in rows]
    on_time = sum(1 for _received, closed, due in rows if closed.astimezone(period.tz).date() <= due)
    return Timeliness(answered=len(rows), on_time=on_time, median_days=statistics.median(days) if days else None)


@dataclass(frozen=True, slots=True)
class SatisfactionScore:
    """The satisfaction of the authors who rated a case answered in the period, on the 0–100 scale."""

    ratings: int
    score: float | None


async def satisfaction(*, session: AsyncSession, municipality: str, period: Period) -> SatisfactionScore:
    """The mean of the ratings (100 / 50 / 0) of the municipality's cases answered in the period (one query)."""
    start, end = period.bounds()
    points = case(*((col(Case.satisfaction) == level.value, score) for level, score in SATISFACTION_SCORE.items()),
                  else_=None)
    count, total = (
        await session.exec(
            select(func.count(col(Case.satisfaction)), func.sum(points))
            .where(col(Case.municipality) == municipality, col(Case.closed_at) >= start, col(Case.closed_at) < end,
                   col(Case.satisfaction).is_not(None))
        )
    ).one()
    ratings = int(count or 0)
    return SatisfactionScore(ratings=ratings, score=round(int(total) / ratings, 1) if ratings else None)


@dataclass(frozen=True, slots=True)
class ChapterCount:
    """Representações received in the period about one chapter of the Código de Posturas."""

    chapter: str
    count: int


def chapter_of(infraction_code: str | None) -> str:
    """The Código de Posturas chapter of a catalogue row (law text), or :data:`NOT_NAMED`."""
    if not infraction_code:
        return NOT_NAMED
    try:
        return get_infraction(infraction_code).chapter or NOT_NAMED
    except CatalogueError:
        return NOT_NAMED


async def representations_by_chapter(
    *, session: AsyncSession, municipality: str, period: Period
) -> list[ChapterCount]:
    """The municipality's representações received in the period per Código de Posturas chapter, most first."""
    start, end = period.bounds()
    rows = await session.exec(
        select(col(Case.infraction_code), func.count())
        .where(col(Case.municipality) == municipality, col(Case.kind) == CaseKind.REPRESENTATION.value,
               col(Case.received_at) >= start,
               col(Case.received_at) < end)
        .group_by(col(Case.infraction_code))
    )
    totals: dict[str, int] = {}
    for code, count in rows.all():
        chapter = chapter_of(code)
        totals[chapter] = totals.get(chapter, 0) + int(count)
    return sorted((ChapterCount(chapter, count) for chapter, count in totals.items()),
                  key=lambda item: (-item.count, item.chapter))


@dataclass(frozen=True, slots=True)
class NoticeCounts:
    """Penalty notices issued in the period, and how many of them reached each step (counts only)."""

    issued: int
    ciencia: int
    defended: int
    decided: int


async def notice_counts(*, session: AsyncSession, municipality: str, period: Period) -> NoticeCounts:
    """The municipality's notices issued in the period: with ciência, with a filing, with one decided (one query)."""
    start, end = period.bounds()
    with_ciencia = exists().where(col(NoticeDelivery.notice_id) == col(Notice.id),
                                  col(NoticeDelivery.document) == DocumentKind.NOTICE.value,
                                  col(NoticeDelivery.ciencia_at).is_not(None))
    defended = exists().where(col(NoticeFiling.notice_id) == col(Notice.id))
    decided = exists().where(col(NoticeFiling.notice_id) == col(Notice.id), col(NoticeFiling.decided_at).is_not(None))

    def total(condition: ColumnElement[bool]) -> ColumnElement[int]:
        return func.coalesce(func.sum(case((condition, 1), else_=0).cast(Integer)), 0)

    issued, ciencia, filed, judged = (
        await session.exec(
            select(func.count(), total(with_ciencia), total(defended), total(decided))
            .select_from(Notice)
            .where(col(Notice.municipality) == municipality, col(Notice.issued_at) >= start,
                   col(Notice.issued_at) < end)
        )
    ).one()
    return NoticeCounts(issued=int(issued), ciencia=int(ciencia), defended=int(filed), decided=int(judged))
