"""What /lembretes shows and changes: a person's reminder topics (on or off) and the messages queued for them.

Legal notices cannot be turned off: a penalty notice starts the deadlines to defend oneself and to appeal,
and the law requires that the person be notified (L1533 Art. 22 §1 c: notification by electronic
means; CP Art. 24 and 36). They are the kinds without a topic, and rows enqueued as mandatory.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.outbox import OutboxMessage, OutboxStatus
from models.reminders import muted_topics, set_topic_muted
from notifications.rendering import KINDS
from notifications.topics import TOPICS, ReminderTopic, topics_for

LEGAL_BASIS = "Lei 1.533/2020, Art. 22 §1 · Lei 1.101/2004, Art. 24 e 36"
"""The articles that require notices to reach the person (shown on the second, smaller line)."""
UPCOMING_SHOWN = 5


class NotMutable(Exception):
    """The topic is unknown, or it is not one a person may turn off."""


@dataclass(frozen=True, slots=True)
class TopicState:
    """A topic and whether the person turned it off."""

    topic: ReminderTopic
    muted: bool


@dataclass(frozen=True, slots=True)
class Upcoming:
    """A message queued for the person: its topic (None for a legal notice), when it goes, whether it is off."""

    topic: ReminderTopic | None
    at: dt.datetime
    muted: bool


@dataclass(frozen=True, slots=True)
class ReminderOverview:
    """Everything /lembretes shows."""

    topics: list[TopicState]
    upcoming: list[Upcoming]
    upcoming_total: int


async def reminder_overview(*, session: AsyncSession, person_id: int) -> ReminderOverview:
    """The person's topics (those that concern them, and any they turned off) and their queued messages."""
    muted = await muted_topics(session=session, person_id=person_id)
    shown = await topics_for(session=session, person_id=person_id)
    shown += [TOPICS[name] for name in sorted(muted) if name in TOPICS and TOPICS[name] not in shown]
    rows = (
        await session.exec(
            select(OutboxMessage.kind, OutboxMessage.not_before, OutboxMessage.mandatory)
            .where(OutboxMessage.person_id == person_id, OutboxMessage.status == OutboxStatus.PENDING)
            .order_by(col(OutboxMessage.not_before))
        )
    ).all()
    upcoming = []
    for kind_name, at, mandatory in rows[:UPCOMING_SHOWN]:
        kind = KINDS.get(kind_name)
        topic = TOPICS.get(kind.topic) if kind is not None and kind.topic and not mandatory else None
        upcoming.append(Upcoming(topic=topic, at=at, muted=topic is not None and topic.name in muted))
    return ReminderOverview(
        topics=[TopicState(topic, topic.name in muted) for topic in shown],
        upcoming=upcoming,
        upcoming_total=len(rows),
    )


async def set_reminder_topic(*, session: AsyncSession, person_id: int, topic: str, muted: bool) -> bool:
    """Turn an optional topic off (``muted=True``) or on again for a person (commits).

    Queued messages of a topic turned off are not sent (they end ``cancelled`` when due); turned on again
    before then, they go.

    Returns:
        True when something changed.

    Raises:
        NotMutable: no such topic.
    """
    if topic not in TOPICS:
        raise NotMutable(topic)
    changed = await set_topic_muted(session=session, person_id=person_id, topic=topic, muted=muted)
    await session.commit()
    return changed
