"""Painel: the dashboard, as server-drawn SVG charts with the same figures in tables.

Open cases by queue and status, deadlines, the share answered on time, the outbox per day and the notices waiting.
"""

from __future__ import annotations

from aiohttp import web

from core.i18n import N_
from handlers.web.console.charts import grouped_columns, horizontal
from handlers.web.console.forms import city_today, db
from handlers.web.console.labels import STATUS_NAMES
from handlers.web.console.rendering import render
from handlers.web.console.staff import staff_of
from handlers.web.keys import SETTINGS
from models.cases.ombudsman_reach import restricted_waiting_unread, unread_restricted_text
from models.columns import utcnow
from models.console.dashboard import OUTBOX_SHOWN, dashboard
from models.outbox import OutboxStatus
from models.people import Role

routes = web.RouteTableDef()
QUEUE_NAMES = {
    Role.CLERK: N_("Representations (clerks)"),
    Role.INSPECTOR: N_("Ride-hailing (inspectors)"),
    Role.OMBUDSMAN: N_("Ombudsman"),
    Role.ADMIN: N_("Administration"),
}
OUTBOX_NAMES = {
    OutboxStatus.SENT: N_("Sent"),
    OutboxStatus.UNREACHABLE: N_("Unreachable"),
    OutboxStatus.FAILED: N_("Failed"),
}


@routes.get("/")
async def home(request: web.Request) -> web.Response:
    """The dashboard (every staff role)."""
    staff = staff_of(request)
    tr = staff.tr
    settings = request.config_dict[SETTINGS]
    async with db(request)() as session:
        figures = await dashboard(session=session, today=city_today(request), now=utcnow(), tz=settings.tz,
                                  municipalities=staff.shown, reader=staff.telegram_user_id)
        # L13460 Art. 10 §7: an admin learns only that restricted complaints wait for an Ombudsman, never what
        unread = await restricted_waiting_unread(
            session=session, municipalities=[slug for slug, role in staff.roles if role is Role.ADMIN])
    queue_rows = [(f"{tr._(QUEUE_NAMES[role])} · {tr._(STATUS_NAMES[status])}", count)
                  for (role, status), count in sorted(figures.open_by_queue.items())]
    series = [tr._(OUTBOX_NAMES[status]) for status in OUTBOX_SHOWN]
    days = [(tr.date(day, format="dd/MM"), [counts[status] for status in OUTBOX_SHOWN])
            for day, counts in figures.outbox_by_day]
    share = figures.on_time_share
    return render(request, "dashboard.html", {
        "title": tr._("Dashboard"), "figures": figures, "queue_rows": queue_rows,
        "queue_chart": horizontal(queue_rows), "outbox_chart": grouped_columns(days, series), "series": series,
        "days": days, "share": None if share is None else round(share * 100),
        "unread_restricted": [unread_restricted_text(tr, count=count, city=settings.municipalities[slug].name)
                              for slug, count in unread.items()],
    })
