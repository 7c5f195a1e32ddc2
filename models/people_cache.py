"""The person behind an update, kept per process: no database round trip for a person whose rows did not change.

Every update starts with the person (``models.people.ensure_person``: one SELECT). Issue 21 measured that one
statement — a session, aiosqlite's thread hops or asyncpg's socket, the ORM row — as most of what Balcão costs over
a bare bot. So each process keeps the :class:`~models.people.PersonView` it last built for each Telegram id, and
answers the next update of that person from memory when nothing it depends on can have changed:

* **the update says what it said last time**: the same chat, first name, language and bot (else ``ensure_person``
  would write, so it runs);
* **nobody wrote a row the view is made of** (``person``, ``staff_member``, ``driver``'s link and municipality):
  - *in this process*, at once: every INSERT, UPDATE or DELETE of those tables through the engine empties the cache
    when it runs and again when its connection goes back to the pool, after its commit (:func:`cache_of`);
  - *in another process* (the CLI, a dispatcher, another ``run`` on PostgreSQL, an operator's ``psql``): database
    triggers (``models.people_changes``) announce each committed write, and the process's watcher empties the
    cache when it hears of it. Until the watcher is listening, and whenever it lost the database, the cache is off.
    Another process's write reaches this one within the watcher's delay (LISTEN/NOTIFY on PostgreSQL: as soon as the
    commit; SQLite: :data:`models.people_changes.SQLITE_POLL_SECONDS`);
* **the person is not staff**: a staff member's view (their role) is read from the database on every update, so a
  revoked role never outlives its commit (staff actions also check the role inside the domain, on every call).

A stale view can only show an old language, city or menu for at most the watcher's delay; it never grants a role.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.ext.asyncio import AsyncEngine

from models.people import DEFAULT_BOT_KEY, PersonView, ensure_person

PEOPLE_TABLES = frozenset({"person", "staff_member", "driver"})
"""The tables a person's view is made of (the person, their staff roles, their driver registration)."""
MAX_PEOPLE = 100_000
"""People kept per process; past it the cache starts again empty (a city's active people fit many times over)."""
_WRITTEN = "balcao_people_written"


@dataclass(frozen=True, slots=True)
class _Entry:
    said: tuple[int, str, str | None, str]
    view: PersonView


class PeopleCache:
    """The people views of one process and one database (see the module's docstring)."""

    def __init__(self) -> None:
        self._entries: dict[int, _Entry] = {}
        self._generation = 0
        self._live = False
        self.hits = 0
        self.misses = 0

    @property
    def live(self) -> bool:
        """Whether the cache answers: a watcher hears other processes' writes (else every update reads)."""
        return self._live

    def go_live(self) -> None:
        """The watcher listens from now on: start answering from memory (empty, as nothing before is known)."""
        self.forget_everyone()
        self._live = True

    def go_dark(self) -> None:
        """The watcher stopped or lost the database: forget everyone, and read every update until it is back."""
        self._live = False
        self.forget_everyone()

    def forget_everyone(self) -> None:
        """Someone's rows changed: every view kept may be out of date."""
        self._generation += 1
        self._entries.clear()

    def lookup(self, telegram_user_id: int, said: tuple[int, str, str | None, str]) -> PersonView | None:
        """The kept view of a person, if the cache is live and the update says what the last one said."""
        entry = self._entries.get(telegram_user_id) if self._live else None
        if entry is None or entry.said != said:
            self.misses += 1
            return None
        self.hits += 1
        return entry.view

    def keep(self, view: PersonView, said: tuple[int, str, str | None, str], *, since: int) -> None:
        """Keep a view read from the database, unless someone wrote people's rows since the read began."""
        if not self._live or since != self._generation or view.staff_role is not None:
            return
        if len(self._entries) >= MAX_PEOPLE:
            self._entries.clear()
        self._entries[view.telegram_user_id] = _Entry(said=said, view=view)

    def holds(self, telegram_user_id: int) -> bool:
        """Whether a view of this person is kept (and would answer, the cache being live)."""
        return self._live and telegram_user_id in self._entries

    @property
    def generation(self) -> int:
        """A token taken before a read: :meth:`keep` refuses the read's result if a write came in between."""
        return self._generation


_CACHES: weakref.WeakKeyDictionary[Engine, PeopleCache] = weakref.WeakKeyDictionary()


def cache_of(engine: AsyncEngine) -> PeopleCache:
    """The people cache of an engine (one per database and process), watching the engine's own writes."""
    sync_engine = engine.sync_engine
    cache = _CACHES.get(sync_engine)
    if cache is None:
        cache = _CACHES[sync_engine] = PeopleCache()
        _watch_writes(sync_engine, cache)
    return cache


def _watch_writes(engine: Engine, cache: PeopleCache) -> None:
    """Empty ``cache`` when a statement writes people's rows, and again after its transaction ends."""

    def written(conn: Connection, _cursor: Any, statement: str, *_: Any) -> None:
        if _writes_people(statement):
            conn.info[_WRITTEN] = True
            cache.forget_everyone()

    def returned(_dbapi_connection: Any, record: Any, *_: Any) -> None:
        # back in the pool: the transaction was committed or rolled back; readers that began before see it now
        if record is not None and record.info.pop(_WRITTEN, False):
            cache.forget_everyone()

    event.listen(engine, "after_cursor_execute", written)
    event.listen(engine, "checkin", returned)  # an engine's pool events follow it to a new pool


_TARGET = re.compile(r'\s*(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|REPLACE\s+INTO|UPDATE|DELETE\s+FROM)\s+"?(\w+)"?',
                     re.IGNORECASE)
_CTE_WRITE = re.compile(r"\b(?:INSERT|UPDATE|DELETE)\b", re.IGNORECASE)
_PEOPLE_WORD = re.compile(rf"\b(?:{'|'.join(sorted(PEOPLE_TABLES))})\b", re.IGNORECASE)


def _writes_people(statement: str) -> bool:
    """Whether a statement inserts, updates or deletes rows of :data:`PEOPLE_TABLES` (text statements included).

    The target table is the word after ``INSERT INTO``, ``UPDATE`` or ``DELETE FROM`` (a column such as
    ``person_id`` of another table is not a write of ``person``); a ``WITH`` that writes counts when it names one
    of the tables anywhere, to be safe.
    """
    match = _TARGET.match(statement)
    if match is not None:
        return match.group(1).lower() in PEOPLE_TABLES
    if statement.lstrip()[:4].upper() == "WITH":
        return bool(_CTE_WRITE.search(statement)) and bool(_PEOPLE_WORD.search(statement))
    return False


async def person_for_update(
    *,
    sessions: Callable[[], Any],
    cache: PeopleCache,
    telegram_user_id: int,
    chat_id: int,
    first_name: str,
    language_code: str | None,
    bot_key: str = DEFAULT_BOT_KEY,
) -> PersonView:
    """The person behind an update: from the cache when nothing changed, else from ``ensure_person`` (then kept).

    Args:
        sessions: the database session factory.
        cache: this process's people (:func:`cache_of`).
        telegram_user_id: Telegram's user id.
        chat_id: the private chat to write to.
        first_name: Telegram first name.
        language_code: Telegram's IETF language tag, if any.
        bot_key: the bot the update came through.
    """
    said = (chat_id, first_name, language_code, bot_key)
    view = cache.lookup(telegram_user_id, said)
    if view is not None:
        return view
    since = cache.generation
    async with sessions() as session:
        view = await ensure_person(session=session, telegram_user_id=telegram_user_id, chat_id=chat_id,
                                   first_name=first_name, language_code=language_code, bot_key=bot_key)
    cache.keep(view, said, since=since)
    return view
