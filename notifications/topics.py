"""Reminder topics: groups of optional messages a person can mute in /lembretes.

An area declares its topics next to its renderers::

    reminder_topic("renewal", label=N_("Authorization renewal"),
                   description=N_("30, 15 and 1 day before your authorization expires."),
                   applies=is_linked_driver)

and names the topic in ``@renderer(kind, topic="renewal")``. A kind without a topic, and any row enqueued
with ``mandatory=True``, is a legal notice: it cannot be muted.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sqlmodel.ext.asyncio.session import AsyncSession

AppliesTo = Callable[..., Awaitable[bool]]
"""``async def f(*, session, person_id) -> bool``: whether the topic concerns this person."""


@dataclass(frozen=True, slots=True)
class ReminderTopic:
    """A registered topic."""

    name: str
    label: str  # English msgid
    description: str  # English msgid, one short sentence
    applies: AppliesTo | None  # None: everyone


TOPICS: dict[str, ReminderTopic] = {}


def reminder_topic(name: str, *, label: str, description: str = "", applies: AppliesTo | None = None) -> ReminderTopic:
    """Register a topic of optional reminders.

    Args:
        name: short identifier used in ``@renderer(..., topic=name)`` (≤ 32 characters, no colon).
        label: English msgid (mark it with ``N_``) shown in /lembretes.
        description: English msgid: when these messages come.
        applies: whether the topic concerns a person (only those see it in /lembretes); everyone when None.

    Returns:
        The topic.
    """
    if name in TOPICS:
        raise ValueError(f"reminder topic {name!r} registered twice")
    if ":" in name or len(name) > 32:
        raise ValueError(f"reminder topic name {name!r} must be short and without ':'")
    topic = ReminderTopic(name=name, label=label, description=description, applies=applies)
    TOPICS[name] = topic
    return topic


async def topics_for(*, session: AsyncSession, person_id: int) -> list[ReminderTopic]:
    """The topics that concern a person, in registration order."""
    found = []
    for topic in TOPICS.values():
        if topic.applies is None or await topic.applies(session=session, person_id=person_id):
            found.append(topic)
    return found
