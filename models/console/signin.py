"""Signing in to the staff console without a password: a one-time link from the bot, then a server-side session.

``/painel`` asks :func:`issue_link` for a link (single use, valid ``BALCAO_CONSOLE_LINK_MINUTES``, at most
``BALCAO_CONSOLE_LINKS_PER_HOUR`` an hour). Only the SHA-256 of a link or session token is stored, and tokens are
compared in constant time. Opening the link shows a page; pressing its button redeems it (:func:`redeem_link`, one
conditional UPDATE, so two presses at once open one session) — a link preview fetched by a chat app cannot use it.
A session ends at sign-out, after ``BALCAO_CONSOLE_IDLE_MINUTES`` without a request, or
``BALCAO_CONSOLE_SESSION_HOURS`` after sign-in however busy it is (OWASP ASVS V3.3.1: an absolute lifetime, so a
stolen cookie kept warm dies too). The staff role is checked
again on every request (:func:`models.people.require_role`), so a member removed from staff is out at once.
"""

from __future__ import annotations

import datetime as dt
import enum
import hashlib
import hmac
import secrets
from dataclasses import dataclass

from sqlalchemy import func, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import ConsoleTimes
from models.audit import record
from models.console.tables import ConsoleLink, ConsoleSession
from models.people import ANY_MUNICIPALITY, Role, require_role

CONSOLE_ROLES = frozenset(Role)
"""Every staff role may sign in; each page checks the role it needs."""


class LinkProblem(enum.StrEnum):
    """Why a sign-in link was refused (each has its own page)."""

    UNKNOWN = "unknown"
    EXPIRED = "expired"
    USED = "used"
    NOT_STAFF = "not_staff"
    FOREIGN = "foreign"


class LinkRefused(Exception):
    """A sign-in link that cannot be used, and why."""

    def __init__(self, problem: LinkProblem) -> None:
        super().__init__(problem.value)
        self.problem = problem


class TooManyLinks(Exception):
    """The staff member asked for more links in the last hour than the setting allows."""


@dataclass(frozen=True, slots=True)
class IssuedLink:
    """A new sign-in link: the secret (shown once, in the bot) and when it stops working."""

    token: str
    expires_at: dt.datetime


@dataclass(frozen=True, slots=True)
class OpenedSession:
    """A session just opened: the secret for the cookie and whose it is."""

    token: str
    telegram_user_id: int


def digest(token: str) -> str:
    """The SHA-256 (hex) under which a token is stored."""
    return hashlib.sha256(token.encode()).hexdigest()


def csrf_token(session_token: str) -> str:
    """The CSRF token of a session, derived from its secret (so nothing more is stored)."""
    return hmac.new(session_token.encode(), b"balcao-console-csrf", hashlib.sha256).hexdigest()


def csrf_ok(session_token: str, given: str) -> bool:
    """Whether a form's CSRF token is the session's (constant time)."""
    return bool(given) and hmac.compare_digest(given.encode(), csrf_token(session_token).encode())


async def _find_link(session: AsyncSession, token: str) -> ConsoleLink | None:
    wanted = digest(token)
    found = (await session.exec(select(ConsoleLink).where(ConsoleLink.token_sha256 == wanted))).first()
    if found is None or not hmac.compare_digest(found.token_sha256.encode(), wanted.encode()):
        return None
    return found


async def issue_link(
    *, session: AsyncSession, telegram_user_id: int, now: dt.datetime, times: ConsoleTimes
) -> IssuedLink:
    """A one-time sign-in link for an active staff member (audited; the token is never logged).

    Raises:
        PermissionDenied: not active staff.
        TooManyLinks: ``BALCAO_CONSOLE_LINKS_PER_HOUR`` already asked for in the last hour.
    """
    await require_role(session=session, telegram_user_id=telegram_user_id, allowed=CONSOLE_ROLES,
                               municipality=ANY_MUNICIPALITY)
    recent = (
        await session.exec(
            select(func.count()).select_from(ConsoleLink).where(
                ConsoleLink.telegram_user_id == telegram_user_id,
                col(ConsoleLink.created_at) > now - dt.timedelta(hours=1),
            )
        )
    ).one()
    if recent >= times.links_per_hour:
        raise TooManyLinks
    token = secrets.token_urlsafe(32)
    expires = now + dt.timedelta(minutes=times.link_minutes)
    link = ConsoleLink(token_sha256=digest(token), telegram_user_id=telegram_user_id, created_at=now,
                       expires_at=expires)
    session.add(link)
    await session.flush()
    await record(session=session, actor=f"staff:{telegram_user_id}", action="console.link", entity="console_link",
                 entity_id=str(link.id))
    await session.commit()
    return IssuedLink(token=token, expires_at=expires)


async def _usable(session: AsyncSession, token: str, now: dt.datetime, signed_in_as: int | None) -> ConsoleLink:
    link = await _find_link(session, token)
    if link is None:
        raise LinkRefused(LinkProblem.UNKNOWN)
    if signed_in_as is not None and signed_in_as != link.telegram_user_id:
        raise LinkRefused(LinkProblem.FOREIGN)
    if link.used_at is not None:
        raise LinkRefused(LinkProblem.USED)
    if link.expires_at <= now:
        raise LinkRefused(LinkProblem.EXPIRED)
    try:
        await require_role(session=session, telegram_user_id=link.telegram_user_id, allowed=CONSOLE_ROLES,
                               municipality=ANY_MUNICIPALITY)
    except Exception as denied:
        raise LinkRefused(LinkProblem.NOT_STAFF) from denied
    return link


async def check_link(*, session: AsyncSession, token: str, now: dt.datetime, signed_in_as: int | None) -> int:
    """Whether a link could be used now, without using it (the page before the sign-in button).

    Args:
        session: database session.
        token: the secret from the link.
        now: the moment.
        signed_in_as: the staff member already signed in in this browser, if any (another's link is refused).

    Returns:
        The Telegram user id the link signs in.

    Raises:
        LinkRefused: unknown, expired, used, its owner is no longer staff, or someone else is signed in here.
    """
    return (await _usable(session, token, now, signed_in_as)).telegram_user_id


async def redeem_link(
    *, session: AsyncSession, token: str, now: dt.datetime, signed_in_as: int | None
) -> OpenedSession:
    """Use a link once and open a session (audited). Two redemptions at once: one wins, the other is refused.

    Raises:
        LinkRefused: as :func:`check_link`, or it was used a moment ago.
    """
    link = await _usable(session, token, now, signed_in_as)
    claimed = await session.exec(
        update(ConsoleLink)
        .where(col(ConsoleLink.id) == link.id, col(ConsoleLink.used_at).is_(None))
        .values(used_at=now)
    )
    if claimed.rowcount != 1:
        await session.rollback()
        raise LinkRefused(LinkProblem.USED)
    secret = secrets.token_urlsafe(32)
    opened = ConsoleSession(token_sha256=digest(secret), telegram_user_id=link.telegram_user_id, created_at=now,
                            last_seen_at=now)
    session.add(opened)
    await session.flush()
    await record(session=session, actor=f"staff:{link.telegram_user_id}", action="console.signin",
                 entity="console_session", entity_id=str(opened.id))
    await session.commit()
    return OpenedSession(token=secret, telegram_user_id=link.telegram_user_id)


async def session_owner(*, session: AsyncSession, token: str, now: dt.datetime, times: ConsoleTimes) -> int | None:
    """The staff member of a live session (marked used now), or None: unknown, ended, idle or past its lifetime.

    An idle or too old session is ended here, so it cannot come back. The role is not checked here: the caller
    checks it.
    """
    wanted = digest(token)
    found = (await session.exec(select(ConsoleSession).where(ConsoleSession.token_sha256 == wanted))).first()
    if found is None or found.ended_at is not None or not hmac.compare_digest(found.token_sha256.encode(),
                                                                                wanted.encode()):
        return None
    idle = now - found.last_seen_at > dt.timedelta(minutes=times.idle_minutes)
    if idle or now - found.created_at >= dt.timedelta(hours=times.session_hours):  # OWASP ASVS V3.3
        found.ended_at = now
        await session.commit()
        return None
    found.last_seen_at = now
    await session.commit()
    return found.telegram_user_id


async def end_session(*, session: AsyncSession, token: str, now: dt.datetime) -> None:
    """Sign out: the session cannot be used again (audited)."""
    found = (await session.exec(select(ConsoleSession).where(ConsoleSession.token_sha256 == digest(token)))).first()
    if found is None or found.ended_at is not None:
        return
    found.ended_at = now
    await record(session=session, actor=f"staff:{found.telegram_user_id}", action="console.signout",
                 entity="console_session", entity_id=str(found.id))
    await session.commit()
