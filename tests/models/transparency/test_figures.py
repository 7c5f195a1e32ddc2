"""Each figure of the public panel is one query over one municipality; here each is checked, for Nova Xavantina
and for Sapezal, against the counts made by hand from the seeded cases (tests/auxil/transparency.py shows the table
they come from). A municipality's figures never count the other's cases or notices."""

from __future__ import annotations

import pytest
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.settings import Settings
from models.cases.tables import Case, CaseKind
from models.notices.tables import Notice
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
from tests.auxil.transparency import NX, PANEL_DAY, SAPEZAL, Seeded, seed_panel

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


async def test_the_seeded_cases_and_notices_belong_where_the_table_says(
    session: AsyncSession, seeded: Seeded
) -> None:
    """CF Art. 30 I: a representação is Nova Xavantina's, a ride-hailing report and a Lei 1.533 auto Sapezal's."""
    where = {case.protocol: case.municipality for case in (await session.exec(select(Case))).all()}
    assert {name: where[protocol] for name, protocol in seeded.protocols.items()} == {
        "rubbish": NX, "noise": NX, "unnamed": NX, "old": NX, "nx_complaint": NX, "ride": SAPEZAL,
        "complaint": SAPEZAL}
    notices = sorted((notice.municipality, notice.rulebook) for notice in (await session.exec(select(Notice))).all())
    assert notices == [(NX, "nx-posturas"), (NX, "nx-posturas"), (SAPEZAL, "sapezal-1533")]


async def test_received_and_answered_per_month_and_type(session: AsyncSession, seeded: Seeded, period: Period) -> None:
    assert await received_per_month(session=session, municipality=NX, period=period) == [
        MonthCount("2026-01", REP, 1), MonthCount("2026-02", OUV, 1), MonthCount("2026-02", REP, 2)]
    assert await answered_per_month(session=session, municipality=NX, period=period) == [
        MonthCount("2026-01", REP, 1), MonthCount("2026-02", OUV, 1), MonthCount("2026-02", REP, 1)]
    assert await received_per_month(session=session, municipality=SAPEZAL, period=period) == [
        MonthCount("2026-01", OUV, 1), MonthCount("2026-02", APP, 1)]
    assert await answered_per_month(session=session, municipality=SAPEZAL, period=period) == [
        MonthCount("2026-02", OUV, 1), MonthCount("2026-02", APP, 1)]


async def test_share_on_time_and_median_days(session: AsyncSession, seeded: Seeded, period: Period) -> None:
    """Nova Xavantina: three answered in 3, 18 and 14 days; only the noise case (due 12 Feb, archived 20 Feb) was
    late. Sapezal: two answered, in 2 and 16 days, both on time."""
    nx = await timeliness(session=session, municipality=NX, period=period)
    assert (nx.answered, nx.on_time, nx.share_on_time, nx.median_days) == (3, 2, 2 / 3, 14)
    sapezal = await timeliness(session=session, municipality=SAPEZAL, period=period)
    assert (sapezal.answered, sapezal.on_time, sapezal.share_on_time, sapezal.median_days) == (2, 2, 1.0, 9)


async def test_satisfaction_on_the_fala_br_scale(session: AsyncSession, seeded: Seeded, period: Period) -> None:
    """Satisfied 100, unsatisfied 0, partly 50: Nova Xavantina (100 + 0 + 100) / 3, Sapezal 50 over one rating."""
    nx = await satisfaction(session=session, municipality=NX, period=period)
    assert (nx.ratings, nx.score) == (3, 66.7)
    sapezal = await satisfaction(session=session, municipality=SAPEZAL, period=period)
    assert (sapezal.ratings, sapezal.score) == (1, 50.0)


async def test_representations_by_chapter(session: AsyncSession, seeded: Seeded, period: Period) -> None:
    assert await representations_by_chapter(session=session, municipality=NX, period=period) == [
        ChapterCount(HYGIENE, 1), ChapterCount(NOISE, 1), ChapterCount("—", 1)]
    assert await representations_by_chapter(session=session, municipality=SAPEZAL, period=period) == []


async def test_notices_issued_with_ciencia_defended_decided(
    session: AsyncSession, seeded: Seeded, period: Period
) -> None:
    assert await notice_counts(session=session, municipality=NX, period=period) == NoticeCounts(
        issued=2, ciencia=2, defended=1, decided=1)
    assert await notice_counts(session=session, municipality=SAPEZAL, period=period) == NoticeCounts(
        issued=1, ciencia=0, defended=0, decided=0)


async def test_the_case_list_is_pseudonymised(session: AsyncSession, seeded: Seeded, period: Period) -> None:
    found = await open_cases(session=session, municipality=NX, period=period)
    protocols = seeded.protocols
    assert [case.protocol for case in found] == [protocols[name] for name in
                                                ("rubbish", "noise", "nx_complaint", "unnamed")]
    unnamed = found[3]
    assert (unnamed.service, unnamed.latitude, unnamed.longitude) == ("CP", -14.68, -52.35)
    assert [case.service for case in found] == ["CP-I", "CP-XI", "OUV-reclamacao", "CP"]
    assert [case.answered_on.isoformat() if case.answered_on else None for case in found] == [
        "2026-01-15", "2026-02-20", "2026-02-23", None]
    sapezal = await open_cases(session=session, municipality=SAPEZAL, period=period)
    assert [(case.protocol, case.service) for case in sapezal] == [
        (protocols["complaint"], "OUV-reclamacao"), (protocols["ride"], "L1533-APP")]
