"""Choosing the municipality the console shows, for staff who work in several (an admin of Sapezal and Nova Xavantina).

The choice is only a view: it is kept in a cookie and checked against the member's roles on every request
(:func:`models.console.scope.console_scope`), and every record is checked again in its own municipality. Someone who
works in one municipality cannot switch to another: the form refuses it and a forged cookie is ignored.
"""

from __future__ import annotations

import re

from aiohttp import web

from handlers.web.console.forms import form_text
from handlers.web.console.guard import PLACE_COOKIE
from handlers.web.console.rendering import message_page
from handlers.web.console.staff import staff_of
from handlers.web.keys import SETTINGS

routes = web.RouteTableDef()
EVERY = "todos"
BACK = re.compile(r"/painel/[A-Za-z0-9/_.-]{0,150}")
"""Where the form may send the person back to: a console page, never another site."""


@routes.post("/municipio")
async def choose(request: web.Request) -> web.StreamResponse:
    """Show one municipality where the member works (``municipio=<slug>``), or all of them (``todos``)."""
    staff = staff_of(request)
    wanted = await form_text(request, "municipio", 60)
    if wanted != EVERY and wanted not in {slug for slug, _name in staff.places}:
        tr = staff.tr
        return message_page(request, status=403, title=tr._("Not done"), text=tr._(
            "You do not work in that municipality, so the console cannot show it. Nothing was changed."))
    back = await form_text(request, "voltar", 200)
    redirect = web.HTTPSeeOther(back if BACK.fullmatch(back) and "//" not in back else "/painel/")
    if wanted == EVERY:
        redirect.del_cookie(PLACE_COOKIE, path="/painel/")
    else:
        redirect.set_cookie(PLACE_COOKIE, wanted, httponly=True, samesite="Lax", path="/painel/",
                            secure=request.config_dict[SETTINGS].http_root.startswith("https://"))
    raise redirect
