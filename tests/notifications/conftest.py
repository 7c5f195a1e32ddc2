"""Fixtures for the notification engine: a running emulator, people who can receive messages, a dispatcher."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from pydantic import SecretStr
from sqlalchemy import insert
from telegram import Bot

from bot.sandbox.emulator import BotApiEmulator
from core.db import SessionFactory
from core.settings import Settings
from models.columns import utcnow
from models.people import Person
from notifications.dispatcher import Dispatcher, build_bot
from notifications.plugins import load_all
from tests.auxil.emulator import running_emulator

FIRST_USER_ID = 700_000_000

load_all()


@pytest.fixture
async def emu() -> AsyncIterator[BotApiEmulator]:
    async with running_emulator() as emulator:
        yield emulator


@pytest.fixture
def tg_settings(settings: Settings, emu: BotApiEmulator) -> Settings:
    """Test settings pointed at the emulator, with quick rates so tests stay fast."""
    return settings.model_copy(
        update={
            "telegram_token": SecretStr(emu.token),
            "telegram_api_url": emu.root_url,
            "dispatch_global_rate": 500.0,
            "dispatch_per_chat_rate": 50.0,
        }
    )


async def add_people(
    sessions: SessionFactory,
    emu: BotApiEmulator | None,
    count: int,
    *,
    first: int = FIRST_USER_ID,
    locale: str = "pt_BR",
) -> list[int]:
    """Create ``count`` people (and the matching emulator users); return their person ids in order."""
    rows = [
        {
            "telegram_user_id": first + index,
            "chat_id": first + index,
            "first_name": f"Pessoa {index}",
            "locale": locale,
            "locale_chosen": False,
            "created_at": utcnow(),
        }
        for index in range(count)
    ]
    async with sessions() as session:
        result = await session.exec(insert(Person.__table__).returning(Person.__table__.c.id), params=rows)  # type: ignore[call-overload]
        ids = sorted(result.scalars().all())
        await session.commit()
    if emu is not None:
        for index in range(count):
            emu.add_user(first + index, f"Pessoa {index}")
    return ids


@pytest.fixture
async def make_dispatcher(
    sessions: SessionFactory, tg_settings: Settings
) -> AsyncIterator[Callable[..., Awaitable[Dispatcher]]]:
    """Build dispatchers on the emulator (``await make_dispatcher(settings=..., worker=...)``)."""
    bots: list[Bot] = []

    async def make(settings: Settings | None = None, **kwargs: Any) -> Dispatcher:
        chosen = settings or tg_settings
        bot = build_bot(chosen)
        await bot.initialize()
        bots.append(bot)
        return Dispatcher(sessions=sessions, bot=bot, settings=chosen, **kwargs)

    yield make
    for bot in bots:
        await bot.shutdown()
