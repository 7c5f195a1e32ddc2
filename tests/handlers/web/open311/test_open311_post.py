"""POST requests per the spec's form encoding files the chat's case (same checks, limits and files), which lands
in the staff queue like any other; its status changes show in GET requests and in servicerequestupdates. Every
error answers as the spec says: 403 for the key, 404 for an unknown id or service, 400 otherwise, never a 500.
The deployment serves Sapezal and Nova Xavantina: a request names its jurisdiction, offers only that municipality's
services and files the case under it, in that municipality's staff queue."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import requests
import time_machine
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.cases.tables import Case, CaseAuthor
from models.columns import utcnow
from models.open311.keys import issue_key, revoke_key
from models.outbox import OutboxMessage
from models.people import Role, add_staff
from tests.auxil.case_files import png
from tests.auxil.case_people import NOW, Cast, make_cast
from tests.auxil.open311 import (
    STAFF_TOKEN,
    UPDATE_ELEMENTS,
    Open311Server,
    joao_report,
    open311_server,
    ride_report,
    validate,
    xml_root,
)

AT = NOW + dt.timedelta(hours=1)
NX, SAPEZAL = "nova-xavantina", "sapezal"


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


async def _get(server: Open311Server, path: str, **params: str) -> requests.Response:
    """A GET in Nova Xavantina unless ``jurisdiction_id`` says otherwise (``""``: none sent)."""
    params = {"jurisdiction_id": NX, **params}
    return await asyncio.to_thread(requests.get, server.url(path),
                                   params={name: value for name, value in params.items() if value})


def _staff(cast: Cast) -> dict[str, str]:
    return {"Authorization": f"Bearer {STAFF_TOKEN}", "X-Balcao-Staff": str(cast.clara.telegram_user_id)}


def _error(response: requests.Response, status: int) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    validate("errors", body)
    assert body[0]["code"] == status
    return str(body[0]["description"])


async def test_a_posted_report_is_the_chats_case_in_the_staff_queue_and_its_decision_shows(
    server: Open311Server, session: AsyncSession, cast: Cast
) -> None:
    response = await _post(server, data=joao_report(server.key, account_id="joao-77"))
    assert response.status_code == 201, response.text
    body = response.json()
    validate("post_response", body)
    protocol = body[0]["service_request_id"]
    assert protocol == "REP-2026-000001"
    assert body[0]["account_id"] is None and "joao-77" not in response.text  # who the person is: never in an answer
    assert body[0]["service_notice"] == ("Recebida com o protocolo REP-2026-000001. A Prefeitura responde até "
                                         "quinta-feira, 12 de março de 2026.")
    # the author is kept as the chat keeps them (CP Art. 31), apart from the case and without a chat person
    author = (await session.exec(select(CaseAuthor))).one()
    assert (author.person_id, author.name, author.profession, author.cpf) == (
        None, "João Batista Pereira", "Pedreiro", "52998224725")
    # the clerks' queue has it, and Clara is told, as for a case filed in the chat
    base = server.url("").removesuffix("open311/v2/")
    queue = await asyncio.to_thread(requests.get, base + "api/cases", headers=_staff(cast))
    assert [case["protocol"] for case in queue.json()["cases"]] == [protocol]
    told = (await session.exec(select(OutboxMessage).where(OutboxMessage.kind == "cases.staff"))).all()
    assert [message.person_id for message in told] == [cast.clara.id]
    decided = await asyncio.to_thread(requests.post, base + f"api/cases/{protocol}/decision",
                                      json={"outcome": "notify"}, headers=_staff(cast))
    assert decided.status_code == 200, decided.text
    one = (await _get(server, f"requests/{protocol}.json")).json()
    validate("requests", one)
    assert one[0]["status"] == "closed"
    assert one[0]["status_notes"] == "Verificada: o responsável será notificado (Código de Posturas, Art. 32)."
    assert one[0]["updated_datetime"] == "2026-03-02T11:00:00-04:00"
    assert (await _get(server, "requests.json", status="closed")).json()[0]["service_request_id"] == protocol
    updates = (await _get(server, "servicerequestupdates.json", api_key=server.key)).json()
    validate("updates", updates)
    # mySociety's extended status: a notificação preliminar is the city hall acting, not the problem fixed
    assert [(u["service_request_id"], u["status"]) for u in updates] == [(protocol, "CLOSED")]
    as_xml = await _get(server, "servicerequestupdates.xml", api_key=server.key)
    root = xml_root(as_xml.content, "service_request_updates", "request_update", UPDATE_ELEMENTS)
    assert root.findtext("request_update/status") == "CLOSED"
    assert (await _get(server, "servicerequestupdates.json")).status_code == 403


async def test_staff_cannot_ask_an_open311_author_for_more(server: Open311Server, cast: Cast) -> None:
    """D9492 Art. 18's 20 days would run out unseen: the author is not in the chat."""
    protocol = (await _post(server, data=joao_report(server.key))).json()[0]["service_request_id"]
    base = server.url("").removesuffix("open311/v2/")
    asked = await asyncio.to_thread(requests.post, base + f"api/cases/{protocol}/complement",
                                    json={"question": "Qual é o número da casa?"}, headers=_staff(cast))
    assert asked.status_code == 422, asked.text
    assert "Open311" in asked.json()["message"]
    one = (await _get(server, f"requests/{protocol}.json")).json()[0]
    assert one["status"] == "open" and one["status_notes"] == "Recebida; aguarda análise."


async def test_an_uploaded_photo_is_checked_and_kept_like_a_chat_file(
    server: Open311Server, settings: Settings, cast: Cast
) -> None:
    form = joao_report(server.key, media_url="")
    refused = await _post(server, data=form, files={"media": ("foto.png", b"MZ not a photo", "image/png")})
    assert "Só posso aceitar fotos (JPEG ou PNG) e documentos em PDF" in _error(refused, 400)
    kept = await _post(server, "xml", data=form, files={"media": ("foto.png", png(), "image/png")})
    assert kept.status_code == 201, kept.text
    protocol = xml_root(kept.content, "service_requests", "request").findtext("request/service_request_id")
    base = server.url("").removesuffix("open311/v2/")
    case = (await asyncio.to_thread(requests.get, base + f"api/cases/{protocol}", headers=_staff(cast))).json()
    assert [file["mime_type"] for file in case["attachments"]] == ["image/png"]
    big = b"\x89PNG\r\n\x1a\n" + b"0" * (settings.case_attachment_max_mb * 1024 * 1024)
    too_big = await _post(server, data=form, files={"media": ("grande.png", big, "image/png")})
    assert "o limite é 10 MB por arquivo" in _error(too_big, 400)


async def test_the_key_is_required_and_checked(server: Open311Server, sessions: SessionFactory) -> None:
    form = joao_report(server.key)
    assert "api_key" in _error(await _post(server, data={**form, "api_key": ""}), 403)
    _error(await _post(server, data={**form, "api_key": server.key + "x"}), 403)
    as_xml = await _post(server, "xml", data={**form, "api_key": "nope"})
    assert as_xml.status_code == 403
    assert xml_root(as_xml.content, "errors", "error").findtext("error/code") == "403"
    async with sessions() as session:
        await revoke_key(session=session, name="fixmystreet", now=utcnow(), actor="test")
    _error(await _post(server, data=form), 403)


async def test_unknown_ids_services_and_jurisdictions_are_404(server: Open311Server) -> None:
    _error(await _post(server, data=joao_report(server.key, service_code="CP-XXX")), 404)
    _error(await _get(server, "services/NOPE.json"), 404)
    _error(await _get(server, "requests/REP-2026-999999.json"), 404)
    _error(await _get(server, "requests/nonsense.json"), 404)
    _error(await _get(server, "services.json", jurisdiction_id="curitiba-pr"), 404)
    assert (await _get(server, "services.json", jurisdiction_id="sapezal")).status_code == 200
    assert (await _get(server, "services.json", jurisdiction_id="Sapezal-MT")).status_code == 200
    assert (await _get(server, "services.json", jurisdiction_id="nova-xavantina-mt")).status_code == 200
    _error(await _get(server, "no-such-thing.json"), 404)
    assert xml_root((await _get(server, "requests.csv")).content, "errors", "error") is not None


async def test_an_ombudsman_case_is_not_an_open311_request(
    server: Open311Server, session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    from models.cases.filing import file_ombudsman_case
    from tests.auxil.case_people import ombudsman

    ouv = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=AT,
                                    city=cities_of(settings).default)
    _error(await _get(server, f"requests/{ouv.protocol}.json"), 404)
    assert (await _get(server, "requests.json", service_request_id=ouv.protocol)).json() == []


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"attribute[author_profession]": ""}, "attribute[author_profession] é obrigatório."),
        ({"service_code": ""}, "service_code é obrigatório."),
        ({"lat": "", "long": "", "address_string": ""}, "Diga onde: envie lat e long, ou address_string."),
        ({"lat": "-100"}, "lat e long devem ser números em graus (WGS84)."),
        ({"attribute[relation]": "cousin"}, "attribute[relation] deve ser uma das chaves"),
        ({"attribute[infraction]": "CP-XI-1"}, "attribute[infraction] deve ser uma das chaves"),
        ({"attribute[occurred_on]": "ontem"}, "As datas devem ser W3C"),
        ({"attribute[occurred_on]": "2026-04-01"}, "Essa data ainda não chegou"),
        ({"attribute[author_cpf]": "111.111.111-12"}, "Este CPF não é válido"),
        ({"media_url": "javascript:alert(1)"}, "media_url deve ser um endereço http ou https"),
        # CP Art. 31 sole paragraph: a former employee may not report facts from before they left
        ({"attribute[relation]": "former", "attribute[relation_ended_on]": "2026-02-28"},
         "Art. 31, parágrafo único"),
    ],
)
async def test_a_bad_post_is_400_with_the_chats_reason(
    server: Open311Server, changes: dict[str, str], expected: str
) -> None:
    assert expected in _error(await _post(server, data=joao_report(server.key, **changes)), 400)


async def test_the_daily_limit_counts_each_person_of_the_client(server: Open311Server) -> None:
    """BALCAO_CASES_PER_DAY (2 here) per person, as in the chat: the client's email says who the person is."""
    for _ in range(2):
        assert (await _post(server, data=joao_report(server.key))).status_code == 201
    assert "Você já abriu 2 casos hoje" in _error(await _post(server, data=joao_report(server.key)), 400)
    other = joao_report(server.key, email="", account_id="maria-77")
    assert (await _post(server, data=other)).status_code == 201


async def test_malformed_requests_are_400(server: Open311Server) -> None:
    _error(await _post(server, data="{}", headers={"Content-Type": "application/json"}), 400)
    broken = b"--xx\r\nContent-Disposition: form-data; name=\"api_key\"\r\n\r\n" + server.key.encode()
    _error(await _post(server, data=broken, headers={"Content-Type": "multipart/form-data; boundary=xx"}), 400)
    _error(await _get(server, "requests.json", start_date="2026-01-01T00:00:00Z", end_date="2026-06-01T00:00:00Z"),
           400)
    _error(await _get(server, "requests.json", start_date="2026-01-01"), 400)
    _error(await _get(server, "requests.json", status="pending"), 400)
    _error(await _get(server, "requests.json", service_request_id="REP-2026-1,DROP TABLE"), 400)


async def test_first_and_last_name_stand_for_the_author_name(server: Open311Server, session: AsyncSession) -> None:
    """FixMyStreet sends the reporter's name as first_name and last_name (perllib/Open311.pm)."""
    form = joao_report(server.key, **{"attribute[author_name]": "", "first_name": "Maria", "last_name": "Souza"})
    assert (await _post(server, data=form)).status_code == 201
    assert (await session.exec(select(CaseAuthor.name))).all() == ["Maria Souza"]
    alone = joao_report(server.key, **{"attribute[author_name]": "", "first_name": "Maria", "last_name": "",
                                       "email": "m@example.org"})
    assert "nome completo" in _error(await _post(server, data=alone), 400)


async def test_a_second_system_needs_its_own_key(server: Open311Server, sessions: SessionFactory) -> None:
    async with sessions() as session:
        other = await issue_key(session=session, name="cidade-app", now=utcnow(), actor="test")
    assert (await _post(server, data=joao_report(other))).status_code == 201


async def test_the_receipt_is_the_chats_pdf_for_the_filing_system_only(
    server: Open311Server, sessions: SessionFactory
) -> None:
    protocol = (await _post(server, data=joao_report(server.key))).json()[0]["service_request_id"]
    pdf = await _get(server, f"requests/{protocol}/receipt.pdf", api_key=server.key)
    assert pdf.status_code == 200 and pdf.headers["Content-Type"] == "application/pdf"
    assert pdf.content.startswith(b"%PDF-") and pdf.headers["Cache-Control"] == "private, no-store"
    async with sessions() as session:
        other = await issue_key(session=session, name="cidade-app", now=utcnow(), actor="test")
    not_theirs = await _get(server, f"requests/{protocol}/receipt.pdf", api_key=other)
    assert not_theirs.status_code == 404  # another system's case: as if it did not exist (errors in XML)
    assert xml_root(not_theirs.content, "errors", "error").findtext("error/code") == "404"
    assert (await _get(server, f"requests/{protocol}/receipt.pdf")).status_code == 403


async def test_posts_at_the_same_instant_get_distinct_protocols(server: Open311Server) -> None:
    """Three people of the same client post at once: three cases, numbered without a gap or a twin."""
    forms = [joao_report(server.key, email="", account_id=f"pessoa-{n}") for n in range(3)]
    answers = await asyncio.gather(*(_post(server, data=form) for form in forms))
    assert [answer.status_code for answer in answers] == [201, 201, 201], [a.text for a in answers]
    assert sorted(answer.json()[0]["service_request_id"] for answer in answers) == [
        "REP-2026-000001", "REP-2026-000002", "REP-2026-000003"]


async def test_the_access_log_never_holds_the_key(
    settings: Settings, sessions: SessionFactory, cast: Cast, caplog: pytest.LogCaptureFixture
) -> None:
    """servicerequestupdates carries api_key in the query (as FixMyStreet sends it): the log has the path only."""
    from aiohttp.test_utils import TestServer

    from bot.web import PathOnlyAccessLogger, build_web_app

    caplog.set_level(logging.INFO, logger="aiohttp.access")
    async with sessions() as session:
        key = await issue_key(session=session, name="fixmystreet", now=utcnow(), actor="test")
    server = TestServer(build_web_app(settings, sessions), host="127.0.0.1")
    await server.start_server(access_log_class=PathOnlyAccessLogger)
    try:
        url = str(server.make_url("/open311/v2/servicerequestupdates.xml"))
        answer = await asyncio.to_thread(requests.get, url, params={"api_key": key, "jurisdiction_id": SAPEZAL})
        assert answer.status_code == 200
    finally:
        await server.close()
    assert '"GET /open311/v2/servicerequestupdates.xml" 200' in caplog.text
    assert key not in caplog.text


async def test_an_internal_failure_is_a_500_in_the_specs_shape_with_a_logged_reference(
    settings: Settings, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A database that does not answer (a garbage file): the client gets the spec's error with a reference."""
    from aiohttp.test_utils import TestServer

    from bot.web import build_web_app
    from core.db import create_engine, session_factory

    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a database " * 100)
    engine = create_engine(f"sqlite+aiosqlite:///{garbage}")
    server = TestServer(build_web_app(settings, session_factory(engine)), host="127.0.0.1")
    await server.start_server()
    caplog.set_level(logging.ERROR, logger="balcao.open311")
    try:
        url = str(server.make_url("/open311/v2/requests.json"))
        description = _error(await asyncio.to_thread(requests.get, url, params={"jurisdiction_id": NX}), 500)
    finally:
        await server.close()
        await engine.dispose()
    reference = re.search(r"E-[0-9A-F]{6}", description)
    assert reference is not None and reference.group() in caplog.text
    assert "Traceback" not in description and "database" not in description


def _as(telegram_user_id: int) -> dict[str, str]:
    return {"Authorization": f"Bearer {STAFF_TOKEN}", "X-Balcao-Staff": str(telegram_user_id)}


async def test_a_post_names_its_jurisdiction_and_a_service_of_its_laws(server: Open311Server) -> None:
    """GeoReport v2 POST: 400 when jurisdiction_id is not provided, 404 when it or the service is not found. The
    Código de Posturas is Nova Xavantina's law and Lei 1.533/2020 Sapezal's (CF Art. 30 I): neither is a service of
    the other municipality."""
    missing = _error(await _post(server, data=joao_report(server.key, jurisdiction_id="")), 400)
    assert "jurisdiction_id" in missing and "sapezal, nova-xavantina" in missing
    assert "cuiaba" in _error(await _post(server, data=joao_report(server.key, jurisdiction_id="cuiaba")), 404)
    assert "CP-I em Sapezal" in _error(await _post(server, data=joao_report(server.key, jurisdiction_id=SAPEZAL)),
                                       404)
    _error(await _post(server, data=ride_report(server.key, jurisdiction_id=NX)), 404)
    in_query = await asyncio.to_thread(requests.post, server.url("requests.json") + "?jurisdiction_id=nova-xavantina",
                                       data=joao_report(server.key, jurisdiction_id=""))
    assert in_query.status_code == 201, in_query.text


async def test_a_case_posted_in_each_municipality_is_filed_there_and_queued_for_its_staff(
    server: Open311Server, session: AsyncSession
) -> None:
    """Each case belongs to the jurisdiction it was posted in: its staff queue has it, the other's does not, and
    Open311 finds it only under that jurisdiction (by id, in the list and in the status updates)."""
    for telegram_user_id, municipality in ((7301, NX), (7302, SAPEZAL)):
        await add_staff(session=session, telegram_user_id=telegram_user_id, role=Role.ADMIN, name="Admin",
                        actor="test", municipality=municipality)
    representation, report = await asyncio.gather(_post(server, data=joao_report(server.key)),
                                                  _post(server, "xml", data=ride_report(server.key)))
    assert (representation.status_code, report.status_code) == (201, 201), (representation.text, report.text)
    rep = representation.json()[0]["service_request_id"]
    app = xml_root(report.content, "service_requests", "request").findtext("request/service_request_id")
    assert app is not None and app.startswith("APP-")
    filed = {case.protocol: case.municipality for case in (await session.exec(select(Case))).all()}
    assert filed == {rep: NX, app: SAPEZAL}
    base = server.url("").removesuffix("open311/v2/")
    queues = {}
    for telegram_user_id, municipality in ((7301, NX), (7302, SAPEZAL)):
        listed = await asyncio.to_thread(requests.get, base + "api/cases", headers=_as(telegram_user_id))
        queues[municipality] = [case["protocol"] for case in listed.json()["cases"]]
    assert queues == {NX: [rep], SAPEZAL: [app]}
    for protocol, mine, other in ((rep, NX, SAPEZAL), (app, SAPEZAL, NX)):
        assert (await _get(server, f"requests/{protocol}.json", jurisdiction_id=mine)).status_code == 200
        _error(await _get(server, f"requests/{protocol}.json", jurisdiction_id=other), 404)
        listed = (await _get(server, "requests.json", jurisdiction_id=other)).json()
        assert protocol not in [item["service_request_id"] for item in listed]
    receipt = await _get(server, f"requests/{app}/receipt.pdf", api_key=server.key, jurisdiction_id=SAPEZAL)
    assert receipt.status_code == 200
    assert (await _get(server, f"requests/{app}/receipt.pdf", api_key=server.key)).status_code == 404
    decided = await asyncio.to_thread(requests.post, base + f"api/cases/{app}/decision",
                                      json={"outcome": "archive", "reason": "Sem provas."}, headers=_as(7302))
    assert decided.status_code == 200, decided.text
    updates = {place: (await _get(server, "servicerequestupdates.json", api_key=server.key,
                                  jurisdiction_id=place)).json() for place in (SAPEZAL, NX)}
    assert [(u["service_request_id"], u["status"]) for u in updates[SAPEZAL]] == [(app, "NO_FURTHER_ACTION")]
    assert updates[NX] == []
