"""Staff HTTP API of the platforms' lists (L1533 Art. 5 IX: every 30 days), clerks and admins.

* ``GET /api/platforms`` — every platform with its last list, the day the next is due, and whether it is late.
* ``POST /api/platforms`` — ``{"name", "accredited_on"}``: register an accredited platform (Art. 3). 201; 409 when
  the name exists.
* ``POST /api/platforms/{id}/lists`` — ``{"received_on"?}`` (today by default): a list arrived. 201.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from aiohttp import web

from handlers.web.json_api import error, error_exception, json_object
from handlers.web.keys import cities_of_request, sessions_of, settings_of
from handlers.web.staff_auth import STAFF_ID, staff_endpoint
from models.columns import utcnow
from models.drivers.periods import office_calendar
from models.drivers.platforms import ARTICLE, ListStatus, PlatformRefused, add_platform, list_statuses, record_list
from models.drivers.registry import registry_city
from models.people import Role
from models.when import municipal_today, parse_day

routes = web.RouteTableDef()


def _status(status: ListStatus) -> dict[str, Any]:
    return {"id": status.platform.id, "name": status.platform.name,
            "accredited_on": status.platform.accredited_on.isoformat(),
            "last_received_on": status.last_received_on.isoformat() if status.last_received_on else None,
            "due_on": status.due_on.isoformat(), "late": status.late, "days_late": max(status.days_late, 0),
            "article": f"Lei 1.533/2020, {ARTICLE}"}


def _day(body: dict[str, Any], key: str, today: dt.date) -> dt.date:
    raw = body.get(key)
    if raw in (None, ""):
        return today
    try:
        return parse_day(str(raw), today=today)
    except ValueError:
        raise error_exception(web.HTTPUnprocessableEntity, "bad_value", f"{key} is not a date.") from None


@routes.get("/api/platforms")
@staff_endpoint(Role.CLERK)
async def platforms(request: web.Request) -> web.Response:
    """Every platform and its Art. 5 IX list, most late first."""
    city = registry_city(cities_of_request(request))  # Lei 1.533/2020 is Sapezal's: its office calendar
    async with sessions_of(request)() as session:
        found = await list_statuses(session=session, today=municipal_today(city.tz, now=utcnow()),
                                    calendar=office_calendar(city))
    return web.json_response({"platforms": [_status(status) for status in found]})


@routes.post("/api/platforms")
@staff_endpoint(Role.CLERK)
async def create(request: web.Request) -> web.Response:
    """Register an accredited platform; its first list is due 30 days after the accreditation."""
    settings = settings_of(request)
    body = await json_object(request, not_json="The body is not JSON.")
    today = municipal_today(settings.tz, now=utcnow())
    accredited_on = _day(body, "accredited_on", today)
    async with sessions_of(request)() as session:
        try:
            platform = await add_platform(session=session, name=str(body.get("name") or ""),
                                          accredited_on=accredited_on)
        except PlatformRefused as exc:
            return error(409 if "already" in exc.message else 422, "refused", exc.message)
    return web.json_response({"id": platform.id, "name": platform.name}, status=201)


@routes.post("/api/platforms/{platform_id:\\d+}/lists")
@staff_endpoint(Role.CLERK)
async def received(request: web.Request) -> web.Response:
    """A platform's list arrived (today unless ``received_on`` says otherwise)."""
    settings = settings_of(request)
    body = await json_object(request, not_json="The body is not JSON.")
    today = municipal_today(settings.tz, now=utcnow())
    async with sessions_of(request)() as session:
        try:
            receipt = await record_list(session=session, platform_id=int(request.match_info["platform_id"]),
                                        received_on=_day(body, "received_on", today),
                                        actor=f"staff:{request[STAFF_ID]}", today=today)
        except PlatformRefused as exc:
            return error(404 if "no such" in exc.message else 422, "refused", exc.message)
    return web.json_response({"id": receipt.id, "received_on": receipt.received_on.isoformat()}, status=201)
