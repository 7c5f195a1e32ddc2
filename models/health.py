"""The health probe's own row: ``/healthz`` writes it to prove the database still takes writes.

A database that answers reads but refuses writes (a full disk, a read-only file or mount, a replica promoted
wrong) loses every filing while a read-only check says 200. One row, rewritten by each probe, tells.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Column, Integer, update
from sqlmodel import Field, SQLModel
from sqlmodel.ext.asyncio.session import AsyncSession

from models.columns import UTCDateTime


class HealthProbe(SQLModel, table=True):
    """The moment of the last successful write probe."""

    __tablename__ = "health_probe"

    id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    written_at: dt.datetime = Field(sa_column=Column(UTCDateTime, nullable=False))


async def probe_write(*, session: AsyncSession, now: dt.datetime) -> None:
    """Write the probe row and commit; raises whatever the database raises when it refuses."""
    result = await session.exec(update(HealthProbe).where(HealthProbe.id == 1).values(written_at=now))  # type: ignore[arg-type]
    if not result.rowcount:
        session.add(HealthProbe(id=1, written_at=now))
    await session.commit()
