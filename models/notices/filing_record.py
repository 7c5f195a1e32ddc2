"""What a clerk reads to decide a filing besides its text: the files sent with it, and what an appeal answers.

A defence or reclamação may carry documents (CP Art. 38, 44; L1533 Art. 22) and the decision weighs them
(L9784 Art. 38: the interested party may join documents, considered in the decision). An appeal is against a
decision (CP Art. 43–46; L1533 Art. 22): the clerk reads the defence it follows and the decision on it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.cases.views import attachment_name
from models.notices.tables import FilingKind, FilingOutcome, Notice, NoticeAttachment, NoticeFiling


@dataclass(frozen=True, slots=True)
class FilingFile:
    """A file of a filing, named neutrally (the notice's number, never the sender's file name)."""

    id: int
    file_name: str
    mime_type: str
    size: int
    sha256: str


@dataclass(frozen=True, slots=True)
class AnsweredFiling:
    """An earlier filing of the same notice and the decision on it, which an appeal answers."""

    id: int
    kind: FilingKind
    text: str
    filed_at: dt.datetime
    decided_at: dt.datetime
    outcome: FilingOutcome | None
    decision_text: str | None
    files: tuple[FilingFile, ...]


@dataclass(frozen=True, slots=True)
class FilingRecord:
    """A pending filing's files and, for an appeal, the decided filings before it."""

    files: tuple[FilingFile, ...]
    answers: tuple[AnsweredFiling, ...]


async def _files(session: AsyncSession, filing_id: int, number: str) -> tuple[FilingFile, ...]:
    rows = (await session.exec(select(NoticeAttachment).where(NoticeAttachment.filing_id == filing_id)
                               .order_by(col(NoticeAttachment.id)))).all()
    return tuple(FilingFile(id=row.id or 0, file_name=attachment_name(f"{number}-{filing_id}", n, row.mime_type),
                            mime_type=row.mime_type, size=row.size, sha256=row.sha256)
                 for n, row in enumerate(rows, start=1))


async def filing_record(*, session: AsyncSession, filing: NoticeFiling, number: str) -> FilingRecord:
    """The files of ``filing`` and, when it is an appeal, the earlier decided filings of its notice with theirs.

    Args:
        session: database session.
        filing: the filing to decide.
        number: its notice's number (names the files).
    """
    assert filing.id is not None
    answers: list[AnsweredFiling] = []
    if filing.kind is FilingKind.RECURSO:  # CP Art. 43–46; L1533 Art. 22: against the decision before
        earlier = (await session.exec(select(NoticeFiling).where(
            NoticeFiling.notice_id == filing.notice_id, col(NoticeFiling.id) < filing.id,
            col(NoticeFiling.decided_at).is_not(None)).order_by(col(NoticeFiling.id)))).all()
        for row in earlier:
            assert row.id is not None and row.decided_at is not None
            answers.append(AnsweredFiling(
                id=row.id, kind=row.kind, text=row.text, filed_at=row.filed_at, decided_at=row.decided_at,
                outcome=row.outcome, decision_text=row.decision_text, files=await _files(session, row.id, number)))
    return FilingRecord(files=await _files(session, filing.id, number), answers=tuple(answers))


async def filing_file(*, session: AsyncSession, filing_id: int, attachment_id: int
                      ) -> tuple[NoticeAttachment, FilingFile] | None:
    """A file of a filing with its neutral name, or None when that filing has no such file."""
    filing = await session.get(NoticeFiling, filing_id)
    if filing is None:
        return None
    notice = await session.get(Notice, filing.notice_id)
    row = await session.get(NoticeAttachment, attachment_id)
    if notice is None or row is None or row.filing_id != filing_id:
        return None
    named = next(f for f in await _files(session, filing_id, notice.number) if f.id == attachment_id)
    return row, named
