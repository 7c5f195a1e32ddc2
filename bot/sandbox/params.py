"""Reading Bot API request parameters the way Telegram does.

Telegram accepts a method's parameters in the query string, as a JSON body, as
``application/x-www-form-urlencoded`` or as ``multipart/form-data`` (needed to upload files).
In the form encodings every value is a string: python-telegram-bot sends integers and booleans
JSON-encoded (``"123"``, ``"true"``) and objects as JSON text, while strings go as they are.
:func:`read_params` turns all of them into one dict of typed values, so methods never care how the
request was encoded, and recorded calls are easy to assert on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from aiohttp import BodyPartReader, web

from bot.sandbox.errors import ApiError, bad_request

MAX_UPLOAD_BYTES = 50 * 1024 * 1024
"""Telegram's limit for a file a bot uploads (photos are limited further by the photo method)."""

_INTEGER_PARAMS = frozenset(
    {
        "message_id",
        "offset",
        "limit",
        "timeout",
        "reply_to_message_id",
        "cache_time",
        "max_connections",
        "message_thread_id",
        "user_id",
    }
)
_FLOAT_PARAMS = frozenset({"latitude", "longitude"})
_BOOLEAN_PARAMS = frozenset(
    {
        "disable_notification",
        "protect_content",
        "allow_paid_broadcast",
        "disable_web_page_preview",
        "show_alert",
        "drop_pending_updates",
        "allow_sending_without_reply",
        "has_spoiler",
        "disable_content_type_detection",
        "show_caption_above_media",
    }
)
_JSON_PARAMS = {
    "reply_markup": "reply keyboard markup",
    "entities": "entities",
    "caption_entities": "caption entities",
    "link_preview_options": "link preview options",
    "allowed_updates": "allowed updates",
    "commands": "bot commands",
    "scope": "bot command scope",
    "reply_parameters": "reply parameters",
    "menu_button": "menu button",
}


@dataclass(frozen=True)
class Upload:
    """A file part of a multipart request.

    Attributes:
        filename: the name the client gave the file.
        content_type: the part's MIME type.
        data: the bytes.
    """

    filename: str
    content_type: str
    data: bytes


def _as_integer(name: str, value: Any) -> Any:
    if isinstance(value, bool):
        raise bad_request(f'field "{name}" must be of type Integer')
    if isinstance(value, int):
        return value
    try:
        return int(str(value).strip())
    except ValueError:
        raise bad_request(f'field "{name}" must be of type Integer') from None


def _as_float(name: str, value: Any) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    try:
        return float(str(value))
    except ValueError:
        raise bad_request(f'field "{name}" must be of type Float') from None


def _as_boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in {"true", "1"}


def _as_json(name: str, value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        raise bad_request(f"can't parse {_JSON_PARAMS[name]} JSON object") from None


def _chat_id(value: Any) -> int | str:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value).strip()
    try:
        return int(text)
    except ValueError:
        return text


def normalize(raw: dict[str, Any]) -> dict[str, Any]:
    """Give each known parameter its Bot API type; unknown parameters are kept as they came.

    Args:
        raw: parameter name to value, strings from a form or typed values from JSON.

    Returns:
        A new dict with integers, floats, booleans and decoded JSON objects.

    Raises:
        ApiError: 400 when a value does not fit its type, with Telegram's wording.
    """
    params: dict[str, Any] = {}
    for name, value in raw.items():
        if value is None:
            continue
        if name == "chat_id":
            params[name] = _chat_id(value)
        elif name in _INTEGER_PARAMS:
            params[name] = _as_integer(name, value)
        elif name in _FLOAT_PARAMS:
            params[name] = _as_float(name, value)
        elif name in _BOOLEAN_PARAMS:
            params[name] = _as_boolean(value)
        elif name in _JSON_PARAMS:
            params[name] = _as_json(name, value)
        else:
            params[name] = value
    return params


async def read_params(request: web.Request) -> tuple[dict[str, Any], dict[str, Upload]]:
    """Read the parameters and uploaded files of a Bot API request.

    Args:
        request: the aiohttp request (GET or POST, any of Telegram's encodings).

    Returns:
        The normalized parameters and the uploaded files by part name.

    Raises:
        ApiError: 400 for a body that cannot be read, 413 for an upload over 50 MB.
    """
    raw: dict[str, Any] = dict(request.query)
    files: dict[str, Upload] = {}
    if request.can_read_body:
        content_type = request.content_type
        if content_type == "application/json":
            try:
                body = await request.json()
            except ValueError:
                raise bad_request("can't parse JSON object") from None
            if not isinstance(body, dict):
                raise bad_request("JSON object expected")
            raw.update(body)
        elif content_type == "multipart/form-data":
            await _read_multipart(request, raw, files)
        else:
            form = await request.post()
            raw.update({name: value for name, value in form.items() if isinstance(value, str)})
    return normalize(raw), files


async def _read_multipart(request: web.Request, raw: dict[str, Any], files: dict[str, Upload]) -> None:
    reader = await request.multipart()
    while True:
        part = await reader.next()
        if part is None:
            return
        if not isinstance(part, BodyPartReader) or part.name is None:
            continue
        if part.filename is None:
            raw[part.name] = await part.text()
            continue
        data = bytearray()
        while chunk := await part.read_chunk():
            data.extend(chunk)
            if len(data) > MAX_UPLOAD_BYTES:
                raise ApiError(413, "Request Entity Too Large")
        content_type = part.headers.get("Content-Type", "application/octet-stream")
        files[part.name] = Upload(part.filename, content_type, bytes(data))
