"""Audiences of staff broadcasts: named, countable sets of recipients, computed from database state.

An area registers its audiences::

    @audience("drivers", label=N_("All linked drivers"))
    async def linked_drivers(*, session: AsyncSession, now: dt.datetime, params: AudienceParams) -> list[int]:
        ...  # person ids

``python -m bot broadcast --help`` lists them; the bot's /aviso shows their labels. An audience that takes a
topic may list the topics staff can pick (``topic_choices``); otherwise staff type it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sqlmodel.ext.asyncio.session import AsyncSession


@dataclass(frozen=True, slots=True)
class AudienceParams:
    """Parameters some audiences take: a number of days (expiring within N days) or a topic."""

    days: int | None = None
    topic: str | None = None


AudienceQuery = Callable[..., Awaitable[list[int]]]
TopicChoices = Callable[..., Awaitable[list[tuple[str, str]]]]
"""``async def f(*, session) -> list[tuple[str, str]]``: (topic, label shown to staff, already translated or
an English msgid)."""


@dataclass(frozen=True, slots=True)
class Audience:
    """A registered audience."""

    name: str
    label: str  # English msgid
    query: AudienceQuery
    takes_days: bool
    takes_topic: bool
    topic_choices: TopicChoices | None = None


AUDIENCES: dict[str, Audience] = {}


def audience(
    name: str,
    *,
    label: str,
    takes_days: bool = False,
    takes_topic: bool = False,
    topic_choices: TopicChoices | None = None,
) -> Callable[[AudienceQuery], AudienceQuery]:
    """Register an audience: ``async def f(*, session, now, params) -> list[int]`` (person ids).

    Args:
        name: identifier used by the CLI and the API (``drivers``, ``drivers-expiring``…).
        label: English msgid (mark it with ``N_``) shown to staff.
        takes_days: the query reads ``params.days`` (e.g. "expiring within N days").
        takes_topic: the query reads ``params.topic``.
        topic_choices: for a topic audience, the topics staff can pick from.
    """

    def decorate(query: AudienceQuery) -> AudienceQuery:
        if name in AUDIENCES:
            raise ValueError(f"audience {name!r} registered twice")
        AUDIENCES[name] = Audience(
            name=name,
            label=label,
            query=query,
            takes_days=takes_days,
            takes_topic=takes_topic,
            topic_choices=topic_choices,
        )
        return query

    return decorate


async def recipients(
    name: str, *, session: AsyncSession, now: dt.datetime, params: AudienceParams
) -> list[int]:
    """The person ids of an audience, without duplicates, in id order."""
    return sorted(set(await AUDIENCES[name].query(session=session, now=now, params=params)))
