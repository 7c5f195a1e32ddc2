"""Helpers for end-to-end tests against the local Bot API emulator (``bot.sandbox``).

Typical use::

    from tests.auxil.emulator import emulator_fixture, polling, application_builder, say, press

    emu = emulator_fixture()          # in a conftest.py or test module: a fixture named "emu"

    async def test_start(emu):
        app = application_builder(emu).build()
        app.add_handler(...)
        async with polling(app):
            menu = await say(emu, emu.personas[0], "/start")
            answer = await press(emu, emu.personas[0], menu, "Minha situação")

Every waiting helper waits on the emulator's change notifications with a timeout; none sleeps.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import pytest_asyncio
import telegram
from telegram.ext import Application, ApplicationBuilder

from bot.sandbox.emulator import DEFAULT_TIMEOUT, DEFAULT_TOKEN, BotApiEmulator
from bot.sandbox.state import ChatMessage, MessageRef, Persona, UserRef

AnyApplication = Application[Any, Any, Any, Any, Any, Any]
AnyBuilder = ApplicationBuilder[Any, Any, Any, Any, Any, Any]

__all__ = [
    "application_builder",
    "emulator_fixture",
    "polling",
    "press",
    "ptb_bot",
    "running_emulator",
    "say",
    "tiny_png",
]


@asynccontextmanager
async def running_emulator(
    *, token: str = DEFAULT_TOKEN, personas: Sequence[Persona] | None = None, **options: Any
) -> AsyncIterator[BotApiEmulator]:
    """Start an emulator on 127.0.0.1 with a free port, and stop it after the block.

    Args:
        token: the main bot's token.
        personas: the personas (default: a driver, a citizen and a staff member).
        **options: other keyword arguments of :class:`~bot.sandbox.emulator.BotApiEmulator`.

    Yields:
        The running emulator.
    """
    emulator = BotApiEmulator(token=token, personas=personas, **options)
    await emulator.start("127.0.0.1", 0)
    try:
        yield emulator
    finally:
        await emulator.stop()


def emulator_fixture(**options: Any) -> Callable[[], AsyncIterator[BotApiEmulator]]:
    """Make a function-scoped pytest fixture that yields a running emulator.

    Assign the result to the fixture's name in a test module or ``conftest.py``:
    ``emu = emulator_fixture(personas=[...])``.

    Args:
        **options: keyword arguments of :func:`running_emulator`.

    Returns:
        The fixture function.
    """

    @pytest_asyncio.fixture
    async def _emulator() -> AsyncIterator[BotApiEmulator]:
        async with running_emulator(**options) as emulator:
            yield emulator

    return _emulator


def ptb_bot(emulator: BotApiEmulator, token: str | None = None) -> telegram.Bot:
    """A python-telegram-bot ``Bot`` pointed at the emulator (use it as ``async with ptb_bot(emu) as bot``).

    Args:
        emulator: a running emulator.
        token: another token than the main bot's, if wanted.

    Returns:
        The bot, not yet initialized.
    """
    return telegram.Bot(token or emulator.token, base_url=emulator.bot_base_url, base_file_url=emulator.file_base_url)


def application_builder(emulator: BotApiEmulator) -> AnyBuilder:
    """An ``ApplicationBuilder`` with the emulator's token and URLs set; add handlers after ``build()``.

    Args:
        emulator: a running emulator.

    Returns:
        The builder.
    """
    return (
        ApplicationBuilder().token(emulator.token).base_url(emulator.bot_base_url).base_file_url(emulator.file_base_url)
    )


@asynccontextmanager
async def polling(application: AnyApplication, *, poll_timeout: int = 1) -> AsyncIterator[AnyApplication]:
    """Initialize, start and long-poll an application for the block, then stop it cleanly.

    Args:
        application: built with :func:`application_builder` (or any builder pointed at the emulator).
        poll_timeout: the ``getUpdates`` long-poll timeout in seconds.

    Yields:
        The running application.
    """
    async with application:
        await application.start()
        assert application.updater is not None, "build the application with an updater"
        await application.updater.start_polling(poll_interval=0.0, timeout=poll_timeout)
        try:
            yield application
        finally:
            await application.updater.stop()
            await application.stop()


async def say(
    emulator: BotApiEmulator,
    user: UserRef,
    text: str,
    *,
    timeout: float = DEFAULT_TIMEOUT,  # noqa: ASYNC109 (wait budget, like the emulator's helpers)
) -> ChatMessage:
    """The user sends ``text``; wait for the bot's next message in that chat and return it.

    Args:
        emulator: a running emulator, with a bot polling it.
        user: who writes (a persona, a user or a registered user id).
        text: what they write (``/commands`` get a ``bot_command`` entity).
        timeout: seconds to wait for the reply.

    Returns:
        The bot's first message after the user's.

    Raises:
        TimeoutError: the bot did not answer in time.
    """
    sent = emulator.send_text(user, text)
    return await emulator.wait_for_message(sent.chat_id, timeout=timeout, after=sent.message_id)


async def press(
    emulator: BotApiEmulator,
    user: UserRef,
    message: MessageRef,
    label_or_data: str,
    *,
    timeout: float = DEFAULT_TIMEOUT,  # noqa: ASYNC109
) -> ChatMessage:
    """The user presses an inline button, found by its visible label or its callback data.

    Waits for the bot's reaction: an edit of that message or a new message, whichever comes first.

    Args:
        emulator: a running emulator, with a bot polling it.
        user: who presses.
        message: the bot's message carrying the button (or its id); its current buttons are used.
        label_or_data: the button's text, or its ``callback_data``.
        timeout: seconds to wait for the reaction.

    Returns:
        The edited message, or the bot's new message.

    Raises:
        LookupError: no such button on the message now.
        ValueError: the button is not a callback button (a URL button cannot be pressed here).
        TimeoutError: the bot reacted neither way in time.
    """
    person = emulator.user(user)
    message_id = message if isinstance(message, int) else message.message_id
    chat = emulator.world.chat(emulator.bot, person.id)
    current = chat.messages.get(message_id) if chat is not None else None
    if chat is None or current is None:
        raise LookupError(f"no message {message_id} in the chat with {person.id}")
    data = current.button(label_or_data).get("callback_data")
    if not isinstance(data, str):
        raise ValueError(f"button {label_or_data!r} has no callback data")
    edits, last_id = current.edits, chat.next_message_id - 1
    emulator.press_button(person, message_id, data)

    def reaction() -> ChatMessage | None:
        for new_id in range(last_id + 1, chat.next_message_id):
            new = chat.messages.get(new_id)
            if new is not None and new.from_bot:
                return new
        now = chat.messages.get(message_id)
        return now if now is not None and now.edits > edits else None

    try:
        return await emulator.wait_until(reaction, timeout=timeout)
    except TimeoutError:
        raise TimeoutError(f"the bot did not react to {label_or_data!r} within {timeout}s") from None


def tiny_png(width: int = 2, height: int = 2) -> bytes:
    """A valid red PNG image of the given size, for photo uploads in tests.

    Args:
        width: pixels.
        height: pixels.

    Returns:
        The PNG file's bytes.
    """

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
