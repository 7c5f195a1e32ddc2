"""Ending a staff role: the member is out at once, everywhere (LGPD Art. 46: access only for who still has the job).

``python -m bot staff remove TELEGRAM_ID`` and the console's *Equipe* page call :func:`end_role`. It sets the role
inactive (the row stays, for the audit log and the cases it worked), and in the same transaction ends every console
session of the member, kills their unused sign-in links and revokes their personal API tokens, so nothing they
hold still works even if a role is given back later; the audit log records who ended which role.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.audit import record
from models.console.api_tokens import revoke_all_api_tokens
from models.console.tables import ConsoleLink, ConsoleSession
from models.people import StaffMember


class NoSuchRole(LookupError):
    """The member holds no active role there."""


@dataclass(frozen=True, slots=True)
class EndedRole:
    """What ending a role did."""

    telegram_user_id: int
    role: str
    municipality: str | None
    sessions_ended: int
    links_revoked: int
    tokens_revoked: int


async def end_role(*, session: AsyncSession, telegram_user_id: int, municipality: str | None, actor: str,
                   now: dt.datetime) -> EndedRole:
    """End a member's role in a municipality (``None``: the deployment-wide role) and sign them out everywhere.

    Args:
        session: database session (committed here).
        telegram_user_id: the member.
        municipality: where the role is held; ``None``: the role held in every municipality.
        actor: who ends it, for the audit log (``"cli"``, ``"staff:<id>"``).
        now: the moment.

    Raises:
        NoSuchRole: the member has no active role there.
    """
    member = (await session.exec(select(StaffMember).where(
        StaffMember.telegram_user_id == telegram_user_id, StaffMember.municipality == municipality,
        StaffMember.active == True))).first()  # noqa: E712
    if member is None:
        raise NoSuchRole(f"no active role of {telegram_user_id} in {municipality}")
    member.active = False
    sessions = await session.exec(
        update(ConsoleSession)
        .where(col(ConsoleSession.telegram_user_id) == telegram_user_id, col(ConsoleSession.ended_at).is_(None))
        .values(ended_at=now)
    )
    links = await session.exec(
        update(ConsoleLink)
        .where(col(ConsoleLink.telegram_user_id) == telegram_user_id, col(ConsoleLink.used_at).is_(None),
               col(ConsoleLink.expires_at) > now)
        .values(expires_at=now)
    )
    tokens = await revoke_all_api_tokens(session=session, telegram_user_id=telegram_user_id, now=now)
    ended = EndedRole(telegram_user_id=telegram_user_id, role=member.role.value, municipality=municipality,
                      sessions_ended=int(sessions.rowcount or 0), links_revoked=int(links.rowcount or 0),
                      tokens_revoked=tokens)
    await record(session=session, actor=actor, action="staff.remove", entity="staff_member",
                 entity_id=str(member.id), details={
                     "telegram_user_id": telegram_user_id, "role": ended.role, "municipality": municipality,
                     "sessions_ended": ended.sessions_ended, "links_revoked": ended.links_revoked,
                     "tokens_revoked": ended.tokens_revoked})
    await session.commit()
    return ended


@dataclass(frozen=True, slots=True)
class TeamMember:
    """A line of the console's *Equipe* page."""

    telegram_user_id: int
    name: str
    role: str
    municipality: str | None


async def team(*, session: AsyncSession, municipalities: tuple[str, ...] | None) -> list[TeamMember]:
    """The active roles held in these municipalities (``None``: every one, deployment-wide roles included)."""
    statement = select(StaffMember).where(StaffMember.active == True)  # noqa: E712
    if municipalities is not None:
        statement = statement.where(col(StaffMember.municipality).in_(municipalities))
    rows = (await session.exec(statement.order_by(col(StaffMember.name), col(StaffMember.id)))).all()
    return [TeamMember(telegram_user_id=row.telegram_user_id, name=row.name, role=row.role.value,
                       municipality=row.municipality) for row in rows]
