"""Which optional reminder topics each person muted (/lembretes).

A topic groups optional messages (renewal reminders, announcements…); it is declared in
``notifications.topics``. Legal notices have no topic or are enqueued as mandatory, and are never muted.
The dispatcher checks the mutes at send time, so muting stops messages already queued and unmuting
lets the queued ones go.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection

from sqlalchemy import Column, String, UniqueConstraint
from sqlmodel import Field, SQLModel, col, delete, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.audit import record
from models.columns import UTCDateTime, utcnow


class ReminderMute(SQLModel, table=True):
    """A person does not want the optional messages of one topic."""

    __tablename__ = "reminder_mute"
    __table_args__ = (UniqueConstraint("person_id", "topic", name="uq_reminder_mute_person_topic"),)

    id: int | None = Field(default=None, primary_key=True)
    person_id: int = Field(foreign_key="person.id", index=True)
    topic: str = Field(sa_column=Column(String(48), nullable=False))
    muted_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))


async def muted_topics(*, session: AsyncSession, person_id: int) -> set[str]:
    """The topics a person muted."""
    rows = await session.exec(select(ReminderMute.topic).where(ReminderMute.person_id == person_id))
    return set(rows.all())


async def mutes_of(*, session: AsyncSession, person_ids: Collection[int]) -> set[tuple[int, str]]:
    """``(person_id, topic)`` for every mute of the given people (one query, for a batch of messages)."""
    if not person_ids:
        return set()
    rows = await session.exec(
        select(ReminderMute.person_id, ReminderMute.topic).where(col(ReminderMute.person_id).in_(list(person_ids)))
    )
    return {(person_id, topic) for person_id, topic in rows.all()}


async def set_topic_muted(*, session: AsyncSession, person_id: int, topic: str, muted: bool) -> bool:
    """Mute or unmute a topic for a person, audited (the caller commits).

    Args:
        session: database session.
        person_id: the person.
        topic: a topic name registered in ``notifications.topics`` (the caller checks it may be muted).
        muted: True to stop the topic's messages, False to receive them again.

    Returns:
        True when something changed.
    """
    current = topic in await muted_topics(session=session, person_id=person_id)
    if current == muted:
        return False
    if muted:
        session.add(ReminderMute(person_id=person_id, topic=topic))
    else:
        await session.exec(
            delete(ReminderMute).where(col(ReminderMute.person_id) == person_id, col(ReminderMute.topic) == topic)
        )
    await record(
        session=session,
        actor=f"person:{person_id}",
        action="reminders.mute" if muted else "reminders.unmute",
        entity="person",
        entity_id=str(person_id),
        details={"topic": topic},
    )
    return True
