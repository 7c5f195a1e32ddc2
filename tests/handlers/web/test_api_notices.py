"""The staff HTTP API of notices: issue (with refusals citing the article), read, deliveries, decisions."""

from __future__ import annotations

import base64
import datetime as dt
from collections.abc import AsyncIterator
from typing import Any

import pytest
import time_machine
from aiohttp.test_utils import TestClient, TestServer
from pydantic import SecretStr
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.web import build_web_app
from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.notices.delivery import record_explicit_ciencia
from models.notices.filings import file_filing
from models.notices.tables import FilingKind, Notice, NoticeDelivery, NoticeFiling
from models.people import Role
from tests.auxil.notices import MARIA_CPF, designate, opted_in, person, staff

TOKEN = "api-token-for-tests"
REASONS = "Improcedente: a matrícula do imóvel está em seu nome, como mostra a certidão."
INES, CLARA, JOAO_CIDADAO, ADMIN = 9101, 9102, 9002, 9100
BODY: dict[str, Any] = {
    "type": "auto", "rulebook": "nx-posturas", "infraction_code": "CP-I-1",
    "offender_name": "Maria Aparecida da Silva", "offender_document": "529.982.247-25",
    "offender_address": "Rua das Acácias, 45", "place": "Rua 7 de Setembro, 200", "date": "2026-03-02",
    "time": "09:30", "facts": "Terreno com mato alto.", "issuer_name": "Inês Fiscal",
}


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory, session: AsyncSession) -> AsyncIterator[TestClient]:
    await staff(session, INES, "Inês", Role.INSPECTOR)
    await staff(session, CLARA, "Clara", Role.CLERK)
    await staff(session, ADMIN, "Ana", Role.ADMIN)
    await person(session, JOAO_CIDADAO, "João")
    await designate(session, settings, INES)  # CP Art. 12: the agent designated to draw up notices
    await designate(session, settings, CLARA, "primeira_instancia")  # CP Art. 40: the head of department
    with_token = settings.model_copy(update={"staff_api_token": SecretStr(TOKEN)})
    with time_machine.travel(dt.datetime(2026, 3, 2, 15, 0, tzinfo=dt.UTC), tick=False):
        async with TestClient(TestServer(build_web_app(with_token, sessions))) as test_client:
            yield test_client


def _headers(staff_id: int) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}", "X-Balcao-Staff": str(staff_id)}


async def test_issue_returns_the_number_code_and_pdf(client: TestClient) -> None:
    response = await client.post("/api/notices", json=BODY, headers=_headers(INES))
    assert response.status == 201, await response.text()
    data = await response.json()
    assert data["number"] == "AI-2026-000001" and len(data["code"]) == 14
    assert data["fine"] == "378.00" and data["stage"] == "awaiting_ciencia"
    assert base64.b64decode(data["pdf_base64"]).startswith(b"%PDF")
    assert data["deliveries"][0]["state"] == "staff"
    pdf = await client.get("/api/notices/AI-2026-000001/pdf", headers=_headers(CLARA))
    assert pdf.status == 200 and pdf.content_type == "application/pdf"


async def test_a_missing_element_is_refused_with_its_article(client: TestClient) -> None:
    body = {**BODY, "type": "preliminar", "time": None, "issuer_name": ""}
    response = await client.post("/api/notices", json=body, headers=_headers(INES))
    assert response.status == 422
    data = await response.json()
    assert data["error"] == "refused"
    citations = {p["element"]: p["citation"] for p in data["problems"]}
    # the agent (Art. 25 IV) is the authenticated signer, never typed: an empty issuer_name is no problem
    assert list(citations) == ["drawn_up_time"] and citations["drawn_up_time"].endswith("Art. 25, II")


@pytest.mark.parametrize(("body", "error"), [({**BODY, "date": "31/02/2026"}, "bad_value"),  # 02/03/2026 is read
                                              ({**BODY, "offender_document": "123"}, "bad_document")])
async def test_bad_values_are_refused(client: TestClient, body: dict[str, Any], error: str) -> None:
    response = await client.post("/api/notices", json=body, headers=_headers(INES))
    assert response.status == 422 and (await response.json())["error"] == error


async def test_roles_are_checked_on_every_call(client: TestClient) -> None:
    assert (await client.post("/api/notices", json=BODY, headers=_headers(JOAO_CIDADAO))).status == 403
    assert (await client.post("/api/notices", json=BODY, headers={"X-Balcao-Staff": str(INES)})).status == 401
    assert (await client.get("/api/notices/filings", headers=_headers(INES))).status == 403
    assert (await client.get("/api/notices/chains", headers=_headers(CLARA))).status == 403
    chains = await client.get("/api/notices/chains", headers=_headers(ADMIN))
    assert (await chains.json())["ok"] is True


async def test_the_staff_list_and_recording_the_ar_date(client: TestClient) -> None:
    await client.post("/api/notices", json=BODY, headers=_headers(INES))
    listed = await (await client.get("/api/notices/deliveries", headers=_headers(CLARA))).json()
    [item] = listed["deliveries"]
    assert (item["number"], item["staff_reason"], item["offender_address"]) == (
        "AI-2026-000001", "no_person", "Rua das Acácias, 45")
    future = await client.post(f"/api/notices/deliveries/{item['id']}", json={"how": "postal", "date": "2026-03-09"},
                               headers=_headers(CLARA))
    assert future.status == 409
    done = await client.post(f"/api/notices/deliveries/{item['id']}", json={"how": "postal", "date": "2026-03-02"},
                             headers=_headers(CLARA))
    assert (await done.json())["ciencia"] == "postal"
    shown = await (await client.get("/api/notices/AI-2026-000001", headers=_headers(CLARA))).json()
    assert shown["stage"] == "notified"
    assert {w["rule"]: w["final_date"] for w in shown["windows"]}["cp-37-reclamacao"] == "2026-03-12"


async def test_a_clerk_decides_a_reclamacao(
    client: TestClient, session: AsyncSession, settings: Settings
) -> None:
    maria = await person(session, 9001, "Maria")
    issued = await (await client.post("/api/notices", json=BODY, headers=_headers(INES))).json()
    delivery_id = issued["deliveries"][0]["id"]
    await opted_in(session, maria.id, cpf=MARIA_CPF)
    # she typed the notice's CPF at opt-in after it was issued: staff see her suggested and link her
    [listed] = (await (await client.get("/api/notices/deliveries", headers=_headers(CLARA))).json())["deliveries"]
    assert listed["cpf_claimant_telegram_id"] == 9001
    linked = await client.post("/api/notices/AI-2026-000001/person", json={"person_telegram_id": 9001},
                               headers=_headers(CLARA))
    assert (await linked.json())["sent_to_bot"] == 1
    now = dt.datetime(2026, 3, 2, 15, 0, tzinfo=dt.UTC)
    await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery_id,
                                  person_id=maria.id,
                                  now=now)
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=1, person_id=maria.id,
                               text="Não é meu terreno.", now=now)
    pending = await (await client.get("/api/notices/filings", headers=_headers(CLARA))).json()
    assert [f["id"] for f in pending["filings"]] == [filing.id]
    refused = await client.post(f"/api/notices/filings/{filing.id}/decision", json={"outcome": "denied", "text": ""},
                                headers=_headers(CLARA))
    assert refused.status == 409 and "Art. 41" in (await refused.json())["citation"]
    decided = await client.post(f"/api/notices/filings/{filing.id}/decision",
                                json={"outcome": "denied", "text": REASONS}, headers=_headers(CLARA))
    assert decided.status == 200
    shown = await (await client.get("/api/notices/AI-2026-000001", headers=_headers(CLARA))).json()
    assert shown["stage"] == "decided" and shown["filings"][0]["outcome"] == "denied"


async def test_staff_address_an_issued_notice_to_a_person_of_the_bot(client: TestClient, session: AsyncSession) -> None:
    """Issued to nobody in the bot; João opts in later and staff link him: the notice goes to him."""
    await client.post("/api/notices", json=BODY, headers=_headers(INES))
    joao = await person(session, JOAO_CIDADAO, "João")
    await opted_in(session, joao.id)
    path = "/api/notices/AI-2026-000001/person"
    assert (await client.post(path, json={"person_telegram_id": JOAO_CIDADAO},
                              headers=_headers(JOAO_CIDADAO))).status == 403
    assert (await client.post(path, json={}, headers=_headers(INES))).status == 422
    unknown = await client.post(path, json={"person_telegram_id": 1234}, headers=_headers(INES))
    assert unknown.status == 409 and (await unknown.json())["error"] == "refused"
    linked = await client.post(path, json={"person_telegram_id": JOAO_CIDADAO}, headers=_headers(INES))
    assert linked.status == 200
    assert await linked.json() == {"number": "AI-2026-000001", "person_id": joao.id, "sent_to_bot": 1}
    listed = await (await client.get("/api/notices/deliveries", headers=_headers(CLARA))).json()
    assert listed["deliveries"] == []
    other = await client.post(path, json={"person_telegram_id": CLARA}, headers=_headers(INES))
    assert other.status == 409 and "another person" in (await other.json())["message"]
    missing = await client.post("/api/notices/AI-2026-000999/person", json={"person_id": joao.id},
                                headers=_headers(INES))
    assert missing.status == 404


async def test_vista_and_diligencia_through_the_api_cp_art_40_par_1_and_art_42(
    client: TestClient, session: AsyncSession, settings: Settings
) -> None:
    """CP Art. 40 §1 (vista to each side, 3 days), Art. 42 (diligência): clerks only, refusals cite the article."""
    maria = await person(session, 9001, "Maria")
    await opted_in(session, maria.id)
    body = {**BODY, "person_telegram_id": 9001, "infraction_date": "2026-02-27"}
    issued = await (await client.post("/api/notices", json=body, headers=_headers(INES))).json()
    now = dt.datetime(2026, 3, 2, 15, 0, tzinfo=dt.UTC)
    await record_explicit_ciencia(session=session, cities=cities_of(settings),
                                  delivery_id=issued["deliveries"][0]["id"],
                                  person_id=maria.id, now=now)
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=1, person_id=maria.id,
                               text="Não é meu terreno.", now=now)
    route = f"/api/notices/filings/{filing.id}"
    assert (await client.post(f"{route}/vista", headers=_headers(INES))).status == 403
    opened = await (await client.post(f"{route}/vista", headers=_headers(CLARA))).json()
    assert opened["vista_first_on"] == "2026-03-02" and opened["vista_second_on"] is None
    again = await client.post(f"{route}/vista", headers=_headers(CLARA))
    assert again.status == 409 and (await again.json())["citation"].endswith("Art. 40, §1º")
    shown = await (await client.get("/api/notices/AI-2026-000001", headers=_headers(CLARA))).json()
    assert {w["rule"] for w in shown["windows"]} >= {"cp-40-1-vista", "cp-40-2-decisao-apos-vista"}
    assert shown["infraction_date"] == "2026-02-27" and shown["warning_only"] is False
    assert (await client.post(f"{route}/diligencia", json={"text": ""}, headers=_headers(CLARA))).status == 409
    ordered = await (await client.post(f"{route}/diligencia", json={"text": "Vistoria no local."},
                                       headers=_headers(CLARA))).json()
    assert ordered["diligencia_text"] == "Vistoria no local." and ordered["diligencia_done_at"] is None
    done = await (await client.post(f"{route}/diligencia/done", headers=_headers(CLARA))).json()
    assert done["diligencia_done_at"] is not None
    assert (await client.post("/api/notices/filings/999/vista", headers=_headers(CLARA))).status == 409


async def test_staff_of_another_municipality_neither_issue_nor_see_its_notices(
    client: TestClient, session: AsyncSession, settings: Settings
) -> None:
    """CF Art. 30 I: an auto under the Código de Posturas is Nova Xavantina's act. Sapezal's inspector may not draw
    it up, nor read it, its PDF or its place on the delivery list; Nova Xavantina's may."""
    from models.people import add_staff

    await add_staff(session=session, telegram_user_id=9201, role=Role.INSPECTOR, name="Sá", actor="test",
                    municipality="sapezal")
    await add_staff(session=session, telegram_user_id=9202, role=Role.INSPECTOR, name="Nê", actor="test",
                    municipality="nova-xavantina")
    await designate(session, settings, 9202)
    assert (await client.post("/api/notices", json=BODY, headers=_headers(9201))).status == 403
    issued = await client.post("/api/notices", json=BODY, headers=_headers(9202))
    assert issued.status == 201
    number = (await issued.json())["number"]
    assert (await client.get(f"/api/notices/{number}", headers=_headers(9201))).status == 403
    assert (await client.get(f"/api/notices/{number}/pdf", headers=_headers(9201))).status == 403
    assert (await (await client.get("/api/notices/deliveries", headers=_headers(9201))).json())["deliveries"] == []
    assert (await client.get(f"/api/notices/{number}", headers=_headers(9202))).status == 200
    listed = await (await client.get("/api/notices/deliveries", headers=_headers(9202))).json()
    assert [item["number"] for item in listed["deliveries"]] == [number]


async def test_an_outros_item_needs_the_provision_infringed_cp_art_34_iii(client: TestClient) -> None:
    # CP Art. 34 III: "Outros" (Tabela I item 11) names no conduct; the inspector gives the provision.
    body = {**BODY, "infraction_code": "CP-I-11"}
    refused = await client.post("/api/notices", json=body, headers=_headers(INES))
    assert refused.status == 422
    [problem] = (await refused.json())["problems"]
    assert problem["element"] == "infringed_provision" and problem["citation"].endswith("Art. 34, III")
    issued = await client.post("/api/notices", json={**body, "infringed_provision": "Art. 50, IX"},
                               headers=_headers(INES))
    assert issued.status == 201, await issued.text()
async def test_through_the_api_the_impeded_are_refused_and_each_decision_names_its_author(
    client: TestClient, session: AsyncSession, settings: Settings
) -> None:
    """Issue 18 §1, end to end. Clara, a clerk designated to draw up notices (CP Art. 12) and also head of
    department, issues an auto: she may not judge it (L9784 Art. 18 I; CF Art. 37). Carlos, the Chefe, decides
    (CP Art. 40); holding the second instance too, he may not decide the appeal against his own decision (Lei 9.784
    Art. 13 II, Art. 56 §1); the Prefeita does (CP Art. 43, 45)."""
    maria = await person(session, 9001, "Maria")
    await opted_in(session, maria.id, cpf=MARIA_CPF)
    chefe, prefeita = 9104, 9105
    await staff(session, chefe, "Carlos Chefe", Role.CLERK)
    await staff(session, prefeita, "Paula Prefeita", Role.CLERK)
    await designate(session, settings, CLARA, "autuar")
    await designate(session, settings, chefe, "primeira_instancia")
    await designate(session, settings, chefe, "segunda_instancia")
    await designate(session, settings, prefeita, "segunda_instancia")
    untitled = await client.post("/api/notices", json=BODY, headers=_headers(chefe))  # a clerk, not designated
    assert untitled.status == 422 and "Art. 12" in (await untitled.json())["problems"][0]["citation"]
    issued = await (await client.post("/api/notices", json={**BODY, "issuer_name": "Qualquer Um"},
                                      headers=_headers(CLARA))).json()
    await client.post("/api/notices/AI-2026-000001/person", json={"person_telegram_id": 9001},
                      headers=_headers(CLARA))
    now = dt.datetime(2026, 3, 2, 15, 0, tzinfo=dt.UTC)
    await record_explicit_ciencia(session=session, cities=cities_of(settings),
                                  delivery_id=issued["deliveries"][0]["id"],
                                  person_id=maria.id, now=now)
    reclamacao = await file_filing(session=session, cities=cities_of(settings), notice_id=1, person_id=maria.id,
                                   text="Não é meu terreno.", now=now)

    async def decide(filing_id: int | None, who: int, text: str = REASONS) -> tuple[int, dict[str, Any]]:
        response = await client.post(f"/api/notices/filings/{filing_id}/decision",
                                     json={"outcome": "denied", "text": text}, headers=_headers(who))
        return response.status, await response.json()

    status, body = await decide(reclamacao.id, CLARA)
    assert status == 409 and "Art. 18, I" in body["citation"] and "CF, Art. 37" in body["citation"]
    status, body = await decide(reclamacao.id, ADMIN)  # an admin opens every route, but is not the Chefe
    assert status == 409 and body["citation"].endswith("Código de Posturas (Nova Xavantina), Art. 40")
    status, body = await decide(reclamacao.id, chefe, "ok")
    assert status == 409 and "Lei 9.784/1999, Art. 50" in body["citation"]
    assert (await decide(reclamacao.id, chefe))[0] == 200

    decision = (await session.exec(select(NoticeDelivery).where(NoticeDelivery.filing_id == reclamacao.id))).one()
    await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=decision.id or 0,
                                  person_id=maria.id, now=now)
    recurso = await file_filing(session=session, cities=cities_of(settings), notice_id=1, person_id=maria.id,
                                text="Recorro ao Prefeito.", now=now)
    status, body = await decide(recurso.id, chefe)
    assert status == 409 and "Art. 13, II" in body["citation"]
    assert (await decide(recurso.id, prefeita))[0] == 200
    session.expire_all()  # decided in the server's sessions
    deciders = [(f.kind, (f.decider or {}).get("name")) for f in (await session.exec(
        select(NoticeFiling).order_by(NoticeFiling.id))).all()]  # type: ignore[arg-type]
    assert deciders == [(FilingKind.RECLAMACAO, "Carlos Chefe"), (FilingKind.RECURSO, "Paula Prefeita")]
    notice = (await session.exec(select(Notice))).one()
    assert notice.issuer_name == "Clara" and notice.signer is not None and notice.signer["telegram_user_id"] == CLARA
