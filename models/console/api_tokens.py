"""Personal staff API tokens: each staff member's own credential for the staff HTTP API, which names and proves them.

A member issues their tokens in the console (*Minhas chaves da API*); a token is shown once, only its SHA-256 is
kept, it is compared in constant time, and issuing and revoking are audited (never the token). Ending a member's
role revokes them all (:func:`models.console.roles.end_role`). The deployment-wide ``BALCAO_STAFF_API_TOKEN`` only
*names* a member (``X-Balcao-Staff``) and is deprecated: it reads no restricted ombudsman case (Lei 13.460/2017
Art. 10 §7).
"""

from __future__ import annotations

import datetime as dt
import hmac
import secrets
from dataclasses import dataclass

from sqlalchemy import update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from models.audit import record
from models.console.signin import CONSOLE_ROLES, digest
from models.console.tables import StaffApiToken
from models.invalid_input import InvalidInput
from models.people import ANY_MUNICIPALITY, require_role

PREFIX = "bst_"
"""The start of every personal token, so a leaked one is recognisable (secret scanners, logs)."""
MAX_ACTIVE = 5
"""Active tokens one member may hold (one per tool that calls the API is plenty)."""


class TokenRefused(InvalidInput):
    """A token that cannot be issued (bad label, too many) or revoked (not the member's, already revoked)."""


@dataclass(frozen=True, slots=True)
class IssuedToken:
    """A token just issued: the secret (shown once) and its row."""

    token: str
    token_id: int


async def issue_api_token(*, session: AsyncSession, telegram_user_id: int, label: str, now: dt.datetime
                          ) -> IssuedToken:
    """Issue a personal API token to an active staff member (audited; only its SHA-256 is kept).

    Args:
        session: database session (committed here).
        telegram_user_id: the member, who will be the token's only holder.
        label: what the member calls it (1 to 64 characters, e.g. "planilha da fiscalização").
        now: the moment.

    Raises:
        PermissionDenied: not active staff.
        TokenRefused: the label is empty or too long, or :data:`MAX_ACTIVE` tokens are already active.
    """
    await require_role(session=session, telegram_user_id=telegram_user_id, allowed=CONSOLE_ROLES,
                       municipality=ANY_MUNICIPALITY)
    label = " ".join(label.split())
    if not label or len(label) > 64:
        raise TokenRefused(N_("Give the token a name of 1 to 64 characters."))
    active = await list_api_tokens(session=session, telegram_user_id=telegram_user_id)
    if sum(1 for token in active if token.revoked_at is None) >= MAX_ACTIVE:
        raise TokenRefused(N_("You already have {n} active tokens. Revoke one you no longer use first."), n=MAX_ACTIVE)
    secret = PREFIX + secrets.token_urlsafe(32)
    row = StaffApiToken(token_sha256=digest(secret), telegram_user_id=telegram_user_id, label=label, created_at=now)
    session.add(row)
    await session.flush()
    assert row.id is not None
    await record(session=session, actor=f"staff:{telegram_user_id}", action="api_token.issue",
                 entity="staff_api_token", entity_id=str(row.id))
    await session.commit()
    return IssuedToken(token=secret, token_id=row.id)


async def list_api_tokens(*, session: AsyncSession, telegram_user_id: int) -> list[StaffApiToken]:
    """A member's tokens, newest first (revoked ones too, with when)."""
    statement = select(StaffApiToken).where(StaffApiToken.telegram_user_id == telegram_user_id)
    return list((await session.exec(statement.order_by(col(StaffApiToken.id).desc()))).all())


async def revoke_api_token(*, session: AsyncSession, telegram_user_id: int, token_id: int, now: dt.datetime) -> None:
    """Revoke one of the member's own tokens at once (audited).

    Raises:
        TokenRefused: no active token of this member has that id.
    """
    row = await session.get(StaffApiToken, token_id)
    if row is None or row.telegram_user_id != telegram_user_id or row.revoked_at is not None:
        raise TokenRefused(N_("No active token of yours has that number."))
    row.revoked_at = now
    await record(session=session, actor=f"staff:{telegram_user_id}", action="api_token.revoke",
                 entity="staff_api_token", entity_id=str(token_id))
    await session.commit()


async def revoke_all_api_tokens(*, session: AsyncSession, telegram_user_id: int, now: dt.datetime) -> int:
    """Revoke every active token of a member, in the caller's transaction; return how many (not committed here)."""
    result = await session.exec(
        update(StaffApiToken)
        .where(col(StaffApiToken.telegram_user_id) == telegram_user_id, col(StaffApiToken.revoked_at).is_(None))
        .values(revoked_at=now)
    )
    return int(result.rowcount or 0)


async def token_holder(*, session: AsyncSession, token: str, now: dt.datetime) -> int | None:
    """The Telegram user id of the holder of an active personal token (and mark it used), or None.

    The role is not checked here: the caller checks it on every request.
    """
    if not token.startswith(PREFIX):
        return None
    wanted = digest(token)
    found = (await session.exec(select(StaffApiToken).where(StaffApiToken.token_sha256 == wanted))).first()
    if found is None or found.revoked_at is not None or not hmac.compare_digest(found.token_sha256.encode(),
                                                                                wanted.encode()):
        return None
    found.last_used_at = now
    await session.commit()
    return found.telegram_user_id


async def note_shared_token_use(*, session: AsyncSession, named_staff: int, method: str, path: str,
                                status: int) -> None:
    """Record that a change was asked with the shared, deprecated token, which only *names* a member (audited).

    The domain's own entry names the member as the actor; this one says nothing proved it was them, so the log never
    passes off the shared token's holder as the member (L13460 Art. 10 §7).

    Args:
        session: database session (committed here).
        named_staff: the Telegram id the request named in ``X-Balcao-Staff``.
        method: the HTTP method.
        path: the path (no query string).
        status: the answer's status.
    """
    await record(session=session, actor="api:shared-token", action="api.shared_token", entity="staff_member",
                 entity_id=str(named_staff), details={"method": method, "path": path[:200], "status": status,
                                                      "proven": False})
    await session.commit()
