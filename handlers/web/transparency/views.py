"""``/transparencia``: the panel per municipality, the figures and the case list as CSV and JSON, the dictionary.

``/transparencia`` lists the municipalities the deployment serves (or shows the only one);
``/transparencia/<municipio>`` is one municipality's panel, and its open data and dictionary are under it. Every
figure counts only that municipality's cases and notices. ``<municipio>`` is the key Open311 calls
``jurisdiction_id`` (``nova-xavantina``; ``nova-xavantina-mt`` redirects there).

Answers are cached: ``Cache-Control: public, max-age=300`` for browsers and proxies, and
:data:`SERVER_CACHE_SECONDS` in the server (per path and language) so a busy day costs one set of queries a minute.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import web
from babel.dates import format_skeleton

from core.i18n import SUPPORTED_LOCALES, Translator, negotiate_locale, translator
from handlers.web.keys import cities_of_request, sessions_of, settings_of
from handlers.web.transparency.charts import NARROW, Series, grouped_bars, grouped_rows, horizontal_bars
from models.cases.labels import KIND_LABELS, STATUS_LABELS
from models.cases.tables import CaseKind
from models.columns import utcnow
from models.exports.cells import csv_text
from models.open311.jurisdiction import Jurisdiction, UnknownJurisdiction, jurisdictions, resolve_jurisdiction
from models.rulebooks.catalogue import CP, L1533
from models.transparency.figures import Period
from models.transparency.open_data import DICTIONARY, open_cases
from models.transparency.panel import Panel, figure_rows, gather

routes = web.RouteTableDef()
TEMPLATES = web.AppKey("transparency_templates", jinja2.Environment)
CACHE = web.AppKey("transparency_cache", dict)
SERVER_CACHE_SECONDS = 60.0
BROWSER_CACHE = "public, max-age=300"
PERIOD_MONTHS = 12
"""The panel covers the current month and the 11 before it."""
KIND_ORDER = (CaseKind.REPRESENTATION, CaseKind.RIDE_HAILING, CaseKind.OMBUDSMAN)
KIND_RULEBOOK = {CaseKind.REPRESENTATION: CP, CaseKind.RIDE_HAILING: L1533}
"""The law a kind of case rests on: a municipality where it is not in force shows no column for it."""


def setup(app: web.Application) -> None:
    """Give the application the panel's templates and its server-side cache."""
    aiohttp_jinja2.setup(app, app_key=TEMPLATES, autoescape=True,
                         loader=jinja2.PackageLoader("handlers.web.transparency", "templates"))
    app[CACHE] = {}


@dataclass
class _Cached:
    expires: float
    body: bytes
    content_type: str
    headers: dict[str, str] = field(default_factory=dict)


def _reader(request: web.Request) -> Translator:
    """``?lang=`` if given, else the browser's first language, else pt_BR."""
    wanted = request.query.get("lang") or request.headers.get("Accept-Language", "").split(",", 1)[0].split(";")[0]
    return translator(negotiate_locale(wanted.strip() or None), settings_of(request).timezone)


async def _cached(request: web.Request, key: str, build: Any) -> web.Response:
    cache: dict[str, _Cached] = request.app[CACHE]
    hit = cache.get(key)
    if hit is None or hit.expires < time.monotonic():
        body, content_type, headers = await build()
        hit = _Cached(time.monotonic() + SERVER_CACHE_SECONDS, body, content_type, headers)
        cache[key] = hit
    return web.Response(body=hit.body, content_type=hit.content_type, charset="utf-8",
                        headers={"Cache-Control": BROWSER_CACHE, **hit.headers})


def _municipality(request: web.Request) -> Jurisdiction:
    try:
        return resolve_jurisdiction(request.match_info.get("municipio"), cities=cities_of_request(request))
    except UnknownJurisdiction:
        raise web.HTTPNotFound(text="município não encontrado / municipality not found") from None


def _period(request: web.Request) -> Period:
    settings = settings_of(request)
    return Period.last_months(today=utcnow().astimezone(settings.tz).date(), months=PERIOD_MONTHS, tz=settings.tz)


async def _panel(request: web.Request, place: Jurisdiction) -> Panel:
    async with sessions_of(request)() as session:
        return await gather(session=session, municipality=place.id, period=_period(request))


def _kinds(panel: Panel, place: Jurisdiction) -> tuple[CaseKind, ...]:
    """The kinds the panel shows: the ombudsman's, those of the municipality's laws, and any it has cases of."""
    counted = {item.kind for item in (*panel.received, *panel.answered)}
    return tuple(kind for kind in KIND_ORDER
                 if kind not in KIND_RULEBOOK or KIND_RULEBOOK[kind] in place.rulebooks or kind in counted)


def _month_name(day: dt.date, tr: Translator, skeleton: str) -> str:
    """A month as the reader's language writes it: ``março de 2026`` (``yMMMM``), ``fev. de 2026`` (``yMMM``)."""
    return str(format_skeleton(skeleton, day, locale=tr.locale))


def _month_table(panel: Panel, tr: Translator, kinds: tuple[CaseKind, ...]) -> tuple[list[str], list[dict[str, Any]]]:
    months = [month.strftime("%Y-%m") for month in panel.period.months()]
    received = {(item.month, item.kind): item.count for item in panel.received}
    answered = {(item.month, item.kind): item.count for item in panel.answered}
    rows: list[dict[str, Any]] = []
    for month, first_day in zip(months, panel.period.months(), strict=True):
        rows.append({
            "month": _month_name(first_day, tr, "yMMM"),
            # the chart's two lines under a month's bars: "jan." and, at the first month and each January, "2026"
            "label": (_month_name(first_day, tr, "MMM"),
                      str(first_day.year) if not rows or first_day.month == 1 else ""),
            "cells": [(received.get((month, kind), 0), answered.get((month, kind), 0)) for kind in kinds],
            "received": sum(received.get((month, kind), 0) for kind in kinds),
            "answered": sum(answered.get((month, kind), 0) for kind in kinds),
        })
    return months, rows


def _context(request: web.Request, panel: Panel, place: Jurisdiction, tr: Translator) -> dict[str, Any]:
    kinds = _kinds(panel, place)
    _months, rows = _month_table(panel, tr, kinds)
    month_series = [Series(tr.pgettext("figure", "Received"), tuple(row["received"] for row in rows)),
                    Series(tr._("Answered"), tuple(row["answered"] for row in rows), hatched=True)]
    month_title = tr._("Cases received and answered per month")
    month_description = tr._("Bars per month: received (solid) and answered (hatched); each bar shows its number.")
    charts = {
        "month_chart": (
            grouped_bars("por-mes", title=month_title, description=month_description,
                         categories=[row["label"] for row in rows], series=month_series),
            grouped_rows("por-mes-celular", title=month_title, description=month_description,
                         categories=[row["month"] for row in rows], series=month_series)),
    }
    chapter_rows = [(item.chapter if item.chapter != "—" else tr._("Chapter not named"), item.count)
                    for item in panel.chapters]
    notices = panel.notices
    notice_rows = [(tr.pgettext("figure", "Issued"), notices.issued), (tr._("With ciência"), notices.ciencia),
                   (tr._("Defended"), notices.defended), (tr._("Decided"), notices.decided)]
    for name, chart_id, title, description, bars in (
        ("chapter_chart", "por-capitulo", tr._("Representations by chapter of the Código de Posturas"),
         tr._("One bar per chapter, with its number of representations."), chapter_rows),
        ("notice_chart", "notificacoes", tr.pgettext("figure", "Penalty notices"),
         tr._("Notices issued, with ciência, defended and decided; each bar shows its number."), notice_rows),
    ):
        charts[name] = (
            horizontal_bars(chart_id, title=title, description=description, rows=bars),
            horizontal_bars(f"{chart_id}-celular", title=title, description=description, rows=bars, width=NARROW))
    share = panel.timeliness.share_on_time
    return {
        "_": tr._, "ngettext": tr.ngettext, "pgettext": tr.pgettext, "lang": tr.locale.replace("_", "-"),
        "place": place,
        "locales": _locales(tr),
        "first": _month_name(panel.period.first, tr, "yMMMM"),
        "last": _month_name(panel.period.last, tr, "yMMMM"),
        "kinds": [tr._(KIND_LABELS[kind]) for kind in kinds], "rows": rows,
        "show_chapters": CP in place.rulebooks or bool(panel.chapters),
        **charts,
        "chapters": panel.chapters, "notices": notices, "timeliness": panel.timeliness,
        "share": None if share is None else tr.number(round(100 * share, 1)),
        "median": None if panel.timeliness.median_days is None else tr.number(panel.timeliness.median_days),
        "satisfaction": panel.satisfaction,
        "score": None if panel.satisfaction.score is None else tr.number(panel.satisfaction.score),
        "base": f"/transparencia/{place.id}",
    }


def _locales(tr: Translator) -> list[tuple[str, str]]:
    return [(locale, tr.language_name(locale)) for locale in SUPPORTED_LOCALES]


def _canonical(request: web.Request, place: Jurisdiction, tail: str = "") -> None:
    """Redirect ``/transparencia/sapezal-mt…`` to ``/transparencia/sapezal…`` (one address per page)."""
    if request.match_info.get("municipio") != place.id:
        raise web.HTTPMovedPermanently(request.rel_url.with_path(f"/transparencia/{place.id}{tail}").with_query(
            request.rel_url.query))


@routes.get("/transparencia")
async def start_page(request: web.Request) -> web.Response:
    """The municipalities the deployment serves, each with a link to its panel; the only one's panel directly."""
    served = jurisdictions(cities_of_request(request))
    if len(served) == 1:
        return await _panel_page(request, served[0])
    tr = _reader(request)

    async def build() -> tuple[bytes, str, dict[str, str]]:
        lang = tr.locale.replace("_", "-")
        context = {"_": tr._, "lang": lang, "locales": _locales(tr), "places": served, "base": None}
        html = aiohttp_jinja2.render_string("municipalities.html", request, context, app_key=TEMPLATES)
        return html.encode(), "text/html", {"Content-Language": lang}

    return await _cached(request, f"start:{tr.locale}", build)


@routes.get("/transparencia/{municipio:[a-z0-9-]+}")
async def panel_page(request: web.Request) -> web.Response:
    """The public page of one municipality."""
    place = _municipality(request)
    _canonical(request, place)
    return await _panel_page(request, place)


async def _panel_page(request: web.Request, place: Jurisdiction) -> web.Response:
    tr = _reader(request)

    async def build() -> tuple[bytes, str, dict[str, str]]:
        context = _context(request, await _panel(request, place), place, tr)
        html = aiohttp_jinja2.render_string("panel.html", request, context, app_key=TEMPLATES)
        return html.encode(), "text/html", {"Content-Language": context["lang"]}

    return await _cached(request, f"page:{place.id}:{tr.locale}", build)


def _csv(header: list[str], rows: list[list[Any]]) -> bytes:
    """Open data CSV: comma-separated, UTF-8, every cell through the formula-injection guard."""
    return csv_text(header, rows, delimiter=",").encode("utf-8")


@routes.get("/transparencia/{municipio:[a-z0-9-]+}/indicadores.{fmt:csv|json}")
async def figures_data(request: web.Request) -> web.Response:
    """The panel's figures as (indicador, recorte, valor) rows."""
    place = _municipality(request)
    fmt = request.match_info["fmt"]

    async def build() -> tuple[bytes, str, dict[str, str]]:
        panel = await _panel(request, place)
        rows = figure_rows(panel)
        meta = {"municipio": place.id, "inicio": panel.period.first.isoformat(),
                "fim": panel.period.last.isoformat()}
        if fmt == "json":
            body = {**meta, "indicadores": [{"indicador": a, "recorte": b, "valor": c} for a, b, c in rows]}
            return json.dumps(body, ensure_ascii=False).encode(), "application/json", {}
        return _csv(["indicador", "recorte", "valor"], [list(row) for row in rows]), "text/csv", {
            "Content-Disposition": f'attachment; filename="indicadores-{place.id}.csv"'}

    return await _cached(request, f"figures:{place.id}:{fmt}", build)


CASE_FIELDS = ["protocolo", "servico", "tipo", "latitude", "longitude", "recebido_em", "prazo", "respondido_em",
               "situacao", "tipo_descricao", "situacao_descricao"]
"""The open case list's columns: the codes stay where machines read them; the two last say them in Portuguese."""
OPEN_DATA_LOCALE = "pt_BR"  # the words of the open data: a Brazilian municipality's public record


@routes.get("/transparencia/{municipio:[a-z0-9-]+}/casos.{fmt:csv|json}")
async def cases_data(request: web.Request) -> web.Response:
    """The pseudonymised case list of the period."""
    place = _municipality(request)
    fmt = request.match_info["fmt"]

    async def build() -> tuple[bytes, str, dict[str, str]]:
        async with sessions_of(request)() as session:
            found = await open_cases(session=session, municipality=place.id, period=_period(request))
        words = translator(OPEN_DATA_LOCALE)
        rows = [[item.protocol, item.service, item.kind.value, item.latitude, item.longitude,
                 item.received_on.isoformat(), item.due_on.isoformat(),
                 item.answered_on.isoformat() if item.answered_on else None, item.status.value,
                 words._(KIND_LABELS[item.kind]), words._(STATUS_LABELS[item.status])] for item in found]
        if fmt == "json":
            body = {"municipio": place.id, "casos": [dict(zip(CASE_FIELDS, row, strict=True)) for row in rows]}
            return json.dumps(body, ensure_ascii=False).encode(), "application/json", {}
        return _csv(CASE_FIELDS, rows), "text/csv", {
            "Content-Disposition": f'attachment; filename="casos-{place.id}.csv"'}

    return await _cached(request, f"cases:{place.id}:{fmt}", build)


@routes.get("/transparencia/dados/dicionario")
async def old_dictionary(request: web.Request) -> web.Response:
    """The dictionary's address before the panels were per municipality: the default municipality's dictionary."""
    place = jurisdictions(cities_of_request(request))[0]
    raise web.HTTPMovedPermanently(request.rel_url.with_path(f"/transparencia/{place.id}/dicionario").with_query(
        request.rel_url.query))


@routes.get("/transparencia/{municipio:[a-z0-9-]+}/dicionario")
async def dictionary(request: web.Request) -> web.Response:
    """The data dictionary: every published field, its type and meaning; and what is never published."""
    place = _municipality(request)
    _canonical(request, place, "/dicionario")
    tr = _reader(request)

    async def build() -> tuple[bytes, str, dict[str, str]]:
        lang = tr.locale.replace("_", "-")
        context: dict[str, Any] = {
            "_": tr._, "lang": lang, "place": place, "locales": _locales(tr),
            "entries": [(entry.dataset, entry.name, entry.type, tr._(entry.meaning)) for entry in DICTIONARY],
            "statuses": [(status.value, tr._(label)) for status, label in STATUS_LABELS.items()],
            "base": f"/transparencia/{place.id}",
        }
        html = aiohttp_jinja2.render_string("dictionary.html", request, context, app_key=TEMPLATES)
        return html.encode(), "text/html", {"Content-Language": lang}

    return await _cached(request, f"dictionary:{place.id}:{tr.locale}", build)
