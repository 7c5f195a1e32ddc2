"""Open311 GeoReport v2 read by a real client no one here wrote (``georeport`` from PyPI), in JSON and in XML,
against the server on 127.0.0.1: discovery, services, a service definition, requests and one request. JSON answers
are validated against the schemas written from the spec, XML answers parsed and checked for the spec's element
names. Nothing published names the author or repeats their words (LGPD; Lei 13.460/2017 Art. 10 §7)."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator
from typing import Any

import pytest
import requests
import time_machine
from georeport import GeoReport
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db import SessionFactory
from bot.settings import Settings
from models.cases.filing import file_ombudsman_case, file_representation
from tests.auxil.case_people import NOW, Cast, make_cast, ombudsman, representation
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


@pytest.fixture
async def seeded(settings: Settings, sessions: SessionFactory, session: AsyncSession) -> AsyncIterator[
        tuple[Open311Server, dict[str, str]]]:
    """João filed one representação in the chat and one through Open311; he also wrote to the Ouvidoria."""
    cast: Cast = await make_cast(session)
    with time_machine.travel(NOW, tick=False):
        chat = await file_representation(session=session, person_id=cast.joao.id,
                                         form=representation(infraction_code="CP-XI-1"), now=NOW, settings=settings)
        ouv = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                        settings=settings)
    with time_machine.travel(NOW + dt.timedelta(hours=1), tick=False):
        async with open311_server(settings, sessions) as server:
            posted = await asyncio.to_thread(requests.post, server.url("requests.json"), data=joao_report(server.key))
            assert posted.status_code == 201, posted.text
            yield server, {"chat": chat.protocol, "open311": posted.json()[0]["service_request_id"],
                           "ombudsman": ouv.protocol}


def _client(server: Open311Server, fmt: str) -> GeoReport:
    return GeoReport(server.root, output_format=fmt)


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


async def test_services_one_per_code_table_plus_the_ride_hailing_report(
    seeded: tuple[Open311Server, dict[str, str]],
) -> None:
    server, _ = seeded
    as_json: list[dict[str, Any]] = await asyncio.to_thread(_client(server, "json").get_service_list)
    validate("services", as_json)
    codes = [service["service_code"] for service in as_json]
    # Código de Posturas Tabelas I–XXVI, a breach named by no table, and Lei 1.533/2020's report.
    assert codes[:2] == ["CP-I", "CP-II"] and codes[-3:] == ["CP-XXVI", "CP", "L1533-APP"] and len(codes) == 28
    first = as_json[0]
    assert first["service_name"] == "Da higiene das vias públicas"
    assert first["group"] == "Código de Posturas, Título IV" and first["metadata"] is True
    assert "lixo" in first["keywords"]
    as_xml: list[dict[str, Any]] = await asyncio.to_thread(_client(server, "xml").get_service_list)
    assert [service["service_code"] for service in as_xml] == codes
    assert as_xml[0]["metadata"] == "true" and as_xml[0]["service_name"] == first["service_name"]
    raw = await asyncio.to_thread(requests.get, server.url("services.xml"))
    xml_root(raw.content, "services", "service", SERVICE_ELEMENTS)


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
    raw = await asyncio.to_thread(requests.get, server.url("services/CP-I.xml"))
    root = xml_root(raw.content, "service_definition")
    for attribute in root.iter("attribute"):
        assert {child.tag for child in attribute} <= ATTRIBUTE_ELEMENTS
    ride = await asyncio.to_thread(_client(server, "json").get_service_definition, "L1533-APP")
    assert [a["code"] for a in ride["attributes"]] == ["author_name", "vehicle", "reason", "occurred_on",
                                                         "evidence_note"]


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
    as_xml = await asyncio.to_thread(_client(server, "xml").get_service_requests)
    assert [item["service_request_id"] for item in as_xml] == [protocols["open311"], protocols["chat"]]
    for fmt in ("json", "xml"):
        raw = await asyncio.to_thread(requests.get, server.url(f"requests.{fmt}"))
        assert not [secret for secret in SECRETS if secret in raw.text], raw.text
        if fmt == "xml":
            xml_root(raw.content, "service_requests", "request", REQUEST_ELEMENTS)


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
