"""The console's list of cases: the staff queue (same role rule and deadline as ``/pendencias``) with filters.

Filters: kind, status (open by default), assignee (me, nobody, a colleague), deadline (overdue, due within 7 days)
and free text over the protocol, summary, place and accused — never over the author, who may be restricted
(L13460 Art. 10 §7). Sorted by the working deadline (:func:`models.cases.handling.queue_deadline`);
pages of 50 are read with ``LIMIT 51`` so no count of the whole table is needed to know there is a next page.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.cases.handling import ALL_STAFF, cases_visible_to, queue_deadline, queue_item, staff_actor
from models.cases.tables import FINAL_STATUSES, Case, CaseKind, CaseStatus
from models.cases.views import QueueItem
from models.people import ANY_MUNICIPALITY, Role, StaffMember, staff_roles

PER_PAGE = 50
OPEN = "open"
ALL = "all"


@dataclass(frozen=True, slots=True)
class CaseFilters:
    """What the list is narrowed to (all optional; ``status`` ``"open"`` by default)."""

    kind: CaseKind | None = None
    status: CaseStatus | str = OPEN
    assignee: str | None = None  # "me", "none" or a staff_member id
    due: str | None = None  # "overdue" or "week"
    text: str = ""
    page: int = 1


@dataclass(frozen=True, slots=True)
class CasePage:
    """One page of the list."""

    items: list[QueueItem]
    assignees: dict[int, str]
    page: int
    has_next: bool


def like_pattern(text: str) -> str:
    """A LIKE pattern that finds ``text`` anywhere, its wildcards taken literally (escaped with a backslash)."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _case_conditions(filters: CaseFilters) -> list[ColumnElement[bool]]:
    """The SQL conditions of the filters on the case itself: its kind, its status, the text searched."""
    conditions: list[ColumnElement[bool]] = []
    if filters.kind is not None:
        conditions.append(col(Case.kind) == filters.kind)
    if filters.status == OPEN:
        conditions.append(col(Case.status).not_in([s.value for s in FINAL_STATUSES]))
    elif isinstance(filters.status, CaseStatus):
        conditions.append(col(Case.status) == filters.status)
    text = filters.text.strip()[:100]
    if text:
        pattern = like_pattern(text)
        conditions.append(or_(
            col(Case.protocol).ilike(pattern, escape="\\"), col(Case.summary).ilike(pattern, escape="\\"),
            col(Case.place_text).ilike(pattern, escape="\\"), col(Case.accused).ilike(pattern, escape="\\"),
        ))
    return conditions


def _work_conditions(filters: CaseFilters, *, member_ids: set[int], deadline: Any,
                     today: dt.date) -> list[ColumnElement[bool]]:
    """The SQL conditions of the filters on the work: whose the case is, how near its deadline."""
    conditions: list[ColumnElement[bool]] = []
    if filters.assignee == "me":
        conditions.append(col(Case.assigned_staff_id).in_(member_ids))
    elif filters.assignee == "none":
        conditions.append(col(Case.assigned_staff_id).is_(None))
    elif filters.assignee and filters.assignee.isdecimal() and len(filters.assignee) < 10:
        conditions.append(col(Case.assigned_staff_id) == int(filters.assignee))
    if filters.due == "overdue":
        conditions.append(deadline < today)
    elif filters.due == "week":
        conditions.append(deadline <= today + dt.timedelta(days=7))
    return conditions


async def list_cases(
    *, session: AsyncSession, telegram_user_id: int, filters: CaseFilters, today: dt.date, per_page: int = PER_PAGE,
    municipalities: tuple[str, ...] | None = None,
) -> CasePage:
    """One page of the cases this staff member works (their role's; every role for admins).

    Args:
        session: database session.
        telegram_user_id: the staff member.
        filters: what the list is narrowed to.
        today: the civil date, for the deadlines.
        per_page: rows per page.
        municipalities: only these municipalities' cases (the console's choice); ``None``: wherever a role reaches.

    Raises:
        PermissionDenied: not staff.
    """
    await staff_actor(session=session, telegram_user_id=telegram_user_id, allowed=ALL_STAFF,
                      municipality=ANY_MUNICIPALITY)  # any console role, somewhere; the cases shown depend on where
    roles = await staff_roles(session=session, telegram_user_id=telegram_user_id)
    member_ids = {member_id for member_id in (await session.exec(select(StaffMember.id).where(
        StaffMember.telegram_user_id == telegram_user_id))).all() if member_id is not None}
    deadline = queue_deadline()
    # per municipality, the role's queue; restricted ombudsman cases only to the Ombudsman (L13460 Art. 10 §7)
    statement = select(Case).where(cases_visible_to(roles))
    if municipalities is not None:
        statement = statement.where(col(Case.municipality).in_(municipalities))
    statement = statement.where(*_case_conditions(filters), *_work_conditions(
        filters, member_ids=member_ids, deadline=deadline, today=today))
    page = max(1, filters.page)
    statement = statement.order_by(deadline, col(Case.id)).offset((page - 1) * per_page).limit(per_page + 1)
    cases = list((await session.exec(statement)).all())
    items = [queue_item(case, today=today, my_member_ids=member_ids) for case in cases[:per_page]]
    wanted = {item.assigned_staff_id for item in items if item.assigned_staff_id is not None}
    names: dict[int, str] = {}
    if wanted:
        for member in (await session.exec(select(StaffMember).where(col(StaffMember.id).in_(wanted)))).all():
            assert member.id is not None
            names[member.id] = member.name or f"#{member.id}"
    return CasePage(items=items, assignees=names, page=page, has_next=len(cases) > per_page)


async def colleagues(*, session: AsyncSession, role: Role, municipalities: tuple[str, ...] | None = None,
                     viewer: int | None = None) -> list[StaffMember]:
    """Active staff who may be given cases of ``role`` (that role and admins), by name, each person once.

    Someone who holds roles in two municipalities, or in one and deployment-wide, has a row for each; a case is
    assigned by the person (their Telegram id), so the person is offered once, by the row of the municipalities
    shown. The viewer is not in the list: the form offers them as "Me".

    Args:
        session: database session.
        role: the queue's role.
        municipalities: only staff holding the role in one of these (or deployment-wide); ``None``: anywhere.
        viewer: the Telegram id of the staff member reading the page, left out.
    """
    statement = select(StaffMember).where(
        StaffMember.active == True,  # noqa: E712
        col(StaffMember.role).in_([role, Role.ADMIN]),
    ).order_by(col(StaffMember.name), col(StaffMember.id))
    if municipalities is not None:
        statement = statement.where(or_(col(StaffMember.municipality).is_(None),
                                        col(StaffMember.municipality).in_(municipalities)))
    people: dict[int, StaffMember] = {}
    for member in (await session.exec(statement)).all():
        if member.telegram_user_id == viewer:
            continue
        held = people.get(member.telegram_user_id)
        if held is None or (held.municipality is None and member.municipality is not None):
            people[member.telegram_user_id] = member
    return sorted(people.values(), key=lambda member: (member.name, member.id or 0))
