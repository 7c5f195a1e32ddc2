"""Motoristas: the registry import, driver search, the status with its articles, link codes, inspections, sanctions.

The registry CSV is checked first (a dry run: every bad row with its line and reason), then applied; the status
cites Lei 1.533/2020 article by article.

Everything goes through the functions the CLI, the bot and the staff API use (:mod:`models.drivers`): the import
is all or nothing and audited, the link code is shown once, an inspection or a sanction recomputes the status.
"""

from __future__ import annotations

import datetime as dt
import hashlib

from aiohttp import web

from handlers.web.console.forms import city_today, db, form_text, typed_day
from handlers.web.console.guard import console_page, elsewhere, works_in
from handlers.web.console.labels import STEP_NAMES
from handlers.web.console.rendering import message_page, render
from handlers.web.console.staff import staff_of
from handlers.web.keys import CITIES
from models.columns import utcnow
from models.console.driver_search import find_drivers
from models.drivers.identifiers import InvalidIdentifier
from models.drivers.importing import import_drivers
from models.drivers.linking import DriverNotFound, create_link_code
from models.drivers.registry import (
    SUSPENSION_RULES,
    Sanction,
    apply_sanction,
    authorization_by_number,
    record_inspection,
    registry_city,
    situation_of,
)
from models.drivers.status import STATUS_LABELS as KIND_LABELS
from models.drivers.tables import Driver, InspectionResult
from models.people import Role
from models.rulebooks.catalogue import L1533
from models.rulebooks.deadline_rules import get_rule
from models.when import Towards

routes = web.RouteTableDef()
MAX_CSV = 20 * 1024 * 1024


@routes.get("/motoristas")
@console_page(Role.CLERK, Role.INSPECTOR)
async def drivers_page(request: web.Request) -> web.Response:
    """Search a driver, and the registry import form."""
    text = request.query.get("q", "")[:100]
    async with db(request)() as session:
        hits = await find_drivers(session=session, text=text, municipalities=staff_of(request).shown) if text else []
    return render(request, "drivers.html", {"title": staff_of(request).tr._("Drivers"), "text": text, "hits": hits,
                                            "searched": bool(text)})


@routes.post("/motoristas/importar")
@console_page(Role.CLERK)
async def import_registry(request: web.Request) -> web.Response:
    """Check the CSV (dry run) or apply it; the dry run's page carries the same file to the Apply button."""
    staff = staff_of(request)
    tr = staff.tr
    form = await request.post()
    upload, kept = form.get("file"), form.get("csv")
    if isinstance(upload, web.FileField):
        raw = upload.file.read(MAX_CSV + 1)
    elif isinstance(kept, str):
        raw = kept.encode("utf-8")
    else:
        raw = b""
    if not raw or len(raw) > MAX_CSV:
        return message_page(request, status=400, title=tr._("Nothing imported"), text=tr._(
            "Choose the registry CSV file (UTF-8, at most 20 MB). Nothing was changed."))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return message_page(request, status=422, title=tr._("Nothing imported"), text=tr._(
            "The file is not UTF-8; export it again as UTF-8 CSV. Nothing was changed."))
    apply = form.get("apply") == "1"
    cities = request.config_dict[CITIES]
    registry = cities.with_rulebook(L1533)
    if registry is not None and not await works_in(request, registry.slug, (Role.CLERK,)):
        return elsewhere(request)  # the registry is the city hall's whose law Lei 1.533/2020 is
    async with db(request)() as session:
        report = await import_drivers(session=session, text=text, actor=staff.actor, cities=cities,
                                      today=city_today(request), dry_run=not apply)
    return render(request, "driver_import.html", {
        "title": tr._("Registry import"), "report": report, "applied": apply and report.applied, "csv": text,
        "digest": hashlib.sha256(text.encode()).hexdigest()[:12],
    }, status=422 if report.errors else 200)


async def _elsewhere(request: web.Request, roles: tuple[Role, ...]) -> bool:
    """Whether the driver of the URL is another municipality's registry (Lei 1.533/2020 is Sapezal's)."""
    async with db(request)() as session:
        authorization = await authorization_by_number(session=session, number=request.match_info["number"][:40])
        driver = await session.get(Driver, authorization.driver_id) if authorization else None
    return driver is not None and not await works_in(request, driver.municipality, roles)


async def _driver_page(request: web.Request, *, notice: str = "", error: str = "", code: str = "",
                       status: int = 200) -> web.Response:
    staff = staff_of(request)
    city = registry_city(request.config_dict[CITIES])
    number = request.match_info["number"][:40]
    async with db(request)() as session:
        authorization = await authorization_by_number(session=session, number=number)
        driver = await session.get(Driver, authorization.driver_id) if authorization else None
        situation = await situation_of(session=session, driver=driver, on=city_today(request),
                                       city=city) if driver else None
    if situation is None:
        return message_page(request, status=404, title=staff.tr._("Not found"), text=staff.tr._(
            "No authorization has that number."))
    return render(request, "driver.html", {
        "title": staff.tr._("Driver {name}").format(name=situation.name), "situation": situation,
        "kinds": KIND_LABELS, "steps": STEP_NAMES, "notice": notice, "error": error, "code": code,
        "today": city_today(request),
        "rules": [(rule.id, staff.tr._("{what} ({article})").format(what=staff.tr._(rule.description),
                                                                      article=rule.article))
                  for rule in sorted((get_rule(rule_id) for rule_id in SUSPENSION_RULES), key=lambda r: r.id)],
        "Role": Role,
    }, status=status)


@routes.get("/motoristas/{number:[0-9]{4}/[0-9]{1,6}}")
@console_page(Role.CLERK, Role.INSPECTOR)
async def driver_page(request: web.Request) -> web.Response:
    """A driver's status today, each line with its article."""
    if await _elsewhere(request, (Role.CLERK, Role.INSPECTOR)):
        return elsewhere(request)
    return await _driver_page(request)


def _day(request: web.Request, raw: str, *, towards: Towards = "past") -> dt.date | None:
    try:
        return typed_day(request, raw, towards=towards) if raw else None
    except ValueError:
        return None


@routes.post("/motoristas/{number:[0-9]{4}/[0-9]{1,6}}/vistoria")
@console_page(Role.INSPECTOR)
async def inspection(request: web.Request) -> web.Response:
    """Record an inspection of the current vehicle (L1533 Art. 9, Art. 16)."""
    if await _elsewhere(request, (Role.INSPECTOR,)):
        return elsewhere(request)
    tr = staff_of(request).tr
    day = _day(request, await form_text(request, "date", 20))
    raw = await form_text(request, "result", 20)
    result = next((r for r in InspectionResult if r.value == raw), None)
    if day is None or result is None or day > city_today(request):
        return await _driver_page(request, status=422, error=tr._(
            "Give the inspection's date (not in the future) and its result."))
    async with db(request)() as session:
        authorization = await authorization_by_number(session=session, number=request.match_info["number"])
        if authorization is None:
            return await _driver_page(request)
        await record_inspection(session=session, vehicle_id=authorization.vehicle_id, inspected_on=day, result=result,
                                actor=staff_of(request).actor, notes=(await form_text(request, "notes", 2000)))
        await session.commit()
    return await _driver_page(request, notice=tr._("Inspection recorded."))


@routes.post("/motoristas/{number:[0-9]{4}/[0-9]{1,6}}/sancao")
@console_page(Role.CLERK)
async def sanction(request: web.Request) -> web.Response:
    """Apply a suspension, revocation or cassação (L1533 Art. 24 I b, c, f)."""
    if await _elsewhere(request, (Role.CLERK,)):
        return elsewhere(request)
    tr = staff_of(request).tr
    raw = await form_text(request, "sanction", 20)
    chosen = next((s for s in Sanction if s.value == raw), None)
    since = _day(request, await form_text(request, "since", 20))
    rule = await form_text(request, "rule", 40) or "l1533-24-suspensao"
    if chosen is None or since is None or rule not in SUSPENSION_RULES:
        return await _driver_page(request, status=422, error=tr._("Choose the sanction and the day it starts."))
    async with db(request)() as session:
        authorization = await authorization_by_number(session=session, number=request.match_info["number"])
        if authorization is None:
            return await _driver_page(request)
        try:
            await apply_sanction(session=session, authorization=authorization, sanction=chosen, since=since,
                                 until=_day(request, await form_text(request, "until", 20), towards="future"),
                                 suspension_rule=rule,
                                 actor=staff_of(request).actor, city=registry_city(request.config_dict[CITIES]))
        except ValueError:
            return await _driver_page(request, status=422, error=tr._(
                "The end of a suspension must come after its start."))
        await session.commit()
    return await _driver_page(request, notice=tr._("Sanction recorded."))


@routes.post("/motoristas/{number:[0-9]{4}/[0-9]{1,6}}/codigo")
@console_page(Role.CLERK)
async def link_code(request: web.Request) -> web.Response:
    """A one-time code for the driver to link Telegram; shown only on this page."""
    if await _elsewhere(request, (Role.CLERK,)):
        return elsewhere(request)
    tr = staff_of(request).tr
    async with db(request)() as session:
        authorization = await authorization_by_number(session=session, number=request.match_info["number"])
        driver = await session.get(Driver, authorization.driver_id) if authorization else None
        if driver is None:
            return await _driver_page(request)
        try:
            issued = await create_link_code(session=session, cpf=driver.cpf, actor=staff_of(request).actor,
                                            now=utcnow(), city=registry_city(request.config_dict[CITIES]))
        except (InvalidIdentifier, DriverNotFound):
            return await _driver_page(request, status=422, error=tr._("This driver's CPF is not valid."))
    return await _driver_page(request, code=issued.code, notice=tr._(
        "Give this code to the driver, who sends /vincular and types it. It is shown only now and expires on "
        "{date}.").format(date=tr.datetime(issued.expires_at)))
