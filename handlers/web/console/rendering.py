"""Jinja2 through aiohttp-jinja2: autoescaped templates, translated with the reader's Balcão catalogs.

Templates call ``_("English msgid")``, ``ngettext(…)`` and ``pgettext(…)`` (extracted into ``console.po`` by
``python -m bot.catalogs``); values are formatted after translation with ``.format()`` and escaped on output.
"""

from __future__ import annotations

from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import web

from core.i18n import DEFAULT_LOCALE, Translator, translator
from handlers.web.console.staff import STAFF
from handlers.web.keys import SETTINGS

PACKAGE = "handlers.web.console"


def setup_templates(app: web.Application) -> None:
    """Attach the console's Jinja2 environment (autoescaping on for every template)."""
    aiohttp_jinja2.setup(
        app,
        loader=jinja2.PackageLoader(PACKAGE, "templates"),
        autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
        extensions=["jinja2.ext.i18n"],
        undefined=jinja2.StrictUndefined,
    )


def request_translator(request: web.Request) -> Translator:
    """The signed-in staff member's language, or the default one before sign-in."""
    staff = request.get(STAFF)
    if staff is not None:
        return staff.tr
    return translator(DEFAULT_LOCALE, request.config_dict[SETTINGS].timezone)


def render(request: web.Request, template: str, context: dict[str, Any] | None = None, *,
           status: int = 200) -> web.Response:
    """Render a console page in the reader's language."""
    tr = request_translator(request)
    base = {
        "_": tr._,
        "gettext": tr._,
        "ngettext": tr.ngettext,
        "pgettext": tr.pgettext,
        "tr": tr,
        "lang": tr.locale.replace("_", "-"),
        "staff": request.get(STAFF),
        "path": request.path,
        "back": request.path if request.method == "GET" else "/painel/",  # where a header form returns to
    }
    response = aiohttp_jinja2.render_template(template, request, {**base, **(context or {})}, status=status)
    return response


def message_page(request: web.Request, *, title: str, text: str, status: int, nav: bool = True) -> web.Response:
    """A page with one message (refusals, errors), already translated; ``nav=False`` hides the menu."""
    return render(request, "message.html", {"title": title, "text": text, "nav": nav}, status=status)
