"""The ``municipality`` table: the stable key every case, notice, driver, broadcast and staff role refers to.

Municipalities are configured in the TOML file (:mod:`core.municipalities`), and also kept as rows, synced at start:
rows referenced by years of cases and notices need a key the database itself enforces (a foreign key), that other
processes and tools (the staff console, Open311, SQL reports) can join on, and that survives a municipality leaving
the file (its row stays, marked not served, so old notices still name their Prefeitura). The slug is the key: it is
what the file and the URLs say, so no id has to be looked up. Everything else (holidays, unit values, offices…) is
read from the file, never from the row.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Column, String, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Field, SQLModel, col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipalities import Municipalities
from models.columns import UTCDateTime, utcnow

SLUG_LENGTH = 40


class Municipality(SQLModel, table=True):
    """A municipality a deployment serves or served (CF Art. 30: each acts in its own name)."""

    __tablename__ = "municipality"

    slug: str = Field(sa_column=Column(String(SLUG_LENGTH), primary_key=True))
    name: str = Field(sa_column=Column(String(80), nullable=False))
    state: str = Field(sa_column=Column(String(2), nullable=False))
    ibge_code: str = Field(default="", sa_column=Column(String(7), nullable=False, default=""))
    served: bool = Field(default=True, description="Whether the configuration still lists it.")
    synced_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))


async def sync_municipalities(*, session: AsyncSession, served: Municipalities) -> list[str]:
    """Make the table match the configuration: add or update each configured municipality, mark others not served.

    Args:
        session: database session (committed here).
        served: the deployment's municipalities (``settings.municipalities``).

    Returns:
        The slugs of rows no longer served (kept, since cases and notices refer to them).
    """
    known = set((await session.exec(select(Municipality.slug))).all())
    now = utcnow()
    if served:
        table = Municipality.__table__  # type: ignore[attr-defined]
        dialect = postgresql if (await session.connection()).dialect.name == "postgresql" else sqlite
        upsert = dialect.insert(table).values([
            {"slug": slug, "name": config.name, "state": config.state, "ibge_code": config.ibge_code, "served": True,
             "synced_at": now} for slug, config in served.items()])
        # one statement that adds or updates: several processes (run, dispatch) may start at the same time
        await session.exec(upsert.on_conflict_do_update(
            index_elements=[table.c.slug],
            set_={name: upsert.excluded[name] for name in ("name", "state", "ibge_code", "served", "synced_at")}))
    gone = sorted(slug for slug in known if slug not in served)
    if gone:
        await session.exec(update(Municipality).where(
            col(Municipality.slug).in_(gone)).values(served=False))
    await session.commit()
    return gone
