"""Auditoria: the audit log filtered by actor, entity and date (admins), newest first, in pages.

The log is the deployment's and its entries name the records of every municipality, so in a deployment of several
only an admin of all of them (or deployment-wide) reads it.
"""

from __future__ import annotations

import datetime as dt

from aiohttp import web

from handlers.web.console.audit_words import ENTITIES, in_words
from handlers.web.console.forms import db, typed_day
from handlers.web.console.guard import console_page, deployment_wide
from handlers.web.console.rendering import render
from handlers.web.console.staff import staff_of
from models.console.audit_log import AuditFilters, audit_page
from models.people import Role

routes = web.RouteTableDef()


def _day(request: web.Request, raw: str) -> dt.date | None:
    try:
        return typed_day(request, raw) if raw else None
    except ValueError:
        return None


@routes.get("/auditoria")
@console_page(Role.ADMIN)
async def audit_log(request: web.Request) -> web.Response:
    """The audit log with its filters (the deployment's: only for an admin of every municipality it serves)."""
    staff = staff_of(request)
    refused = await deployment_wide(request)  # its entries name every municipality's records (CF Art. 30)
    if refused is not None:
        return refused
    query = request.query
    page = query.get("pagina", "1")
    filters = AuditFilters(
        actor=query.get("ator", "")[:64].strip(), entity=query.get("entidade", "")[:64].strip(),
        entity_id=query.get("id", "")[:64].strip(),
        since=_day(request, query.get("de", "")), until=_day(request, query.get("ate", "")),
        page=int(page) if page.isdecimal() and len(page) < 6 else 1,
    )
    async with db(request)() as session:
        events, has_next = await audit_page(session=session, filters=filters, tz=staff.tr.tz)
    base = {key: value for key, value in query.items() if key != "pagina"}
    return render(request, "audit.html", {
        "title": staff.tr._("Audit log"), "events": [in_words(staff.tr, event) for event in events],
        "filters": filters, "base": base,
        "has_next": has_next,
        "entities": sorted(((code, staff.tr._(name)) for code, name in ENTITIES.items()), key=lambda pair: pair[1]),
    })
