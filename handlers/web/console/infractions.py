"""Choosing the infraction of a notice by its words, as the chat does (:func:`models.cases.catalogue_search`).

The issue form works without JavaScript: its "Search" button posts the form, which comes back with everything
typed kept and the matching rows as buttons; pressing one fills the code (and its law). With JavaScript the same
rows appear as suggestions while typing, from :func:`suggestions`, and choosing one fills the fields in place.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web

from core.i18n import Translator
from handlers.web.console.guard import console_page, works_in
from handlers.web.console.staff import staff_of
from handlers.web.keys import SETTINGS
from models.cases.catalogue_search import search_infractions
from models.people import Role
from models.rulebooks.catalogue import CatalogueError, Infraction, RulebookId, get_infraction

routes = web.RouteTableDef()
QUERY_MAX = 100
ISSUERS = (Role.CLERK, Role.INSPECTOR)
"""Who issues notices in the console."""


@dataclass(frozen=True, slots=True)
class Found:
    """A catalogue row offered to the clerk: the button's value (``rulebook:code``) and what it says."""

    choice: str
    label: str


def label(row: Infraction) -> str:
    """How a row reads in the form: its code, the law's words and the article, e.g. ``CP-I-1 — Manter … (Art. 9)``."""
    return f"{row.code} — {row.description} ({row.article})"


def named(code: str, rulebooks: list[RulebookId] | tuple[RulebookId, ...] | None = None) -> Infraction | None:
    """The catalogue row of a code (of these rulebooks, when given), or None for a code the catalogue lacks."""
    try:
        row = get_infraction(code) if code.strip() else None
    except CatalogueError:
        return None
    return row if row is not None and (rulebooks is None or row.rulebook in rulebooks) else None


def code_label(code: str) -> str:
    """A code as the case page shows it: with the law's words when the catalogue knows it, else as it is."""
    row = named(code)
    return label(row) if row is not None else code


def found(query: str, rulebooks: list[RulebookId]) -> list[Found]:
    """The rows that match everyday words (or a code) in these rulebooks, best first."""
    return [Found(choice=f"{row.rulebook}:{row.code}", label=label(row))
            for row in search_infractions(query[:QUERY_MAX], rulebooks=rulebooks, limit=8)]


def choice(raw: str, rulebooks: list[RulebookId]) -> Infraction | None:
    """The row a pressed button names (``rulebook:code``), if it is one of these rulebooks'."""
    rulebook, _, code = raw.partition(":")
    row = named(code, rulebooks)
    return row if row is not None and row.rulebook == rulebook else None


async def issuing_rulebooks(request: web.Request) -> list[RulebookId]:
    """The laws of the municipalities shown where the member may issue a notice (CF Art. 30)."""
    served = request.config_dict[SETTINGS].municipalities
    return [rulebook for slug in staff_of(request).shown if await works_in(request, slug, ISSUERS)
            for rulebook in served[slug].rulebooks]


def no_match(tr: Translator) -> str:
    """The answer when nothing matches."""
    return tr._("No infraction matches these words. Try other words, or type the code.")


@routes.get("/notificacoes/infracoes")
@console_page(*ISSUERS)
async def suggestions(request: web.Request) -> web.Response:
    """The rows matching ``?q=`` in the laws this member may issue under (the form's own list), as JSON."""
    tr = staff_of(request).tr
    rows = found(request.query.get("q", ""), await issuing_rulebooks(request))
    return web.json_response({"results": [{"choice": row.choice, "label": row.label} for row in rows],
                              "empty": no_match(tr)})
