"""Checking ``reply_markup`` like Telegram: inline keyboards, reply keyboards, removal and force reply."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.sandbox.errors import bad_request

_INLINE_ACTIONS = (
    "callback_data",
    "url",
    "login_url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "callback_game",
    "pay",
    "web_app",
    "copy_text",
)
_URL_SCHEMES = ("http://", "https://", "tg://")


def check_reply_markup(markup: Any) -> Mapping[str, Any]:
    """Validate a ``reply_markup`` object.

    Args:
        markup: the decoded ``reply_markup`` parameter.

    Returns:
        The markup, unchanged.

    Raises:
        ApiError: 400 with Telegram's description when the markup is not acceptable.
    """
    if not isinstance(markup, Mapping):
        raise bad_request("object expected as reply markup")
    if "inline_keyboard" in markup:
        check_inline_keyboard(markup)
    elif "keyboard" in markup:
        _check_reply_keyboard(markup["keyboard"])
    elif markup.get("remove_keyboard") is True or markup.get("force_reply") is True:
        pass
    else:
        raise bad_request("can't parse reply keyboard markup JSON object")
    return markup


def check_inline_keyboard(markup: Any) -> Mapping[str, Any]:
    """Validate an ``InlineKeyboardMarkup`` (the only markup edits accept).

    Raises:
        ApiError: 400 when it is not a valid inline keyboard.
    """
    rows = markup.get("inline_keyboard") if isinstance(markup, Mapping) else None
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise bad_request("inline keyboard expected")
    for row in rows:
        for button in row:
            if not isinstance(button, Mapping) or not isinstance(button.get("text"), str):
                raise bad_request(
                    "can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"
                )
            actions = [name for name in _INLINE_ACTIONS if name in button]
            if not actions:
                raise bad_request(
                    "can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"
                )
            if len(actions) > 1:
                raise bad_request("can't parse inline keyboard button: exactly one of the optional fields must be used")
            if not button["text"].strip():
                raise bad_request("BUTTON_TEXT_INVALID")
            data = button.get("callback_data")
            if data is not None and (not isinstance(data, str) or not 1 <= len(data.encode("utf-8")) <= 64):
                raise bad_request("BUTTON_DATA_INVALID")
            url = button.get("url")
            if url is not None and (not isinstance(url, str) or not url.startswith(_URL_SCHEMES)):
                raise bad_request(f"inline keyboard button URL '{url}' is invalid: Unsupported URL protocol")
    return markup


def _check_reply_keyboard(rows: Any) -> None:
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if not any(rows):
        raise bad_request("keyboard must be non-empty")
    for row in rows:
        for button in row:
            text = button if isinstance(button, str) else button.get("text") if isinstance(button, Mapping) else None
            if not isinstance(text, str) or not text.strip():
                raise bad_request("can't parse keyboard button: text must be non-empty")
