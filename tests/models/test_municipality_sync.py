"""The municipality rows follow the configuration, also when several processes start at the same time."""

from __future__ import annotations

import asyncio

from sqlalchemy import delete
from sqlmodel import select

from core.db import SessionFactory
from core.settings import Settings
from models.municipalities import Municipality, sync_municipalities


async def test_processes_starting_together_sync_the_municipalities_without_colliding(
    sessions: SessionFactory, settings: Settings
) -> None:
    async with sessions() as session:
        await session.exec(delete(Municipality))
        await session.commit()

    async def sync() -> list[str]:
        async with sessions() as session:
            return await sync_municipalities(session=session, served=settings.municipalities)

    # two run (or dispatch) processes on one PostgreSQL: both see no row, both add them
    assert await asyncio.gather(sync(), sync(), sync()) == [[], [], []]
    async with sessions() as session:
        rows = {row.slug: row for row in (await session.exec(select(Municipality))).all()}
    assert {slug: (row.name, row.served) for slug, row in rows.items()} == {
        "sapezal": ("Sapezal", True), "nova-xavantina": ("Nova Xavantina", True)}

    only_sapezal = {"sapezal": settings.municipalities["sapezal"]}
    async with sessions() as session:
        assert await sync_municipalities(session=session, served=only_sapezal) == ["nova-xavantina"]  # type: ignore[arg-type]
    async with sessions() as session:
        served = {row.slug: row.served for row in (await session.exec(select(Municipality))).all()}
    assert served == {"sapezal": True, "nova-xavantina": False}  # kept: cases and notices refer to it
