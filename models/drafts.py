"""Half-filled forms kept in the database, so a conversation survives a restart.

A person has at most one active draft. Filing a draft is claimed once in ``form_submission`` (one row per form
instance), so a double tap on Send files one case and the second press can be told the protocol number.

A person has at most one active draft. Each conversation (a representação, an ombudsman case, a staff
broadcast, …) stores its current step and the answers given so far here after every step; a restarted
bot reads the draft back and asks the same question again.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Column, String, delete, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Field, SQLModel, col, select
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


class FormSubmission(SQLModel, table=True):
    """A form being filed or filed: claimed once per form instance, so repeated presses of Send file it once.

    ``key`` is the random token the form got when it was started (kept in its draft's data); ``result`` is what
    the filing gave (a protocol number), empty while the filing runs.
    """

    __tablename__ = "form_submission"

    id: int | None = Field(default=None, primary_key=True)
    person_id: int = Field(foreign_key="person.id", index=True)
    form: str = Field(sa_column=Column(String(32), nullable=False))
    key: str = Field(sa_column=Column(String(32), nullable=False, unique=True))
    result: str | None = Field(default=None, sa_column=Column(String(64), nullable=True))
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))


async def claim_submission(*, session: AsyncSession, person_id: int, form: str, key: str) -> bool:
    """Claim the filing of one form instance (committed); False when it was already claimed (sent or being sent).

    The unique ``key`` decides, in the database, which of several presses files the form, even across processes.
    """
    session.add(FormSubmission(person_id=person_id, form=form, key=key))
    try:
        await session.commit()
    except IntegrityError:
        await session.rollback()
        return False
    return True


async def release_submission(*, session: AsyncSession, key: str) -> None:
    """Give a claim back when the filing was refused, so the person can change the form and send it again."""
    await session.exec(delete(FormSubmission).where(col(FormSubmission.key) == key))
    await session.commit()


async def finish_submission(*, session: AsyncSession, person_id: int, key: str, result: str) -> None:
    """Record what the filing gave and close the draft it came from, in one transaction."""
    await session.exec(update(FormSubmission).where(col(FormSubmission.key) == key).values(result=result))
    draft = await get_draft(session=session, person_id=person_id)
    if draft is not None and draft.data.get("key") == key:
        await session.delete(draft)
    await session.commit()


async def find_submission(
    *, session: AsyncSession, person_id: int, form: str, key: str | None = None
) -> FormSubmission | None:
    """The submission of one form instance (``key``), or the person's latest of ``form`` when no key is given."""
    statement = select(FormSubmission).where(FormSubmission.person_id == person_id, FormSubmission.form == form)
    if key is not None:
        statement = statement.where(FormSubmission.key == key)
    return (await session.exec(statement.order_by(col(FormSubmission.id).desc()))).first()
