"""A person talking to the bot through the emulator, for the cases' end-to-end tests.

Each action notes the last message of the chat first, then waits for the bot's first new message that contains
the expected words (in its text or caption), so replies sent quickly are never missed.
"""

from __future__ import annotations

import time
from typing import Any

from bot.sandbox.emulator import BotApiEmulator
from bot.sandbox.state import ChatMessage, User

TIMEOUT = 8.0


class Talk:
    """One user's side of the chat."""

    def __init__(self, emulator: BotApiEmulator, user: User) -> None:
        self.emulator = emulator
        self.user = user

    def _mark(self) -> int:
        transcript = self.emulator.transcript(self.user.id)
        return transcript[-1].message_id if transcript else 0

    async def _expect(self, mark: int, expected: str) -> ChatMessage:
        return await self.emulator.wait_for_message(
            self.user.id, lambda m: expected in (m.text or m.caption or ""), after=mark, timeout=TIMEOUT
        )

    def since(self, mark: int) -> list[str]:
        """The bot's texts after a mark."""
        return [m.text or m.caption or "" for m in self.emulator.messages(self.user.id) if m.message_id > mark]

    async def send(self, text: str, expected: str) -> ChatMessage:
        """Type ``text``; wait for a bot message containing ``expected``."""
        mark = self._mark()
        self.emulator.send_text(self.user, text)
        return await self._expect(mark, expected)

    async def press(self, message: ChatMessage, data: str, expected: str) -> ChatMessage:
        """Press the button with callback ``data``; wait for a new bot message containing ``expected``."""
        mark = self._mark()
        self.emulator.press_button(self.user, message, data)
        return await self._expect(mark, expected)

    async def press_and_edit(self, message: ChatMessage, data: str, expected: str) -> ChatMessage:
        """Press a button whose answer edits the message in place."""
        self.emulator.press_button(self.user, message, data)
        return await self.emulator.wait_for_edit(
            self.user.id, message.message_id, lambda m: expected in (m.text or ""), timeout=TIMEOUT
        )

    async def photo(self, content: bytes, expected: str) -> ChatMessage:
        """Send a photo."""
        mark = self._mark()
        self.emulator.send_photo(self.user, content)
        return await self._expect(mark, expected)

    async def document(self, content: bytes, name: str, mime: str, expected: str) -> ChatMessage:
        """Send a document."""
        mark = self._mark()
        self.emulator.send_document(self.user, content, name, mime)
        return await self._expect(mark, expected)

    async def location(self, latitude: float, longitude: float, expected: str) -> ChatMessage:
        """Share a location."""
        mark = self._mark()
        self.emulator.share_location(self.user, latitude, longitude)
        return await self._expect(mark, expected)

    async def forged_location(self, latitude: float, longitude: float, expected: str) -> ChatMessage:
        """A location no Telegram client sends (latitude 1000), as a raw update of a hostile or broken server."""
        mark = self._mark()
        person = self.emulator.user(self.user)
        self.emulator.send_raw_update("message", {
            "message_id": 900_000 + mark, "from": person.as_user(), "chat": person.as_chat(), "date": int(time.time()),
            "location": {"latitude": latitude, "longitude": longitude}})
        return await self._expect(mark, expected)

    def buttons(self, message: ChatMessage) -> list[str]:
        """The callback data of a message's inline buttons."""
        return [str(b.get("callback_data")) for b in message.inline_buttons]

    def last_document(self) -> dict[str, Any] | None:
        """The last document the bot sent in this chat."""
        for message in reversed(self.emulator.messages(self.user.id)):
            if message.document is not None:
                return dict(message.document)
        return None


async def deliver(settings: Any, sessions: Any, emulator: BotApiEmulator) -> None:
    """Send everything due in the outbox through the notification engine's dispatcher, to the emulator."""
    from notifications.dispatcher import Dispatcher, build_bot
    from notifications.plugins import load_all
    from tests.auxil.bot_harness import settings_for

    load_all()
    fast = settings_for(settings, emulator).model_copy(
        update={"dispatch_global_rate": 500.0, "dispatch_per_chat_rate": 50.0}
    )
    bot = build_bot(fast)
    await bot.initialize()
    try:
        await Dispatcher(sessions=sessions, bot=bot, settings=fast).run_until_idle()
    finally:
        await bot.shutdown()
