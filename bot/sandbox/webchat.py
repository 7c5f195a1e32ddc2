"""The web chat: a page where a person on this machine talks to the bot as one of the personas.

Served by the emulator's own aiohttp app: the page at ``/``, its files at ``/static/``, and JSON
endpoints under ``/sandbox/``. The page long-polls ``/sandbox/chat`` for changes; no websockets.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from aiohttp import BodyPartReader, web

from bot.sandbox.methods import visible_commands
from bot.sandbox.state import ChatMessage, ChatState, User
from models.cases.media import MP4, OGG, media_seconds

if TYPE_CHECKING:
    from bot.sandbox.emulator import BotApiEmulator

STATIC_DIR = Path(__file__).with_name("static")
LONG_POLL_SECONDS = 25.0
TRANSCRIPT_LIMIT = 200
EMULATOR_KEY = web.AppKey("sandbox_emulator", object)


def add_routes(app: web.Application, emulator: BotApiEmulator) -> None:
    """Serve the web chat from ``app``, driving ``emulator``.

    Args:
        app: the emulator's aiohttp application.
        emulator: the emulator whose main bot the personas talk to.
    """
    app[EMULATOR_KEY] = emulator
    app.router.add_get("/", _index)
    app.router.add_static("/static/", STATIC_DIR)
    app.router.add_get("/sandbox/info", _info)
    app.router.add_get("/sandbox/chat", _chat)
    app.router.add_post("/sandbox/send", _send)
    app.router.add_post("/sandbox/press", _press)
    app.router.add_post("/sandbox/contact", _contact)
    app.router.add_post("/sandbox/location", _location)
    app.router.add_post("/sandbox/upload", _upload)
    app.router.add_get("/sandbox/file/{file_id}", _file)


def _emulator(request: web.Request) -> BotApiEmulator:
    return request.app[EMULATOR_KEY]  # type: ignore[return-value]


def _error(status: int, message: str) -> web.HTTPException:
    exception = web.HTTPBadRequest if status == 400 else web.HTTPNotFound
    return exception(text=f'{{"error": "{message}"}}', content_type="application/json")


def _user(emulator: BotApiEmulator, value: Any) -> User:
    try:
        user_id = int(value)
    except (TypeError, ValueError):
        raise _error(400, "user_id inválido") from None
    user = emulator.world.users.get(user_id)
    if user is None:
        raise _error(404, "pessoa desconhecida")
    return user


async def _json(request: web.Request) -> Mapping[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        raise _error(400, "JSON inválido") from None
    if not isinstance(body, Mapping):
        raise _error(400, "JSON inválido")
    return body


async def _index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-store"})


async def _info(request: web.Request) -> web.Response:
    emulator = _emulator(request)
    bot = emulator.bot
    latitude, longitude = emulator.location
    return web.json_response(
        {
            "bot": {"first_name": bot.first_name, "username": bot.username},
            "personas": [
                {
                    "user_id": p.user_id,
                    "first_name": p.first_name,
                    "last_name": p.last_name,
                    "role_label": p.role_label,
                    "phone": p.phone,
                    "language_code": p.language_code,
                }
                for p in emulator.personas
            ],
            "location": {"latitude": latitude, "longitude": longitude},
        }
    )


async def _chat(request: web.Request) -> web.Response:
    """The chat of one persona; with ``since`` (a version), wait until it changes."""
    emulator = _emulator(request)
    user = _user(emulator, request.query.get("user_id"))
    chat = emulator.world.chat(emulator.bot, user.id)
    assert chat is not None
    since = request.query.get("since")
    if since is not None and since.lstrip("-").isdigit():
        version = int(since)
        world = emulator.world
        world.page_polls += 1
        world.changes.notify()
        try:
            with contextlib.suppress(TimeoutError):
                await world.changes.wait_for(
                    lambda: True if chat.version != version or world.closing else None, LONG_POLL_SECONDS
                )
        finally:
            world.page_polls -= 1
    return web.json_response(_chat_view(emulator, chat, user))


def _chat_view(emulator: BotApiEmulator, chat: ChatState, user: User) -> dict[str, Any]:
    messages = list(chat.messages.values())[-TRANSCRIPT_LIMIT:]
    keyboard = chat.reply_keyboard
    return {
        "version": chat.version,
        "blocked": user.id in emulator.world.blocked,
        "messages": [_message_view(m) for m in messages],
        "reply_keyboard": _keyboard_view(keyboard) if keyboard else None,
        "commands": visible_commands(emulator.bot, user),
        "notices": list(chat.notices),
    }


def _file_url(file_id: str) -> str:
    return f"/sandbox/file/{file_id}"


def _message_view(message: ChatMessage) -> dict[str, Any]:
    raw = message.raw
    view: dict[str, Any] = {
        "message_id": message.message_id,
        "from": "bot" if message.from_bot else "user",
        "date": message.date,
        "edited": message.edits > 0,
        "text": raw.get("text") or raw.get("caption") or "",
        "entities": message.entities,
        "inline_keyboard": [
            [{key: button[key] for key in ("text", "callback_data", "url") if key in button} for button in row]
            for row in (message.reply_markup or {}).get("inline_keyboard", [])
        ],
    }
    photo = raw.get("photo")
    if photo:
        largest = photo[-1]
        view["photo"] = {"url": _file_url(largest["file_id"]), "width": largest["width"], "height": largest["height"]}
    document = raw.get("document")
    if document:
        view["document"] = {
            "url": _file_url(document["file_id"]),
            "file_name": document.get("file_name") or "arquivo",
            "mime_type": document.get("mime_type"),
            "file_size": document.get("file_size"),
        }
    for kind in ("voice", "audio", "video"):
        if raw.get(kind):
            view["recording"] = {"kind": kind, "url": _file_url(raw[kind]["file_id"]),
                                 "duration": raw[kind].get("duration")}
    if raw.get("contact"):
        view["contact"] = raw["contact"]
    if raw.get("location"):
        view["location"] = raw["location"]
    return view


def _keyboard_view(markup: Mapping[str, Any]) -> dict[str, Any]:
    rows = [
        [
            {
                "text": button if isinstance(button, str) else button.get("text", ""),
                "request_contact": bool(not isinstance(button, str) and button.get("request_contact")),
                "request_location": bool(not isinstance(button, str) and button.get("request_location")),
            }
            for button in row
        ]
        for row in markup.get("keyboard", [])
    ]
    return {"rows": rows, "placeholder": markup.get("input_field_placeholder") or ""}


async def _send(request: web.Request) -> web.Response:
    emulator = _emulator(request)
    body = await _json(request)
    user = _user(emulator, body.get("user_id"))
    text = str(body.get("text") or "").strip()
    if not text:
        raise _error(400, "mensagem vazia")
    message = emulator.send_text(user, text)
    return web.json_response({"message_id": message.message_id})


async def _press(request: web.Request) -> web.Response:
    emulator = _emulator(request)
    body = await _json(request)
    user = _user(emulator, body.get("user_id"))
    try:
        query_id = emulator.press_button(user, int(body.get("message_id", 0)), str(body.get("callback_data", "")))
    except (LookupError, ValueError):
        raise _error(400, "este botão não existe mais") from None
    return web.json_response({"callback_query_id": query_id})


async def _contact(request: web.Request) -> web.Response:
    emulator = _emulator(request)
    body = await _json(request)
    user = _user(emulator, body.get("user_id"))
    phone = str(body.get("phone") or "").strip() or None
    try:
        message = emulator.share_contact(user, phone)
    except ValueError:
        raise _error(400, "informe um telefone") from None
    return web.json_response({"message_id": message.message_id})


async def _location(request: web.Request) -> web.Response:
    emulator = _emulator(request)
    body = await _json(request)
    user = _user(emulator, body.get("user_id"))
    try:
        message = emulator.share_location(user, float(body["latitude"]), float(body["longitude"]))
    except (KeyError, TypeError, ValueError):
        raise _error(400, "coordenadas inválidas") from None
    return web.json_response({"message_id": message.message_id})


async def _upload(request: web.Request) -> web.Response:
    emulator = _emulator(request)
    if request.content_type != "multipart/form-data":
        raise _error(400, "envie o arquivo como multipart/form-data")
    fields: dict[str, str] = {}
    upload: tuple[str, str, bytes] | None = None
    reader = await request.multipart()
    while (part := await reader.next()) is not None:
        if not isinstance(part, BodyPartReader) or part.name is None:
            continue
        if part.filename is not None:
            content_type = part.headers.get("Content-Type", "application/octet-stream")
            upload = (part.filename, content_type, await part.read())
        else:
            fields[part.name] = await part.text()
    user = _user(emulator, fields.get("user_id"))
    if upload is None:
        raise _error(400, "nenhum arquivo")
    filename, content_type, data = upload
    caption = fields.get("caption") or None
    try:
        kind = fields.get("kind")
        if kind == "photo":
            message = emulator.send_photo(user, data, caption)
        elif kind == "voice":  # as a phone records it; the length is read from the file, as Telegram would
            message = emulator.send_voice(user, data, duration=round(media_seconds(data, OGG) or 0))
        elif kind == "video":
            message = emulator.send_video(user, data, duration=round(media_seconds(data, MP4) or 0), caption=caption)
        else:
            message = emulator.send_document(user, data, filename, content_type, caption)
    except ValueError:
        raise _error(400, "esta imagem não pôde ser lida; envie como documento") from None
    return web.json_response({"message_id": message.message_id})


async def _file(request: web.Request) -> web.Response:
    emulator = _emulator(request)
    stored = emulator.world.files.get(request.match_info["file_id"])
    if stored is None:
        raise _error(404, "arquivo não encontrado")
    content_type = stored.mime_type or "application/octet-stream"
    headers = {}
    if stored.file_name:
        headers["Content-Disposition"] = f"inline; filename*=UTF-8''{quote(stored.file_name, safe='')}"
    return web.Response(body=stored.data, content_type=content_type, headers=headers)
