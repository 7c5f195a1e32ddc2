"""Fixtures for the sandbox's own tests: a running emulator and a PTB ``Bot`` pointed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import telegram

from bot.sandbox.emulator import BotApiEmulator
from tests.auxil.emulator import ptb_bot, running_emulator


@pytest.fixture
async def emu() -> AsyncIterator[BotApiEmulator]:
    async with running_emulator() as emulator:
        yield emulator


@pytest.fixture
async def tg(emu: BotApiEmulator) -> AsyncIterator[telegram.Bot]:
    """The real python-telegram-bot client, initialized against the emulator."""
    async with ptb_bot(emu) as bot:
        yield bot
