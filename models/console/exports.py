"""What the console exports: cases, notices and notice deliveries, read in batches so memory stays flat.

Each export is a header and an async stream of row batches (keyset pagination by id, :data:`BATCH` rows at a
time). Nothing is cut by date, so today's rows are in. Personal data only where the viewer may see it: a case's
author by :func:`models.cases.views.may_see_author` (a restricted ombudsman author is the pseudonym, Lei 13.460/2017
Art. 10 §7); the offender's name on notices and deliveries only for the roles that issue and deliver notices.
CPFs and addresses are never exported. Each municipality's rows are exported with the viewer's role *there* (CF
Art. 30): staff other than admins export their own queue's cases, as in the list, and a restricted ombudsman case
only reaches the Ombudsman (:func:`models.cases.handling.cases_visible_to`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy.orm import aliased
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from models.cases.handling import cases_visible_to
from models.cases.tables import Case, CaseAuthor
from models.cases.views import may_see_author
from models.exports.cells import Cell
from models.notices.tables import Notice, NoticeDelivery
from models.people import Role, StaffMember
from models.rulebooks.catalogue import LAW_TITLES

BATCH = 1000
NOTICE_PERSONAL_ROLES = frozenset({Role.ADMIN, Role.CLERK, Role.INSPECTOR})
"""Who issues and delivers notices (``/emitir``, ``/entregas``) and so may see the offender's name."""

Rows = AsyncIterator[list[list[Cell]]]


@dataclass(frozen=True, slots=True)
class Export:
    """One export: its file stem, header and the batches of rows."""

    name: str
    header: list[str]  # English msgids: the column names, translated for the reader
    rows: Callable[[AsyncSession], Rows]


def _money(cents: int) -> Decimal:
    return Decimal(cents) / 100  # exact reais: 504.00, never the float 504.0


def cases_export(*, roles: Mapping[str, Role]) -> Export:
    """Every case of the viewer's queue in each municipality (every case where they are admin), oldest first.

    Args:
        roles: the viewer's role in each municipality exported (its queue there; whether they see the author).
    """
    by_place: dict[str | None, Role] = {slug: role for slug, role in roles.items()}
    reach = cases_visible_to(by_place)

    async def rows(session: AsyncSession) -> Rows:
        last = 0
        while True:
            statement = (select(Case, CaseAuthor, StaffMember.name)
                         .join(CaseAuthor, col(CaseAuthor.case_id) == Case.id)
                         .outerjoin(StaffMember, col(StaffMember.id) == Case.assigned_staff_id)
                         .where(reach, col(Case.id) > last).order_by(col(Case.id)).limit(BATCH))
            batch = (await session.exec(statement)).all()
            if not batch:
                return
            yield [[
                case.protocol, case.kind, case.ombudsman_type, case.status, case.handling_role, case.received_at,
                case.due_on, case.closed_at, assignee, case.summary, case.place_text, case.accused,
                author.name if may_see_author(case, roles[case.municipality]) else f"#{author.pseudonym}",
                case.outcome, case.outcome_reason,
            ] for case, author, assignee in batch]
            last = batch[-1][0].id or last

    return Export(name="casos", header=[
        N_("Protocol"), N_("Kind"), N_("Type of ombudsman case"), N_("Status"), N_("Queue"), N_("Received on"),
        N_("Due by"), N_("Closed on"), N_("Assigned to"), N_("Summary"), N_("Where"), N_("Who is accused"),
        N_("Author"), N_("Decision"), N_("Reason"),
    ], rows=rows)


def _personal(roles: Mapping[str, Role], notice: Notice) -> bool:
    return roles[notice.municipality] in NOTICE_PERSONAL_ROLES


def notices_export(*, roles: Mapping[str, Role]) -> Export:
    """Every penalty notice, oldest first; the offender's name only where the viewer handles notices.

    Args:
        roles: the viewer's role in each municipality exported (whether they see the offender's name there).
    """
    places = col(Notice.municipality).in_(list(roles))
    origin = aliased(Case)

    async def rows(session: AsyncSession) -> Rows:
        last = 0
        while True:
            batch = (await session.exec(
                select(Notice, origin.protocol).outerjoin(origin, col(origin.id) == Notice.case_id)
                .where(places, col(Notice.id) > last).order_by(col(Notice.id)).limit(BATCH))).all()
            if not batch:
                return
            yield [[
                notice.number, notice.type, LAW_TITLES.get(notice.rulebook, notice.rulebook), notice.infraction_code,
                notice.infraction_article, notice.offender_name if _personal(roles, notice) else None, notice.place,
                notice.drawn_up_at, notice.issued_at, _money(notice.fine_cents), notice.recidivist, notice.stage,
                notice.outcome, protocol,
            ] for notice, protocol in batch]
            last = batch[-1][0].id or last

    return Export(name="notificacoes", header=[
        N_("Number"), N_("Kind"), N_("Law"), N_("Infraction"), N_("Article"), N_("Person notified"), N_("Where"),
        N_("Drawn up on"), N_("Issued on"), N_("Fine (R$)"), N_("Repeat offence"), N_("Stage"), N_("Decision"),
        N_("Case of origin"),
    ], rows=rows)


def deliveries_export(*, roles: Mapping[str, Role]) -> Export:
    """Every delivery of a notice or decision, with how and when the ciência came.

    Args:
        roles: the viewer's role in each municipality exported (whether they see the offender's name there).
    """
    places = col(Notice.municipality).in_(list(roles))

    async def rows(session: AsyncSession) -> Rows:
        last = 0
        while True:
            batch = (await session.exec(
                select(NoticeDelivery, Notice).join(Notice, col(Notice.id) == NoticeDelivery.notice_id)
                .where(places, col(NoticeDelivery.id) > last).order_by(col(NoticeDelivery.id)).limit(BATCH))).all()
            if not batch:
                return
            yield [[
                notice.number, notice.offender_name if _personal(roles, notice) else None, delivery.document,
                delivery.state, delivery.staff_reason, delivery.sent_at, delivery.edital_published_on,
                delivery.ciencia_on, delivery.ciencia_kind, delivery.created_at,
            ] for delivery, notice in batch]
            last = batch[-1][0].id or last

    return Export(name="entregas", header=[
        N_("Notice"), N_("Person notified"), N_("Document"), N_("Delivery"), N_("Why staff deliver it"),
        N_("Sent on"), N_("Edital published on"), N_("Ciência on"), N_("How the ciência came"), N_("Written on"),
    ], rows=rows)
