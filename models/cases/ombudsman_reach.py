"""Someone to read each restricted ombudsman complaint (issue 20 §1).

A complaint whose author restricted their identity is the Ombudsman's alone (L13460 Art. 10 §7;
:mod:`models.cases.access`). A municipality with no Ombudsman leaves it with nobody: its author is told an answer
comes within 30 days (L13460 Art. 16) while no one may open it. So ``run`` warns at start for each municipality
without an Ombudsman, and an admin is told how many restricted complaints wait there — the count only, never their
content, author or protocol (L13460 Art. 10 §7: to anyone but the Ombudsman they do not exist).
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import Translator
from models.cases.tables import FINAL_STATUSES, Case, CaseKind
from models.people import Role, StaffMember, staff_roles


async def ombudsman_places(*, session: AsyncSession) -> tuple[bool, frozenset[str]]:
    """Where an active Ombudsman works: (one holds the role deployment-wide, the municipalities of the others)."""
    places = (await session.exec(select(StaffMember.municipality).where(
        StaffMember.role == Role.OMBUDSMAN, StaffMember.active == True))).all()  # noqa: E712
    return None in places, frozenset(place for place in places if place is not None)


async def without_ombudsman(*, session: AsyncSession, municipalities: Iterable[str]) -> list[str]:
    """The municipalities, of those given, where nobody may read a restricted complaint (no active Ombudsman).

    Args:
        session: database session.
        municipalities: the slugs to check (the deployment's, at ``run``).
    """
    everywhere, places = await ombudsman_places(session=session)
    return [] if everywhere else [slug for slug in municipalities if slug not in places]


async def restricted_waiting_unread(
    *, session: AsyncSession, municipalities: Iterable[str]
) -> dict[str, int]:
    """Per municipality without an Ombudsman, how many open restricted complaints wait for one (counts only).

    Args:
        session: database session.
        municipalities: the municipalities the reader administers.
    """
    orphaned = await without_ombudsman(session=session, municipalities=municipalities)
    if not orphaned:
        return {}
    rows = (await session.exec(
        select(Case.municipality, func.count()).where(
            Case.kind == CaseKind.OMBUDSMAN, col(Case.identity_restricted).is_(True),
            col(Case.status).not_in([s.value for s in FINAL_STATUSES]),
            col(Case.municipality).in_(orphaned))
        .group_by(Case.municipality))).all()
    return {slug: count for slug, count in rows if count}


async def unread_for_admin(
    *, session: AsyncSession, telegram_user_id: int, deployment: Iterable[str]
) -> dict[str, int]:
    """:func:`restricted_waiting_unread` for the municipalities where this member is an admin (none: empty).

    Args:
        session: database session.
        telegram_user_id: the staff member.
        deployment: every municipality of the deployment (an admin held deployment-wide administers them all).
    """
    roles = await staff_roles(session=session, telegram_user_id=telegram_user_id)
    if roles.get(None) is Role.ADMIN:
        places = list(deployment)
    else:
        places = [slug for slug, role in roles.items() if slug is not None and role is Role.ADMIN]
    return await restricted_waiting_unread(session=session, municipalities=places) if places else {}


def unread_restricted_text(tr: Translator, *, count: int, city: str) -> str:
    """What an admin reads of the complaints waiting for an Ombudsman: how many and where, and what to do."""
    return tr.ngettext(
        "{count} complaint with restricted identity waits in {city}, which has no Ombudsman: nobody may open it. "
        "Name one (python -m bot staff add ID --role ombudsman).",
        "{count} complaints with restricted identity wait in {city}, which has no Ombudsman: nobody may open "
        "them. Name one (python -m bot staff add ID --role ombudsman).", count).format(
        count=tr.number(count), city=city)
