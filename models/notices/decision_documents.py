"""The signed decisions of notices, as staff find them in the console (issue 18: a signed PDF at each step)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.notices.tables import FilingKind, Notice, NoticeFiling


@dataclass(frozen=True, slots=True)
class DecisionDocument:
    """A decided filing that has a signed PDF of its own."""

    filing_id: int
    notice_id: int
    kind: FilingKind


async def decision_documents(*, session: AsyncSession,
                             notice_ids: Sequence[int]) -> dict[int, list[DecisionDocument]]:
    """The signed decisions of each notice, oldest first (decisions before this version have none)."""
    if not notice_ids:
        return {}
    rows = (await session.exec(
        select(NoticeFiling.id, NoticeFiling.notice_id, NoticeFiling.kind)
        .where(col(NoticeFiling.notice_id).in_(notice_ids), col(NoticeFiling.decision_pdf).is_not(None))
        .order_by(col(NoticeFiling.id))
    )).all()
    found: dict[int, list[DecisionDocument]] = {}
    for filing_id, notice_id, kind in rows:
        assert filing_id is not None
        found.setdefault(notice_id, []).append(DecisionDocument(filing_id=filing_id, notice_id=notice_id,
                                                                  kind=FilingKind(kind)))
    return found


async def decision_document(*, session: AsyncSession, filing_id: int) -> tuple[Notice, NoticeFiling] | None:
    """The notice and the decided filing whose signed PDF is asked for, or None when it has none."""
    filing = await session.get(NoticeFiling, filing_id)
    if filing is None or not filing.decision_pdf:
        return None
    notice = await session.get(Notice, filing.notice_id)
    return None if notice is None else (notice, filing)
