"""Open311 against a hostile client (issue 23 §5): the key before the body, bounded forms, a limit per key, control
characters that would break ``requests.xml``, the place published rounded by default, and exact service codes."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator
from typing import Any

import pytest
import requests
import time_machine
from sqlmodel import select

from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from handlers.web.open311.requests import MAX_FIELDS
from models.cases.filing import file_representation
from models.people import Person
from tests.auxil.case_people import NOW, Cast, make_cast, representation
from tests.auxil.open311 import Open311Server, joao_report, open311_server, validate, xml_root

AT = NOW + dt.timedelta(hours=1)
NX = "nova-xavantina"


@pytest.fixture
async def server(settings: Settings, sessions: SessionFactory) -> AsyncIterator[Open311Server]:
    async with sessions() as session:
        cast: Cast = await make_cast(session)
    assert cast.joao.id is not None
    hostile = settings.model_copy(update={"open311_posts_per_hour": 3, "cases_per_day": 50})
    with time_machine.travel(AT, tick=False):
        async with open311_server(hostile, sessions) as running:
            yield running


async def _post(server: Open311Server, fmt: str = "json", **kwargs: Any) -> requests.Response:
    return await asyncio.to_thread(requests.post, server.url(f"requests.{fmt}"), **kwargs)


def _error(response: requests.Response, status: int) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    validate("errors", body)
    assert body[0]["code"] == status
    return str(body[0]["description"])


def _multipart(fields: list[tuple[str, str]]) -> tuple[bytes, dict[str, str]]:
    boundary = "balcao-test-boundary"
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
             for name, value in fields]
    return ("".join(parts) + f"--{boundary}--\r\n").encode(), {
        "Content-Type": f"multipart/form-data; boundary={boundary}"}


async def test_a_multipart_post_of_6501_fields_without_a_key_is_refused_early(server: Open311Server) -> None:
    """The pentest's body (6,501 fields, no key): refused once the field bound is passed, 413 in the spec's format
    (today's main read every field into memory, then answered 403)."""
    body, headers = _multipart([(f"f{index}", "x" * 10) for index in range(6501)])
    assert "campos demais" in _error(await _post(server, data=body, headers=headers), 413)
    urlencoded = "&".join(f"f{index}=x" for index in range(MAX_FIELDS + 1))
    _error(await _post(server, data=urlencoded, headers={"Content-Type": "application/x-www-form-urlencoded"}), 413)


async def test_the_key_is_checked_before_the_body_is_read(server: Open311Server) -> None:
    """A wrong key in the query or the X-Api-Key header is refused before the body; in the body, ``api_key`` must
    come before any file. A right key outside the body is enough (today's main read it only from the form)."""
    form = joao_report(server.key)
    del form["api_key"]
    wrong = await asyncio.to_thread(requests.post, server.url("requests.json"), params={"api_key": "nope"},
                                    data=form)
    _error(wrong, 403)
    by_header = await _post(server, data=form, headers={"X-Api-Key": server.key})
    assert by_header.status_code == 201, by_header.text
    png = b"\x89PNG\r\n\x1a\n" + b"0" * 100
    files_first = await _post(server, files={"media": ("foto.png", png, "image/png"), **{
        name: (None, value) for name, value in form.items()}})
    assert "api_key" in _error(files_first, 403)


async def test_a_key_posts_at_most_its_hourly_allowance(server: Open311Server) -> None:
    """BALCAO_OPEN311_POSTS_PER_HOUR (3 here): a new account_id each time does not get round it; 429 in the spec's
    error format, in JSON and XML (today's main filed 40 in 0.7 s)."""
    for index in range(3):
        posted = await _post(server, data=joao_report(server.key, email="", account_id=f"conta-{index}"))
        assert posted.status_code == 201, posted.text
    assert "3" in _error(await _post(server, data=joao_report(server.key, email="", account_id="conta-9")), 429)
    as_xml = await _post(server, "xml", data=joao_report(server.key, email="", account_id="conta-10"))
    assert as_xml.status_code == 429
    assert xml_root(as_xml.content, "errors", "error").findtext("error/code") == "429"


async def test_control_characters_never_reach_requests_xml(settings: Settings, sessions: SessionFactory) -> None:
    """XML 1.0 has no C0 controls but tab, newline and carriage return: they are stripped where every typed text
    is cleaned, so one request cannot make GET requests.xml ill-formed for every client of the city."""
    exact = settings.model_copy(update={"open311_place": "exact"})
    with time_machine.travel(NOW, tick=False):
        async with sessions() as session:
            await make_cast(session)
        async with open311_server(exact, sessions) as server:
            posted = await _post(server, data=joao_report(server.key, address_string="Rua\x01 Goiás\x1b 250\x00"))
            assert posted.status_code == 201, posted.text
            listed = await asyncio.to_thread(requests.get, server.url("requests.xml"), params={"jurisdiction_id": NX})
    root = xml_root(listed.content, "service_requests", "request")  # well-formed
    assert root.findtext("request/address") == "Rua Goiás 250"


async def test_the_place_is_published_rounded_by_default(server: Open311Server) -> None:
    """LEGAL-CHOICES item 32, LGPD Art. 6 III: until a legal office signs off on ``exact``, GET requests publish no
    address and coordinates to 0.01° (today's main published "Rua 7 de Setembro…" and -14.678912)."""
    assert (await _post(server, data=joao_report(server.key))).status_code == 201
    listed = await asyncio.to_thread(requests.get, server.url("requests.json"), params={"jurisdiction_id": NX})
    [item] = listed.json()
    assert item["address"] is None and item["lat"] == pytest.approx(-14.68) and item["long"] == pytest.approx(-52.35)


@pytest.mark.parametrize("pattern", ["%", "CP-X%", "_P-XI", "CP%I"])
async def test_service_code_filters_are_exact_codes_not_patterns(
    server: Open311Server, settings: Settings, sessions: SessionFactory, pattern: str
) -> None:
    """GeoReport v2 ``service_code`` names services: ``%`` or ``_`` match nothing (today's main listed every case
    filed in the chat, whose service is found from its catalogue row with LIKE)."""
    async with sessions() as session:
        joao = (await session.exec(select(Person).where(Person.telegram_user_id == 7001))).one()  # make_cast
        await file_representation(session=session, person_id=joao.id, form=representation(infraction_code="CP-XI-1"),
                                  now=AT, cities=cities_of(settings))
    params = {"jurisdiction_id": NX}
    assert len((await asyncio.to_thread(requests.get, server.url("requests.json"), params=params)).json()) == 1
    filtered = await asyncio.to_thread(requests.get, server.url("requests.json"),
                                       params={**params, "service_code": pattern})
    assert filtered.status_code == 200 and filtered.json() == []
    exact = await asyncio.to_thread(requests.get, server.url("requests.json"),
                                    params={**params, "service_code": "CP-XI"})
    assert len(exact.json()) == 1


async def test_a_filter_of_650_service_codes_is_a_400_not_a_500(server: Open311Server) -> None:
    """Without a key, ``service_code`` with 650 codes (5.7 KB of URL) made one condition each and SQLite refused the
    query: a 500. Repeated codes count once; more than every service of a city is a 400 in the spec's format."""
    many = ",".join(f"CP-I-{n}" for n in range(650))
    refused = await asyncio.to_thread(requests.get, server.url("requests.json"),
                                      params={"jurisdiction_id": NX, "service_code": many})
    assert "service_code" in _error(refused, 400)
    repeated = await asyncio.to_thread(requests.get, server.url("requests.json"),
                                       params={"jurisdiction_id": NX, "service_code": ",".join(["CP-XI"] * 650)})
    assert repeated.status_code == 200 and repeated.json() == []
