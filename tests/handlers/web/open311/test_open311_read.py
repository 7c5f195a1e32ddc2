"""Open311 GeoReport v2 read by a real client no one here wrote (``georeport`` from PyPI), in JSON and in XML,
against the server on 127.0.0.1: discovery, services, a service definition, requests and one request. JSON answers
are validated against the schemas written from the spec, XML answers parsed and checked for the spec's element
names. Nothing published names the author or repeats their words (LGPD; L13460 Art. 10 §7).

The test deployment serves Sapezal and Nova Xavantina, so every call names its ``jurisdiction_id``: each
municipality offers the services of its own law only (CF Art. 30 I: the Código de Posturas is Nova Xavantina's,
Lei 1.533/2020 Sapezal's) and shows only its own cases."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator
from typing import Any

import pytest
import requests
import time_machine
from georeport import GeoReport
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.cases.filing import (
    Place,
    RideHailingForm,
    file_ombudsman_case,
    file_representation,
    file_ride_hailing_report,
)
from models.cases.tables import Case
from tests.auxil.case_people import JOAO, NOW, Cast, make_cast, ombudsman, representation
from tests.auxil.open311 import (
    ATTRIBUTE_ELEMENTS,
    REQUEST_ELEMENTS,
    SERVICE_ELEMENTS,
    Open311Server,
    joao_report,
    open311_server,
    validate,
    xml_root,
)

SECRETS = ("João", "Batista", "Pereira", "52998224725", "529.982.247-25", "Rua das Flores", "Pedreiro",
           "entulho", "joao@example.org", "Vi pessoalmente")
"""The author's identity, contact, CPF and own words: never in a public answer."""
NX, SAPEZAL = "nova-xavantina", "sapezal"


@pytest.fixture
async def seeded(settings: Settings, sessions: SessionFactory, session: AsyncSession) -> AsyncIterator[
        tuple[Open311Server, dict[str, str]]]:
    """In Nova Xavantina João filed one representação in the chat and one through Open311; in Sapezal he reported
    a ride-hailing driver in the chat and wrote to the Ouvidoria."""
    cast: Cast = await make_cast(session)
    with time_machine.travel(NOW, tick=False):
        chat = await file_representation(session=session, person_id=cast.joao.id,
                                         form=representation(infraction_code="CP-XI-1"), now=NOW,
                                         cities=cities_of(settings))
        ride = await file_ride_hailing_report(
            session=session, person_id=cast.joao.id, now=NOW - dt.timedelta(minutes=30), cities=cities_of(settings),
            form=RideHailingForm(author=JOAO, vehicle_ref="ABC1D23", reason="street", facts="Pegou passageiros na "
                                 "rodoviária sem o aplicativo.", occurred_on=dt.date(2026, 3, 1),
                                 place=Place(text="Rodoviária")))
        ouv = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                        city=cities_of(settings).default)
    assert (chat.municipality, ride.municipality, ouv.municipality) == (NX, SAPEZAL, SAPEZAL)
    exact = settings.model_copy(update={"open311_place": "exact"})  # LEGAL-CHOICES item 32's alternative
    with time_machine.travel(NOW + dt.timedelta(hours=1), tick=False):
        async with open311_server(exact, sessions) as server:
            posted = await asyncio.to_thread(requests.post, server.url("requests.json"),
                                             data=joao_report(server.key, jurisdiction_id=NX))
            assert posted.status_code == 201, posted.text
            yield server, {"chat": chat.protocol, "open311": posted.json()[0]["service_request_id"],
                           "ombudsman": ouv.protocol, "ride": ride.protocol}


def _client(server: Open311Server, fmt: str, jurisdiction: str = NX) -> GeoReport:
    return GeoReport(server.root, jurisdiction=jurisdiction, output_format=fmt)


def _listed(parsed: Any) -> list[dict[str, Any]]:
    """georeport's XML reading (xmltodict) gives a dict for a list of one element, a list for more."""
    return parsed if isinstance(parsed, list) else [parsed]


async def test_discovery_names_the_endpoint_and_both_formats(seeded: tuple[Open311Server, dict[str, str]]) -> None:
    server, _ = seeded
    as_json = await asyncio.to_thread(requests.get, server.url("discovery.json"))
    assert as_json.headers["Content-Type"] == "application/json; charset=utf-8"
    validate("discovery", as_json.json())
    assert as_json.json()["endpoints"][0]["specification"] == "http://wiki.open311.org/GeoReport_v2"
    as_xml = await asyncio.to_thread(requests.get, server.url("discovery.xml"))
    assert as_xml.headers["Content-Type"] == "text/xml; charset=utf-8"
    root = xml_root(as_xml.content, "discovery")
    assert [f.text for f in root.iter("format")] == ["text/xml", "application/json"]


async def test_discovery_lists_each_municipality_as_a_jurisdiction(
    seeded: tuple[Open311Server, dict[str, str]],
) -> None:
    server, _ = seeded
    body = (await asyncio.to_thread(requests.get, server.url("discovery.json"))).json()
    assert body["jurisdictions"] == [{"jurisdiction_id": SAPEZAL, "name": "Sapezal", "state": "MT"},
                                     {"jurisdiction_id": NX, "name": "Nova Xavantina", "state": "MT"}]
    assert body["contact"] == "Prefeituras Municipais de Sapezal e Nova Xavantina"
    root = xml_root((await asyncio.to_thread(requests.get, server.url("discovery.xml"))).content, "discovery")
    assert [j.findtext("jurisdiction_id") for j in root.iter("jurisdiction")] == [SAPEZAL, NX]


async def test_each_jurisdiction_offers_its_own_laws_services(
    seeded: tuple[Open311Server, dict[str, str]],
) -> None:
    """Nova Xavantina: one service per Código de Posturas table and a breach no table names; Sapezal: Lei
    1.533/2020's ride-hailing report only."""
    server, _ = seeded
    as_json: list[dict[str, Any]] = await asyncio.to_thread(_client(server, "json").get_service_list)
    validate("services", as_json)
    codes = [service["service_code"] for service in as_json]
    assert codes[:2] == ["CP-I", "CP-II"] and codes[-2:] == ["CP-XXVI", "CP"] and len(codes) == 27
    first = as_json[0]
    assert first["service_name"] == "Da higiene das vias públicas"
    assert first["group"] == "Código de Posturas, Título IV" and first["metadata"] is True
    assert "lixo" in first["keywords"]
    as_xml: list[dict[str, Any]] = await asyncio.to_thread(_client(server, "xml").get_service_list)
    assert [service["service_code"] for service in as_xml] == codes
    assert as_xml[0]["metadata"] == "true" and as_xml[0]["service_name"] == first["service_name"]
    raw = await asyncio.to_thread(requests.get, server.url("services.xml"), params={"jurisdiction_id": NX})
    xml_root(raw.content, "services", "service", SERVICE_ELEMENTS)
    sapezal: list[dict[str, Any]] = await asyncio.to_thread(_client(server, "json", "sapezal-MT").get_service_list)
    validate("services", sapezal)
    assert [service["service_code"] for service in sapezal] == ["L1533-APP"]
    sapezal_xml = _listed(await asyncio.to_thread(_client(server, "xml", SAPEZAL).get_service_list))
    assert [service["service_code"] for service in sapezal_xml] == ["L1533-APP"]


async def test_jurisdiction_id_is_required_and_must_be_known(seeded: tuple[Open311Server, dict[str, str]]) -> None:
    """GeoReport v2: 400 when jurisdiction_id is not provided (and several are served), 404 when not found."""
    server, _ = seeded
    for path in ("services.json", "services/CP-I.json", "requests.json", "requests/REP-2026-000001.json"):
        missing = await asyncio.to_thread(requests.get, server.url(path))
        assert missing.status_code == 400, path
        validate("errors", missing.json())
        assert missing.json()[0]["code"] == 400
        assert "jurisdiction_id" in missing.json()[0]["description"], path
        assert "sapezal, nova-xavantina" in missing.json()[0]["description"]
    unknown = await asyncio.to_thread(requests.get, server.url("services.xml"), params={"jurisdiction_id": "cuiaba"})
    assert unknown.status_code == 404
    assert xml_root(unknown.content, "errors", "error").findtext("error/code") == "404"
    english = await asyncio.to_thread(requests.get, server.url("requests.json"),
                                      headers={"Accept-Language": "en"})
    assert english.json()[0]["description"] == ("jurisdiction_id is required: this server serves several "
                                                "municipalities (sapezal, nova-xavantina).")


async def test_a_service_definition_asks_what_art_31_asks(seeded: tuple[Open311Server, dict[str, str]]) -> None:
    """CP Art. 31: the author's name, profession and address; how they learned of it; the sole-paragraph tie."""
    server, _ = seeded
    definition = await asyncio.to_thread(_client(server, "json").get_service_definition, "CP-I")
    validate("service_definition", definition)
    attributes = {attribute["code"]: attribute for attribute in definition["attributes"]}
    for code in ("author_name", "author_profession", "author_address", "learned_how", "relation", "occurred_on"):
        assert attributes[code]["required"] is True, code
    assert attributes["author_cpf"]["required"] is False
    assert [value["key"] for value in attributes["relation"]["values"]] == ["none", "former", "current"]
    assert {value["key"] for value in attributes["infraction"]["values"]} >= {"CP-I-1", "CP-I-9"}
    assert [attribute["order"] for attribute in definition["attributes"]] == list(range(1, 12))
    assert "Art. 31" in attributes["author_name"]["description"]
    as_xml = await asyncio.to_thread(_client(server, "xml").get_service_definition, "CP-I")
    xml_attributes = as_xml["attributes"]["attribute"]
    assert [a["code"] for a in xml_attributes] == [a["code"] for a in definition["attributes"]]
    raw = await asyncio.to_thread(requests.get, server.url("services/CP-I.xml"), params={"jurisdiction_id": NX})
    root = xml_root(raw.content, "service_definition")
    for attribute in root.iter("attribute"):
        assert {child.tag for child in attribute} <= ATTRIBUTE_ELEMENTS
    ride = await asyncio.to_thread(_client(server, "json", SAPEZAL).get_service_definition, "L1533-APP")
    assert [a["code"] for a in ride["attributes"]] == ["author_name", "vehicle", "reason", "occurred_on",
                                                         "evidence_note"]
    # a law of another municipality is no service here (CF Art. 30 I)
    for code, place in (("CP-I", SAPEZAL), ("L1533-APP", NX)):
        other = await asyncio.to_thread(requests.get, server.url(f"services/{code}.json"),
                                        params={"jurisdiction_id": place})
        assert other.status_code == 404 and other.json()[0]["code"] == 404, (code, place)


async def test_requests_list_both_cases_never_the_ombudsman_nor_the_author(
    seeded: tuple[Open311Server, dict[str, str]],
) -> None:
    server, protocols = seeded
    client = _client(server, "json")
    listed = await asyncio.to_thread(client.get_service_requests)
    validate("requests", listed)
    assert [item["service_request_id"] for item in listed] == [protocols["open311"], protocols["chat"]]
    posted, chat = listed
    assert posted["service_code"] == "CP-I" and chat["service_code"] == "CP-XI"
    assert posted["status"] == "open" and posted["status_notes"] == "Recebida; aguarda análise."
    assert posted["requested_datetime"] == "2026-03-02T11:00:00-04:00"
    # the deadline: BALCAO_CASE_TARGET_DAYS (10) calendar days, ending on a business day
    assert posted["expected_datetime"] == "2026-03-12T23:59:59-04:00"
    assert posted["lat"] == pytest.approx(-14.678912) and posted["media_url"] == "https://fotos.example.org/lixo.jpg"
    assert chat["media_url"] is None and posted["description"] is None
    by_id = await asyncio.to_thread(client.get_service_requests, service_request_id=protocols["ombudsman"])
    assert by_id == []
    by_id = await asyncio.to_thread(_client(server, "json", SAPEZAL).get_service_requests,
                                    service_request_id=protocols["ombudsman"])
    assert by_id == []  # the Ouvidoria's case is Sapezal's, and still no Open311 request
    as_xml = await asyncio.to_thread(_client(server, "xml").get_service_requests)
    assert [item["service_request_id"] for item in as_xml] == [protocols["open311"], protocols["chat"]]
    for fmt in ("json", "xml"):
        raw = await asyncio.to_thread(requests.get, server.url(f"requests.{fmt}"), params={"jurisdiction_id": NX})
        assert not [secret for secret in SECRETS if secret in raw.text], raw.text
        if fmt == "xml":
            xml_root(raw.content, "service_requests", "request", REQUEST_ELEMENTS)


async def test_each_jurisdiction_shows_only_its_own_cases(seeded: tuple[Open311Server, dict[str, str]]) -> None:
    """Sapezal lists its ride-hailing report only; Nova Xavantina's cases are not found under Sapezal, nor the
    other way round, by the list, by id or in the status updates."""
    server, protocols = seeded
    sapezal = _client(server, "json", SAPEZAL)
    listed = await asyncio.to_thread(sapezal.get_service_requests)
    validate("requests", listed)
    assert [(item["service_request_id"], item["service_code"], item["address"]) for item in listed] == [
        (protocols["ride"], "L1533-APP", "Rodoviária")]
    assert listed[0]["service_name"] == "Motorista de aplicativo"
    as_xml = _listed(await asyncio.to_thread(_client(server, "xml", SAPEZAL).get_service_requests))
    assert [item["service_request_id"] for item in as_xml] == [protocols["ride"]]
    one = await asyncio.to_thread(sapezal.get_service_request, protocols["ride"])
    assert one["service_request_id"] == protocols["ride"]
    by_ids = f"{protocols['chat']},{protocols['ride']}"
    assert [item["service_request_id"] for item in await asyncio.to_thread(
        sapezal.get_service_requests, service_request_id=by_ids)] == [protocols["ride"]]
    for protocol, place in ((protocols["chat"], SAPEZAL), (protocols["open311"], SAPEZAL), (protocols["ride"], NX)):
        elsewhere = await asyncio.to_thread(requests.get, server.url(f"requests/{protocol}.json"),
                                            params={"jurisdiction_id": place})
        assert elsewhere.status_code == 404, (protocol, place)
    updates = {place: await asyncio.to_thread(
        requests.get, server.url("servicerequestupdates.json"),
        params={"jurisdiction_id": place, "api_key": server.key}) for place in (SAPEZAL, NX)}
    assert [response.status_code for response in updates.values()] == [200, 200]
    assert updates[SAPEZAL].json() == [] and updates[NX].json() == []  # nothing happened yet after the filing


async def test_requests_filter_by_id_service_status_and_dates(seeded: tuple[Open311Server, dict[str, str]]) -> None:
    server, protocols = seeded
    client = _client(server, "json")

    async def ids(**query: str) -> list[str]:
        found = await asyncio.to_thread(client.get_service_requests, **query)
        return [item["service_request_id"] for item in found]

    both = f"{protocols['chat']},{protocols['open311'].lower()}"
    assert sorted(await ids(service_request_id=both)) == sorted([protocols["chat"], protocols["open311"]])
    assert await ids(service_code="CP-XI") == [protocols["chat"]]
    assert await ids(service_code="CP-I,L1533-APP") == [protocols["open311"]]
    assert await ids(status="closed") == []
    assert len(await ids(status="open,closed")) == 2
    assert await ids(start_date="2026-03-02T10:30:00-04:00", end_date="2026-03-03T00:00:00-04:00") == [
        protocols["open311"]]
    assert await ids(start_date="2025-01-01T00:00:00Z", end_date="2025-03-01T00:00:00Z") == []
    one = await asyncio.to_thread(client.get_service_request, protocols["chat"])
    assert one["service_request_id"] == protocols["chat"]
    one_xml = await asyncio.to_thread(_client(server, "xml").get_service_request, protocols["chat"])
    assert one_xml["service_request_id"] == protocols["chat"] and one_xml["status"] == "open"


async def test_the_place_is_published_only_rounded_by_default(settings: Settings, sessions: SessionFactory) -> None:
    """LEGAL-CHOICES item 32: by default (``BALCAO_OPEN311_PLACE=rounded``) no address is published and the
    coordinates are rounded to 0.01° (about 1 km), in the list and by id, in JSON and in XML; the case keeps the
    exact place."""
    rounded = settings
    with time_machine.travel(NOW, tick=False):
        async with open311_server(rounded, sessions) as server:
            posted = await asyncio.to_thread(requests.post, server.url("requests.json"),
                                             data=joao_report(server.key, jurisdiction_id=NX))
            assert posted.status_code == 201, posted.text
            protocol = posted.json()[0]["service_request_id"]
            listed = await asyncio.to_thread(_client(server, "json").get_service_requests)
            one = await asyncio.to_thread(_client(server, "json").get_service_request, protocol)
            as_xml = await asyncio.to_thread(requests.get, server.url(f"requests/{protocol}.xml"),
                                             params={"jurisdiction_id": NX})
    validate("requests", listed)
    for item in (*listed, *_listed(one)):
        assert item["address"] is None
        assert (item["lat"], item["long"]) == (pytest.approx(-14.68), pytest.approx(-52.35))
    assert "Rua 7 de Setembro" not in as_xml.text and "-14.678912" not in as_xml.text
    async with sessions() as session:
        case = (await session.exec(select(Case).where(Case.protocol == protocol))).one()
    assert (case.place_text, case.latitude) == ("Rua 7 de Setembro, esquina com Av. Brasil", pytest.approx(-14.678912))
