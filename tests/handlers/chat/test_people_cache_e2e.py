"""The people cache across processes, end to end (issue 21): a role the operator gives from the CLI, a process of
its own, shows in the person's very next menu although the bot's process had kept her as a citizen."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

from alembic import command
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from core.migrate import alembic_config
from core.settings import Settings
from handlers.chat.context import PEOPLE_KEY
from models.people_changes import SQLITE_POLL_SECONDS
from tests.auxil.processes import clean_env


async def _menu(emulator: Any, person: Any) -> list[str]:
    emulator.send_text(person, "/start")
    menu = await emulator.wait_for_message(person.id, lambda m: "O que você quer fazer?" in (m.text or ""))
    return [str(button.get("callback_data")) for button in menu.inline_buttons]


async def test_a_role_given_from_the_cli_reaches_a_person_the_bot_had_kept(
    emulator: Any, bot_app: Any, engine: AsyncEngine, settings: Settings
) -> None:
    cache = bot_app.bot_data[PEOPLE_KEY]
    maria = emulator.add_user(810001, "Maria", language_code="pt-br")
    async with asyncio.timeout(20):
        while not cache.holds(maria.id):  # her first updates create and read her; then the process keeps her
            assert "cmd:pendencias" not in await _menu(emulator, maria)
    env = clean_env(BALCAO_DATABASE_URL=settings.database_url,
                    BALCAO_MUNICIPALITIES_FILE=str(settings.municipalities_file))
    await asyncio.to_thread(command.stamp, alembic_config(settings.database_url), "head")  # as `db upgrade` left it
    try:
        await asyncio.to_thread(subprocess.run, [
            sys.executable, "-m", "bot", "staff", "add", str(maria.id), "--role", "clerk", "--name", "Maria",
        ], env=env, check=True, timeout=60)
    finally:
        async with engine.begin() as connection:  # the shared PostgreSQL schema outlives the test
            await connection.execute(text("DROP TABLE IF EXISTS alembic_version"))
    # the bot's process hears of it (SQLite: its next read of people_version; PostgreSQL: at the CLI's commit)
    async with asyncio.timeout(SQLITE_POLL_SECONDS * 10 + 5):
        while cache.holds(maria.id):  # noqa: ASYNC110 (the watcher's task empties it)
            await asyncio.sleep(0.02)
    assert "cmd:pendencias" in await _menu(emulator, maria)
