"""The console's list of penalty notices: newest first, searched by number or offender, in pages."""

from __future__ import annotations

from sqlalchemy import or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.cases.tables import Case
from models.console.case_list import like_pattern
from models.notices.tables import DocumentKind, Notice, NoticeDelivery

PER_PAGE = 50


async def list_notices(*, session: AsyncSession, text: str, page: int, municipalities: tuple[str, ...] | None = None
                       ) -> tuple[list[Notice], bool]:
    """One page of notices (newest first) and whether there is another.

    Args:
        session: database session.
        text: part of the number or of the offender's name ('' for all).
        page: the page, from 1.
        municipalities: only these municipalities' notices; ``None``: every one.
    """
    statement = select(Notice)
    if municipalities is not None:
        statement = statement.where(col(Notice.municipality).in_(municipalities))
    wanted = text.strip()[:100]
    if wanted:
        pattern = like_pattern(wanted)
        statement = statement.where(or_(col(Notice.number).ilike(pattern, escape="\\"),
                                        col(Notice.offender_name).ilike(pattern, escape="\\")))
    page = max(1, page)
    rows = list((await session.exec(statement.order_by(col(Notice.id).desc()).offset((page - 1) * PER_PAGE)
                                    .limit(PER_PAGE + 1))).all())
    return rows[:PER_PAGE], len(rows) > PER_PAGE


async def notice_ciencias(*, session: AsyncSession, notice_ids: list[int]) -> dict[int, NoticeDelivery]:
    """The delivery of each notice's own document whose ciência is recorded (the day and how), by notice id."""
    if not notice_ids:
        return {}
    rows = (await session.exec(select(NoticeDelivery).where(
        col(NoticeDelivery.notice_id).in_(notice_ids), NoticeDelivery.document == DocumentKind.NOTICE,
        col(NoticeDelivery.ciencia_on).is_not(None)))).all()
    return {row.notice_id: row for row in rows}


async def origin_protocols(*, session: AsyncSession, notices: list[Notice]) -> dict[int, str]:
    """The protocol of the case each of these notices came from (CP Art. 32), by notice id; staff know a case by it."""
    case_ids = {notice.case_id for notice in notices if notice.case_id is not None}
    if not case_ids:
        return {}
    rows = (await session.exec(select(Case.id, Case.protocol).where(col(Case.id).in_(list(case_ids))))).all()
    protocols = dict(rows)
    return {notice.id: protocols[notice.case_id] for notice in notices
            if notice.id is not None and notice.case_id is not None and notice.case_id in protocols}
