"""What one update of a known person costs the database: statements counted per update, against a budget.

Each update binds its ``update_id`` in :mod:`handlers.log_context` (a context variable of the update's task), so a
``before_cursor_execute`` listener can tell the statements of one update from the dispatcher's and the scans'.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine

from handlers import log_context
from handlers.chat.context import PEOPLE_KEY
from models.people_changes import watcher_of

# The budget of a read-only command or button of a known person: NO statement once the process knows them, ONE
# before. The person, the municipality they are served in (a linked driver's registration, the city they chose,
# or their staff role's) and their staff role come back together from one SELECT (models.people.ensure_person),
# kept in the process's people cache until any process writes people's rows (models.people_cache); the help, the
# menu and the privacy text need nothing more. Each statement is one more trip through aiosqlite's worker thread
# (or asyncpg's socket) on every update of every person: five made the chat answer at 0.21 of a bare bot, one at
# about 0.45 (issue 21). A staff member's role is read on every update: their budget is the one SELECT.
READ_ONLY_BUDGET = 0
FIRST_READ_BUDGET = 1


@pytest.fixture
def statements(engine: AsyncEngine) -> Iterator[Counter[int]]:
    """How many statements each update ran, by update id."""
    counts: Counter[int] = Counter()

    def count(*_: Any) -> None:
        update_id = log_context.current().get("update_id")
        if isinstance(update_id, int):
            counts[update_id] += 1

    event.listen(engine.sync_engine, "before_cursor_execute", count)
    yield counts
    event.remove(engine.sync_engine, "before_cursor_execute", count)


async def _known_maria(emulator: Any, application: Any, engine: AsyncEngine) -> Any:
    """Maria, known to the process: her first updates read (and create) her; then she is kept."""
    maria = emulator.add_user(810001, "Maria", language_code="pt-br")
    await _known(emulator, application, engine, maria)
    return maria


async def _known(emulator: Any, application: Any, engine: AsyncEngine, person: Any) -> None:
    cache = application.bot_data[PEOPLE_KEY]
    watcher = watcher_of(engine)
    assert watcher is not None
    for _ in range(20):
        emulator.send_text(person, "/start")
        await emulator.wait_for_message(person.id, lambda m: "O que você quer fazer?" in (m.text or ""))
        await _settled(application)
        if engine.dialect.name == "sqlite":
            await watcher.check()  # the poll's read of her creation, now (PostgreSQL: notified at its commit)
        if cache.holds(person.id):
            return
    raise AssertionError("the person was never kept")


async def _settled(application: Any) -> None:
    """Until the application has no update waiting or running (the answer may precede the handler's end)."""
    async with asyncio.timeout(10):
        # PTB signals no idle moment; a short poll of its counters (a condition, not a fixed sleep)
        while application.update_processor.current_concurrent_updates or not application.update_queue.empty():  # noqa: ASYNC110
            await asyncio.sleep(0.01)


def _next_update_id(emulator: Any) -> int:
    return int(emulator.bot.next_update_id)


@pytest.mark.parametrize(("command", "answer"), [("/ajuda", "Como usar"), ("/start", "O que você quer fazer?")])
async def test_a_read_only_command_of_a_known_person_costs_no_statement(
    emulator: Any, bot_app: Any, engine: AsyncEngine, statements: Counter[int], command: str, answer: str
) -> None:
    maria = await _known_maria(emulator, bot_app, engine)
    update_id = _next_update_id(emulator)
    emulator.send_text(maria, command)
    await emulator.wait_for_message(maria.id, lambda m: answer in (m.text or ""))
    await _settled(bot_app)
    assert statements[update_id] <= READ_ONLY_BUDGET, statements


async def test_a_menu_button_of_a_known_person_costs_no_statement(
    emulator: Any, bot_app: Any, engine: AsyncEngine, statements: Counter[int]
) -> None:
    maria = await _known_maria(emulator, bot_app, engine)
    menu = emulator.messages(maria.id)[-1]
    update_id = _next_update_id(emulator)
    emulator.press_button(maria, menu, "cmd:privacidade")
    await emulator.wait_for_message(maria.id, lambda m: "Seus dados no Balcão" in (m.text or ""))
    await _settled(bot_app)
    assert statements[update_id] <= READ_ONLY_BUDGET, statements


async def test_the_first_update_of_a_person_costs_one_read_and_a_staff_member_one_on_every_update(
    emulator: Any, bot_app: Any, engine: AsyncEngine, sessions: Any, statements: Counter[int]
) -> None:
    from models.people import Role, StaffMember

    ana = emulator.add_user(810002, "Ana", language_code="pt-br")
    async with sessions() as session:
        session.add(StaffMember(telegram_user_id=ana.id, role=Role.CLERK, name="Ana"))
        await session.commit()
    await _known_person_created(emulator, bot_app, ana)
    for _ in range(2):
        update_id = _next_update_id(emulator)
        emulator.send_text(ana, "/ajuda")
        await emulator.wait_for_message(ana.id, lambda m: "Como usar" in (m.text or ""))
        await _settled(bot_app)
        assert statements[update_id] == FIRST_READ_BUDGET, statements  # never kept: her role is read each time
    assert not bot_app.bot_data[PEOPLE_KEY].holds(ana.id)


async def _known_person_created(emulator: Any, application: Any, person: Any) -> None:
    emulator.send_text(person, "/start")
    await emulator.wait_for_message(person.id, lambda m: "O que você quer fazer?" in (m.text or ""))
    await _settled(application)
