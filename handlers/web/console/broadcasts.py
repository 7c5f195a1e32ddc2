"""Avisos: compose, preview, count, send or schedule, follow live, cancel and report — as ``/aviso`` in the bot.

The preview shows the notice exactly as it arrives, the recipient count follows the audience, the progress moves
live (server-sent events), and the final counts stay on the broadcast's page.

Everything goes through :mod:`notifications.broadcasts` (the function the bot, the API and the CLI call): the
audience is fixed when the broadcast is confirmed, and the dispatcher sends it. Without JavaScript the page still
works (the preview is a form, the progress page has a reload link); with it the count updates as the audience
changes and the progress moves by itself.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from typing import Any

from aiohttp import web
from aiohttp_sse import sse_response
from markupsafe import Markup, escape
from sqlmodel import col, select

from core.i18n import Translator
from core.municipality import Municipality
from handlers.web.console.forms import db, form_text
from handlers.web.console.guard import console_page, elsewhere, works_in
from handlers.web.console.rendering import message_page, render
from handlers.web.console.staff import ConsoleStaff, staff_of
from handlers.web.keys import cities_of_request
from models.broadcasts import Broadcast, BroadcastStatus, past_broadcast_ids
from models.columns import utcnow
from models.outbox import OutboxStatus
from models.people import Person, Role
from notifications.audiences import AUDIENCES
from notifications.broadcasts import (
    AudienceChoice,
    BroadcastRefused,
    BroadcastView,
    audience_label,
    audience_size,
    broadcast_scope,
    broadcast_view,
    check_text,
    create_broadcast,
    open_broadcasts,
    parse_when,
    preview,
    refusal_text,
    stop_broadcast,
)
from notifications.plugins import load_all
from notifications.service import wake_dispatcher

routes = web.RouteTableDef()
EVENT_SECONDS = 1.0
EVENT_LIMIT = 600  # one progress stream lasts at most 10 minutes; the page then offers a reload
_KEPT_TAGS = re.compile(r"&lt;(/?)(b|strong|i|em|u|ins|s|strike|del|code|pre)&gt;")


def telegram_preview(text: str) -> Markup:
    """Telegram HTML shown in the page: everything escaped, then only the plain formatting tags given back."""
    # Safe: the whole text is escaped first; only attribute-less formatting tags are put back.
    return Markup(_KEPT_TAGS.sub(r"<\1\2>", str(escape(text))))  # noqa: S704


async def _sender(request: web.Request) -> Municipality:
    """The municipality that sends a broadcast made here: the one shown where the member is a clerk.

    When it shows several, the deployment's default one (as the staff API does); an admin of several chooses another
    at the top of the page.

    Raises:
        BroadcastRefused: ``choose_municipality`` when it shows several and not the default one, ``nobody`` when it
            shows none where the member may broadcast.
    """
    staff = staff_of(request)
    cities = cities_of_request(request)
    fits = [slug for slug in staff.shown if await works_in(request, slug, (Role.CLERK,))]
    if len(fits) > 1 and cities.default.slug in fits:  # as the staff API: the deployment's default one
        fits = [cities.default.slug]
    if len(fits) > 1:
        raise BroadcastRefused("choose_municipality")
    if not fits:
        raise BroadcastRefused("nobody")
    return cities[fits[0]]


def _refusal(tr: Translator, refused: BroadcastRefused) -> str:
    if refused.code == "choose_municipality":
        return tr._("You work in several municipalities: choose at the top of the page the one that sends this "
                    "broadcast, then write it again.")
    return refusal_text(tr, refused)


async def _own(request: web.Request) -> bool:
    """Whether the broadcast of the URL is of a municipality shown here where the member is a clerk (or none)."""
    async with db(request)() as session:
        broadcast = await session.get(Broadcast, _broadcast_id(request))
    return broadcast is None or await works_in(request, broadcast.municipality, (Role.CLERK,))


def _choice(values: dict[str, str]) -> AudienceChoice:
    days = values.get("days", "").strip()
    return AudienceChoice(name=values.get("audience", ""),
                          days=int(days) if days.isdecimal() and len(days) < 5 else None,
                          topic=values.get("topic", "").strip()[:80] or None)


async def _values(request: web.Request) -> dict[str, str]:
    return {name: await form_text(request, name, 5000) for name in ("audience", "days", "topic", "text", "at")}


async def _compose(request: web.Request, *, values: dict[str, str] | None = None, error: str = "",
                   shown: dict[str, Any] | None = None, status: int = 200) -> web.Response:
    load_all()
    staff = staff_of(request)
    async with db(request)() as session:
        mine = set((await session.exec(select(Broadcast.id).where(
            col(Broadcast.municipality).in_(staff.shown)))).all())
        running = [view for view in await open_broadcasts(session=session) if view.id in mine]
        past = [view for broadcast_id in await past_broadcast_ids(session=session, municipalities=staff.shown)
                if (view := await broadcast_view(session=session, broadcast_id=broadcast_id)) is not None]
    return render(request, "broadcasts.html", {
        "title": staff.tr._("Broadcasts"), "audiences": list(AUDIENCES.values()), "values": values or {},
        "error": error, "shown": shown, "running": [(view, progress_json(view, staff.tr)) for view in running],
        "past": [(view, progress_json(view, staff.tr)) for view in past], "labels": {
            view.id: audience_label(AudienceChoice(view.audience, view.days, view.topic), staff.tr)
            for view in (*running, *past)},
    }, status=status)


@routes.get("/avisos")
@console_page(Role.CLERK)
async def compose(request: web.Request) -> web.Response:
    """The broadcasts running, and the form to write a new one."""
    return await _compose(request)


@routes.get("/avisos/contagem")
@console_page(Role.CLERK)
async def count(request: web.Request) -> web.Response:
    """How many people an audience reaches now (JSON, for the live count while composing)."""
    load_all()
    choice = _choice(dict(request.query))
    try:
        sender = await _sender(request)
        async with db(request)() as session:
            size = await audience_size(session=session, choice=choice, now=utcnow(),
                                       municipality=broadcast_scope(sender, cities_of_request(request)))
    except BroadcastRefused as refused:
        return web.json_response({"error": _refusal(staff_of(request).tr, refused)}, status=422)
    tr = staff_of(request).tr
    return web.json_response({"recipients": len(size.recipients), "text": tr.ngettext(
        "{n} person will receive it", "{n} people will receive it", len(size.recipients)).format(
            n=len(size.recipients))})


async def _checked(request: web.Request, staff: ConsoleStaff, values: dict[str, str]
                   ) -> tuple[str, Any, Any, Municipality]:
    sender = await _sender(request)
    text = check_text(values["text"], is_html=False)
    send_at = None
    if values["at"].strip():
        send_at = parse_when(values["at"], now=utcnow(), tz=sender.tz)
        if send_at is None:
            raise BroadcastRefused("in_the_past")
    async with db(request)() as session:
        size = await audience_size(session=session, choice=_choice(values), now=utcnow(),
                                   municipality=broadcast_scope(sender, cities_of_request(request)))
    if not size.recipients:
        raise BroadcastRefused("nobody")
    return text, send_at, size, sender


@routes.post("/avisos/previa")
@console_page(Role.CLERK)
async def preview_page(request: web.Request) -> web.Response:
    """The notice exactly as it will arrive, with who gets it; confirming sends or schedules it."""
    load_all()
    staff = staff_of(request)
    values = await _values(request)
    try:
        text, send_at, size, sender = await _checked(request, staff, values)
    except BroadcastRefused as refused:
        return await _compose(request, values=values, error=_refusal(staff.tr, refused), status=422)
    rendered = preview(text, staff.tr, sender)
    return await _compose(request, values=values, shown={
        "preview": telegram_preview(rendered.text), "recipients": len(size.recipients), "left_out": size.left_out,
        "send_at": send_at, "audience": audience_label(_choice(values), staff.tr), "key": secrets.token_hex(8)})


@routes.post("/avisos")
@console_page(Role.CLERK)
async def send(request: web.Request) -> web.StreamResponse:
    """Create the broadcast (audited); the dispatcher sends it now or at the moment chosen."""
    load_all()
    staff = staff_of(request)
    values = await _values(request)
    key = "".join(c for c in await form_text(request, "key", 32) if c.isalnum())  # one broadcast per preview
    try:
        text, send_at, _size, sender = await _checked(request, staff, values)
        async with db(request)() as session:
            person = (await session.exec(select(Person).where(
                Person.telegram_user_id == staff.telegram_user_id))).first()
            created = await create_broadcast(
                session=session, city=sender, cities=cities_of_request(request), choice=_choice(values), text=text,
                actor=staff.actor, now=utcnow(), send_at=send_at, requester_person_id=person.id if person else None,
                request_key=f"console:{staff.telegram_user_id}:{key}" if key else None,
            )
    except BroadcastRefused as refused:
        return await _compose(request, values=values, error=_refusal(staff.tr, refused), status=422)
    wake_dispatcher()
    raise web.HTTPSeeOther(f"/painel/avisos/{created.id}")


def _broadcast_id(request: web.Request) -> int:
    return int(request.match_info["broadcast_id"])


def stoppable(view: BroadcastView) -> bool:
    """Whether "Stop sending" still stops something: the broadcast is active and messages still wait."""
    return view.status is BroadcastStatus.ACTIVE and view.done < view.recipients


def progress_json(view: BroadcastView, tr: Translator) -> dict[str, Any]:
    """A broadcast's counts for the page and its event stream (``stoppable``: the stop button still matters)."""
    return {"status": view.status.value, "recipients": view.recipients, "done": view.done,
            "stoppable": stoppable(view),
            "sent": view.counts[OutboxStatus.SENT], "unreachable": view.counts[OutboxStatus.UNREACHABLE],
            "failed": view.counts[OutboxStatus.FAILED], "cancelled": view.counts[OutboxStatus.CANCELLED],
            "waiting": view.counts[OutboxStatus.PENDING] + view.counts[OutboxStatus.SENDING],
            "summary": tr._("{done} of {total} done").format(done=view.done, total=view.recipients)}


@routes.get("/avisos/{broadcast_id:\\d{1,9}}")
@console_page(Role.CLERK)
async def progress(request: web.Request) -> web.Response:
    """A broadcast's progress (live with JavaScript), its cancel button, and its final counts."""
    staff = staff_of(request)
    if not await _own(request):
        return elsewhere(request)
    async with db(request)() as session:
        view = await broadcast_view(session=session, broadcast_id=_broadcast_id(request))
    if view is None:
        return message_page(request, status=404, title=staff.tr._("Not found"), text=staff.tr._(
            "No such broadcast."))
    return render(request, "broadcast.html", {
        "title": staff.tr._("Broadcast {id}").format(id=view.id), "view": view,
        "progress": progress_json(view, staff.tr), "active": stoppable(view),
        "audience": audience_label(AudienceChoice(view.audience, view.days, view.topic), staff.tr),
    })


@routes.get("/avisos/{broadcast_id:\\d{1,9}}/eventos")
@console_page(Role.CLERK)
async def events(request: web.Request) -> web.StreamResponse:
    """Server-sent events: the counts each second until the broadcast ends (or 10 minutes pass)."""
    tr = staff_of(request).tr
    broadcast_id = _broadcast_id(request)
    if not await _own(request):
        return elsewhere(request)
    async with sse_response(request) as stream:
        for _ in range(EVENT_LIMIT):
            async with db(request)() as session:
                view = await broadcast_view(session=session, broadcast_id=broadcast_id)
            if view is None:
                break
            await stream.send(json.dumps(progress_json(view, tr)), event="progress")
            if view.status is not BroadcastStatus.ACTIVE:
                break
            await asyncio.sleep(EVENT_SECONDS)
    return stream


@routes.post("/avisos/{broadcast_id:\\d{1,9}}/cancelar")
@console_page(Role.CLERK)
async def cancel(request: web.Request) -> web.StreamResponse:
    """Stop a broadcast: what is not sent yet is not sent (audited)."""
    if not await _own(request):
        return elsewhere(request)
    async with db(request)() as session:
        await stop_broadcast(session=session, broadcast_id=_broadcast_id(request), actor=staff_of(request).actor)
    wake_dispatcher()
    raise web.HTTPSeeOther(f"/painel/avisos/{_broadcast_id(request)}")
