"""Penalty notices in the console: the documents to deliver, and how each was delivered.

In person, by post or by edital (CP Art. 36), a refusal to sign or to receive (Art. 25, 26, 34 §3), and the
delivery to the technology platform (L1533 Art. 22).
"""

from __future__ import annotations

from aiohttp import web

from handlers.web.console.delivery_links import claimants_of
from handlers.web.console.forms import city_today, db, form_text, typed_day
from handlers.web.console.guard import console_page
from handlers.web.console.infractions import ISSUERS
from handlers.web.console.rendering import render
from handlers.web.console.staff import staff_of
from handlers.web.keys import cities_of_request
from models.notices.access import access_delivery, check_notice_reach
from models.notices.delivery import DeliveryError, StaffListItem, record_edital, record_staff_delivery, staff_list
from models.notices.platform_delivery import (
    MEANS_LABELS,
    NoticePlatformDelivery,
    PlatformMeans,
    pending_platform_deliveries,
    record_platform_delivery,
)
from models.notices.refusals import ARTICLES as REFUSAL_ARTICLES
from models.notices.refusals import FOR_TYPE as REFUSALS_FOR
from models.notices.refusals import LABELS as REFUSAL_LABELS
from models.notices.refusals import Refusal, record_refusal
from models.notices.tables import CienciaKind, Notice
from models.rulebooks.procedure import delivery_means

routes = web.RouteTableDef()


@routes.get("/entregas")
@console_page(*ISSUERS)
async def deliveries(request: web.Request) -> web.Response:
    """Documents to deliver in person, by post or by edital (CP Art. 36; L1533 Art. 22 §1), oldest first."""
    return render(request, "deliveries.html", {
        "title": staff_of(request).tr._("Deliveries to make"), "items": await _deliveries(request),
        "claimants": await claimants_of(request, await _deliveries(request)),
        "today": city_today(request), "error": "", "done": request.query.get("feito") == "1",
        "linked": request.query.get("vinculada") == "1",
        "delivery_means": delivery_means,  # each act cites its own law (CP Art. 36; L1533 Art. 22 §1)
        "platform_items": await _platform_deliveries(request), "platform_means": MEANS_LABELS,
        "refusals_for": REFUSALS_FOR, "refusal_labels": REFUSAL_LABELS, "refusal_articles": REFUSAL_ARTICLES,
    })


async def _deliveries(request: web.Request) -> list[StaffListItem]:
    """The delivery list of the municipalities the console shows."""
    shown = staff_of(request).shown
    async with db(request)() as session:
        return [item for item in await staff_list(session=session) if item.notice.municipality in shown]


@routes.post("/entregas/{delivery_id:\\d{1,9}}")
@console_page(*ISSUERS)
async def record_delivery(request: web.Request) -> web.StreamResponse:
    """Record a delivery in person, the AR date, or the edital's publication (audited in the notice's chain)."""
    staff = staff_of(request)
    tr = staff.tr
    cities = cities_of_request(request)
    how = await form_text(request, "how", 20)
    try:
        day = typed_day(request, await form_text(request, "date", 20))
    except ValueError:
        day = None
    refusal = how.removeprefix("refusal:") if how.startswith("refusal:") else None
    if day is None or (how not in ("personal", "postal", "edital") and refusal not in set(Refusal)):
        return await _deliveries_refused(request, tr._("Choose how it was delivered and the date."))
    delivery_id = int(request.match_info["delivery_id"])
    async with db(request)() as session:
        await access_delivery(session=session, delivery_id=delivery_id, telegram_user_id=staff.telegram_user_id,
                              shown=staff.shown)
    async with db(request)() as session:
        try:
            if refusal is not None:  # CP Art. 25, 26 sole paragraphs, 34 §3; a refused preliminar: the auto (Art. 29)
                done = await record_refusal(session=session, cities=cities, delivery_id=delivery_id,
                                            refusal=Refusal(refusal), on=day, actor=staff.actor)
                if done.auto_due:
                    raise web.HTTPSeeOther(f"/painel/notificacoes/nova?preliminar={done.notice.number}")
            elif how == "edital":
                await record_edital(session=session, cities=cities, delivery_id=delivery_id, published_on=day,
                                    actor=staff.actor)
            else:
                await record_staff_delivery(session=session, cities=cities, delivery_id=delivery_id,
                                            how=CienciaKind(how), on=day, actor=staff.actor)
        except DeliveryError as refused:
            return await _deliveries_refused(request, tr._(str(refused)))
    raise web.HTTPSeeOther("/painel/entregas?feito=1")


async def _deliveries_refused(request: web.Request, text: str) -> web.Response:
    return render(request, "deliveries.html", {
        "title": staff_of(request).tr._("Deliveries to make"), "items": await _deliveries(request),
        "claimants": await claimants_of(request, await _deliveries(request)),
        "today": city_today(request), "error": text, "done": False, "linked": False,
        "delivery_means": delivery_means,
        "platform_items": await _platform_deliveries(request), "platform_means": MEANS_LABELS,
        "refusals_for": REFUSALS_FOR, "refusal_labels": REFUSAL_LABELS, "refusal_articles": REFUSAL_ARTICLES,
    }, status=422)


async def _platform_deliveries(request: web.Request) -> list[tuple[NoticePlatformDelivery, Notice]]:
    """The platforms' copies to deliver (L1533 Art. 22), of the municipalities the console shows."""
    shown = staff_of(request).shown
    async with db(request)() as session:
        return [(item, notice) for item, notice in await pending_platform_deliveries(session=session)
                if notice.municipality in shown]


@routes.post("/entregas/plataforma/{delivery_id:\\d{1,9}}")
@console_page(*ISSUERS)
async def record_platform(request: web.Request) -> web.StreamResponse:
    """Record the day the technology platform received a Lei 1.533 notice, and how (L1533 Art. 22 §1)."""
    staff = staff_of(request)
    tr = staff.tr
    means = await form_text(request, "means", 20)
    try:
        day = typed_day(request, await form_text(request, "date", 20))
    except ValueError:
        day = None
    if day is None or means not in {item.value for item in PlatformMeans}:
        return await _deliveries_refused(request, tr._("Choose how it was delivered and the date."))
    delivery_id = int(request.match_info["delivery_id"])
    async with db(request)() as session:
        delivery = await session.get(NoticePlatformDelivery, delivery_id)
        notice = await session.get(Notice, delivery.notice_id) if delivery is not None else None
        if notice is not None:
            await check_notice_reach(session=session, notice=notice, telegram_user_id=staff.telegram_user_id,
                                     roles=frozenset(ISSUERS), shown=staff.shown)
    async with db(request)() as session:
        try:
            await record_platform_delivery(session=session, cities=cities_of_request(request),
                                           delivery_id=delivery_id, means=PlatformMeans(means), on=day,
                                           actor=staff.actor)
        except DeliveryError as refused:
            return await _deliveries_refused(request, tr._(str(refused)))
    raise web.HTTPSeeOther("/painel/entregas?feito=1")
