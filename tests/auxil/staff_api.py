"""Calling the staff HTTP API in tests: a member's own personal token, issued by the same function as the console."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from models.columns import utcnow
from models.console.api_tokens import issue_api_token


async def own_token(session: AsyncSession, telegram_user_id: int, label: str = "testes") -> dict[str, str]:
    """The headers of a request made with the member's own personal token (it names and proves them)."""
    issued = await issue_api_token(session=session, telegram_user_id=telegram_user_id, label=label, now=utcnow())
    return {"Authorization": f"Bearer {issued.token}"}
