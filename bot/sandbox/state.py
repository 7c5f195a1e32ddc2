"""What the emulated Telegram knows: users, bots, chats and their messages, pending updates, calls.

Everything lives in memory and in one event loop. Changes wake waiters through :class:`Signal`,
so tests and the web chat wait on events instead of polling.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol, TypeVar

from bot.sandbox.files import FileStore
from bot.sandbox.html_entities import FormattedText, to_html

T = TypeVar("T")

TOKEN_PATTERN = re.compile(r"^(\d+):[A-Za-z0-9_-]+$")
DEFAULT_ALLOWED_UPDATES = frozenset(
    {
        "message",
        "edited_message",
        "channel_post",
        "edited_channel_post",
        "business_connection",
        "business_message",
        "edited_business_message",
        "deleted_business_messages",
        "inline_query",
        "chosen_inline_result",
        "callback_query",
        "shipping_query",
        "pre_checkout_query",
        "purchased_paid_media",
        "poll",
        "poll_answer",
        "my_chat_member",
        "chat_join_request",
        "chat_boost",
        "removed_chat_boost",
    }
)
"""Update types delivered when a bot never asked for others (``chat_member`` and reactions need opting in)."""


class Signal:
    """Wakes every waiter when something changed; each waiter then re-checks its own condition."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def notify(self) -> None:
        """Wake everyone waiting now (cheap when nobody waits)."""
        event, self._event = self._event, asyncio.Event()
        event.set()

    async def wait_for(self, check: Callable[[], T | None], timeout: float | None) -> T:  # noqa: ASYNC109
        """Wait until ``check()`` returns something other than None or False, and return it.

        Args:
            check: evaluated now and after every notification.
            timeout: seconds; None waits forever.

        Returns:
            The first truthy-or-zero value ``check`` returned (anything but None and False).

        Raises:
            TimeoutError: when the time ran out first.
        """
        async with asyncio.timeout(timeout):
            while True:
                event = self._event
                result = check()
                if result is not None and result is not False:
                    return result
                await event.wait()


@dataclass(frozen=True)
class User:
    """A Telegram user who talks to the bot.

    Attributes:
        id: the user id, also the id of their private chat with the bot.
        first_name: first name.
        last_name: last name, if any.
        username: username without ``@``, if any.
        language_code: IETF tag of the app's language, e.g. ``"pt-br"``.
    """

    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    language_code: str | None = "pt-br"

    def as_user(self) -> dict[str, Any]:
        """The Bot API ``User`` object."""
        user: dict[str, Any] = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        if self.last_name:
            user["last_name"] = self.last_name
        if self.username:
            user["username"] = self.username
        if self.language_code:
            user["language_code"] = self.language_code
        return user

    def as_chat(self) -> dict[str, Any]:
        """The Bot API ``Chat`` object of the private chat with this user."""
        chat: dict[str, Any] = {"id": self.id, "type": "private", "first_name": self.first_name}
        if self.last_name:
            chat["last_name"] = self.last_name
        if self.username:
            chat["username"] = self.username
        return chat


@dataclass(frozen=True)
class Persona:
    """Someone a person can play in the web chat (and a ready-made user for tests).

    Attributes:
        user_id: Telegram user id.
        first_name: first name shown to the bot.
        language_code: Telegram app language, e.g. ``"pt-br"``, ``"en"``.
        phone: phone number shared with "share my contact".
        role_label: who this is, shown in the web chat (e.g. "Motorista de aplicativo").
        last_name: last name, if any.
        username: username without ``@``, if any.
    """

    user_id: int
    first_name: str
    language_code: str = "pt-br"
    phone: str | None = None
    role_label: str = ""
    last_name: str | None = None
    username: str | None = None

    @property
    def user(self) -> User:
        """The Telegram user this persona is."""
        return User(self.user_id, self.first_name, self.last_name, self.username, self.language_code)


DEFAULT_PERSONAS: tuple[Persona, ...] = (
    Persona(
        user_id=700000001,
        first_name="Carlos",
        last_name="Pereira",
        phone="+5565999110001",
        role_label="Motorista de aplicativo",
        username="carlos_motorista",
    ),
    Persona(
        user_id=700000002,
        first_name="Maria",
        last_name="Souza",
        phone="+5565999110002",
        role_label="Cidadã",
    ),
    Persona(
        user_id=700000003,
        first_name="Ana",
        last_name="Lima",
        phone="+5565999110003",
        role_label="Servidora da prefeitura",
        username="ana_prefeitura",
    ),
    Persona(
        user_id=700000004,
        first_name="Clara",
        last_name="Rocha",
        phone="+5565999110004",
        role_label="Atendente da prefeitura",
    ),
    Persona(
        user_id=700000005,
        first_name="Inês",
        last_name="Campos",
        phone="+5565999110005",
        role_label="Fiscal de posturas e de transporte",
    ),
    Persona(
        user_id=700000006,
        first_name="Otávio",
        last_name="Reis",
        phone="+5565999110006",
        role_label="Ouvidor",
    ),
)

UserRef = User | Persona | int
"""A user given to the emulator's API: the user, a persona, or a known user id."""


class HasMessageId(Protocol):
    """Anything with a ``message_id``: a :class:`ChatMessage` or python-telegram-bot's ``Message``."""

    @property
    def message_id(self) -> int:
        """The message's id in its chat."""
        ...


MessageRef = HasMessageId | int
"""A message given to the emulator's API: a message object or its id."""


@dataclass(frozen=True)
class ChatMessage:
    """One message of a private chat, as it is now (edits applied).

    Attributes:
        message_id: id within the chat.
        chat_id: the chat (the user's id).
        from_bot: True for the bot's messages, False for the user's.
        date: unix time it was sent.
        raw: the Bot API ``Message`` object, as the bot got it or would get it now.
        reply_markup: the markup the bot sent with it (inline keyboard, reply keyboard, removal or force reply).
        edit_date: unix time of the last edit, if edited.
        edits: how many times it was edited.
    """

    message_id: int
    chat_id: int
    from_bot: bool
    date: int
    raw: Mapping[str, Any]
    reply_markup: Mapping[str, Any] | None = None
    edit_date: int | None = None
    edits: int = 0

    @property
    def text(self) -> str | None:
        """Plain text of a text message (markup removed, as Telegram stores it)."""
        return self.raw.get("text")

    @property
    def caption(self) -> str | None:
        """Caption of a photo or document."""
        return self.raw.get("caption")

    @property
    def entities(self) -> list[dict[str, Any]]:
        """Entities of the text or caption."""
        return list(self.raw.get("entities") or self.raw.get("caption_entities") or [])

    @property
    def html(self) -> str:
        """The text or caption rendered back to Telegram HTML (``"<b>Protocolo</b> 12"``)."""
        return to_html(FormattedText(self.text or self.caption or "", self.entities))

    @property
    def document(self) -> Mapping[str, Any] | None:
        """The ``Document`` object of a document message."""
        return self.raw.get("document")

    @property
    def photo(self) -> list[Mapping[str, Any]] | None:
        """The ``PhotoSize`` array of a photo message, smallest first."""
        return self.raw.get("photo")

    @property
    def contact(self) -> Mapping[str, Any] | None:
        """The ``Contact`` of a shared contact."""
        return self.raw.get("contact")

    @property
    def location(self) -> Mapping[str, Any] | None:
        """The ``Location`` of a shared location."""
        return self.raw.get("location")

    @property
    def inline_buttons(self) -> list[Mapping[str, Any]]:
        """Every inline keyboard button, row by row."""
        markup = self.reply_markup or {}
        return [button for row in markup.get("inline_keyboard", []) for button in row]

    @property
    def keyboard_buttons(self) -> list[Mapping[str, Any]]:
        """Every reply keyboard button (strings turned into ``{"text": ...}``), row by row."""
        markup = self.reply_markup or {}
        return [_keyboard_button(button) for row in markup.get("keyboard", []) for button in row]

    def button(self, label_or_data: str) -> Mapping[str, Any]:
        """The inline button whose visible text or ``callback_data`` is ``label_or_data``.

        Args:
            label_or_data: the button's text (exactly) or its callback data.

        Returns:
            The button object.

        Raises:
            LookupError: no such button; the message lists the buttons there are.
        """
        buttons = self.inline_buttons
        for button in buttons:
            if button.get("text") == label_or_data:
                return button
        for button in buttons:
            if button.get("callback_data") == label_or_data:
                return button
        shown = [(b.get("text"), b.get("callback_data")) for b in buttons]
        raise LookupError(f"message {self.message_id} has no button {label_or_data!r}; buttons: {shown}")


def _keyboard_button(button: Any) -> Mapping[str, Any]:
    return {"text": button} if isinstance(button, str) else button


@dataclass(frozen=True)
class ApiCall:
    """One Bot API request the bot made.

    Attributes:
        method: the method name as Telegram spells it (``"sendMessage"``).
        params: the typed parameters (files appear as ``{"upload": name, "size": n}``).
        at: when it arrived (UTC).
        token: the bot's token.
        error_code: None when it succeeded, else the error code answered.
        description: the error description answered, if any.
    """

    method: str
    params: Mapping[str, Any]
    at: datetime
    token: str
    error_code: int | None = None
    description: str | None = None

    @property
    def ok(self) -> bool:
        """True when the call succeeded."""
        return self.error_code is None


@dataclass
class CallbackQueryRecord:
    """A button press and how the bot answered it.

    Attributes:
        id: the callback query id.
        user_id: who pressed.
        chat_id: the chat of the message.
        message_id: the message whose button was pressed.
        data: the button's callback data.
        answered: whether the bot called ``answerCallbackQuery``.
        answer_text: the notification text it gave, if any.
        show_alert: whether it asked for an alert instead of a toast.
    """

    id: str
    user_id: int
    chat_id: int
    message_id: int
    data: str
    answered: bool = False
    answer_text: str | None = None
    show_alert: bool = False


@dataclass
class ChatState:
    """A private chat between one bot and one user."""

    user: User
    messages: dict[int, ChatMessage] = field(default_factory=dict)
    next_message_id: int = 1
    reply_keyboard: Mapping[str, Any] | None = None
    version: int = 0
    notices: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=20))


@dataclass
class WebhookConfig:
    """A webhook set with ``setWebhook``."""

    url: str
    secret_token: str | None
    max_connections: int
    allowed_updates: list[str] | None
    last_error_date: int | None = None
    last_error_message: str | None = None


class BotState:
    """One bot (one token): identity, chats, pending updates, webhook and command menus."""

    def __init__(self, token: str, first_name: str, username: str) -> None:
        match = TOKEN_PATTERN.match(token)
        if match is None:
            raise ValueError(f"not a bot token: {token!r}")
        self.token = token
        self.bot_id = int(match.group(1))
        self.first_name = first_name
        self.username = username
        self.pending: deque[dict[str, Any]] = deque()
        self.next_update_id = 1
        self.allowed_updates: frozenset[str] = DEFAULT_ALLOWED_UPDATES
        self.webhook: WebhookConfig | None = None
        self.webhook_task: asyncio.Task[None] | None = None
        self.updates_signal = Signal()
        self.poll_generation = 0
        self.waiting_polls = 0
        self.chats: dict[int, ChatState] = {}
        self.commands: dict[tuple[str, str], list[dict[str, str]]] = {}
        self.menu_buttons: dict[int | None, dict[str, Any]] = {}
        self.callback_queries: dict[str, CallbackQueryRecord] = {}
        self.properties: dict[tuple[str, str], str] = {}

    def as_user(self) -> dict[str, Any]:
        """The Bot API ``User`` object of the bot (what ``getMe`` answers)."""
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": self.first_name,
            "username": self.username,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    def as_sender(self) -> dict[str, Any]:
        """The bot as the ``from`` of its messages (the short ``User`` form)."""
        return {"id": self.bot_id, "is_bot": True, "first_name": self.first_name, "username": self.username}

    def enqueue(self, kind: str, payload: Mapping[str, Any]) -> dict[str, Any] | None:
        """Queue an update for the bot, unless its ``allowed_updates`` exclude this kind.

        Args:
            kind: the update field, e.g. ``"message"`` or ``"callback_query"``.
            payload: the object under that field.

        Returns:
            The update, or None when it was filtered out (Telegram drops those).
        """
        if kind not in self.allowed_updates:
            return None
        update = {"update_id": self.next_update_id, kind: payload}
        self.next_update_id += 1
        self.pending.append(update)
        self.updates_signal.notify()
        return update

    def confirm(self, offset: int) -> None:
        """Forget updates confirmed by a ``getUpdates`` offset (negative: keep only the last ones)."""
        pending = self.pending
        if offset > 0:
            while pending and pending[0]["update_id"] < offset:
                pending.popleft()
        elif offset < 0:
            keep = -offset
            while len(pending) > keep:
                pending.popleft()


class World:
    """All the emulated state, shared by the Bot API, the Python API and the web chat."""

    def __init__(self, *, primary_token: str, bot_first_name: str, bot_username: str) -> None:
        self.users: dict[int, User] = {}
        self.bots: dict[str, BotState] = {}
        self.files = FileStore()
        self.calls: list[ApiCall] = []
        self.blocked: set[int] = set()
        self.changes = Signal()
        self.closing = False
        self.page_polls = 0  # web chat requests waiting for a change
        self._query_ids = itertools.count(int(time.time()) * 1000)
        self.primary = self.bot(primary_token, first_name=bot_first_name, username=bot_username)

    def bot(self, token: str, *, first_name: str | None = None, username: str | None = None) -> BotState:
        """The bot of a token, created on first use.

        Raises:
            ValueError: the token is not of the form ``digits:letters``.
        """
        state = self.bots.get(token)
        if state is None:
            bot_id = token.split(":", 1)[0]
            state = BotState(token, first_name or "Sandbox bot", username or f"sandbox_{bot_id}_bot")
            self.bots[token] = state
        return state

    def add_user(self, user: User) -> User:
        """Register (or update) a user, who becomes a reachable chat."""
        self.users[user.id] = user
        return user

    def resolve_user(self, ref: UserRef) -> User:
        """Turn a user, persona or id into a registered user.

        Raises:
            KeyError: an id of nobody registered.
        """
        if isinstance(ref, Persona):
            ref = ref.user
        if isinstance(ref, User):
            if self.users.get(ref.id) != ref:
                self.add_user(ref)
            return ref
        user = self.users.get(ref)
        if user is None:
            raise KeyError(f"no user {ref}; add it with add_user() or pass a User/Persona")
        return user

    def chat(self, bot: BotState, chat_id: int) -> ChatState | None:
        """The bot's private chat with a registered user, created on first use; None for an unknown id."""
        chat = bot.chats.get(chat_id)
        if chat is None:
            user = self.users.get(chat_id)
            if user is None:
                return None
            chat = ChatState(user)
            bot.chats[chat_id] = chat
        return chat

    def touch(self, chat: ChatState) -> None:
        """Record that a chat changed and wake whoever waits."""
        chat.version += 1
        self.changes.notify()

    def add_message(self, chat: ChatState, message: ChatMessage) -> ChatMessage:
        """Append a message to a chat."""
        chat.messages[message.message_id] = message
        self.touch(chat)
        return message

    def new_message_id(self, chat: ChatState) -> int:
        """The next message id in a chat (both sides share the sequence, as in Telegram)."""
        message_id = chat.next_message_id
        chat.next_message_id += 1
        return message_id

    def update_message(self, chat: ChatState, message: ChatMessage, **changes: Any) -> ChatMessage:
        """Replace a message by an edited copy."""
        updated = replace(message, **changes)
        chat.messages[message.message_id] = updated
        self.touch(chat)
        return updated

    def new_callback_query_id(self) -> str:
        """A fresh callback query id (a numeric string, like Telegram's)."""
        return str(next(self._query_ids))
