"""Modelos: the response templates staff manage — a name and one text per language, with placeholders.

Each template belongs to a municipality (CF Art. 30): the page lists those of the municipalities shown where the
member holds a role of this page, and a new one is written for the municipality shown (the first one when several
are shown, as the form says).
"""

from __future__ import annotations

from aiohttp import web

from core.i18n import N_, SUPPORTED_LOCALES
from handlers.web.console.forms import db, form_text
from handlers.web.console.guard import console_page
from handlers.web.console.rendering import render
from handlers.web.console.staff import staff_of
from models.columns import utcnow
from models.console.replies import PLACEHOLDERS, list_templates, retire_template, save_template
from models.invalid_input import InvalidInput
from models.people import Role

routes = web.RouteTableDef()
ROLES = (Role.CLERK, Role.INSPECTOR, Role.OMBUDSMAN)
MEANINGS: dict[str, str] = {  # what each placeholder of models.console.replies.PLACEHOLDERS becomes in the reply
    "protocol": N_("the case's protocol number"),
    "received_on": N_("the day the case was received"),
    "due_on": N_("the day the answer is due"),
}


async def _page(request: web.Request, *, error: str | None = None, values: dict[str, str] | None = None,
                status: int = 200) -> web.Response:
    staff = staff_of(request)
    async with db(request)() as session:
        templates = await list_templates(session=session, municipalities=staff.shown)
    return render(request, "replies.html", {
        "title": staff.tr._("Reply templates"), "templates": templates, "locales": SUPPORTED_LOCALES,
        "places": dict(staff.places), "shown": staff.shown,
        "placeholders": [(name, staff.tr._(MEANINGS[name])) for name in PLACEHOLDERS],
        "error": error, "values": values or {},
        "saved": request.query.get("feito") == "1",
    }, status=status)


@routes.get("/modelos")
@console_page(*ROLES)
async def templates_page(request: web.Request) -> web.Response:
    """The templates, each editable, and a form for a new one."""
    return await _page(request)


@routes.post("/modelos")
@console_page(*ROLES)
async def save(request: web.Request) -> web.StreamResponse:
    """Create or change a template (audited); a refusal keeps what was typed."""
    staff = staff_of(request)
    raw_id = await form_text(request, "id", 12)
    name = await form_text(request, "name", 200)
    texts = {locale: await form_text(request, f"text_{locale}") for locale in SUPPORTED_LOCALES}
    chosen = await form_text(request, "municipio", 40)
    municipality = chosen if chosen in staff.shown else staff.shown[0]  # only where the member works (CF Art. 30)
    try:
        async with db(request)() as session:
            await save_template(session=session, template_id=int(raw_id) if raw_id.isdecimal() else None, name=name,
                                texts=texts, actor=staff.actor, now=utcnow(), municipality=municipality)
    except InvalidInput as refused:
        return await _page(request, error=refused.render(staff.tr), values={"name": name, "municipio": municipality, **{
            f"text_{locale}": text for locale, text in texts.items()}}, status=422)
    raise web.HTTPSeeOther("/painel/modelos?feito=1")


@routes.post("/modelos/{template_id:\\d{1,9}}/retirar")
@console_page(*ROLES)
async def retire(request: web.Request) -> web.StreamResponse:
    """Stop offering a template (audited)."""
    async with db(request)() as session:
        await retire_template(session=session, template_id=int(request.match_info["template_id"]),
                              actor=staff_of(request).actor, now=utcnow(), municipalities=staff_of(request).shown)
    raise web.HTTPSeeOther("/painel/modelos?feito=1")
