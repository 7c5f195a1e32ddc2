"""A person's turn across every process of a bot, and the webhook's memory of the updates it took.

PostgreSQL: each update of a person runs inside a transaction of its own that holds an advisory lock keyed by
bot and person (``models.seen_updates.take_turn``); the same statement records the update id (in polling mode
too: during a deploy, the old and the new process may both fetch an update). The transaction commits when the
update was handled and rolls back when it was not, or when the process dies, so one person's updates run one at
a time whichever process gets them, and a failed update runs again when Telegram delivers it again. It costs the
round trips the webhook's replay check already made (begin, one statement, commit), on a connection of its own
held while the update is handled.

SQLite: a bot has one ``run`` process (``bot.single_run`` enforces it), whose per-person ordering
(``bot.ordering``) is the turn; the update id is recorded before handling and forgotten if handling failed.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from telegram import Update

from core.db import SessionFactory
from models.columns import utcnow
from models.seen_updates import first_sight, forget_seen, forget_update, take_turn, turn_key

PRUNE_EVERY_SECONDS = 600.0
"""Update ids older than ``models.seen_updates.KEEP`` are forgotten at most this often (per process and bot)."""


@dataclass(slots=True)
class Ticket:
    """One update's turn: whether it is new (not a replay), and whether its handling failed."""

    fresh: bool = True
    failed: bool = False


class PersonTurns:
    """Where one bot's people take their turns: the database (see the module's docstring)."""

    def __init__(self, sessions: SessionFactory, *, bot_id: int, remember_updates: bool) -> None:
        """Args: sessions: the database; bot_id: the bot's numeric id; remember_updates: webhook mode (replays)."""
        self._sessions = sessions
        self._bot_id = bot_id
        self._shared = _is_postgresql(sessions)
        self._remember = remember_updates or self._shared
        self._pruned = time.monotonic() - PRUNE_EVERY_SECONDS

    @asynccontextmanager
    async def hold(self, update: object, person: int | None) -> AsyncIterator[Ticket]:
        """Wait for the person's turn for the block; the ticket says whether the update is a replay.

        Set ``ticket.failed`` in the block when the update was not handled: its id is then not kept.
        """
        update_id = update.update_id if self._remember and isinstance(update, Update) else None
        if self._shared and update_id is not None:
            async with self._sessions() as session:
                lock_key = None if person is None else turn_key(self._bot_id, person)
                fresh = await take_turn(session=session, lock_key=lock_key, bot_id=self._bot_id,
                                        update_id=update_id, now=utcnow())
                ticket = Ticket(fresh=fresh)
                try:
                    yield ticket
                except BaseException:
                    await session.rollback()
                    raise
                if ticket.failed or not fresh:
                    await session.rollback()
                else:
                    await session.commit()
            await self._prune()
            return
        if update_id is None:
            yield Ticket()
            return
        async with self._sessions() as session:
            ticket = Ticket(fresh=await first_sight(session=session, bot_id=self._bot_id, update_id=update_id,
                                                    now=utcnow()))
        try:
            yield ticket
        except BaseException:
            ticket.failed = True
            raise
        finally:
            if ticket.fresh and ticket.failed:
                async with self._sessions() as session:
                    await forget_update(session=session, bot_id=self._bot_id, update_id=update_id)
        await self._prune()

    async def _prune(self) -> None:
        if time.monotonic() - self._pruned >= PRUNE_EVERY_SECONDS:
            self._pruned = time.monotonic()
            async with self._sessions() as session:
                await forget_seen(session=session, now=utcnow())


def _is_postgresql(sessions: SessionFactory) -> bool:
    bind = sessions.kw.get("bind")
    return bind is not None and bind.dialect.name == "postgresql"
