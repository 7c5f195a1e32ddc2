"""Casos in the console: the queue by deadline with filters and pages, the case page (files inline, the map link,
a restricted author shown only to the Ombudsman, L13460 Art. 10 §7), the /pendencias actions over the same
domain functions (CP Art. 32 decision with the hand-over to a notice), refusals next to their field, bulk actions
with one audit entry per case, and response templates sent in the reader's language."""

from __future__ import annotations

import datetime as dt
import io
import re
from collections.abc import AsyncIterator

import pytest
import time_machine
from aiohttp.test_utils import TestClient, TestServer
from PIL import Image
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.web import build_web_app
from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.audit import AuditEvent
from models.cases.attachments import store_attachment
from models.cases.filing import Open311Origin, Place, file_ombudsman_case, file_representation
from models.cases.limits import CaseLimits
from models.cases.tables import Case, CaseStatus, Outcome
from models.console.tables import ResponseTemplate
from models.open311.keys import client_for_key, issue_key
from models.outbox import OutboxMessage
from models.people import Person
from tests.auxil.case_files import png
from tests.auxil.case_people import ANA, NOW, Cast, make_cast, ombudsman, representation
from tests.auxil.console import sign_in

CLARA, INES, OTAVIO = 7101, 7102, 7103
ADMIN = ANA


@pytest.fixture
async def cast(session: AsyncSession) -> Cast:
    return await make_cast(session, with_admin=True)


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory, cast: Cast) -> AsyncIterator[TestClient]:
    with time_machine.travel(NOW + dt.timedelta(hours=1), tick=False):
        async with TestClient(TestServer(build_web_app(settings, sessions))) as test_client:
            yield test_client


async def _file(sessions: SessionFactory, settings: Settings, cast: Cast, *, days_ago: int = 0, **changes: object
                ) -> Case:
    async with sessions() as session:
        filed = await file_representation(session=session, person_id=cast.joao.id, form=representation(**changes),
                                          now=NOW - dt.timedelta(days=days_ago), cities=cities_of(settings))
        return (await session.exec(select(Case).where(Case.protocol == filed.protocol))).one()


def _protocols(html: str) -> list[str]:
    return re.findall(r'<a href="/painel/casos/([A-Z]{3}-\d{4}-\d{6})">', html)


async def test_the_queue_is_sorted_by_deadline_filtered_and_paged(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    recent = await _file(sessions, settings, cast)
    old = await _file(sessions, settings, cast, days_ago=20, accused="Bar do Zé")  # past the 10-day target
    async with sessions() as session:
        ouv = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(restricted=False),
                                        now=NOW, city=cities_of(settings).default)
        restricted = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                               city=cities_of(settings).default)
    await sign_in(client, sessions, settings, ADMIN)
    page = await (await client.get("/painel/casos")).text()
    assert _protocols(page) == [old.protocol, recent.protocol, ouv.protocol]  # nearest deadline first
    assert restricted.protocol not in page  # L13460 Art. 10 §7: the Ombudsman's alone, not an admin's
    assert "dias de atraso" in page

    async def listed(query: str) -> list[str]:
        response = await client.get(f"/painel/casos?{query}")
        assert response.status == 200
        return _protocols(await response.text())

    assert await listed("tipo=ombudsman") == [ouv.protocol]
    assert await listed("prazo=overdue") == [old.protocol]
    assert await listed("q=bar+do") == [old.protocol]
    assert await listed("q=100%25") == []  # LIKE wildcards are searched as text
    assert await listed("responsavel=none&tipo=representation") == [old.protocol, recent.protocol]
    assert await listed("situacao=archived") == []
    assert await listed("tipo=nonsense&pagina=x") == [old.protocol, recent.protocol, ouv.protocol]

    await sign_in(client, sessions, settings, CLARA)  # the clerks' queue: representações only
    assert await listed("") == [old.protocol, recent.protocol]


async def test_pages_of_fifty(client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast) -> None:
    limits = settings.model_copy(update={"cases_per_day": 100})  # the most BALCAO_CASES_PER_DAY allows
    for _ in range(51):
        await _file(sessions, limits, cast)
    await sign_in(client, sessions, settings, CLARA)
    first = await (await client.get("/painel/casos")).text()
    assert len(_protocols(first)) == 50 and 'rel="next"' in first
    second = await (await client.get("/painel/casos?pagina=2")).text()
    assert len(_protocols(second)) == 1 and 'rel="prev"' in second and 'rel="next"' not in second
    assert set(_protocols(first)).isdisjoint(_protocols(second))


async def test_the_case_page_shows_files_the_map_and_the_author_as_the_law_allows(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    async with sessions() as session:
        photo = await store_attachment(session=session, person_id=cast.joao.id, content=png(), file_name="x.png",
                                       limits=CaseLimits.of(settings), already=[])
    case = await _file(sessions, settings, cast, attachment_ids=[photo.id],
                       place=Place(text="Praça", latitude=-14.5, longitude=-52.35))
    async with sessions() as session:
        ouv = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(restricted=True),
                                        now=NOW, city=cities_of(settings).default)
    await sign_in(client, sessions, settings, CLARA)
    page = await (await client.get(f"/painel/casos/{case.protocol}")).text()
    assert "João Batista Pereira" in page and "Depósito Bom Preço" in page
    assert "openstreetmap.org/?mlat=-14.500000&amp;mlon=-52.350000" in page
    image = re.search(rf'<img class="attachment" src="(/painel/casos/{case.protocol}/anexos/\d+)/previa"', page)
    assert image is not None
    shown = await client.get(image.group(1) + "/previa")  # drawn again from the pixels, sandboxed
    assert shown.status == 200 and shown.content_type == "image/png"
    assert shown.headers["Content-Security-Policy"].startswith("sandbox")
    drawn, sent = Image.open(io.BytesIO(await shown.read())), Image.open(io.BytesIO(png())).convert("RGB")
    assert drawn.tobytes() == sent.tobytes()
    file = await client.get(image.group(1))  # the original, only as a sandboxed download
    assert file.status == 200 and await file.read() == png()
    assert file.headers["Content-Disposition"] == f'attachment; filename="{case.protocol}-anexo-1.png"'
    assert file.headers["X-Content-Type-Options"] == "nosniff"

    # L13460 Art. 10 §7: a restricted case is the Ombudsman's alone; to anyone else it does not exist
    for staff_id in (CLARA, ADMIN):
        await sign_in(client, sessions, settings, staff_id)
        hidden = await client.get(f"/painel/casos/{ouv.protocol}")
        assert hidden.status == 404 and "João Batista Pereira" not in await hidden.text(), staff_id
    await sign_in(client, sessions, settings, OTAVIO)
    assert "João Batista Pereira" in await (await client.get(f"/painel/casos/{ouv.protocol}")).text()
    assert (await client.get("/painel/casos/REP-2026-999999")).status == 404
    assert (await client.get("/painel/casos/not-a-protocol")).status == 404


async def test_clerk_decides_with_refusals_kept_next_to_the_field(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    case = await _file(sessions, settings, cast)
    csrf = await sign_in(client, sessions, settings, CLARA)
    url = f"/painel/casos/{case.protocol}"
    refused = await client.post(f"{url}/decide", data={"csrf": csrf, "outcome": "archive", "text": "no"})
    body = await refused.text()
    assert refused.status == 422 and 'id="err-decide"' in body and "pelo menos 5" in body
    assert ">no</textarea>" in body  # what was typed is kept
    no_choice = await client.post(f"{url}/decide", data={"csrf": csrf, "text": "Nota qualquer."})
    assert no_choice.status == 422 and "Escolha uma decisão" in await no_choice.text()

    done = await client.post(f"{url}/decide", data={"csrf": csrf, "outcome": "auto", "text": ""})
    page = await done.text()
    assert done.status == 200 and "Decisão registrada" in page
    assert "Encaminhamento para notificação" in page and "auto de infração" in page
    assert "João Batista Pereira" not in page.split("Encaminhamento para notificação")[1]  # never on the notice
    async with sessions() as session:
        decided = (await session.exec(select(Case).where(Case.id == case.id))).one()
        audit = (await session.exec(select(AuditEvent).where(AuditEvent.action == "case.decided"))).one()
        told = (await session.exec(select(OutboxMessage))).all()
    assert decided.status is CaseStatus.AUTO_ISSUED and decided.outcome is Outcome.AUTO
    assert audit.actor == f"staff:{CLARA}" and audit.entity_id == str(case.id)
    assert any(m.person_id == cast.joao.id for m in told)  # the author is told, as from the chat
    closed = await client.post(f"{url}/ask", data={"csrf": csrf, "text": "Pode mandar mais fotos?"})
    assert closed.status == 422 and "já está encerrado" in await closed.text()


async def test_bulk_actions_check_each_case_and_audit_each_one(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    first, second = await _file(sessions, settings, cast), await _file(sessions, settings, cast)
    async with sessions() as session:
        ouv = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                        city=cities_of(settings).default)
        ouv_id = (await session.exec(select(Case).where(Case.protocol == ouv.protocol))).one().id
    csrf = await sign_in(client, sessions, settings, CLARA)
    response = await client.post("/painel/casos/lote", data=[
        ("csrf", csrf), ("action", "archive"), ("text", "Vistoria feita: nada encontrado."),
        ("ids", str(first.id)), ("ids", str(second.id)), ("ids", str(ouv_id)),
    ])
    page = await response.text()
    assert response.status == 200 and "2 casos feitos." in page and "1 caso não feito." in page
    async with sessions() as session:
        statuses = {c.protocol: c.status for c in (await session.exec(select(Case))).all()}
        archived = (await session.exec(select(AuditEvent).where(AuditEvent.action == "case.decided"))).all()
    assert statuses == {first.protocol: CaseStatus.ARCHIVED, second.protocol: CaseStatus.ARCHIVED,
                        ouv.protocol: CaseStatus.RECEIVED}  # the clerk may not touch the ombudsman's case
    assert sorted(e.entity_id for e in archived) == sorted([str(first.id), str(second.id)])
    assert all(e.actor == f"staff:{CLARA}" for e in archived)
    empty = await client.post("/painel/casos/lote", data={"csrf": csrf, "action": "archive"})
    assert empty.status == 400


async def test_templates_answer_in_the_readers_language(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    async with sessions() as session:
        joao = (await session.exec(select(Person).where(Person.id == cast.joao.id))).one()
        joao.locale = "es"
        await session.commit()
        cases = [await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                           city=cities_of(settings).default) for _ in range(2)]
        ids = [(await session.exec(select(Case).where(Case.protocol == c.protocol))).one().id for c in cases]
    csrf = await sign_in(client, sessions, settings, OTAVIO)
    refused = await client.post("/painel/modelos", data={"csrf": csrf, "name": "Posto", "text_en": "Only English."})
    assert refused.status == 422 and "português" in await refused.text()
    saved = await client.post("/painel/modelos", data={
        "csrf": csrf, "name": "Posto de saúde",
        "text_pt_BR": "Caso {protocol}: o médico volta na segunda.",
        "text_es": "Caso {protocol}: el médico vuelve el lunes. {unknown}",
    })
    assert saved.status == 200 and "Salvo." in await saved.text()
    async with sessions() as session:
        template = (await session.exec(select(ResponseTemplate))).one()
    prefilled = await (await client.get(f"/painel/casos/{cases[0].protocol}?modelo={template.id}")).text()
    assert f"Caso {cases[0].protocol}: el médico vuelve el lunes. {{unknown}}" in prefilled

    response = await client.post("/painel/casos/lote", data=[
        ("csrf", csrf), ("action", "answer"), ("template", str(template.id)), *[("ids", str(i)) for i in ids]])
    assert "2 casos feitos." in await response.text()
    async with sessions() as session:
        answers = {c.protocol: c.answer for c in (await session.exec(select(Case))).all()}
    assert answers == {c.protocol: f"Caso {c.protocol}: el médico vuelve el lunes. {{unknown}}" for c in cases}


async def test_the_ombudsman_extends_once_and_answers(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    async with sessions() as session:
        ouv = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                        city=cities_of(settings).default)
    csrf = await sign_in(client, sessions, settings, OTAVIO)
    url = f"/painel/casos/{ouv.protocol}"
    extended = await client.post(f"{url}/extend", data={"csrf": csrf, "text": "Aguardando a Secretaria de Saúde."})
    page = await extended.text()
    assert extended.status == 200 and "prorrogado uma vez" in page and 'action="' + url + '/extend"' not in page
    again = await client.post(f"{url}/extend", data={"csrf": csrf, "text": "Mais uma vez, por favor."})
    assert again.status == 422 and "Art. 16" in await again.text()  # Lei 13.460/2017: one extension only
    short = await client.post(f"{url}/answer", data={"csrf": csrf, "text": "Ok."})
    assert short.status == 422 and 'id="err-answer"' in await short.text()
    answered = await client.post(f"{url}/answer", data={"csrf": csrf, "text": "O médico volta na segunda-feira."})
    assert answered.status == 200 and "Resposta enviada ao autor" in await answered.text()
    async with sessions() as session:
        case = (await session.exec(select(Case).where(Case.protocol == ouv.protocol))).one()
    assert case.status is CaseStatus.ANSWERED and case.extended_at is not None


CP_LAW = "Lei nº 1.101/2004 – Código de Posturas (Nova Xavantina)"
CP_I_9 = "CP-I-9 — Atirar animais, lixos, detritos e outros em vias públicas (Art. 53)"  # by its name, not a code


async def test_after_notify_the_clerk_reads_the_next_step_and_the_hand_over_in_portuguese(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    """CP Art. 32: "notify" leads to a notificação preliminar (Art. 24); the page says so in plain Portuguese, with
    the button to the issue form and the hand-over's elements under their labels, never the API's field names."""
    case = await _file(sessions, settings, cast)
    csrf = await sign_in(client, sessions, settings, CLARA)
    url = f"/painel/casos/{case.protocol}"
    done = await client.post(f"{url}/decide", data={"csrf": csrf, "outcome": "notify",
                                                      "text": "O responsável tem 10 dias para limpar a calçada."})
    page = await done.text()
    assert done.status == 200
    handover = page.split("Encaminhamento para notificação")[1].split("</dl>")[0]
    assert f"Próximo passo: emitir a notificação preliminar do caso {case.protocol}." in handover
    assert f'<a class="button" href="/painel/notificacoes/nova?caso={case.id}">Emitir a notificação</a>' in handover
    fields = dict(re.findall(r"<dt>([^<]+)</dt><dd>([^<]*)</dd>", handover))
    assert fields == {"Tipo": "notificação preliminar", "Lei": CP_LAW, "Infração": CP_I_9,
                      "Acusado": "Depósito Bom Preço", "Local": "Rua 7 de Setembro, esquina com Av. Brasil",
                      "Quando": "sexta-feira, 27 de fevereiro de 2026",
                      "Fatos": "Um caminhão despeja entulho e lixo na calçada toda sexta-feira."}
    for developer_text in ("/api/notices", "/emitir", "rulebook", "infraction_code", "case_id", "facts", "type"):
        assert developer_text not in handover, developer_text
    # The note of a "notify" decision is not a reason (the archive's stays "Motivo").
    assert "<h2>Observação</h2><p>O responsável tem 10 dias para limpar a calçada.</p>" in page
    assert "<h2>Motivo</h2>" not in page
    # The law once, then its articles (CP Art. 30–32 and the breached rule, Art. 53 Tabela I item 9).
    infraction = re.search(r"<dt>Infração</dt><dd>(CP-I-9[^<]*<br>[^<]*)</dd>", page)
    assert infraction is not None
    assert infraction.group(1) == f"{CP_I_9}<br>{CP_LAW}, Art. 30 a 32; Art. 53 (Tabela I, item 9)"


async def test_an_archived_representacao_keeps_its_reason_labelled_motivo(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    case = await _file(sessions, settings, cast)
    csrf = await sign_in(client, sessions, settings, CLARA)
    done = await client.post(f"/painel/casos/{case.protocol}/decide", data={
        "csrf": csrf, "outcome": "archive", "text": "A calçada já estava limpa na vistoria."})
    page = await done.text()
    assert done.status == 200 and "<h2>Motivo</h2><p>A calçada já estava limpa na vistoria.</p>" in page
    assert "Observação" not in page and "Encaminhamento para notificação" not in page


async def test_a_case_from_open311_without_evidence_tells_the_clerk_to_ask_for_it(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    """CP Art. 31: filed without evidence (LEGAL-CHOICES #39), the clerk sees it is missing before deciding."""
    async with sessions() as session:
        key = await issue_key(session=session, name="fixmystreet", now=NOW, actor="test")
        open311 = await client_for_key(session=session, key=key)
        assert open311 is not None and open311.id is not None
        filed = await file_representation(
            session=session, person_id=None, form=representation(evidence_note=None), now=NOW,
            cities=cities_of(settings),
            origin=Open311Origin(client_id=open311.id, account_sha256="0" * 64, service_code="CP-I"))
    with_evidence = await _file(sessions, settings, cast)
    await sign_in(client, sessions, settings, CLARA)
    missing = "Nenhuma prova foi enviada (o Código de Posturas, Art. 31, pede provas ou onde encontrá-las)"
    assert missing in await (await client.get(f"/painel/casos/{filed.protocol}")).text()
    assert missing not in await (await client.get(f"/painel/casos/{with_evidence.protocol}")).text()
