"""FixMyStreet delivers to Balcão: every report its Open311 client sends is filed, and it follows them.

When Balcão refuses a report, FixMyStreet keeps it unsent and posts it again every 30 minutes, forever, and the
citizen is never told; so what GeoReport v2 and Balcão's own service definitions make optional is accepted. The
client is :mod:`tests.auxil.fixmystreet` (what ``perllib/Open311.pm`` sends), against the real aiohttp app.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator

import pytest
import requests
import time_machine
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.db import SessionFactory
from core.settings import Settings
from models.cases.tables import Case
from tests.auxil.case_people import NOW, Cast, make_cast
from tests.auxil.fixmystreet import FixMyStreet, Problem, User
from tests.auxil.open311 import STAFF_TOKEN, Open311Server, open311_server

AT = NOW + dt.timedelta(hours=1)
NX = "nova-xavantina"
# the extra fields of the CP-I service definition, as a FixMyStreet user filled them in
EXTRA = (
    ("fms_extra_author_name", "João Batista Pereira"),
    ("author_profession", "Pedreiro"),
    ("author_address", "Rua das Flores, 123, Centro"),
    ("occurred_on", "2026-02-27"),
    ("learned_how", "Vi pessoalmente"),
    ("relation", "none"),
)
JOAO = User(name="João Pereira", email="joao@example.org")


@pytest.fixture
async def cast(session: AsyncSession) -> Cast:
    return await make_cast(session)


@pytest.fixture
async def server(settings: Settings, sessions: SessionFactory, cast: Cast) -> AsyncIterator[Open311Server]:
    with time_machine.travel(AT, tick=False):
        async with open311_server(settings, sessions) as running:
            yield running


def _problem(**changes: object) -> Problem:
    values: dict[str, object] = {"title": "Entulho na calçada",
                                 "detail": "Um caminhão despeja entulho e lixo na calçada toda sexta-feira.",
                                 "latitude": -14.678912, "longitude": -52.349876, "user": JOAO, "extra": EXTRA}
    values.update(changes)
    return Problem(**values)  # type: ignore[arg-type]


def _staff(cast: Cast) -> dict[str, str]:
    return {"Authorization": f"Bearer {STAFF_TOKEN}", "X-Balcao-Staff": str(cast.clara.telegram_user_id)}


async def test_every_report_fixmystreet_sends_is_filed_and_followed(
    server: Open311Server, session: AsyncSession, cast: Cast
) -> None:
    fms = FixMyStreet(endpoint=server.url(""), jurisdiction=NX, api_key=server.key)
    brief = FixMyStreet(endpoint=server.url(""), jurisdiction=NX, api_key=server.key, extended_description=False)
    def send(client: FixMyStreet, problem: Problem, n: int, **extra: str) -> str | int:
        return client.send_service_request(problem, url=f"https://fms.example.org/report/{n}", service_code="CP-I",
                                           **extra)

    sent = {
        # CP Art. 31 asks for evidence or where it is: none sent, the clerk will ask for it
        "no evidence": await asyncio.to_thread(send, fms, _problem(), 1),
        "long": await asyncio.to_thread(send, fms, _problem(detail="Entulho e lixo na calçada. " * 134), 2,
                                        image_url="https://fms.example.org/photo/2.jpeg"),
        # signed up by phone: no email, no account_id, no device_id
        "by phone": await asyncio.to_thread(send, fms, _problem(user=User(name="Maria Souza", phone="+5566999990000")),
                                            3),
        "no description": await asyncio.to_thread(send, brief, _problem(detail=""), 4),
    }
    assert fms.failures == [] and brief.failures == []
    assert all(isinstance(protocol, str) and protocol.startswith("REP-2026-") for protocol in sent.values()), sent
    protocols = [str(protocol) for protocol in sent.values()]
    cases = {case.protocol: case for case in (await session.exec(
        select(Case).where(col(Case.protocol).in_(protocols)))).all()}
    long_description = cases[str(sent["long"])].summary
    assert 3500 < len(long_description) <= 4000 and long_description.endswith("Submitted via FixMyStreet")
    assert cases[str(sent["no description"])].summary == "Da higiene das vias públicas"  # the service's name
    base = server.url("").removesuffix("open311/v2/")
    shown = await asyncio.to_thread(requests.get, base + f"api/cases/{sent['no evidence']}", headers=_staff(cast))
    assert shown.json()["evidence_missing"] is True  # the clerk sees the evidence is missing
    shown = await asyncio.to_thread(requests.get, base + f"api/cases/{sent['long']}", headers=_staff(cast))
    assert shown.json()["evidence_missing"] is False  # the photo's URL says where the evidence is

    fetched = await asyncio.to_thread(fms.get_service_requests, protocols)
    assert sorted(item["service_request_id"] for item in fetched["request"]) == sorted(protocols)
    assert {item["status"] for item in fetched["request"]} == {"open"}

    for protocol, decision in ((sent["no evidence"], {"outcome": "archive", "reason": "Sem provas do fato."}),
                               (sent["long"], {"outcome": "notify"})):
        decided = await asyncio.to_thread(requests.post, base + f"api/cases/{protocol}/decision", json=decision,
                                          headers=_staff(cast))
        assert decided.status_code == 200, decided.text
    assigned = await asyncio.to_thread(requests.post, base + f"api/cases/{sent['by phone']}/assign", json={},
                                       headers=_staff(cast))
    assert assigned.status_code == 200, assigned.text
    updates = await asyncio.to_thread(fms.get_service_request_updates)
    statuses = {update["service_request_id"]: update["status"] for update in updates}
    # mySociety's extended statuses: archived is "no further action", never "Fixed"
    assert statuses == {sent["no evidence"]: "NO_FURTHER_ACTION", sent["long"]: "CLOSED",
                        sent["by phone"]: "IN_PROGRESS"}
