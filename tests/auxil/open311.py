"""Open311 in the tests: the server on 127.0.0.1 with a client system's key, João's report as the spec's form,
the published JSON schemas (tests/schemas/open311/) and the spec's XML element names."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import jsonschema
from aiohttp.test_utils import TestServer
from pydantic import SecretStr

from bot.web import build_web_app
from core.db import SessionFactory
from core.settings import Settings
from models.columns import utcnow
from models.open311.keys import issue_key

# georeport and requests honour HTTP(S)_PROXY; the server under test is on this machine
os.environ["NO_PROXY"] = ",".join(filter(None, (os.environ.get("NO_PROXY"), "127.0.0.1", "localhost")))

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas" / "open311"
STAFF_TOKEN = "staff-token-for-open311"

# GeoReport v2 (http://wiki.open311.org/GeoReport_v2): the elements each XML answer may hold.
SERVICE_ELEMENTS = {"service_code", "service_name", "description", "metadata", "type", "keywords", "group"}
ATTRIBUTE_ELEMENTS = {"variable", "code", "datatype", "required", "datatype_description", "order", "description",
                      "values"}
REQUEST_ELEMENTS = {"service_request_id", "status", "status_notes", "service_name", "service_code", "description",
                    "agency_responsible", "service_notice", "requested_datetime", "updated_datetime",
                    "expected_datetime", "address", "address_id", "zipcode", "lat", "long", "media_url"}
UPDATE_ELEMENTS = {"update_id", "service_request_id", "status", "updated_datetime", "description", "media_url"}


def validate(name: str, body: Any) -> None:
    """Check a JSON answer against the schema written from the spec (``requests``, ``services``…)."""
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(body, schema, format_checker=jsonschema.FormatChecker())


def xml_root(body: bytes, root: str, item: str | None = None, allowed: set[str] | None = None) -> ET.Element:
    """Parse an XML answer: UTF-8 declaration, the spec's root, its items and only the spec's child elements."""
    assert body.startswith(b'<?xml version="1.0" encoding="UTF-8"?>'), body[:60]
    element = ET.fromstring(body)
    assert element.tag == root, element.tag
    if item is not None:
        assert all(child.tag == item for child in element), [child.tag for child in element]
        if allowed is not None:
            for child in element:
                assert {grand.tag for grand in child} <= allowed, {grand.tag for grand in child} - allowed
    return element


@dataclass(frozen=True)
class Open311Server:
    """The running server: its Open311 root URL, the client's key, and the server itself."""

    root: str
    key: str
    server: TestServer

    def url(self, path: str) -> str:
        """An absolute URL under /open311/v2/."""
        return f"{self.root}/{path}"


@asynccontextmanager
async def open311_server(settings: Settings, sessions: SessionFactory) -> AsyncIterator[Open311Server]:
    """The aiohttp server on 127.0.0.1, a key for the client system "fixmystreet", and the staff API on."""
    async with sessions() as session:
        key = await issue_key(session=session, name="fixmystreet", now=utcnow(), actor="test")
    with_token = settings.model_copy(update={"staff_api_token": SecretStr(STAFF_TOKEN)})
    server = TestServer(build_web_app(with_token, sessions), host="127.0.0.1")
    await server.start_server()
    try:
        yield Open311Server(root=str(server.make_url("/open311/v2")), key=key, server=server)
    finally:
        await server.close()


def joao_report(key: str, **changes: str) -> dict[str, str]:
    """João's representação about rubbish in the street (CP Tabela I item 9), as the spec's POST form, in Nova
    Xavantina (where the Código de Posturas is in force)."""
    form = {
        "api_key": key,
        "jurisdiction_id": "nova-xavantina",
        "service_code": "CP-I",
        "lat": "-14.678912",
        "long": "-52.349876",
        "address_string": "Rua 7 de Setembro, esquina com Av. Brasil",
        "email": "joao@example.org",
        "first_name": "João",
        "last_name": "Pereira",
        "description": "Um caminhão despeja entulho e lixo na calçada toda sexta-feira.",
        "media_url": "https://fotos.example.org/lixo.jpg",
        "attribute[author_name]": "João Batista Pereira",
        "attribute[author_profession]": "Pedreiro",
        "attribute[author_address]": "Rua das Flores, 123, Centro",
        "attribute[author_cpf]": "529.982.247-25",
        "attribute[infraction]": "CP-I-9",
        "attribute[accused]": "Depósito Bom Preço",
        "attribute[occurred_on]": "2026-02-27",
        "attribute[learned_how]": "Vi pessoalmente",
        "attribute[relation]": "none",
    }
    form.update(changes)
    return {name: value for name, value in form.items() if value != ""}


def ride_report(key: str, **changes: str) -> dict[str, str]:
    """Maria's report of a ride-hailing driver picking up passengers on the street (Lei 1.533/2020), in Sapezal."""
    form = {
        "api_key": key,
        "jurisdiction_id": "sapezal",
        "service_code": "L1533-APP",
        "address_string": "Rodoviária",
        "account_id": "maria-77",
        "description": "Pegou passageiros na rodoviária sem o aplicativo.",
        "attribute[author_name]": "Maria Souza",
        "attribute[vehicle]": "ABC1D23",
        "attribute[reason]": "street",
        "attribute[occurred_on]": "2026-03-01",
    }
    form.update(changes)
    return {name: value for name, value in form.items() if value != ""}
