"""Protocol numbers: ``REP-2026-000123`` — human-friendly, unique, sequential per year and kind.

The number comes from a counter row (:class:`~models.cases.tables.ProtocolCounter`) incremented with
``UPDATE … RETURNING`` in the same transaction as the case it numbers. The update locks the row until the
transaction ends (PostgreSQL row lock; SQLite's single writer), so two filings never get the same number,
and a filing that fails rolls its number back: the sequence has no holes.
"""

from __future__ import annotations

import re

from sqlalchemy import update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession

from models.cases.tables import PROTOCOL_PREFIX, CaseKind, ProtocolCounter

PROTOCOL_PATTERN = re.compile(r"^(REP|APP|OUV)-(\d{4})-(\d{6})$")


def format_protocol(kind: CaseKind, year: int, number: int) -> str:
    """``REP-2026-000123``."""
    return f"{PROTOCOL_PREFIX[kind]}-{year:04d}-{number:06d}"


def normalize_protocol(text: str) -> str | None:
    """A protocol as people type it (``rep 2026 123``, ``REP-2026-000123``) in canonical form, or None."""
    match = re.fullmatch(r"\s*(rep|app|ouv)[\s\-/.]*(\d{4})[\s\-/.]*(\d{1,6})\s*", text, flags=re.IGNORECASE)
    if match is None:
        return None
    return f"{match.group(1).upper()}-{match.group(2)}-{int(match.group(3)):06d}"


async def next_protocol(*, session: AsyncSession, kind: CaseKind, year: int) -> str:
    """Take the next protocol number of a kind and year (the caller commits with the case).

    Args:
        session: the session that will also insert the case.
        kind: the case kind (gives the prefix).
        year: the civil year of receipt (in the deployment's time zone).

    Returns:
        The formatted protocol, e.g. ``OUV-2026-000045``.
    """
    number = await next_in_sequence(session=session, prefix=PROTOCOL_PREFIX[kind], year=year)
    return format_protocol(kind, year, number)


async def next_in_sequence(*, session: AsyncSession, prefix: str, year: int) -> int:
    """Take the next number of a prefix's yearly sequence (``REP``, ``DEF``…); the caller commits with its row."""
    dialect = session.bind.dialect.name if session.bind is not None else "sqlite"
    insert = pg_insert if dialect == "postgresql" else sqlite_insert
    create = insert(ProtocolCounter).values(prefix=prefix, year=year, value=0)
    await session.exec(create.on_conflict_do_nothing(index_elements=["prefix", "year"]))
    bump = (
        update(ProtocolCounter)
        .where(col(ProtocolCounter.prefix) == prefix, col(ProtocolCounter.year) == year)
        .values(value=col(ProtocolCounter.value) + 1)
        .returning(col(ProtocolCounter.value))
    )
    return int((await session.exec(bump)).scalar_one())
