"""Each figure of the public panel is one query; here each is checked against the counts made by hand from the
seeded cases (tests/auxil/transparency.py shows the table they come from)."""

from __future__ import annotations

import pytest
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.settings import Settings
from models.cases.tables import CaseKind
from models.transparency.figures import (
    ChapterCount,
    MonthCount,
    NoticeCounts,
    Period,
    answered_per_month,
    notice_counts,
    received_per_month,
    representations_by_chapter,
    satisfaction,
    timeliness,
)
from models.transparency.open_data import open_cases
from tests.auxil.transparency import PANEL_DAY, Seeded, seed_panel

REP, APP, OUV = CaseKind.REPRESENTATION, CaseKind.RIDE_HAILING, CaseKind.OMBUDSMAN
HYGIENE = "Título IV (Da Higiene Pública), Capítulo II – Da Higiene das Vias Públicas"
NOISE = "Título V (Da Segurança e da Ordem Pública), Capítulo I – Da Moralidade e do Sossego Público"


@pytest.fixture
async def seeded(session: AsyncSession, settings: Settings) -> Seeded:
    return await seed_panel(session, settings)


@pytest.fixture
def period(settings: Settings) -> Period:
    return Period.last_months(today=PANEL_DAY.astimezone(settings.tz).date(), months=12, tz=settings.tz)


async def test_the_period_is_twelve_civil_months(period: Period) -> None:
    assert (period.first.isoformat(), period.last.isoformat(), len(period.months())) == ("2025-04-01",
                                                                                         "2026-03-01", 12)


async def test_received_and_answered_per_month_and_type(session: AsyncSession, seeded: Seeded, period: Period) -> None:
    assert await received_per_month(session=session, period=period) == [
        MonthCount("2026-01", OUV, 1), MonthCount("2026-01", REP, 1),
        MonthCount("2026-02", REP, 2), MonthCount("2026-02", APP, 1),
    ]
    assert await answered_per_month(session=session, period=period) == [
        MonthCount("2026-01", REP, 1),
        MonthCount("2026-02", OUV, 1), MonthCount("2026-02", REP, 1), MonthCount("2026-02", APP, 1),
    ]


async def test_share_on_time_and_median_days(session: AsyncSession, seeded: Seeded, period: Period) -> None:
    """Four answered; only the noise case (due 12 Feb, archived 20 Feb) was late; days 3, 18, 2, 16."""
    figures = await timeliness(session=session, period=period)
    assert (figures.answered, figures.on_time, figures.share_on_time, figures.median_days) == (4, 3, 0.75, 9.5)


async def test_satisfaction_on_the_fala_br_scale(session: AsyncSession, seeded: Seeded, period: Period) -> None:
    """Satisfied 100, unsatisfied 0, partly 50: a mean of 50 over three ratings."""
    score = await satisfaction(session=session, period=period)
    assert (score.ratings, score.score) == (3, 50.0)


async def test_representations_by_chapter(session: AsyncSession, seeded: Seeded, period: Period) -> None:
    assert await representations_by_chapter(session=session, period=period) == [
        ChapterCount(HYGIENE, 1), ChapterCount(NOISE, 1), ChapterCount("—", 1)]


async def test_notices_issued_with_ciencia_defended_decided(
    session: AsyncSession, seeded: Seeded, period: Period
) -> None:
    assert await notice_counts(session=session, period=period) == NoticeCounts(issued=3, ciencia=2, defended=1,
                                                                               decided=1)


async def test_the_case_list_is_pseudonymised(session: AsyncSession, seeded: Seeded, period: Period) -> None:
    found = await open_cases(session=session, period=period)
    protocols = seeded.protocols
    assert [case.protocol for case in found] == [protocols[name] for name in
                                                ("rubbish", "complaint", "noise", "unnamed", "ride")]
    unnamed = found[3]
    assert (unnamed.service, unnamed.latitude, unnamed.longitude) == ("CP", -14.68, -52.35)
    assert [case.service for case in found] == ["CP-I", "OUV-reclamacao", "CP-XI", "CP", "L1533-APP"]
    assert [case.answered_on.isoformat() if case.answered_on else None for case in found] == [
        "2026-01-15", "2026-02-05", "2026-02-20", None, "2026-02-18"]
