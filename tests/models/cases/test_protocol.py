"""Protocol numbers: sequential per year and kind, unique under concurrency, typed as people type them."""

import asyncio

from sqlmodel.ext.asyncio.session import AsyncSession

from core.db import SessionFactory
from models.cases.protocol import next_protocol, normalize_protocol
from models.cases.tables import CaseKind


async def test_numbers_are_sequential_per_kind_and_year(session: AsyncSession) -> None:
    got = [
        await next_protocol(session=session, kind=CaseKind.REPRESENTATION, year=2026),
        await next_protocol(session=session, kind=CaseKind.REPRESENTATION, year=2026),
        await next_protocol(session=session, kind=CaseKind.OMBUDSMAN, year=2026),
        await next_protocol(session=session, kind=CaseKind.REPRESENTATION, year=2027),
        await next_protocol(session=session, kind=CaseKind.RIDE_HAILING, year=2026),
    ]
    await session.commit()
    assert got == ["REP-2026-000001", "REP-2026-000002", "OUV-2026-000001", "REP-2027-000001", "APP-2026-000001"]


async def test_a_rolled_back_filing_gives_its_number_back(sessions: SessionFactory) -> None:
    async with sessions() as session:
        assert await next_protocol(session=session, kind=CaseKind.OMBUDSMAN, year=2026) == "OUV-2026-000001"
        await session.rollback()
    async with sessions() as session:
        assert await next_protocol(session=session, kind=CaseKind.OMBUDSMAN, year=2026) == "OUV-2026-000001"
        await session.commit()


async def test_concurrent_filings_never_share_a_number(sessions: SessionFactory) -> None:
    async def take() -> str:
        async with sessions() as session:
            protocol = await next_protocol(session=session, kind=CaseKind.REPRESENTATION, year=2026)
            await asyncio.sleep(0)  # let the others try while the row is held
            await session.commit()
            return protocol

    numbers = await asyncio.gather(*(take() for _ in range(20)))
    assert sorted(numbers) == [f"REP-2026-{n:06d}" for n in range(1, 21)]


def test_protocols_are_understood_as_people_type_them() -> None:
    assert normalize_protocol("rep 2026 123") == "REP-2026-000123"
    assert normalize_protocol(" OUV-2026-000045 ") == "OUV-2026-000045"
    assert normalize_protocol("app/2026/7") == "APP-2026-000007"
    assert normalize_protocol("2026-123") is None
    assert normalize_protocol("REP-26-1") is None
