"""Half-filled forms kept in the database, so a conversation survives a restart.

A person has at most one active draft. Each conversation (a representação, an ombudsman case, a staff
broadcast, …) stores its current step and the answers given so far here after every step; a restarted
bot reads the draft back and asks the same question again.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Column, String
from sqlmodel import Field, SQLModel, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.columns import JSONData, UTCDateTime, json_default, utcnow


class Draft(SQLModel, table=True):
    """The form a person is filling in, its step and the answers so far."""

    __tablename__ = "draft"

    id: int | None = Field(default=None, primary_key=True)
    person_id: int = Field(foreign_key="person.id", unique=True, index=True)
    form: str = Field(sa_column=Column(String(32), nullable=False))
    step: str = Field(sa_column=Column(String(32), nullable=False))
    data: dict[str, Any] = Field(default_factory=json_default, sa_column=Column(JSONData, nullable=False))
    updated_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))


async def get_draft(*, session: AsyncSession, person_id: int) -> Draft | None:
    """The person's active draft, if any."""
    return (await session.exec(select(Draft).where(Draft.person_id == person_id))).first()


async def save_draft(
    *, session: AsyncSession, person_id: int, form: str, step: str, data: dict[str, Any]
) -> Draft:
    """Create or replace the person's draft and commit, so the step survives a crash right after."""
    draft = await get_draft(session=session, person_id=person_id)
    if draft is None:
        draft = Draft(person_id=person_id, form=form, step=step, data=dict(data))
        session.add(draft)
    else:
        draft.form, draft.step, draft.data, draft.updated_at = form, step, dict(data), utcnow()
    await session.commit()
    await session.refresh(draft)
    return draft


async def discard_draft(*, session: AsyncSession, person_id: int) -> str | None:
    """Delete the person's draft; return the name of the form that was discarded, if any."""
    draft = await get_draft(session=session, person_id=person_id)
    if draft is None:
        return None
    form = draft.form
    await session.delete(draft)
    await session.commit()
    return form
