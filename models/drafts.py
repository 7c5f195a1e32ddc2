"""Half-filled forms kept in the database, so a conversation survives a restart.

A person has at most one active draft. Filing a draft is claimed once in ``form_submission`` (one row per form
instance), so a double tap on Send files one case and the second press can be told the protocol number.

A person has at most one active draft. Each conversation (a representação, an ombudsman case, a staff
broadcast, …) stores its current step and the answers given so far here after every step; a restarted
bot reads the draft back and asks the same question again.

A step's save merges what that step changed into the draft as it is now (``base``: the answers as the turn read
them), under a version check, so it never writes back a whole draft read before another update's write.
``asked`` is false from the save of a new step until its question was delivered: after a crash or a refused
reply in between, the form asks that question again before it takes anything typed as its answer.
"""

from __future__ import annotations

import copy
import datetime as dt
from typing import Any

from sqlalchemy import Boolean, Column, Integer, String, delete, true, update
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
    version: int = Field(default=0, sa_column=Column(Integer, nullable=False, server_default="0"))
    asked: bool = Field(default=True, sa_column=Column(Boolean, nullable=False, server_default=true()))


MERGE_TRIES = 5
"""Saves retried when another write changed the draft between the read and the write (version check)."""


def merged(current: dict[str, Any], base: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """``current`` with what changed from ``base`` to ``data``.

    Keys set or removed, items appended to lists, and the same, key by key, inside a mapping. A list that ``data``
    extends (``base``'s items first, then new ones, as a file step's photos) gets only the new items appended to
    ``current``'s list, so two photos of one album saved from the same read both stay.
    """
    result = copy.deepcopy(current)
    for key in base.keys() - data.keys():
        result.pop(key, None)
    for key, value in data.items():
        before = base.get(key)
        if key in base and before == value:
            continue
        now = result.get(key)
        if isinstance(value, list) and isinstance(before, list) and isinstance(now, list) \
                and value[: len(before)] == before:
            result[key] = [*now, *(item for item in value[len(before):] if item not in now)]
        elif isinstance(value, dict) and isinstance(before, dict) and isinstance(now, dict):
            result[key] = merged(now, before, value)  # e.g. the message id of each typed answer
        else:
            result[key] = copy.deepcopy(value)
    return result


async def get_draft(*, session: AsyncSession, person_id: int) -> Draft | None:
    """The person's active draft, if any."""
    return (await session.exec(select(Draft).where(Draft.person_id == person_id))).first()


async def save_draft(
    *,
    session: AsyncSession,
    person_id: int,
    form: str,
    step: str,
    data: dict[str, Any],
    base: dict[str, Any] | None = None,
    asked: bool = True,
) -> Draft:
    """Save the person's draft and commit, so the step survives a crash right after.

    Args:
        session: database session.
        person_id: whose draft.
        form: the form's name.
        step: the step the draft is now on.
        data: the answers as the turn has them.
        base: the answers as the turn read them: only what changed since is merged into the draft as stored now;
            None (a form started afresh) replaces the draft's answers.
        asked: False when the question of ``step`` is still to be delivered (:func:`mark_asked` after).

    Returns:
        The draft as saved (its ``data`` the merged answers).
    """
    for _ in range(MERGE_TRIES):
        draft = await get_draft(session=session, person_id=person_id)
        if draft is None:
            draft = Draft(person_id=person_id, form=form, step=step, data=copy.deepcopy(data), asked=asked)
            session.add(draft)
            try:
                await session.commit()
            except IntegrityError:  # another update of this person created it first: merge into theirs
                await session.rollback()
                continue
            return draft
        session.expunge(draft)  # the row is written by the version check below, never from this copy
        answers = copy.deepcopy(data) if base is None or draft.form != form else merged(draft.data, base, data)
        result = await session.exec(
            update(Draft)
            .where(col(Draft.id) == draft.id, col(Draft.version) == draft.version)
            .values(form=form, step=step, data=answers, updated_at=utcnow(), version=draft.version + 1, asked=asked)
            .execution_options(synchronize_session=False)
        )
        await session.commit()
        if result.rowcount:
            draft.form, draft.step, draft.data, draft.asked = form, step, answers, asked
            draft.version += 1
            return draft
        # another write came in between: read it again and merge into it
    raise RuntimeError(f"the draft of person {person_id} kept changing under its save")


async def mark_asked(*, session: AsyncSession, person_id: int, step: str) -> None:
    """Record that the question of ``step`` was delivered (committed); nothing if the draft moved on since."""
    await session.exec(
        update(Draft).where(col(Draft.person_id) == person_id, col(Draft.step) == step, col(Draft.asked).is_(False))
        .values(asked=True)
    )
    await session.commit()


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
