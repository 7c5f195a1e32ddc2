"""The drivers' staff HTTP API: import all or nothing, link codes, status, inspections and sanctions, roles."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestClient, TestServer
from pydantic import SecretStr
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.web import build_web_app
from core.db import SessionFactory
from core.settings import Settings
from models.audit import AuditEvent
from models.columns import utcnow
from models.deadlines import add_months
from models.drivers.tables import Driver
from models.people import Role, add_staff
from models.when import municipal_today
from tests.auxil.drivers import MARIA_CPF, csv_text, driver_row

TOKEN = "api-token-for-drivers"
CLARA, IVO, JOAO = 7201, 7202, 7203  # a clerk, an inspector, a citizen


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory, session: AsyncSession) -> AsyncIterator[TestClient]:
    await add_staff(session=session, telegram_user_id=CLARA, role=Role.CLERK, name="Clara", actor="test")
    await add_staff(session=session, telegram_user_id=IVO, role=Role.INSPECTOR, name="Ivo", actor="test")
    with_token = settings.model_copy(update={"staff_api_token": SecretStr(TOKEN)})
    async with TestClient(TestServer(build_web_app(with_token, sessions))) as test_client:
        yield test_client


def _as(staff_id: int) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}", "X-Balcao-Staff": str(staff_id)}


def recent_row(settings: Settings, **overrides: str) -> dict[str, str]:
    today = municipal_today(settings.tz, now=utcnow())
    paid = add_months(today, -2).isoformat()
    return driver_row(autorizacao_emissao=paid, vistoria_data=paid, **overrides)


async def test_import_is_for_clerks_and_reports_every_bad_line(
    client: TestClient, settings: Settings, session: AsyncSession
) -> None:
    body = csv_text([recent_row(settings), driver_row(cpf="1", autorizacao_numero="x", placa="RAB2C34")])
    assert (await client.post("/api/drivers/import", data=body)).status == 401
    assert (await client.post("/api/drivers/import", data=body, headers=_as(IVO))).status == 403
    refused = await client.post("/api/drivers/import", data=body, headers=_as(CLARA))
    assert refused.status == 422
    payload = await refused.json()
    assert payload["error"] == "invalid_rows"
    assert [(e["line"], e["reason"]) for e in payload["errors"]] == [(3, "cpf: CPF must have 11 digits")]
    assert (await session.exec(select(Driver))).all() == []
    good = await client.post("/api/drivers/import", data=csv_text([recent_row(settings)]), headers=_as(CLARA))
    assert good.status == 200
    assert (await good.json())["created"] == 1
    actors = {event.actor for event in (await session.exec(select(AuditEvent))).all()}
    assert f"staff:{CLARA}" in actors


async def test_a_file_that_is_not_utf8_is_refused(client: TestClient) -> None:
    response = await client.post("/api/drivers/import", data=csv_text([driver_row(nome="João")]).encode("latin-1"),
                                 headers=_as(CLARA))
    assert response.status == 422 and (await response.json())["error"] == "not_utf8"


async def test_link_codes_status_inspections_and_sanctions(client: TestClient, settings: Settings) -> None:
    await client.post("/api/drivers/import", data=csv_text([recent_row(settings)]), headers=_as(CLARA))
    issued = await client.post("/api/drivers/link-codes", json={"cpf": MARIA_CPF}, headers=_as(CLARA))
    assert issued.status == 201
    code = await issued.json()
    assert code["start_payload"] == f"link-{code['code']}" and code["driver"]["cpf"] == "***.456.789-**"
    missing = await client.post("/api/drivers/link-codes", json={"cpf": "987.654.321-00"}, headers=_as(CLARA))
    assert (missing.status, (await missing.json())["error"]) == (404, "driver_not_found")
    invalid = await client.post("/api/drivers/link-codes", json={"cpf": "123"}, headers=_as(CLARA))
    assert (invalid.status, (await invalid.json())["error"]) == (422, "invalid_cpf")

    status = await (await client.get("/api/drivers/authorizations/2026/001", headers=_as(IVO))).json()
    assert status["status"]["kind"] == "active" and status["status"]["may_serve"] is True
    assert status["status"]["article"] == "Lei 1.533/2020, Art. 3º, par. único"
    assert MARIA_CPF not in str(status)
    assert (await client.get("/api/drivers/authorizations/9999", headers=_as(IVO))).status == 404

    today = municipal_today(settings.tz, now=utcnow())
    failed = await client.post("/api/drivers/authorizations/2026/001/inspections",
                               json={"date": today.isoformat(), "result": "failed"}, headers=_as(IVO))
    assert failed.status == 201
    steps = [s["step"] for s in (await failed.json())["status"]["next_steps"]]
    assert steps[0] == "fix_inspection"
    assert (await client.post("/api/drivers/authorizations/2026/001/inspections", json={"date": "ontem"},
                              headers=_as(IVO))).status == 422

    assert (await client.post("/api/drivers/authorizations/2026/001/sanctions",
                              json={"sanction": "suspension", "since": today.isoformat()},
                              headers=_as(IVO))).status == 403
    suspended = await client.post(
        "/api/drivers/authorizations/2026/001/sanctions",
        json={"sanction": "suspension", "since": today.isoformat(), "rule": "l1533-26-1-suspensao"},
        headers=_as(CLARA),
    )
    body = await suspended.json()
    assert body["status"]["kind"] == "suspended" and body["status"]["days_left"] == 30
    bad = await client.post("/api/drivers/authorizations/2026/001/sanctions", json={"sanction": "multa"},
                            headers=_as(CLARA))
    assert (bad.status, (await bad.json())["error"]) == (422, "bad_sanction")


async def test_the_registry_is_for_the_staff_of_the_municipality_whose_law_it_is(
    client: TestClient, settings: Settings, session: AsyncSession
) -> None:
    """Lei 1.533/2020 is Sapezal's: a clerk of Nova Xavantina may not import into it nor read it (CF Art. 30 I)."""
    await add_staff(session=session, telegram_user_id=9301, role=Role.CLERK, name="Nê", actor="test",
                    municipality="nova-xavantina")
    await add_staff(session=session, telegram_user_id=9302, role=Role.CLERK, name="Sá", actor="test",
                    municipality="sapezal")
    body = csv_text([recent_row(settings)])
    assert (await client.post("/api/drivers/import", data=body, headers=_as(9301))).status == 403
    assert (await session.exec(select(Driver))).all() == []
    good = await client.post("/api/drivers/import", data=body, headers=_as(9302))
    assert good.status == 200
    number = driver_row()["autorizacao_numero"]
    assert (await client.get(f"/api/drivers/authorizations/{number}", headers=_as(9301))).status == 403
    assert (await client.get(f"/api/drivers/authorizations/{number}", headers=_as(9302))).status == 200
    assert {driver.municipality for driver in (await session.exec(select(Driver))).all()} == {"sapezal"}
