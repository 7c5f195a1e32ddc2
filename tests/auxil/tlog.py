"""Helpers for tests of the transparency log: verify it with the tests' key."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from models.tlog.heads import TreeHead, signing_key
from models.tlog.proofs import run
from models.tlog.verification import LogReport, verify_log


async def verify(session: AsyncSession, external: TreeHead | None = None) -> LogReport:
    """``notice verify`` on the test database, with the key installed for the tests."""
    key = signing_key()
    return await run(session, lambda connection: verify_log(
        connection, key=None if key is None else key.public_key(), external=external))
