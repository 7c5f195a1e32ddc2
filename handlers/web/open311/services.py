"""GeoReport v2 discovery, the service list and each service's definition (its attributes)."""

from __future__ import annotations

from typing import Any

from aiohttp import web
from babel.lists import format_list

from core.i18n import Translator
from handlers.web.keys import cities_of_request, settings_of
from handlers.web.open311.render import Open311Error, answer, fmt_of, open311_endpoint, reader
from models.open311.jurisdiction import Jurisdiction, jurisdictions, resolve_jurisdiction
from models.open311.services import Attribute, Service, find_service, service_attributes, services_in_force

routes = web.RouteTableDef()
ROOT = "/open311/v2"
SPECIFICATION = "http://wiki.open311.org/GeoReport_v2"
CHANGESET = "2026-12-01T00:00:00-04:00"
"""When the service list last changed (the catalogue ships with the code: a release changes it)."""


@routes.get(ROOT + "/discovery.{fmt:xml|json}")
@open311_endpoint
async def discovery(request: web.Request) -> web.Response:
    """Service discovery (http://wiki.open311.org/Service_discovery): where the endpoint is, in which formats.

    ``jurisdictions`` (an addition to the spec's fields) lists each municipality served: its ``jurisdiction_id``
    (required in every call when there are several), name and state.
    """
    settings = settings_of(request)
    tr = reader(request)
    served = jurisdictions(cities_of_request(request))
    cities = format_list([place.name for place in served], locale=tr.locale)
    body = {
        "changeset": CHANGESET,
        "contact": tr.ngettext("City hall of {cities}", "City halls of {cities}", len(served)).format(cities=cities),
        "key_service": tr._("Ask the city hall for a key: one per client system."),
        "endpoints": [
            {
                "specification": SPECIFICATION,
                "url": settings.http_root + ROOT,
                "changeset": CHANGESET,
                "type": "production",
                "formats": ["text/xml", "application/json"],
            }
        ],
        "jurisdictions": [{"jurisdiction_id": place.id, "name": place.name, "state": place.state}
                          for place in served],
    }
    return answer(fmt_of(request), "discovery", None, body)


def jurisdiction_of(request: web.Request, given: str | None = None) -> Jurisdiction:
    """The municipality a call names (``jurisdiction_id`` of the query unless ``given``), or the only one served.

    Raises:
        UnknownJurisdiction: unknown, or missing where several are served (the spec's 404 or 400).
    """
    wanted = given if given is not None else request.query.get("jurisdiction_id")
    return resolve_jurisdiction(wanted, cities=cities_of_request(request))


def _label(tr: Translator, service: Service, text: str) -> str:
    return text if service.law_text else tr._(text)


def service_entry(tr: Translator, service: Service) -> dict[str, Any]:
    """One service as GET services lists it."""
    return {
        "service_code": service.code,
        "service_name": _label(tr, service, service.name),
        "description": _label(tr, service, service.description),
        "metadata": True,
        "type": "realtime",
        "keywords": ", ".join(service.keywords),
        "group": _label(tr, service, service.group),
    }


def attribute_entry(tr: Translator, attribute: Attribute) -> dict[str, Any]:
    """One attribute of a service definition."""
    entry: dict[str, Any] = {
        "variable": True,
        "code": attribute.code,
        "datatype": attribute.datatype,
        "required": attribute.required,
        "datatype_description": tr._(attribute.datatype_description) if attribute.datatype_description else None,
        "order": attribute.order,
        "description": tr._(attribute.description),
    }
    if attribute.values:
        entry["values"] = [
            {"key": value.key, "name": value.name if value.law_text else tr._(value.name)} for value in attribute.values
        ]
    return entry


@routes.get(ROOT + "/services.{fmt:xml|json}")
@open311_endpoint
async def services(request: web.Request) -> web.Response:
    """GET services: those of the jurisdiction's own laws (the Código de Posturas tables, the ride-hailing report)."""
    place = jurisdiction_of(request)
    tr = reader(request)
    body = [service_entry(tr, service) for service in services_in_force(place.rulebooks)]
    return answer(fmt_of(request), "services", "service", body)


def service_or_404(code: str, request: web.Request, place: Jurisdiction) -> Service:
    """The service with this code in the jurisdiction (its municipality's laws), or the spec's 404."""
    service = find_service(code, place.rulebooks)
    if service is None:
        raise Open311Error(404, reader(request)._("No service with code {code} in {city}.").format(
            code=code[:40], city=place.name))
    return service


@routes.get(ROOT + "/services/{code}.{fmt:xml|json}")
@open311_endpoint
async def service_definition(request: web.Request) -> web.Response:
    """GET service definition: the attributes a request for this service carries, with the law's reasons."""
    service = service_or_404(request.match_info["code"], request, jurisdiction_of(request))
    tr = reader(request)
    body = {
        "service_code": service.code,
        "attributes": [attribute_entry(tr, attribute) for attribute in service_attributes(service)],
    }
    return answer(fmt_of(request), "service_definition", None, body)
