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

# The budget of a read-only command or button of a known person: ONE statement. The person, the municipality
# they are served in (a linked driver's registration, the city they chose, or their staff role's) and their staff
# role come back together from one SELECT (models.people.ensure_person); the help, the menu and the privacy text
# need nothing more. Each extra statement is one more trip through aiosqlite's worker thread (or asyncpg's
# socket) on every update of every person, which is what made the chat answer at 0.21 of a bare bot (issue 21).
READ_ONLY_BUDGET = 1


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


async def _known_maria(emulator: Any) -> Any:
    maria = emulator.add_user(810001, "Maria", language_code="pt-br")
    emulator.send_text(maria, "/start")
    await emulator.wait_for_message(maria.id, lambda m: "O que você quer fazer?" in (m.text or ""))
    return maria


async def _settled(application: Any) -> None:
    """Until the application has no update waiting or running (the answer may precede the handler's end)."""
    async with asyncio.timeout(10):
        # PTB signals no idle moment; a short poll of its counters (a condition, not a fixed sleep)
        while application.update_processor.current_concurrent_updates or not application.update_queue.empty():  # noqa: ASYNC110
            await asyncio.sleep(0.01)


def _next_update_id(emulator: Any) -> int:
    return int(emulator.bot.next_update_id)


@pytest.mark.parametrize(("command", "answer"), [("/ajuda", "Como usar"), ("/start", "O que você quer fazer?")])
async def test_a_read_only_command_of_a_known_person_costs_one_statement(
    emulator: Any, bot_app: Any, statements: Counter[int], command: str, answer: str
) -> None:
    maria = await _known_maria(emulator)
    update_id = _next_update_id(emulator)
    emulator.send_text(maria, command)
    await emulator.wait_for_message(maria.id, lambda m: answer in (m.text or ""))
    await _settled(bot_app)
    assert statements[update_id] <= READ_ONLY_BUDGET, statements


async def test_a_menu_button_of_a_known_person_costs_one_statement(
    emulator: Any, bot_app: Any, statements: Counter[int]
) -> None:
    maria = await _known_maria(emulator)
    emulator.send_text(maria, "/start")
    menu = await emulator.wait_for_message(maria.id, lambda m: "O que você quer fazer?" in (m.text or ""))
    update_id = _next_update_id(emulator)
    emulator.press_button(maria, menu, "cmd:privacidade")
    await emulator.wait_for_message(maria.id, lambda m: "Seus dados no Balcão" in (m.text or ""))
    await _settled(bot_app)
    assert statements[update_id] <= READ_ONLY_BUDGET, statements
