"""The Bot API methods the emulator implements, with Telegram's answers and errors.

Each method takes a :class:`Call` (the bot, its typed parameters and uploaded files) and returns the
``result`` to send, or raises :class:`~bot.sandbox.errors.ApiError`. :data:`METHODS` maps the
lower-cased method name (Telegram's names are case-insensitive) to its spelling and implementation.
"""

from __future__ import annotations

import mimetypes
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bot.sandbox.errors import BLOCKED_BY_USER, CHAT_NOT_FOUND, bad_request, forbidden
from bot.sandbox.files import StoredFile
from bot.sandbox.html_entities import EntityParseError, FormattedText, parse_html, trim
from bot.sandbox.image_size import image_size
from bot.sandbox.keyboards import check_inline_keyboard, check_reply_markup
from bot.sandbox.limits import FloodLimiter
from bot.sandbox.params import Upload
from bot.sandbox.state import BotState, ChatMessage, ChatState, User, World
from bot.sandbox.updates import UpdateDelivery

MESSAGE_MAX_LENGTH = 4096
CAPTION_MAX_LENGTH = 1024
PHOTO_MAX_BYTES = 10 * 1024 * 1024
NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly the same "
    "as a current content and reply markup of the message"
)
_COMMAND = re.compile(r"^[a-z0-9_]{1,32}$")
_LANGUAGE = re.compile(r"^([a-z]{2})?$")
_CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)


@dataclass(frozen=True)
class Described:
    """A result that Telegram answers with a ``description`` too (``"Webhook was set"``)."""

    result: Any
    description: str


@dataclass
class Call:
    """One Bot API request being answered.

    Attributes:
        world: the emulator's state.
        bot: the bot of the token.
        params: typed parameters.
        files: uploaded files by multipart part name.
        flood: the flood limiter (sent messages count against it).
        delivery: getUpdates and webhooks.
    """

    world: World
    bot: BotState
    params: dict[str, Any]
    files: dict[str, Upload]
    flood: FloodLimiter
    delivery: UpdateDelivery

    def text_param(self, name: str) -> str | None:
        """A string parameter (numbers sent in JSON bodies become their text)."""
        value = self.params.get(name)
        if value is None:
            return None
        return value if isinstance(value, str) else str(value)


Method = Callable[[Call], Awaitable[Any]]


def _now() -> int:
    return int(time.time())


# --- shared checks ------------------------------------------------------------------------------


def _target_chat(call: Call) -> ChatState:
    chat_id = call.params.get("chat_id")
    if chat_id is None or chat_id == "":
        raise bad_request("chat_id is empty")
    chat = call.world.chat(call.bot, chat_id) if isinstance(chat_id, int) else None
    if chat is None:
        raise bad_request(CHAT_NOT_FOUND)
    if chat_id in call.world.blocked:
        raise forbidden(BLOCKED_BY_USER)
    return chat


def _formatted(call: Call, *, text: str, entities_param: str, kind: str) -> FormattedText:
    parse_mode = call.text_param("parse_mode") or ""
    mode = parse_mode.lower()
    if mode == "html":
        try:
            formatted = parse_html(text)
        except EntityParseError as error:
            raise bad_request(f"can't parse entities: {error}") from None
    elif mode in {"markdown", "markdownv2"}:
        raise bad_request(f"the sandbox emulator understands parse_mode HTML only, not {parse_mode} ({kind})")
    elif mode:
        raise bad_request("unsupported parse_mode")
    else:
        entities = call.params.get(entities_param) or []
        if not isinstance(entities, list) or not all(isinstance(entity, Mapping) for entity in entities):
            raise bad_request(f"can't parse {entities_param.replace('_', ' ')} JSON object")
        formatted = FormattedText(text, [dict(entity) for entity in entities])
    return trim(formatted)


def _message_text(call: Call) -> FormattedText:
    text = call.text_param("text") or ""
    formatted = _formatted(call, text=text, entities_param="entities", kind="message text")
    if not formatted.text:
        raise bad_request("message text is empty")
    if len(formatted.text) > MESSAGE_MAX_LENGTH:
        raise bad_request("message is too long")
    return formatted


def _caption(call: Call) -> FormattedText | None:
    caption = call.text_param("caption")
    if not caption:
        return None
    formatted = _formatted(call, text=caption, entities_param="caption_entities", kind="caption")
    if len(formatted.text) > CAPTION_MAX_LENGTH:
        raise bad_request("message caption is too long")
    return formatted if formatted.text else None


def _reply_markup(call: Call) -> Mapping[str, Any] | None:
    markup = call.params.get("reply_markup")
    return None if markup is None else check_reply_markup(markup)


def _reply_to(call: Call, chat: ChatState) -> ChatMessage | None:
    parameters = call.params.get("reply_parameters")
    allow_missing = bool(call.params.get("allow_sending_without_reply"))
    message_id: Any = call.params.get("reply_to_message_id")
    if isinstance(parameters, Mapping):
        message_id = parameters.get("message_id")
        allow_missing = bool(parameters.get("allow_sending_without_reply", allow_missing))
    if message_id is None:
        return None
    message = chat.messages.get(int(message_id))
    if message is None and not allow_missing:
        raise bad_request("message to be replied not found")
    return message


def _base_message(call: Call, chat: ChatState, message_id: int) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "message_id": message_id,
        "from": call.bot.as_sender(),
        "chat": chat.user.as_chat(),
        "date": _now(),
    }
    if call.params.get("protect_content"):
        raw["has_protected_content"] = True
    return raw


def _set_text(raw: dict[str, Any], formatted: FormattedText, *, field: str, entities_field: str) -> None:
    raw[field] = formatted.text
    if formatted.entities:
        raw[entities_field] = formatted.entities
    else:
        raw.pop(entities_field, None)


def _deliver_bot_message(
    call: Call,
    chat: ChatState,
    raw: dict[str, Any],
    markup: Mapping[str, Any] | None,
    reply_to: ChatMessage | None,
) -> dict[str, Any]:
    if reply_to is not None:  # Telegram nests one level only
        raw["reply_to_message"] = {k: v for k, v in reply_to.raw.items() if k != "reply_to_message"}
    if markup is not None and "inline_keyboard" in markup:
        raw["reply_markup"] = markup
    if markup is not None:
        if "keyboard" in markup:
            chat.reply_keyboard = markup
        elif markup.get("remove_keyboard"):
            chat.reply_keyboard = None
    message = ChatMessage(
        message_id=raw["message_id"],
        chat_id=chat.user.id,
        from_bot=True,
        date=raw["date"],
        raw=raw,
        reply_markup=markup,
    )
    call.world.add_message(chat, message)
    return raw


# --- identity and updates -----------------------------------------------------------------------


async def get_me(call: Call) -> Any:
    """``getMe``: the bot's ``User``."""
    return call.bot.as_user()


async def log_out(call: Call) -> Any:
    """``logOut`` and ``close``: accepted, nothing to do locally."""
    return True


async def get_updates(call: Call) -> Any:
    """``getUpdates`` with offset, limit, timeout (long polling) and allowed_updates."""
    return await call.delivery.get_updates(
        call.bot,
        offset=call.params.get("offset"),
        limit=call.params.get("limit"),
        poll_timeout=call.params.get("timeout"),
        allowed_updates=call.params.get("allowed_updates"),
    )


async def set_webhook(call: Call) -> Any:
    """``setWebhook``: updates are then POSTed to the url (with the secret token header)."""
    url = call.text_param("url") or ""
    call.delivery.set_webhook(
        call.bot,
        url=url,
        secret_token=call.text_param("secret_token"),
        max_connections=call.params.get("max_connections"),
        allowed_updates=call.params.get("allowed_updates"),
        drop_pending_updates=bool(call.params.get("drop_pending_updates")),
    )
    return Described(True, "Webhook was set" if url else "Webhook was deleted")


async def delete_webhook(call: Call) -> Any:
    """``deleteWebhook``, optionally dropping pending updates."""
    had = call.delivery.delete_webhook(call.bot, drop_pending_updates=bool(call.params.get("drop_pending_updates")))
    return Described(True, "Webhook was deleted" if had else "Webhook is already deleted")


async def get_webhook_info(call: Call) -> Any:
    """``getWebhookInfo``."""
    return call.delivery.webhook_info(call.bot)


# --- messages -----------------------------------------------------------------------------------


async def send_message(call: Call) -> Any:
    """``sendMessage``: HTML checked, length checked, keyboards kept, flood control applied."""
    chat = _target_chat(call)
    formatted = _message_text(call)
    markup = _reply_markup(call)
    reply_to = _reply_to(call, chat)
    call.flood.check(chat.user.id, bot=call.bot.token)
    raw = _base_message(call, chat, call.world.new_message_id(chat))
    _set_text(raw, formatted, field="text", entities_field="entities")
    options = call.params.get("link_preview_options")
    if isinstance(options, Mapping) and options:
        raw["link_preview_options"] = options
    return _deliver_bot_message(call, chat, raw, markup, reply_to)


def _message_to_edit(call: Call) -> tuple[ChatState, ChatMessage]:
    if call.params.get("inline_message_id"):
        raise bad_request("MESSAGE_ID_INVALID")
    chat = _target_chat(call)
    message_id = call.params.get("message_id")
    if message_id is None:
        raise bad_request("message identifier is not specified")
    message = chat.messages.get(message_id)
    if message is None:
        raise bad_request("message to edit not found")
    if not message.from_bot:
        raise bad_request("message can't be edited")
    return chat, message


def _inline_markup(message: ChatMessage) -> Mapping[str, Any] | None:
    markup = message.reply_markup
    return markup if markup is not None and "inline_keyboard" in markup else None


def _edited(
    call: Call, chat: ChatState, message: ChatMessage, raw: dict[str, Any], markup: Mapping[str, Any] | None
) -> dict[str, Any]:
    if markup is not None:
        raw["reply_markup"] = markup
        kept: Mapping[str, Any] | None = markup
    else:
        raw.pop("reply_markup", None)
        kept = None if _inline_markup(message) is not None else message.reply_markup
    raw["edit_date"] = _now()
    call.world.update_message(
        chat, message, raw=raw, reply_markup=kept, edit_date=raw["edit_date"], edits=message.edits + 1
    )
    return raw


async def edit_message_text(call: Call) -> Any:
    """``editMessageText``: replaces text and inline keyboard (none given removes it)."""
    chat, message = _message_to_edit(call)
    if message.text is None:
        raise bad_request("there is no text in the message to edit")
    formatted = _message_text(call)
    markup = call.params.get("reply_markup")
    if markup is not None:
        check_inline_keyboard(markup)
    same_text = formatted.text == message.text and formatted.entities == message.entities
    if same_text and markup == _inline_markup(message):
        raise bad_request(NOT_MODIFIED)
    raw = dict(message.raw)
    _set_text(raw, formatted, field="text", entities_field="entities")
    return _edited(call, chat, message, raw, markup)


async def edit_message_reply_markup(call: Call) -> Any:
    """``editMessageReplyMarkup``: replaces or (without one) removes the inline keyboard."""
    chat, message = _message_to_edit(call)
    markup = call.params.get("reply_markup")
    if markup is not None:
        check_inline_keyboard(markup)
        if not markup.get("inline_keyboard"):
            markup = None
    if markup == _inline_markup(message):
        raise bad_request(NOT_MODIFIED)
    return _edited(call, chat, message, dict(message.raw), markup)


async def delete_message(call: Call) -> Any:
    """``deleteMessage``."""
    chat = _target_chat(call)
    message_id = call.params.get("message_id")
    if message_id is None:
        raise bad_request("message identifier is not specified")
    if chat.messages.pop(message_id, None) is None:
        raise bad_request("message to delete not found")
    call.world.touch(chat)
    return True


async def answer_callback_query(call: Call) -> Any:
    """``answerCallbackQuery``: each query can be answered once."""
    query_id = call.text_param("callback_query_id") or ""
    record = call.bot.callback_queries.get(query_id)
    if record is None or record.answered:
        raise bad_request("query is too old and response timeout expired or query ID is invalid")
    record.answered = True
    record.answer_text = call.text_param("text")
    record.show_alert = bool(call.params.get("show_alert"))
    chat = call.bot.chats.get(record.chat_id)
    if chat is not None:
        if record.answer_text:
            chat.notices.append(
                {"id": query_id, "text": record.answer_text, "show_alert": record.show_alert, "date": _now()}
            )
        call.world.touch(chat)
    else:
        call.world.changes.notify()
    return True


async def send_chat_action(call: Call) -> Any:
    """``sendChatAction``: checked and accepted."""
    _target_chat(call)
    if call.text_param("action") not in _CHAT_ACTIONS:
        raise bad_request("wrong parameter action in request")
    return True


# --- files --------------------------------------------------------------------------------------


def _input_file(call: Call, name: str) -> StoredFile | Upload:
    value = call.params.get(name)
    upload = call.files.get(name)
    if upload is None and isinstance(value, str) and value.startswith("attach://"):
        upload = call.files.get(value.removeprefix("attach://"))
    if upload is not None:
        return upload
    if isinstance(value, str) and value:
        if value.startswith(("http://", "https://")):
            raise bad_request("failed to get HTTP URL content")
        stored = call.world.files.get(value)
        if stored is None:
            raise bad_request("wrong file identifier/HTTP URL specified")
        return stored
    raise bad_request(f"there is no {name} in the request")


async def send_photo(call: Call) -> Any:
    """``sendPhoto``: upload (size read from the image) or ``file_id``; answers a ``PhotoSize`` array."""
    chat = _target_chat(call)
    source = _input_file(call, "photo")
    size: tuple[int, int] | None = None
    if isinstance(source, Upload):
        if len(source.data) > PHOTO_MAX_BYTES:
            raise bad_request("PHOTO_INVALID_DIMENSIONS")
        size = image_size(source.data)
        if size is None:
            raise bad_request("IMAGE_PROCESS_FAILED")
    elif source.kind != "photo":
        raise bad_request("can't use file of type Document as Photo")
    caption = _caption(call)
    markup = _reply_markup(call)
    reply_to = _reply_to(call, chat)
    call.flood.check(chat.user.id, bot=call.bot.token)
    if isinstance(source, Upload):
        assert size is not None
        sizes = call.world.files.add_photo(source.data, *size)
    else:
        sizes = [source]
    raw = _base_message(call, chat, call.world.new_message_id(chat))
    raw["photo"] = [stored.as_photo_size() for stored in sizes]
    if caption is not None:
        _set_text(raw, caption, field="caption", entities_field="caption_entities")
    return _deliver_bot_message(call, chat, raw, markup, reply_to)


async def send_document(call: Call) -> Any:
    """``sendDocument``: upload or ``file_id``; answers a message with a ``Document``."""
    chat = _target_chat(call)
    source = _input_file(call, "document")
    if isinstance(source, StoredFile) and source.kind != "document":
        raise bad_request("can't use file of type Photo as Document")
    caption = _caption(call)
    markup = _reply_markup(call)
    reply_to = _reply_to(call, chat)
    call.flood.check(chat.user.id, bot=call.bot.token)
    if isinstance(source, Upload):
        mime_type = source.content_type
        if mime_type in {"", "application/octet-stream"}:
            mime_type = mimetypes.guess_type(source.filename)[0] or "application/octet-stream"
        stored = call.world.files.add("document", source.data, file_name=source.filename, mime_type=mime_type)
    else:
        stored = source
    raw = _base_message(call, chat, call.world.new_message_id(chat))
    raw["document"] = stored.as_document()
    if caption is not None:
        _set_text(raw, caption, field="caption", entities_field="caption_entities")
    return _deliver_bot_message(call, chat, raw, markup, reply_to)


async def get_file(call: Call) -> Any:
    """``getFile``: the ``File`` with its download path."""
    stored = call.world.files.get(call.text_param("file_id") or "")
    if stored is None:
        raise bad_request("invalid file_id")
    return stored.as_file()


# --- commands, menu button, chat, bot properties ------------------------------------------------


def _scope_key(call: Call) -> str:
    scope = call.params.get("scope") or {"type": "default"}
    if not isinstance(scope, Mapping):
        raise bad_request("can't parse bot command scope JSON object")
    kind = scope.get("type", "default")
    if kind in {"default", "all_private_chats", "all_group_chats", "all_chat_administrators"}:
        return str(kind)
    if kind in {"chat", "chat_administrators", "chat_member"}:
        chat_id = scope.get("chat_id")
        if not isinstance(chat_id, int) or call.world.chat(call.bot, chat_id) is None:
            raise bad_request(CHAT_NOT_FOUND)
        if kind == "chat_member":
            return f"chat_member:{chat_id}:{scope.get('user_id')}"
        return f"{kind}:{chat_id}"
    raise bad_request("unsupported bot command scope type")


def _language(call: Call) -> str:
    language = call.text_param("language_code") or ""
    if not _LANGUAGE.match(language):
        raise bad_request("invalid language_code specified")
    return language


async def set_my_commands(call: Call) -> Any:
    """``setMyCommands`` for a scope and language (an empty list deletes them)."""
    commands = call.params.get("commands")
    if not isinstance(commands, list):
        raise bad_request("can't parse bot commands JSON object")
    if len(commands) > 100:
        raise bad_request("BOT_COMMANDS_TOO_MUCH")
    checked: list[dict[str, str]] = []
    for command in commands:
        if not isinstance(command, Mapping):
            raise bad_request("can't parse bot commands JSON object")
        name, description = command.get("command"), command.get("description")
        if not isinstance(name, str) or not _COMMAND.match(name):
            raise bad_request("BOT_COMMAND_INVALID")
        if not isinstance(description, str) or not 1 <= len(description.strip()) <= 256:
            raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        checked.append({"command": name, "description": description})
    key = (_scope_key(call), _language(call))
    if checked:
        call.bot.commands[key] = checked
    else:
        call.bot.commands.pop(key, None)
    call.world.changes.notify()
    return True


async def get_my_commands(call: Call) -> Any:
    """``getMyCommands``: exactly what was set for this scope and language."""
    return list(call.bot.commands.get((_scope_key(call), _language(call)), []))


async def delete_my_commands(call: Call) -> Any:
    """``deleteMyCommands`` for a scope and language."""
    call.bot.commands.pop((_scope_key(call), _language(call)), None)
    call.world.changes.notify()
    return True


def visible_commands(bot: BotState, user: User) -> list[dict[str, str]]:
    """The command menu Telegram shows a user in their private chat with the bot.

    Telegram looks, in order, for: this chat + the user's language, this chat, all private chats +
    language, all private chats, default + language, default.

    Args:
        bot: the bot.
        user: the user (their ``language_code`` picks the language).

    Returns:
        The commands, possibly empty.
    """
    language = (user.language_code or "")[:2].lower()
    for scope in (f"chat:{user.id}", "all_private_chats", "default"):
        for lang in (language, ""):
            commands = bot.commands.get((scope, lang))
            if commands:
                return list(commands)
    return []


async def set_chat_menu_button(call: Call) -> Any:
    """``setChatMenuButton`` for one chat or (without chat_id) the default."""
    chat_id = call.params.get("chat_id")
    if chat_id is not None:
        _target_chat(call)
    button = call.params.get("menu_button") or {"type": "default"}
    if not isinstance(button, Mapping) or button.get("type") not in {"commands", "web_app", "default"}:
        raise bad_request("can't parse menu button JSON object")
    call.bot.menu_buttons[chat_id] = dict(button)
    return True


async def get_chat_menu_button(call: Call) -> Any:
    """``getChatMenuButton``."""
    chat_id = call.params.get("chat_id")
    button = call.bot.menu_buttons.get(chat_id) or call.bot.menu_buttons.get(None)
    return button or {"type": "commands" if call.bot.commands else "default"}


async def get_chat(call: Call) -> Any:
    """``getChat``: the ``ChatFullInfo`` of a private chat."""
    chat_id = call.params.get("chat_id")
    chat = call.world.chat(call.bot, chat_id) if isinstance(chat_id, int) else None
    if chat is None:
        raise bad_request(CHAT_NOT_FOUND)
    return {
        **chat.user.as_chat(),
        "accent_color_id": 0,
        "max_reaction_count": 11,
        "accepted_gift_types": {
            "unlimited_gifts": False,
            "limited_gifts": False,
            "unique_gifts": False,
            "premium_subscription": False,
            "gifts_from_channels": False,
        },
    }


def _bot_property(field: str, limit: int) -> tuple[Method, Method]:
    async def setter(call: Call) -> Any:
        value = call.text_param(field) or ""
        if len(value) > limit:
            raise bad_request(f"{field} is too long")
        call.bot.properties[(field, _language(call))] = value
        return True

    async def getter(call: Call) -> Any:
        return {field: call.bot.properties.get((field, _language(call)), "")}

    return setter, getter


_set_description, _get_description = _bot_property("description", 512)
_set_short_description, _get_short_description = _bot_property("short_description", 120)
_set_name, _get_name = _bot_property("name", 64)

METHODS: dict[str, tuple[str, Method]] = {
    name.lower(): (name, method)
    for name, method in {
        "getMe": get_me,
        "logOut": log_out,
        "close": log_out,
        "getUpdates": get_updates,
        "setWebhook": set_webhook,
        "deleteWebhook": delete_webhook,
        "getWebhookInfo": get_webhook_info,
        "sendMessage": send_message,
        "editMessageText": edit_message_text,
        "editMessageReplyMarkup": edit_message_reply_markup,
        "deleteMessage": delete_message,
        "answerCallbackQuery": answer_callback_query,
        "sendChatAction": send_chat_action,
        "sendPhoto": send_photo,
        "sendDocument": send_document,
        "getFile": get_file,
        "setMyCommands": set_my_commands,
        "getMyCommands": get_my_commands,
        "deleteMyCommands": delete_my_commands,
        "setChatMenuButton": set_chat_menu_button,
        "getChatMenuButton": get_chat_menu_button,
        "getChat": get_chat,
        "setMyDescription": _set_description,
        "getMyDescription": _get_description,
        "setMyShortDescription": _set_short_description,
        "getMyShortDescription": _get_short_description,
        "setMyName": _set_name,
        "getMyName": _get_name,
    }.items()
}
"""Lower-cased method name -> (Telegram's spelling, implementation)."""
