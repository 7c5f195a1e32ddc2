"""A local Telegram Bot API server for tests, the demo and benchmarks.

The real python-telegram-bot client talks to it unchanged::

    async with BotApiEmulator() as emu:
        bot = telegram.Bot(emu.token, base_url=emu.bot_base_url, base_file_url=emu.file_base_url)
        emu.send_text(emu.personas[0], "/start")   # a user writes to the bot
        reply = await emu.wait_for_message(emu.personas[0].user_id)

It serves ``/bot<token>/<method>`` (GET or POST; JSON, form or multipart bodies) and
``/file/bot<token>/<file_path>``, answers with Telegram's shapes and errors, and also serves the web
chat (``/``) where a person plays one of the personas. Run it alone with
``python -m bot.sandbox.emulator --port 8081``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import re
import secrets
import signal
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, TypeVar

from aiohttp import web

from bot.sandbox import webchat
from bot.sandbox.errors import ApiError, not_found, unauthorized
from bot.sandbox.files import StoredFile
from bot.sandbox.html_entities import utf16_length
from bot.sandbox.image_size import image_size
from bot.sandbox.limits import FaultInjector, FloodLimiter
from bot.sandbox.methods import METHODS, Call, Described, visible_commands
from bot.sandbox.params import MAX_UPLOAD_BYTES, Upload, read_params
from bot.sandbox.state import (
    DEFAULT_PERSONAS,
    TOKEN_PATTERN,
    ApiCall,
    BotState,
    CallbackQueryRecord,
    ChatMessage,
    ChatState,
    MessageRef,
    Persona,
    User,
    UserRef,
    WebhookConfig,
    World,
)
from bot.sandbox.updates import UpdateDelivery

T = TypeVar("T")

DEFAULT_TOKEN = "123456789:SANDBOX-balcao-local-token"  # noqa: S105 (a public token for the local sandbox)
"""The token the sandbox bot uses unless told otherwise (any ``digits:letters`` token works)."""
DEMO_LOCATION = (-13.5427, -58.8145)
"""Sapezal-MT: the location the web chat offers to share."""
DEFAULT_TIMEOUT = 5.0
_BOT_COMMAND = re.compile(r"(?<![\w/@])/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?(?![\w/@])")
_LOGGER = logging.getLogger(__name__)


class BotApiEmulator:
    """The emulated Telegram: Bot API server, users acting in chats, and assertions on what the bot did.

    Args:
        token: the token of the main bot, the one users of :meth:`send_text` and the web chat talk to.
            Any other well-formed token is accepted too and gets a bot of its own.
        personas: who can be played in the web chat; they are registered as users. Defaults to a driver,
            a citizen and a staff member.
        bot_first_name: the main bot's name in ``getMe``.
        bot_username: the main bot's username in ``getMe``.
        webhook_retry_delay: seconds before retrying a failed webhook delivery (doubles, up to 10 s).
        location: the coordinates the web chat offers to share.
    """

    def __init__(
        self,
        *,
        token: str = DEFAULT_TOKEN,
        personas: Sequence[Persona] | None = None,
        bot_first_name: str = "Balcão (sandbox)",
        bot_username: str = "balcao_sandbox_bot",
        webhook_retry_delay: float = 0.2,
        location: tuple[float, float] = DEMO_LOCATION,
    ) -> None:
        if TOKEN_PATTERN.match(token) is None:
            raise ValueError(f"not a bot token: {token!r}")
        self.world = World(primary_token=token, bot_first_name=bot_first_name, bot_username=bot_username)
        self.personas: tuple[Persona, ...] = tuple(DEFAULT_PERSONAS if personas is None else personas)
        for persona in self.personas:
            self.world.add_user(persona.user)
        self.location = location
        self.flood = FloodLimiter()
        self.faults = FaultInjector()
        self.delivery = UpdateDelivery(self.world, retry_delay=webhook_retry_delay)
        self.app = self._build_app()
        self._runner: web.AppRunner | None = None
        self._root_url: str | None = None

    # --- lifecycle -------------------------------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        """Start serving.

        Args:
            host: address to bind; keep the loopback default in tests.
            port: TCP port; 0 picks a free one.

        Returns:
            The root URL, e.g. ``http://127.0.0.1:54321``.
        """
        if self._runner is not None:
            raise RuntimeError("the emulator is already running")
        self.world.closing = False
        await self.delivery.start()
        runner = web.AppRunner(self.app, handler_cancellation=True, shutdown_timeout=1.0, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        await site.start()
        self._runner = runner
        bound_host, bound_port = runner.addresses[0][:2]
        shown_host = f"[{bound_host}]" if ":" in bound_host else bound_host
        self._root_url = f"http://{shown_host}:{bound_port}"
        return self._root_url

    async def stop(self) -> None:
        """Stop serving: pending long polls return at once, webhook deliveries stop."""
        if self._runner is None:
            return
        self.world.closing = True
        self.world.changes.notify()
        for state in self.world.bots.values():
            state.updates_signal.notify()
        await self.delivery.close()
        await self._runner.cleanup()
        self._runner = None

    async def __aenter__(self) -> BotApiEmulator:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    @property
    def root_url(self) -> str:
        """The root URL (``http://127.0.0.1:PORT``); only while running."""
        if self._root_url is None:
            raise RuntimeError("the emulator is not running; await start() first")
        return self._root_url

    @property
    def bot_base_url(self) -> str:
        """``base_url`` for ``telegram.Bot`` / ``ApplicationBuilder`` (the token is appended by PTB)."""
        return f"{self.root_url}/bot"

    @property
    def file_base_url(self) -> str:
        """``base_file_url`` for ``telegram.Bot`` / ``ApplicationBuilder``."""
        return f"{self.root_url}/file/bot"

    @property
    def token(self) -> str:
        """The main bot's token."""
        return self.world.primary.token

    @property
    def bot(self) -> BotState:
        """The main bot's state (identity, pending updates, webhook, command menus)."""
        return self.world.primary

    # --- users -----------------------------------------------------------------------------------

    def add_user(
        self,
        user_id: int,
        first_name: str,
        *,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = "pt-br",
    ) -> User:
        """Register a user; the bot can then message them (their chat id is their user id).

        Returns:
            The user, to pass to :meth:`send_text` and the other actions.
        """
        return self.world.add_user(User(user_id, first_name, last_name, username, language_code))

    def user(self, ref: UserRef) -> User:
        """The registered user for a user, persona or user id."""
        return self.world.resolve_user(ref)

    # --- acting as a user ------------------------------------------------------------------------

    def send_text(self, user: UserRef, text: str, *, to_bot: str | None = None) -> ChatMessage:
        """The user writes ``text`` in their private chat with the bot (``/commands`` get entities).

        Args:
            user: who writes.
            text: what they write.
            to_bot: the token of another bot than the main one (a deployment may run several).

        Returns:
            The user's message; the bot receives it as a ``message`` update.
        """
        if not text:
            raise ValueError("Telegram does not send empty messages")
        content: dict[str, Any] = {"text": text}
        entities = [
            {"type": "bot_command", "offset": utf16_length(text[: m.start()]), "length": utf16_length(m.group())}
            for m in _BOT_COMMAND.finditer(text)
        ]
        if entities:
            content["entities"] = entities
        return self._user_message(user, content, bot=self.world.bot(to_bot) if to_bot else None)

    def press_button(self, user: UserRef, message: MessageRef, callback_data: str, *, forged: bool = False) -> str:
        """The user presses the inline button with ``callback_data`` under one of the bot's messages.

        Args:
            user: who presses.
            message: the bot's message (ours, PTB's, or its id) in that user's chat.
            callback_data: the button's data; the button must be there now, unless ``forged``.
            forged: send the data although no button carries it (a modified client can send any data).

        Returns:
            The callback query id; the bot must answer it with ``answerCallbackQuery``.

        Raises:
            LookupError: the message is not there, or has no such button now.
        """
        person = self.world.resolve_user(user)
        bot = self.world.primary
        chat = self._chat(person)
        message_id = message if isinstance(message, int) else message.message_id
        current = chat.messages.get(message_id)
        if current is None or not current.from_bot:
            raise LookupError(f"no bot message {message_id} in the chat with {person.id}")
        if not forged and not any(button.get("callback_data") == callback_data for button in current.inline_buttons):
            shown = [(b.get("text"), b.get("callback_data")) for b in current.inline_buttons]
            raise LookupError(f"message {message_id} has no button with data {callback_data!r}; buttons: {shown}")
        query_id = self.world.new_callback_query_id()
        bot.callback_queries[query_id] = CallbackQueryRecord(query_id, person.id, person.id, message_id, callback_data)
        payload = {
            "id": query_id,
            "from": person.as_user(),
            "message": dict(current.raw),
            "chat_instance": str(abs(hash((bot.bot_id, person.id)))),
            "data": callback_data,
        }
        bot.enqueue("callback_query", payload)
        self.world.changes.notify()
        return query_id

    def share_contact(
        self,
        user: UserRef,
        phone: str | None = None,
        *,
        own: bool = True,
        first_name: str | None = None,
        other_user_id: int | None = None,
    ) -> ChatMessage:
        """The user shares a contact: their own (``request_contact`` button) or someone else's.

        Args:
            user: who shares.
            phone: the number; defaults to the persona's phone for a persona's own contact.
            own: True for the user's own contact (``contact.user_id`` is the sender).
            first_name: the contact's name when not own.
            other_user_id: ``contact.user_id`` when not own (defaults to an id that is not the sender's).

        Returns:
            The user's message with ``contact``.
        """
        person = self.world.resolve_user(user)
        if phone is None:
            phone = self._persona_phone(person.id)
        if not phone:
            raise ValueError(f"no phone number for user {person.id}; pass phone=")
        if own:
            contact: dict[str, Any] = {"phone_number": phone, "first_name": person.first_name, "user_id": person.id}
            if person.last_name:
                contact["last_name"] = person.last_name
        else:
            contact = {
                "phone_number": phone,
                "first_name": first_name or "Contato",
                "user_id": other_user_id if other_user_id is not None else person.id + 1_000_000_000,
            }
        return self._user_message(person, {"contact": contact})

    def share_location(self, user: UserRef, latitude: float, longitude: float) -> ChatMessage:
        """The user shares a location (``request_location`` button or the attachment menu)."""
        if not (-90 <= latitude <= 90 and -180 <= longitude <= 180):
            raise ValueError("latitude must be within ±90 and longitude within ±180")
        return self._user_message(user, {"location": {"latitude": latitude, "longitude": longitude}})

    def send_photo(
        self, user: UserRef, data: bytes, caption: str | None = None, *, media_group_id: str | None = None
    ) -> ChatMessage:
        """The user sends a photo (PNG, JPEG, GIF or WebP bytes); the bot can fetch it with ``getFile``.

        Args:
            user: who sends.
            data: the image.
            caption: the text under the photo.
            media_group_id: the album it belongs to (see :meth:`send_album`).

        Raises:
            ValueError: the bytes are not an image Telegram would take as a photo.
        """
        size = image_size(data)
        if size is None:
            raise ValueError("not an image (PNG, JPEG, GIF or WebP); send it with send_document")
        sizes = self.world.files.add_photo(data, *size)
        content: dict[str, Any] = {"photo": [stored.as_photo_size() for stored in sizes]}
        if caption:
            content["caption"] = caption
        if media_group_id is not None:
            content["media_group_id"] = media_group_id
        return self._user_message(user, content)

    def send_album(self, user: UserRef, photos: Sequence[bytes], caption: str | None = None) -> list[ChatMessage]:
        """The user sends several photos together: one update per photo, all queued at the same instant.

        As in Telegram, the photos share a ``media_group_id`` and only the first carries the caption.

        Returns:
            The user's messages, in order.
        """
        group = str(secrets.randbits(60))
        return [
            self.send_photo(user, data, caption if index == 0 else None, media_group_id=group)
            for index, data in enumerate(photos)
        ]

    def send_voice(self, user: UserRef, data: bytes, *, duration: int, mime: str = "audio/ogg") -> ChatMessage:
        """The user records a voice note (``duration`` in seconds, as the phone declares it)."""
        stored = self.world.files.add("voice", data, mime_type=mime)
        voice = {"file_id": stored.file_id, "file_unique_id": stored.file_unique_id, "file_size": stored.file_size,
                 "duration": duration, "mime_type": mime}
        return self._user_message(user, {"voice": voice})

    def send_audio(
        self, user: UserRef, data: bytes, *, duration: int, file_name: str = "audio.ogg", mime: str = "audio/ogg",
        caption: str | None = None,
    ) -> ChatMessage:
        """The user sends a recording as an audio file (Telegram's ``audio``, not a voice note)."""
        stored = self.world.files.add("audio", data, file_name=file_name, mime_type=mime)
        audio = {"file_id": stored.file_id, "file_unique_id": stored.file_unique_id, "file_size": stored.file_size,
                 "duration": duration, "file_name": file_name, "mime_type": mime}
        content: dict[str, Any] = {"audio": audio}
        if caption:
            content["caption"] = caption
        return self._user_message(user, content)

    def send_video(
        self, user: UserRef, data: bytes, *, duration: int, width: int = 640, height: int = 360,
        mime: str = "video/mp4", caption: str | None = None,
    ) -> ChatMessage:
        """The user sends a short video (``duration`` in seconds, as the phone declares it)."""
        stored = self.world.files.add("video", data, mime_type=mime, width=width, height=height)
        video = {"file_id": stored.file_id, "file_unique_id": stored.file_unique_id, "file_size": stored.file_size,
                 "duration": duration, "width": width, "height": height, "mime_type": mime}
        content: dict[str, Any] = {"video": video}
        if caption:
            content["caption"] = caption
        return self._user_message(user, content)

    def edit_text(self, user: UserRef, message: MessageRef, text: str) -> ChatMessage:
        """The user edits one of their own earlier text messages; the bot receives an ``edited_message``.

        Raises:
            LookupError: the message is not the user's.
        """
        person = self.world.resolve_user(user)
        chat = self._chat(person)
        message_id = message if isinstance(message, int) else message.message_id
        current = chat.messages.get(message_id)
        if current is None or current.from_bot:
            raise LookupError(f"no message {message_id} of user {person.id}")
        edit_date = int(time.time())
        raw = {**current.raw, "text": text, "edit_date": edit_date}
        raw.pop("entities", None)
        entities = [
            {"type": "bot_command", "offset": utf16_length(text[: m.start()]), "length": utf16_length(m.group())}
            for m in _BOT_COMMAND.finditer(text)
        ]
        if entities:
            raw["entities"] = entities
        edited = self.world.update_message(chat, current, raw=raw, edit_date=edit_date, edits=current.edits + 1)
        self.world.primary.enqueue("edited_message", raw)
        return edited

    def send_document(
        self,
        user: UserRef,
        data: bytes,
        filename: str,
        mime: str = "application/octet-stream",
        caption: str | None = None,
    ) -> ChatMessage:
        """The user sends a file as a document; the bot can fetch it with ``getFile``."""
        stored = self.world.files.add("document", data, file_name=filename, mime_type=mime)
        content: dict[str, Any] = {"document": stored.as_document()}
        if caption:
            content["caption"] = caption
        return self._user_message(user, content)

    def send_raw_update(self, kind: str, payload: Mapping[str, Any]) -> dict[str, Any] | None:
        """Queue an update of any shape for the main bot, as a (possibly older or broken) Bot API server would.

        For tests of hostile or unreadable input: nothing is checked or recorded in the chats.

        Args:
            kind: the update field (``"poll"``, ``"message"``, ``"edited_channel_post"``…).
            payload: the object under that field, as it should arrive.

        Returns:
            The queued update, or None when the bot's ``allowed_updates`` exclude this kind.
        """
        return self.world.primary.enqueue(kind, payload)

    def _chat(self, user: User, bot: BotState | None = None) -> ChatState:
        chat = self.world.chat(bot or self.world.primary, user.id)
        assert chat is not None  # resolve_user registered the user
        return chat

    def _persona_phone(self, user_id: int) -> str | None:
        return next((p.phone for p in self.personas if p.user_id == user_id), None)

    def _user_message(self, user: UserRef, content: Mapping[str, Any], *, bot: BotState | None = None) -> ChatMessage:
        person = self.world.resolve_user(user)
        bot = bot or self.world.primary
        chat = self._chat(person, bot)
        self.world.blocked.discard(person.id)  # a user who writes again has unblocked the bot
        message_id = self.world.new_message_id(chat)
        raw = {
            "message_id": message_id,
            "from": person.as_user(),
            "chat": person.as_chat(),
            "date": int(time.time()),
            **content,
        }
        if chat.reply_keyboard is not None and chat.reply_keyboard.get("one_time_keyboard"):
            chat.reply_keyboard = None
        message = self.world.add_message(chat, ChatMessage(message_id, person.id, False, raw["date"], raw))
        bot.enqueue("message", raw)
        return message

    # --- reading the chats -----------------------------------------------------------------------

    def messages(self, chat_id: int) -> list[ChatMessage]:
        """The bot's messages in a chat, oldest first, as they are now (edits applied, deleted ones gone)."""
        chat = self.world.primary.chats.get(chat_id)
        return [m for m in chat.messages.values() if m.from_bot] if chat else []

    def transcript(self, chat_id: int) -> list[ChatMessage]:
        """Every message of a chat, the user's and the bot's, oldest first."""
        chat = self.world.primary.chats.get(chat_id)
        return list(chat.messages.values()) if chat else []

    def last_message(self, chat_id: int) -> ChatMessage | None:
        """The bot's latest message in a chat, if any."""
        messages = self.messages(chat_id)
        return messages[-1] if messages else None

    def reply_keyboard(self, chat_id: int) -> Mapping[str, Any] | None:
        """The reply keyboard the user sees now (sent with a message, until removed)."""
        chat = self.world.primary.chats.get(chat_id)
        return chat.reply_keyboard if chat else None

    def callback_query(self, query_id: str) -> CallbackQueryRecord:
        """A button press and how (whether) the bot answered it."""
        return self.world.primary.callback_queries[query_id]

    def unanswered_callbacks(self) -> list[CallbackQueryRecord]:
        """Button presses the bot has not answered with ``answerCallbackQuery`` (Telegram shows a spinner)."""
        return [record for record in self.world.primary.callback_queries.values() if not record.answered]

    def commands_for(self, user: UserRef) -> list[dict[str, str]]:
        """The command menu Telegram would show this user (scope and language resolved)."""
        return visible_commands(self.world.primary, self.world.resolve_user(user))

    def file(self, file_id: str) -> StoredFile:
        """A stored file (sent by the bot or a user) by ``file_id``.

        Raises:
            KeyError: unknown ``file_id``.
        """
        stored = self.world.files.get(file_id)
        if stored is None:
            raise KeyError(file_id)
        return stored

    @property
    def calls(self) -> list[ApiCall]:
        """Every Bot API request so far, in order (a live list)."""
        return self.world.calls

    def calls_to(self, method: str, *, ok: bool | None = None) -> list[ApiCall]:
        """The requests to one method (``ok=True`` only successful ones, ``False`` only failed ones)."""
        name = method.lower()
        return [c for c in self.world.calls if c.method.lower() == name and (ok is None or c.ok == ok)]

    @property
    def pending_updates(self) -> list[dict[str, Any]]:
        """Updates the main bot has not confirmed yet."""
        return list(self.world.primary.pending)

    @property
    def webhook(self) -> WebhookConfig | None:
        """The main bot's webhook, if one is set."""
        return self.world.primary.webhook

    # --- waiting ---------------------------------------------------------------------------------

    async def wait_until(
        self,
        condition: Callable[[], T | None],
        *,
        timeout: float = DEFAULT_TIMEOUT,  # noqa: ASYNC109 (the waiting helpers' documented interface)
    ) -> T:
        """Wait until ``condition()`` returns something other than None/False, re-checking on every change.

        Raises:
            TimeoutError: it did not happen in time.
        """
        return await self.world.changes.wait_for(condition, timeout)

    async def wait_for_message(
        self,
        chat_id: int,
        predicate: Callable[[ChatMessage], bool] | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,  # noqa: ASYNC109
        after: int | None = None,
        from_bot: str | None = None,
    ) -> ChatMessage:
        """Wait for a new message from the bot in a chat.

        Args:
            chat_id: the chat (user id).
            predicate: only a message for which this is true counts.
            timeout: seconds.
            after: only messages with a greater id count; defaults to the chat's last message now,
                so messages sent before the call are ignored (pass 0 to include them).
            from_bot: the token of another bot than the main one.

        Returns:
            The first matching bot message, as it is when found.

        Raises:
            TimeoutError: none came in time (the message lists what the chat holds).
        """
        bot = self.world.bot(from_bot) if from_bot else self.world.primary
        chat = self.world.chat(bot, chat_id)
        if chat is None:
            raise KeyError(f"no user {chat_id}")
        start = chat.next_message_id - 1 if after is None else after
        seen = start

        def found() -> ChatMessage | None:
            nonlocal seen
            for message_id in range(seen + 1, chat.next_message_id):
                message = chat.messages.get(message_id)
                if message is not None and message.from_bot and (predicate is None or predicate(message)):
                    return message
            if predicate is None:
                seen = chat.next_message_id - 1  # nothing new matched: look only at newer ids next time
            return None

        try:
            return await self.world.changes.wait_for(found, timeout)
        except TimeoutError:
            raise TimeoutError(
                f"no new bot message in chat {chat_id} within {timeout}s; chat: {self._describe(chat)}"
            ) from None

    async def wait_for_edit(
        self,
        chat_id: int,
        message_id: int,
        predicate: Callable[[ChatMessage], bool] | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,  # noqa: ASYNC109
    ) -> ChatMessage:
        """Wait until the bot edits one of its messages (again).

        Returns:
            The message after an edit made after this call (matching ``predicate`` if given).

        Raises:
            TimeoutError: it was not edited in time.
        """
        chat = self.world.primary.chats.get(chat_id)
        current = chat.messages.get(message_id) if chat else None
        if chat is None or current is None:
            raise LookupError(f"no message {message_id} in chat {chat_id}")
        edits = current.edits

        def edited() -> ChatMessage | None:
            message = chat.messages.get(message_id)
            if message is not None and message.edits > edits and (predicate is None or predicate(message)):
                return message
            return None

        try:
            return await self.world.changes.wait_for(edited, timeout)
        except TimeoutError:
            raise TimeoutError(f"message {message_id} in chat {chat_id} was not edited within {timeout}s") from None

    async def wait_for_call(
        self,
        method: str,
        predicate: Callable[[ApiCall], bool] | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,  # noqa: ASYNC109
        since: int = 0,
    ) -> ApiCall:
        """Wait until the bot has called a method (calls already made count, from index ``since``).

        Args:
            method: the method name, any case.
            predicate: only a call for which this is true counts.
            timeout: seconds.
            since: index in :attr:`calls` to start from (``len(emu.calls)`` to count only new calls).

        Returns:
            The first matching call.

        Raises:
            TimeoutError: no such call in time.
        """
        name = method.lower()
        position = since

        def found() -> ApiCall | None:
            nonlocal position
            calls = self.world.calls
            while position < len(calls):
                call = calls[position]
                position += 1
                if call.method.lower() == name and (predicate is None or predicate(call)):
                    return call
            return None

        try:
            return await self.world.changes.wait_for(found, timeout)
        except TimeoutError:
            raise TimeoutError(f"no {method} call within {timeout}s") from None

    async def wait_for_answer(
        self,
        query_id: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,  # noqa: ASYNC109
    ) -> CallbackQueryRecord:
        """Wait until the bot answers a button press with ``answerCallbackQuery``.

        Raises:
            TimeoutError: it did not answer in time.
        """
        record = self.world.primary.callback_queries[query_id]
        try:
            return await self.world.changes.wait_for(lambda: record if record.answered else None, timeout)
        except TimeoutError:
            raise TimeoutError(f"callback query {query_id} was not answered within {timeout}s") from None

    def _describe(self, chat: ChatState) -> str:
        lines = [
            f"{'bot' if m.from_bot else 'user'}#{m.message_id}: {(m.text or m.caption or '')[:80]!r}"
            for m in list(chat.messages.values())[-6:]
        ]
        return "; ".join(lines) or "(empty)"

    # --- faults ----------------------------------------------------------------------------------

    def block(self, chat_id: int) -> None:
        """The user blocks the bot: sending to them answers 403 "Forbidden: bot was blocked by the user"."""
        self.world.blocked.add(chat_id)

    def unblock(self, chat_id: int) -> None:
        """The user unblocks the bot."""
        self.world.blocked.discard(chat_id)

    def fail_next(
        self,
        method: str,
        *,
        error_code: int,
        description: str,
        retry_after: int | None = None,
        times: int = 1,
        chat_id: int | None = None,
    ) -> None:
        """Make the next calls of a method fail with a given error.

        Args:
            method: e.g. ``"sendMessage"`` (any case).
            error_code: HTTP status and ``error_code`` (e.g. 429, 500, 502).
            description: Telegram's text, e.g. ``"Too Many Requests: retry after 3"``.
            retry_after: sent as ``parameters.retry_after`` (PTB raises ``RetryAfter``).
            times: how many calls fail.
            chat_id: only calls to this chat fail.
        """
        self.faults.add(
            method,
            error_code=error_code,
            description=description,
            retry_after=retry_after,
            times=times,
            chat_id=chat_id,
        )

    def limits(self, *, per_chat_per_second: int | None = None, global_per_second: int | None = None) -> None:
        """Turn on Telegram-like flood control for sent messages (no arguments turns it off).

        Over the limit, ``send*`` methods answer 429 "Too Many Requests: retry after N" with
        ``parameters.retry_after``. Telegram's own limits are about 1 message per second per chat and
        30 per second overall.
        """
        self.flood.configure(per_chat_per_second=per_chat_per_second, global_per_second=global_per_second)

    # --- HTTP ------------------------------------------------------------------------------------

    def _build_app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_UPLOAD_BYTES + 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle_api)
        app.router.add_get("/file/bot{token}/{file_path:.+}", self._handle_file)
        webchat.add_routes(app, self)
        return app

    async def _handle_api(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        name = request.match_info["method"]
        at = datetime.now(UTC)
        params: dict[str, Any] = {}
        files: dict[str, Upload] = {}
        try:
            if TOKEN_PATTERN.match(token) is None:
                raise unauthorized()
            bot = self.world.bot(token)
            entry = METHODS.get(name.lower())
            if entry is None:
                raise not_found()
            name, method = entry
            params, files = await read_params(request)
            self.faults.check(name, params.get("chat_id"))
            result = await method(Call(self.world, bot, params, files, self.flood, self.delivery))
        except ApiError as error:
            self._record(name, params, files, at, token, error)
            return web.json_response(error.payload(), status=error.error_code)
        body: dict[str, Any] = {"ok": True, "result": result}
        if isinstance(result, Described):
            body = {"ok": True, "result": result.result, "description": result.description}
        self._record(name, params, files, at, token, None)
        return web.json_response(body)

    def _record(
        self,
        method: str,
        params: dict[str, Any],
        files: dict[str, Upload],
        at: datetime,
        token: str,
        error: ApiError | None,
    ) -> None:
        if files:
            params = {**params, **{k: {"upload": f.filename, "size": len(f.data)} for k, f in files.items()}}
        self.world.calls.append(
            ApiCall(
                method=method,
                params=params,
                at=at,
                token=token,
                error_code=error.error_code if error else None,
                description=error.description if error else None,
            )
        )
        self.world.changes.notify()

    async def _handle_file(self, request: web.Request) -> web.Response:
        if TOKEN_PATTERN.match(request.match_info["token"]) is None:
            error = unauthorized()
            return web.json_response(error.payload(), status=error.error_code)
        stored = self.world.files.by_path(request.match_info["file_path"])
        if stored is None:
            error = not_found()
            return web.json_response(error.payload(), status=error.error_code)
        return web.Response(body=stored.data, content_type=stored.mime_type or "application/octet-stream")


async def _serve(args: argparse.Namespace) -> None:
    emulator = BotApiEmulator(token=args.token)
    root = await emulator.start(args.host, args.port)
    print(f"Bot API emulator at {root}", flush=True)
    print(f"  bot token:  {emulator.token}", flush=True)
    print(f"  Bot API:    {root}/bot<token>/<method>  (BALCAO_TELEGRAM_API_URL={root})", flush=True)
    print(f"  web chat:   {root}/", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
    finally:
        await emulator.stop()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the emulator alone until interrupted.

    Args:
        argv: command-line arguments (defaults to ``sys.argv[1:]``).

    Returns:
        The exit status.
    """
    parser = argparse.ArgumentParser(
        prog="python -m bot.sandbox.emulator",
        description="Local Telegram Bot API emulator with a web chat, for tests and the offline demo.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: %(default)s)")
    parser.add_argument("--port", type=int, default=8081, help="TCP port, 0 for any free one (default: %(default)s)")
    parser.add_argument("--token", default=DEFAULT_TOKEN, help="token of the bot the web chat talks to")
    parser.add_argument("--verbose", action="store_true", help="log at INFO level (webhook deliveries, errors)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
