"""POST requests takes what GeoReport v2 and Balcão's service definitions make optional, and a refusal names its
field: a client system such as FixMyStreet re-posts a refused report forever, so only what is really wrong is
refused (400), with the field it is about."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

import pytest
import requests
import time_machine
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.db import SessionFactory
from core.settings import Settings
from models.cases.filing import Author, Place, RepresentationForm, check_representation
from models.cases.tables import Case, Relation
from models.invalid_input import InvalidInput
from tests.auxil.case_people import NOW, Cast, make_cast
from tests.auxil.open311 import Open311Server, joao_report, open311_server, ride_report, validate

AT = NOW + dt.timedelta(hours=1)
NO_ONE = {"email": "", "account_id": "", "device_id": "", "phone": ""}


@pytest.fixture
async def cast(session: AsyncSession) -> Cast:
    return await make_cast(session)


@pytest.fixture
async def server(settings: Settings, sessions: SessionFactory, cast: Cast) -> AsyncIterator[Open311Server]:
    with time_machine.travel(AT, tick=False):
        async with open311_server(settings.model_copy(update={"cases_per_day": 2}), sessions) as running:
            yield running


async def _post(server: Open311Server, fmt: str = "json", **kwargs: Any) -> requests.Response:
    return await asyncio.to_thread(requests.post, server.url(f"requests.{fmt}"), **kwargs)


def _error(response: requests.Response) -> str:
    assert response.status_code == 400, response.text
    body = response.json()
    validate("errors", body)
    return str(body[0]["description"])


async def test_a_report_without_evidence_is_filed_for_the_clerk_to_ask(
    server: Open311Server, session: AsyncSession
) -> None:
    """The definition says evidence_note is not required: it is not (LEGAL-CHOICES, Open311 without evidence)."""
    filed = await _post(server, data=joao_report(server.key, media_url=""))
    assert filed.status_code == 201, filed.text
    assert (await session.exec(select(Case.evidence_note))).all() == [None]
    definition = (await asyncio.to_thread(requests.get, server.url("services/CP-I.json"),
                                          params={"jurisdiction_id": "nova-xavantina"})).json()
    evidence = next(item for item in definition["attributes"] if item["code"] == "evidence_note")
    assert evidence["required"] is False and "obrigatório" not in evidence["description"]


def test_the_chat_still_asks_for_evidence_before_filing() -> None:
    """CP Art. 31: the chat can ask at once, so it files nothing without evidence or where it is."""
    form = RepresentationForm(
        author=Author(name="João Pereira", profession="Pedreiro", address="Rua das Flores, 123"),
        facts="Entulho na calçada toda sexta-feira.", occurred_on=dt.date(2026, 2, 27),
        place=Place(text="Rua 7 de Setembro"), learned_how="Vi pessoalmente", relation=Relation.NONE,
    )
    with pytest.raises(InvalidInput, match="evidence"):
        check_representation(form)
    check_representation(form, evidence_later=True)  # Open311: filed, the clerk asks


async def test_a_description_of_4000_characters_is_taken(server: Open311Server, session: AsyncSession) -> None:
    text = ("Um caminhão despeja entulho na calçada. " * 100)[:4000]
    assert (await _post(server, data=joao_report(server.key, description=text))).status_code == 201
    assert len((await session.exec(select(Case.summary))).one()) == len(text.strip())
    refused = _error(await _post(server, data=joao_report(server.key, description=text + "x" * 10)))
    assert refused.startswith("description: ") and "4000" in refused


async def test_without_any_identity_the_clients_key_stands_for_the_person(server: Open311Server) -> None:
    """BALCAO_CASES_PER_DAY (2 here): from the client system's key when it says nothing of who the person is."""
    for _ in range(2):
        assert (await _post(server, data=joao_report(server.key, **NO_ONE))).status_code == 201
    assert "Você já abriu 2 casos hoje" in _error(await _post(server, data=joao_report(server.key, **NO_ONE)))
    assert (await _post(server, data=joao_report(server.key, email="ana@example.org"))).status_code == 201


async def test_a_phone_says_who_the_person_is(server: Open311Server) -> None:
    """FixMyStreet sends phone, not email, for a user who signed up by phone."""
    by_phone = {**NO_ONE, "phone": "+55 66 99999-0000"}
    for _ in range(2):
        assert (await _post(server, data=joao_report(server.key, **by_phone))).status_code == 201
    assert "Você já abriu 2 casos hoje" in _error(await _post(server, data=joao_report(server.key, **by_phone)))
    other = {**NO_ONE, "phone": "+55 66 98888-1111"}
    assert (await _post(server, data=joao_report(server.key, **other))).status_code == 201


async def test_a_request_without_description_is_filed_under_the_services_name(
    server: Open311Server, session: AsyncSession
) -> None:
    assert (await _post(server, data=joao_report(server.key, description=""))).status_code == 201
    assert (await session.exec(select(Case.summary))).all() == ["Da higiene das vias públicas"]
    ride = ride_report(server.key, description="")
    assert (await _post(server, data=ride)).status_code == 201
    assert "Motorista de aplicativo" in (await session.exec(select(Case.summary))).all()


@pytest.mark.parametrize(
    ("form", "named"),
    [
        ({"attribute[vehicle]": "xy"}, "attribute[vehicle]: "),
        ({"attribute[author_name]": "Maria"}, "attribute[author_name]: "),
        ({"attribute[occurred_on]": "2030-01-01"}, "attribute[occurred_on]: "),
        ({"description": "curto"}, "description: "),
    ],
)
async def test_a_refusal_names_its_field(server: Open311Server, form: dict[str, str], named: str) -> None:
    assert _error(await _post(server, data=ride_report(server.key, **form))).startswith(named)


async def test_the_api_key_may_come_in_the_query_string_of_a_post(server: Open311Server) -> None:
    form = joao_report(server.key, api_key="")
    posted = await asyncio.to_thread(requests.post, server.url("requests.json"), params={"api_key": server.key},
                                     data=form)
    assert posted.status_code == 201, posted.text


async def test_a_body_that_is_not_utf8_is_refused(server: Open311Server, session: AsyncSession) -> None:
    form = joao_report(server.key, description="Entulho na calçada toda sexta-feira.")
    body = "&".join(f"{quote(name)}={quote(value, encoding='latin-1')}" for name, value in form.items())
    refused = await _post(server, data=body.encode("ascii"),
                          headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert "UTF-8" in _error(refused)
    assert (await session.exec(select(Case))).all() == []
    multipart = await _post(server, data={"api_key": server.key},
                            files={"description": (None, "calçada".encode("latin-1"))})
    assert "UTF-8" in _error(multipart)


async def test_address_id_alone_is_refused_as_not_supported(server: Open311Server) -> None:
    form = joao_report(server.key, lat="", long="", address_string="", address_id="12345")
    assert "address_id" in _error(await _post(server, data=form))
