"""Reading the audit log for the console: filtered by actor, entity (and its id) and civil dates, newest first.

The console's readers are admins, and a restricted ombudsman case does not exist for them (Lei 13.460/2017
Art. 10 §7): its entries (the filing, the author's steps, the Ombudsman's acts) are left out of every page, so the
log shows neither the case nor who stood next to it. The entries stay in the log itself (and in ``notice verify``).
The author's own steps are recorded as ``author`` (``models.cases.timeline.AUTHOR_ACTOR``), never as the person.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from sqlalchemy import String, and_, cast
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.audit import AuditEvent
from models.cases.tables import Case, CaseKind

PER_PAGE = 100


@dataclass(frozen=True, slots=True)
class AuditFilters:
    """What the log is narrowed to (empty: everything)."""

    actor: str = ""
    entity: str = ""
    entity_id: str = ""
    since: dt.date | None = None
    until: dt.date | None = None
    page: int = 1


def _start(day: dt.date, tz: ZoneInfo) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(), tzinfo=tz).astimezone(dt.UTC)


async def audit_page(*, session: AsyncSession, filters: AuditFilters, tz: ZoneInfo) -> tuple[list[AuditEvent], bool]:
    """One page of events and whether there is another; dates are whole civil days in ``tz``."""
    restricted = select(cast(col(Case.id), String)).where(
        col(Case.kind) == CaseKind.OMBUDSMAN.value, col(Case.identity_restricted) == True)  # noqa: E712
    statement = select(AuditEvent).where(~and_(col(AuditEvent.entity) == "citizen_case",
                                               col(AuditEvent.entity_id).in_(restricted)))
    if filters.actor:
        statement = statement.where(AuditEvent.actor == filters.actor)
    if filters.entity:
        statement = statement.where(AuditEvent.entity == filters.entity)
    if filters.entity_id:
        statement = statement.where(AuditEvent.entity_id == filters.entity_id)
    if filters.since:
        statement = statement.where(col(AuditEvent.at) >= _start(filters.since, tz))
    if filters.until:
        statement = statement.where(col(AuditEvent.at) < _start(filters.until + dt.timedelta(days=1), tz))
    page = max(1, filters.page)
    rows = list((await session.exec(statement.order_by(col(AuditEvent.id).desc())
                                    .offset((page - 1) * PER_PAGE).limit(PER_PAGE + 1))).all())
    return rows[:PER_PAGE], len(rows) > PER_PAGE
