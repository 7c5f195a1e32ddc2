"""Audiences of staff broadcasts: named, countable sets of recipients, computed from database state.

An area registers its audiences::

    @audience("drivers", label=N_("All linked drivers"))
    async def linked_drivers(*, session: AsyncSession, now: dt.datetime, params: AudienceParams) -> list[int]:
        ...  # person ids

``python -m bot broadcast --help`` lists them; the bot's /aviso shows their labels.
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


@dataclass(frozen=True, slots=True)
class Audience:
    """A registered audience."""

    name: str
    label: str  # English msgid
    query: AudienceQuery
    takes_days: bool
    takes_topic: bool


AUDIENCES: dict[str, Audience] = {}


def audience(
    name: str, *, label: str, takes_days: bool = False, takes_topic: bool = False
) -> Callable[[AudienceQuery], AudienceQuery]:
    """Register an audience: ``async def f(*, session, now, params) -> list[int]`` (person ids)."""

    def decorate(query: AudienceQuery) -> AudienceQuery:
        if name in AUDIENCES:
            raise ValueError(f"audience {name!r} registered twice")
        AUDIENCES[name] = Audience(
            name=name, label=label, query=query, takes_days=takes_days, takes_topic=takes_topic
        )
        return query

    return decorate


async def recipients(
    name: str, *, session: AsyncSession, now: dt.datetime, params: AudienceParams
) -> list[int]:
    """The person ids of an audience, without duplicates, in id order."""
    return sorted(set(await AUDIENCES[name].query(session=session, now=now, params=params)))
