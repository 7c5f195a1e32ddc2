"""Notificações in the console: the issue form refuses each missing element next to its field with its article
(CP Art. 25/34, L1533 Art. 22), fills itself from a decided case without the author, issues through the
same function as the bot and the API, serves the PDF, and records deliveries (CP Art. 36) from the staff list."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import AsyncIterator

import pytest
import time_machine
from aiohttp.test_utils import TestClient, TestServer
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.web import build_web_app
from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.audit import AuditEvent
from models.cases.filing import file_representation
from models.cases.handling import decide
from models.cases.tables import Case, Outcome
from models.notices.delivery import record_explicit_ciencia
from models.notices.filings import file_filing
from models.notices.tables import DeliveryState, FilingOutcome, Notice, NoticeDelivery, NoticeFiling
from models.outbox import OutboxMessage
from tests.auxil.case_people import NOW, Cast, make_cast, representation
from tests.auxil.console import sign_in
from tests.auxil.notices import MARIA_CPF, cp_auto, designate, issue, opted_in

CLARA, OTAVIO = 7101, 7103
TODAY = NOW + dt.timedelta(hours=1)


@pytest.fixture
async def cast(session: AsyncSession, settings: Settings) -> Cast:
    people = await make_cast(session)
    await designate(session, settings, CLARA)  # CP Art. 12: designated to draw up notices
    await designate(session, settings, CLARA, "primeira_instancia")  # and head of department (CP Art. 40)
    return people


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory, cast: Cast) -> AsyncIterator[TestClient]:
    with time_machine.travel(TODAY, tick=False):
        async with TestClient(TestServer(build_web_app(settings, sessions))) as test_client:
            yield test_client


async def test_each_missing_element_is_refused_next_to_its_field_with_its_article(
    client: TestClient, sessions: SessionFactory, settings: Settings
) -> None:
    csrf = await sign_in(client, sessions, settings, CLARA)
    refused = await client.post("/painel/notificacoes/nova", data={
        "csrf": csrf, "type": "auto", "rulebook": "nx-posturas", "offender_document": "123", "drawn_up_on": "31/02"})
    page = await refused.text()
    assert refused.status == 422
    assert re.search(r'<p class="errors" id="e-offender_document-1">[^<]+</p>', page)
    assert re.search(r'<p class="errors" id="e-drawn_up_on-1">[^<]+</p>', page)
    again = await client.post("/painel/notificacoes/nova", data={
        "csrf": csrf, "type": "auto", "rulebook": "nx-posturas", "facts": "Mato alto no terreno."})
    page = await again.text()
    for field, article in (("offender_name", "Art. 34, II"), ("place", "Art. 34, I"),
                           ("infraction_code", "Art. 34, III")):
        found = re.search(rf'<p class="errors" id="e-{field}-1">([^<]+)</p>', page)
        assert found is not None and article in found.group(1), field
    assert "Mato alto no terreno.</textarea>" in page  # what was typed is kept
    async with sessions() as session:
        assert (await session.exec(select(Notice))).all() == []


async def test_a_decided_case_becomes_a_notice_and_its_delivery_is_recorded(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    async with sessions() as session:
        filed = await file_representation(session=session, person_id=cast.joao.id, form=representation(), now=NOW,
                                          cities=cities_of(settings))
        case = (await session.exec(select(Case).where(Case.protocol == filed.protocol))).one()
        assert case.id is not None
        await decide(session=session, telegram_user_id=CLARA, case_id=case.id, outcome=Outcome.AUTO, reason=None,
                     now=NOW)
    csrf = await sign_in(client, sessions, settings, CLARA)
    form = await (await client.get(f"/painel/notificacoes/nova?caso={case.id}")).text()
    assert 'value="CP-I-9"' in form and f'value="{case.protocol}"' in form  # the case by its protocol
    assert 'name="case_id"' not in form  # never its database id
    # Issue 18 §6: the citizen's account is beside the form, for reference, never in its fields.
    assert 'value="Depósito Bom Preço"' not in form and "Depósito Bom Preço</dd>" in form
    assert "João Batista Pereira" not in form  # the author never reaches the notice
    assert re.search(r'<textarea id="f-facts" name="facts" aria-required="true"></textarea>', form)
    fields = dict(re.findall(r'<input id="f-(\w+)" name="\w+" type="\w+" value="([^"]*)"', form))
    issued = await client.post("/painel/notificacoes/nova", data={
        **fields, "csrf": csrf, "type": "auto", "rulebook": "nx-posturas", "offender_name": "Depósito Bom Preço Ltda.",
        "place": "Rua 7 de Setembro, 200", "facts": "Entulho e lixo na calçada, constatados no local.",
        "offender_address": "Av. Brasil, 100"}, allow_redirects=False)
    assert issued.status == 303, await issued.text()
    number = issued.headers["Location"].split("emitida=")[1]
    async with sessions() as session:
        assert (await session.exec(select(Notice).where(Notice.number == number))).one().case_id == case.id
    listed = await (await client.get("/painel/notificacoes?q=bom+pre")).text()
    assert number in listed
    assert f'Do caso <a href="/painel/casos/{case.protocol}">{case.protocol}</a>' in listed  # by its protocol
    assert "CP-I-9 — Atirar animais, lixos, detritos e outros em vias públicas" in listed  # by its name
    pdf = await client.get(f"/painel/notificacoes/{number}.pdf")
    assert pdf.status == 200 and (await pdf.read()).startswith(b"%PDF")
    async with sessions() as session:
        notice = (await session.exec(select(Notice))).one()
        audit = (await session.exec(select(AuditEvent).where(AuditEvent.actor == f"staff:{CLARA}",
                                                             AuditEvent.entity == "notice"))).all()
    assert notice.case_id == case.id and notice.issuer_telegram_id == CLARA and audit

    todo = await (await client.get("/painel/entregas")).text()
    delivery_id = re.search(r'action="/painel/entregas/(\d+)"', todo)
    assert delivery_id is not None and number in todo
    future = await client.post(f"/painel/entregas/{delivery_id.group(1)}", data={
        "csrf": csrf, "how": "personal", "date": (TODAY + dt.timedelta(days=3)).date().isoformat()})
    assert future.status == 422
    done = await client.post(f"/painel/entregas/{delivery_id.group(1)}", data={
        "csrf": csrf, "how": "personal", "date": TODAY.date().isoformat()})
    assert done.status == 200 and "Entrega registrada" in await done.text()
    async with sessions() as session:
        delivery = (await session.exec(select(NoticeDelivery))).one()
    assert delivery.state is DeliveryState.DONE and delivery.ciencia_on == TODAY.date()


async def test_notices_are_not_the_ombudsmans(client: TestClient, sessions: SessionFactory, settings: Settings) -> None:
    csrf = await sign_in(client, sessions, settings, OTAVIO)
    assert (await client.get("/painel/notificacoes")).status == 403
    refused = await client.post("/painel/notificacoes/nova", data={"csrf": csrf, "type": "auto"})
    assert refused.status == 403


async def test_a_clerk_decides_a_reclamacao_with_its_windows_shown(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    async with sessions() as session:
        await opted_in(session, cast.maria.id, now=NOW)
        issued = await issue(session, settings, cp_auto(person_id=cast.maria.id), now=NOW)
        delivery = (await session.exec(select(NoticeDelivery))).one()
        assert delivery.id is not None and issued.notice.id is not None
        await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                      person_id=cast.maria.id, now=NOW)
        filing = await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id,
                                   person_id=cast.maria.id, text="O terreno foi limpo no dia seguinte.", now=TODAY)
    csrf = await sign_in(client, sessions, settings, CLARA)
    page = await (await client.get("/painel/defesas")).text()
    assert "Reclamação" in page and issued.notice.number in page and "Art. 40" in page  # the decision window
    url = f"/painel/defesas/{filing.id}/decisao"
    unreasoned = await client.post(url, data={"csrf": csrf, "outcome": "denied", "text": " "})
    assert unreasoned.status == 422 and "Art. 41" in await unreasoned.text()
    ok = await client.post(url, data={"csrf": csrf, "outcome": "granted", "text": "ok"})
    assert ok.status == 422 and "Lei 9.784/1999, Art. 50" in await ok.text()  # CP Art. 41: "ok" is no reason
    decided = await client.post(url, data={"csrf": csrf, "outcome": "granted",
                                           "text": "Procedente: o terreno foi limpo no prazo, como mostram as fotos."})
    assert decided.status == 200 and "Nenhuma defesa ou recurso" in await decided.text()
    async with sessions() as session:
        stored = (await session.exec(select(NoticeFiling))).one()
    assert stored.outcome is FilingOutcome.GRANTED and stored.decided_by == f"staff:{CLARA}"
    assert stored.decider is not None and stored.decider["title"] == "Chefe do Departamento"


async def test_a_notice_issued_in_the_console_goes_to_the_person_in_the_bot(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    async with sessions() as session:
        await opted_in(session, cast.maria.id, now=NOW)
    csrf = await sign_in(client, sessions, settings, CLARA)
    issued = await client.post("/painel/notificacoes/nova", data={
        "csrf": csrf, "type": "auto", "rulebook": "nx-posturas", "infraction_code": "CP-I-1",
        "offender_name": "Maria Aparecida da Silva", "place": "Rua 7 de Setembro, 200", "drawn_up_on": "2026-03-02",
        "drawn_up_time": "10:30", "facts": "Terreno com mato alto.", "issuer_name": "Clara (mat. 77)",
        "person_telegram_id": str(cast.maria.telegram_user_id)}, allow_redirects=False)
    assert issued.status == 303, await issued.text()
    async with sessions() as session:
        notice = (await session.exec(select(Notice))).one()
        queued = (await session.exec(select(OutboxMessage).where(OutboxMessage.person_id == cast.maria.id))).all()
    assert notice.person_id == cast.maria.id and queued  # it goes out in the bot, with its "Tomo ciência"
    bad = await client.post("/painel/notificacoes/nova", data={"csrf": csrf, "type": "auto",
                                                                "person_telegram_id": "²"})
    assert bad.status == 422 and 'id="e-person_telegram_id-1"' in await bad.text()


async def test_the_law_is_chosen_by_its_name_not_its_id(
    client: TestClient, sessions: SessionFactory, settings: Settings
) -> None:
    await sign_in(client, sessions, settings, CLARA)
    form = await (await client.get("/painel/notificacoes/nova")).text()
    select_law = form.split('<select id="f-rulebook" name="rulebook">')[1].split("</select>")[0]
    options = dict(re.findall(r'<option value="([^"]+)"[^>]*>([^<]+)</option>', select_law))
    assert options["nx-posturas"] == "Lei nº 1.101/2004 – Código de Posturas (Nova Xavantina)"
    assert all(name != value for value, name in options.items())  # never the raw id as the name


async def test_a_lei_1533_auto_past_90_days_is_issued_in_the_console_only_when_confirmed(
    client: TestClient, sessions: SessionFactory, settings: Settings
) -> None:
    """L1533 Art. 22 §1: drawn up 2/11/2025, issued 2/3/2026 (120 days): the form warns and offers to confirm."""
    csrf = await sign_in(client, sessions, settings, CLARA)
    form = {"csrf": csrf, "type": "auto", "rulebook": "sapezal-1533", "infraction_code": "L1533-26-IV",
            "offender_name": "Maria", "place": "Av. Brasil", "drawn_up_on": "2025-11-02", "drawn_up_time": "10:00",
            "facts": "Embarque na via pública sem o aplicativo."}
    warned = await client.post("/painel/notificacoes/nova", data=form)
    page = await warned.text()
    assert warned.status == 422 and "Art. 22, §1º" in page and 'name="confirm_late"' in page
    issued = await client.post("/painel/notificacoes/nova", data={**form, "confirm_late": "sim"},
                               allow_redirects=False)
    assert issued.status == 303, await issued.text()


async def test_a_notice_issued_in_the_console_to_a_cpf_registered_at_opt_in_goes_to_that_persons_chat(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    """Issue 20 §1: the clerk types only the CPF; Maria registered it at opt-in, so the auto reaches her chat."""
    async with sessions() as session:
        await opted_in(session, cast.maria.id, cpf=MARIA_CPF, now=NOW)
    csrf = await sign_in(client, sessions, settings, CLARA)
    issued = await client.post("/painel/notificacoes/nova", data={
        "csrf": csrf, "type": "auto", "rulebook": "nx-posturas", "infraction_code": "CP-I-1",
        "offender_name": "Maria Aparecida da Silva", "offender_document": "529.982.247-25",
        "place": "Rua 7 de Setembro, 200", "drawn_up_on": "2026-03-02", "drawn_up_time": "10:30",
        "facts": "Terreno com mato alto."}, allow_redirects=False)
    assert issued.status == 303, await issued.text()
    async with sessions() as session:
        notice = (await session.exec(select(Notice))).one()
        queued = (await session.exec(select(OutboxMessage).where(OutboxMessage.person_id == cast.maria.id))).all()
        delivery = (await session.exec(select(NoticeDelivery))).one()
    assert notice.person_id == cast.maria.id and [m.kind for m in queued] == ["notice.delivery"]
    assert delivery.state is DeliveryState.ELECTRONIC  # not the paper list ("A notificação não tem endereço")
    assert "Nada a entregar" in await (await client.get("/painel/entregas")).text()


async def test_the_console_links_a_waiting_notice_to_the_person_who_claimed_its_cpf(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    """The console offers "Vincular a Maria" where the chat's /entregas does; the notice then goes to her chat."""
    async with sessions() as session:
        issued = await issue(session, settings, cp_auto(), now=NOW)  # before Maria accepted: the paper list
        await opted_in(session, cast.maria.id, cpf=MARIA_CPF, now=NOW)
    csrf = await sign_in(client, sessions, settings, CLARA)
    page = await (await client.get("/painel/entregas")).text()
    assert "Vincular a Maria" in page and "informou este CPF como seu" in page
    linked = await client.post(f"/painel/entregas/vincular/{issued.notice.id}", data={"csrf": csrf},
                               allow_redirects=False)
    assert linked.status == 303 and linked.headers["Location"] == "/painel/entregas?vinculada=1"
    async with sessions() as session:
        notice = await session.get(Notice, issued.notice.id)
        queued = (await session.exec(select(OutboxMessage).where(OutboxMessage.person_id == cast.maria.id))).all()
        audit = (await session.exec(select(AuditEvent).where(AuditEvent.action == "notice.link_person"))).one()
    assert notice is not None and notice.person_id == cast.maria.id and len(queued) == 1
    assert audit.actor == f"staff:{CLARA}"
    again = await client.post(f"/painel/entregas/vincular/{issued.notice.id}", data={"csrf": csrf})
    assert again.status == 409  # already linked: nobody claims it any more, nothing changes
    forged = await client.post(f"/painel/entregas/vincular/{issued.notice.id}", data={})
    assert forged.status in (403, 400)
