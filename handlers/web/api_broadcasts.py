"""Staff HTTP API for broadcasts (bearer token + ``X-Balcao-Staff``; clerks and admins).

* ``GET  /api/audiences`` — the audiences, the parameter each takes, and the topics to pick from if listed.
* ``POST /api/broadcasts/preview`` — ``{"audience", "days"?, "topic"?, "text", "html"?, "locale"?}``: the
  recipient count and the notice exactly as recipients reading that language will see it.
* ``POST /api/broadcasts`` — the same body plus ``"at"`` (ISO 8601, or ``DD/MM/YYYY HH:MM`` in the deployment's
  time zone; omitted: now). An ``Idempotency-Key`` header makes a retried request create one broadcast. 201.
* ``GET  /api/broadcasts`` — broadcasts scheduled or being sent.
* ``GET  /api/broadcasts/{id}`` — a broadcast and its counts by status.
* ``POST /api/broadcasts/{id}/cancel`` — stop it (409 when it is not running).

Errors are ``{"error": code, "message": …}``; refusals use the codes of ``BroadcastRefused``.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web
from sqlmodel import select

from core.i18n import SUPPORTED_LOCALES, translator
from core.municipality import Municipality
from handlers.web.json_api import error, json_object
from handlers.web.keys import cities_of_request, sessions_of
from handlers.web.staff_auth import STAFF_ID, staff_endpoint
from models.columns import utcnow
from models.people import Person, Role, staff_municipalities
from notifications.audiences import AUDIENCES
from notifications.broadcasts import (
    AudienceChoice,
    BroadcastRefused,
    audience_size,
    broadcast_scope,
    broadcast_view,
    check_text,
    create_broadcast,
    open_broadcasts,
    parse_when,
    preview,
    stop_broadcast,
)
from notifications.plugins import load_all
from notifications.service import wake_dispatcher

BODY = web.RequestKey("broadcast_body", dict)
"""The validated JSON body of a broadcast request."""
routes = web.RouteTableDef()
TOPIC_MAX = 64
"""The longest topic (a kind of case, a table, a protocol number); the column holds 64 characters."""
MESSAGES = {
    "empty_text": "The text is empty.",
    "bad_html": "The text is not valid Telegram HTML: {detail}.",
    "text_too_long": "The text is too long: at most {limit} characters.",
    "unknown_audience": "Unknown audience {detail!r}; GET /api/audiences lists them.",
    "days_required": "This audience needs \"days\" (0 to {limit}).",
    "topic_required": "This audience needs \"topic\".",
    "in_the_past": "\"at\" is in the past.",
    "nobody": "Nobody is in this audience now.",
}


def _refused(refused: BroadcastRefused) -> web.Response:
    return error(422, refused.code, MESSAGES[refused.code].format(detail=refused.detail, limit=refused.limit))


class BadBody(Exception):
    """The JSON body is missing or malformed; the message says how."""


async def _body(request: web.Request) -> tuple[AudienceChoice, str]:
    body = await json_object(request, code="bad_request")
    audience, text = body.get("audience"), body.get("text")
    days, topic = body.get("days"), body.get("topic")
    if not isinstance(audience, str) or not isinstance(text, str):
        raise BadBody('"audience" and "text" are required strings.')
    if days is not None and (not isinstance(days, int) or isinstance(days, bool)):
        raise BadBody('"days" must be a whole number.')
    if topic is not None and not isinstance(topic, str):
        raise BadBody('"topic" must be a string.')
    if topic is not None and len(topic) > TOPIC_MAX:
        raise BadBody(f'"topic" is at most {TOPIC_MAX} characters.')
    request[BODY] = body
    return AudienceChoice(name=audience, days=days, topic=topic), text


@routes.get("/api/audiences")
@staff_endpoint(Role.CLERK)
async def list_audiences(request: web.Request) -> web.Response:
    """The audiences a broadcast can go to."""
    load_all()
    english = translator("en")
    listed = []
    for found in AUDIENCES.values():
        item: dict[str, Any] = {"name": found.name, "label": english._(found.label), "takes_days": found.takes_days,
                                "takes_topic": found.takes_topic}
        if found.topic_choices is not None:
            async with sessions_of(request)() as session:
                choices = await found.topic_choices(session=session)
            item["topics"] = [{"topic": value, "label": english._(label)} for value, label in choices]
        listed.append(item)
    return web.json_response({"audiences": listed})


async def _sender(request: web.Request, session: Any) -> Municipality | None:
    """The municipality a staff member broadcasts for, or ``None`` if they hold no role there.

    ``municipality`` in the body, else the only one where they hold a role (a role is held in one municipality),
    else the deployment's default one.
    """
    cities = cities_of_request(request)
    wanted = request[BODY].get("municipality")
    reach = await staff_municipalities(session=session, telegram_user_id=request[STAFF_ID],
                                       allowed=frozenset({Role.CLERK}))
    if isinstance(wanted, str) and wanted in cities:
        return cities[wanted] if reach is None or wanted in reach else None
    if wanted is not None:
        return None
    if reach is not None and len(reach) == 1:
        return cities[next(iter(reach))]
    return cities.default if reach is None or cities.default.slug in reach else None


@routes.post("/api/broadcasts/preview")
@staff_endpoint(Role.CLERK)
async def preview_broadcast(request: web.Request) -> web.Response:
    """How many people a broadcast would reach now, and how it reads."""
    load_all()
    try:
        choice, raw_text = await _body(request)
        text = check_text(raw_text, is_html=bool(request[BODY].get("html")))
        async with sessions_of(request)() as session:
            sender = await _sender(request, session)
            if sender is None:
                return error(403, "forbidden", "This staff member may not broadcast for that municipality.")
            size = await audience_size(session=session, choice=choice, now=utcnow(),
                                       municipality=broadcast_scope(sender, cities_of_request(request)))
    except BadBody as exc:
        return error(400, "bad_request", str(exc))
    except BroadcastRefused as refused:
        return _refused(refused)
    locale = request[BODY].get("locale")
    locale = locale if locale in SUPPORTED_LOCALES else "pt_BR"
    rendered = preview(text, translator(locale, sender.tz.key), sender)
    return web.json_response({"recipients": len(size.recipients), "left_out": size.left_out, "locale": locale,
                              "preview": rendered.text})


@routes.post("/api/broadcasts")
@staff_endpoint(Role.CLERK)
async def create(request: web.Request) -> web.Response:
    """Create a broadcast; the dispatcher sends it now or at ``at``."""
    load_all()
    now = utcnow()
    try:
        choice, raw_text = await _body(request)
        text = check_text(raw_text, is_html=bool(request[BODY].get("html")))
    except BadBody as exc:
        return error(400, "bad_request", str(exc))
    except BroadcastRefused as refused:
        return _refused(refused)
    at: Any = request[BODY].get("at")
    send_at = None
    if at is not None:
        send_at = parse_when(at, now=now, tz=cities_of_request(request).default.tz) if isinstance(at, str) else None
        if send_at is None:
            return error(400, "bad_request", '"at" must be a date and time, like "2027-01-04T08:00-04:00".')
    key = request.headers.get("Idempotency-Key")
    staff_id: int = request[STAFF_ID]
    async with sessions_of(request)() as session:
        sender = await _sender(request, session)
        if sender is None:
            return error(403, "forbidden", "This staff member may not broadcast for that municipality.")
        person = (await session.exec(select(Person).where(Person.telegram_user_id == staff_id))).first()
        try:
            created = await create_broadcast(
                session=session,
                city=sender,
                cities=cities_of_request(request),
                choice=choice,
                text=text,
                actor=f"api:staff:{staff_id}",
                now=now,
                send_at=send_at,
                requester_person_id=person.id if person else None,
                request_key=f"api:{staff_id}:{key[:80]}" if key else None,
            )
        except BroadcastRefused as refused:
            return _refused(refused)
        view = await broadcast_view(session=session, broadcast_id=created.id)
    assert view is not None
    wake_dispatcher()
    return web.json_response({**view.as_json(), "left_out": created.left_out},
                             status=200 if created.already_existed else 201)


@routes.get("/api/broadcasts")
@staff_endpoint(Role.CLERK)
async def list_open(request: web.Request) -> web.Response:
    """Broadcasts scheduled or being sent."""
    async with sessions_of(request)() as session:
        views = await open_broadcasts(session=session)
    return web.json_response({"broadcasts": [view.as_json() for view in views]})


def _broadcast_id(request: web.Request) -> int | None:
    raw = request.match_info["broadcast_id"]  # "²" is a digit int() refuses; 10 digits overflow an INTEGER
    return int(raw) if raw.isascii() and raw.isdecimal() and len(raw) <= 9 else None


@routes.get("/api/broadcasts/{broadcast_id}")
@staff_endpoint(Role.CLERK)
async def show(request: web.Request) -> web.Response:
    """A broadcast and its progress."""
    broadcast_id = _broadcast_id(request)
    async with sessions_of(request)() as session:
        view = await broadcast_view(session=session, broadcast_id=broadcast_id) if broadcast_id else None
    if view is None:
        return error(404, "not_found", "No such broadcast.")
    return web.json_response(view.as_json())


@routes.post("/api/broadcasts/{broadcast_id}/cancel")
@staff_endpoint(Role.CLERK)
async def cancel(request: web.Request) -> web.Response:
    """Stop a broadcast: what is not sent yet is not sent."""
    broadcast_id = _broadcast_id(request)
    async with sessions_of(request)() as session:
        if broadcast_id is None or await broadcast_view(session=session, broadcast_id=broadcast_id) is None:
            return error(404, "not_found", "No such broadcast.")
        view = await stop_broadcast(session=session, broadcast_id=broadcast_id,
                                    actor=f"api:staff:{request[STAFF_ID]}")
    if view is None:
        return error(409, "not_running", "This broadcast is not running (finished or already cancelled).")
    wake_dispatcher()
    return web.json_response(view.as_json())
