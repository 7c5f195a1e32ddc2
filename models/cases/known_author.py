"""What a person already told about themselves in their last case: offered back as a one-tap answer.

Issue 19 §4.5: the same person types the same name, profession and address (CP Art. 31) in every report. The
chat offers those of their last case ("Usar: Maria Aparecida da Silva, Rua das Flores, 100"). Only the person's
own cases are read, and none filed before they erased their data (LGPD Art. 18 VI: what they asked to forget is
not offered again, though the city hall keeps the cases themselves).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.cases.tables import Case, CaseAuthor
from models.people import Person


@dataclass(frozen=True, slots=True)
class KnownAuthor:
    """The author details of a person's last case (profession and address: only a representação has them)."""

    name: str
    profession: str | None
    address: str | None


async def last_author(*, session: AsyncSession, person_id: int) -> KnownAuthor | None:
    """The name, profession and address the person gave in their last case, or None.

    Args:
        session: the database session.
        person_id: the person (their own cases only).

    Returns:
        The details of the newest case they filed since they last erased their data (None: no such case).
    """
    person = await session.get(Person, person_id)
    if person is None:
        return None
    query = (
        select(CaseAuthor)
        .join(Case, col(Case.id) == CaseAuthor.case_id)
        .where(CaseAuthor.person_id == person_id)
        .order_by(col(Case.received_at).desc(), col(Case.id).desc())
        .limit(1)
    )
    if person.erased_at is not None:
        query = query.where(col(Case.received_at) > person.erased_at)
    author = (await session.exec(query)).first()
    if author is None or not author.name.strip():
        return None
    return KnownAuthor(author.name, author.profession or None, author.address or None)
