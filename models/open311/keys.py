"""Open311 API keys: one per client system, issued by an admin, stored hashed, checked in constant time.

``python -m bot open311 key add NAME`` prints a new key once; ``key revoke NAME`` stops it at once.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.audit import record
from models.open311.tables import Open311Client


class ClientKeyRefused(LookupError):
    """A key operation that cannot be done (an unknown client, or one that already has a key)."""


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


async def issue_key(*, session: AsyncSession, name: str, now: dt.datetime, actor: str) -> str:
    """Issue a key for a client system and return it (it is shown only now; only its hash is kept).

    A revoked client gets a new key; an active one must be revoked first (one key per client system).

    Raises:
        ClientKeyRefused: the name is empty or too long, or the client already has an active key.
    """
    name = name.strip()
    if not name or len(name) > 64:
        raise ClientKeyRefused("a client name has 1 to 64 characters")
    key = secrets.token_urlsafe(32)
    client = (await session.exec(select(Open311Client).where(Open311Client.name == name))).first()
    if client is not None and client.revoked_at is None:
        raise ClientKeyRefused(f"{name} already has a key; revoke it first")
    if client is None:
        client = Open311Client(name=name, key_sha256=_digest(key), created_at=now)
        session.add(client)
    else:
        client.key_sha256 = _digest(key)
        client.created_at = now
        client.revoked_at = None
    await session.flush()
    await record(session=session, actor=actor, action="open311.key_add", entity="open311_client",
                 entity_id=str(client.id), details={"name": name})
    await session.commit()
    return key


async def revoke_key(*, session: AsyncSession, name: str, now: dt.datetime, actor: str) -> None:
    """Revoke a client system's key at once.

    Raises:
        ClientKeyRefused: no client of that name with an active key.
    """
    client = (await session.exec(select(Open311Client).where(Open311Client.name == name.strip()))).first()
    if client is None or client.revoked_at is not None:
        raise ClientKeyRefused(f"no active key named {name}")
    client.revoked_at = now
    await record(session=session, actor=actor, action="open311.key_revoke", entity="open311_client",
                 entity_id=str(client.id), details={"name": client.name})
    await session.commit()


async def client_for_key(*, session: AsyncSession, key: str) -> Open311Client | None:
    """The active client system holding ``key``, or None.

    Every active client's hash is compared with ``hmac.compare_digest``, without stopping at a match, so the
    time taken does not depend on which key (if any) matched.
    """
    if not key:
        return None
    given = _digest(key)
    found: Open311Client | None = None
    clients = (await session.exec(select(Open311Client).where(col(Open311Client.revoked_at).is_(None)))).all()
    for client in clients:
        if hmac.compare_digest(client.key_sha256, given):
            found = client
    return found
