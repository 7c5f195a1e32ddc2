"""The staff HTTP API of cases: the queue, views with the author pseudonymised (L13460 Art. 10 §7),
CP Art. 32 decisions handed over to the penalty notices, answers, the single extension, files, and refusals."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import AsyncIterator

import pytest
import time_machine
from aiohttp.test_utils import TestClient, TestServer
from pydantic import SecretStr
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.web import build_web_app
from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.cases.attachments import store_attachment
from models.cases.filing import file_ombudsman_case, file_representation
from models.cases.limits import CaseLimits
from models.people import Role, add_staff
from tests.auxil.case_files import png
from tests.auxil.case_people import NOW, Cast, make_cast, ombudsman, representation
from tests.auxil.notices import designate
from tests.auxil.staff_api import own_token

TOKEN = "api-token-for-cases"
ADMIN = 7100


@pytest.fixture
async def cast(session: AsyncSession, settings: Settings) -> Cast:
    cast = await make_cast(session)
    await add_staff(session=session, telegram_user_id=ADMIN, role=Role.ADMIN, name="Ana", actor="test")
    await designate(session, settings, cast.ines.telegram_user_id)  # CP Art. 12: designated to draw up notices
    return cast


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory, cast: Cast) -> AsyncIterator[TestClient]:
    with_token = settings.model_copy(update={"staff_api_token": SecretStr(TOKEN)})
    with time_machine.travel(NOW + dt.timedelta(hours=1), tick=False):
        async with TestClient(TestServer(build_web_app(with_token, sessions))) as test_client:
            yield test_client


def _as(staff_id: int) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}", "X-Balcao-Staff": str(staff_id)}


async def _file_both(session: AsyncSession, settings: Settings, cast: Cast) -> tuple[str, str]:
    photo = await store_attachment(session=session, person_id=cast.joao.id, content=png(), file_name="foto.png",
                                   limits=CaseLimits.of(settings), already=[])
    rep = await file_representation(session=session, person_id=cast.joao.id,
                                    form=representation(attachment_ids=[photo.id]), now=NOW, cities=cities_of(settings))
    ouv = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(restricted=True),
                                    now=NOW, city=cities_of(settings).default)
    return rep.protocol, ouv.protocol


async def test_only_staff_with_the_token_get_in(client: TestClient, cast: Cast) -> None:
    assert (await client.get("/api/cases")).status == 401
    response = await client.get("/api/cases", headers=_as(cast.joao.telegram_user_id))
    assert response.status == 403
    assert (await response.json())["error"] == "forbidden"


async def test_the_queue_is_the_callers_role_and_admins_see_all_but_restricted_cases(
    client: TestClient, session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    rep, ouv = await _file_both(session, settings, cast)
    clara = await (await client.get("/api/cases", headers=_as(cast.clara.telegram_user_id))).json()
    assert [c["protocol"] for c in clara["cases"]] == [rep]
    assert clara["cases"][0]["days_left"] == 10
    admin = await (await client.get("/api/cases", headers=_as(ADMIN))).json()
    assert [c["protocol"] for c in admin["cases"]] == [rep]  # L13460 Art. 10 §7: the Ombudsman's alone
    shared = await (await client.get("/api/cases", headers=_as(cast.otavio.telegram_user_id))).json()
    assert shared["cases"] == []  # the shared token only names the Ombudsman: it proves nothing (Art. 10 §7)
    otavio = await (await client.get("/api/cases", headers=await own_token(session, cast.otavio.telegram_user_id))
                    ).json()
    assert [c["protocol"] for c in otavio["cases"]] == [ouv]


async def test_a_restricted_case_is_the_ombudsmans_alone_and_the_logs_never_see_its_author(
    client: TestClient, session: AsyncSession, settings: Settings, cast: Cast, caplog: pytest.LogCaptureFixture
) -> None:
    """L13460 Art. 10 §7: a clerk or an admin gets the same 404 as for a protocol that does not exist."""
    caplog.set_level(logging.DEBUG, logger="balcao")
    _rep, ouv = await _file_both(session, settings, cast)
    for staff in (cast.clara.telegram_user_id, ADMIN):
        response = await client.get(f"/api/cases/{ouv}", headers=_as(staff))
        unknown = await client.get("/api/cases/OUV-2026-000999", headers=_as(staff))
        assert response.status == unknown.status == 404
        assert await response.json() == await unknown.json()
        for action, body in (("assign", {}), ("answer", {"text": "x" * 30}), ("archive", {"reason": "x" * 30})):
            acted = await client.post(f"/api/cases/{ouv}/{action}", json=body, headers=_as(staff))
            assert acted.status == 404, (staff, action)
    own = await own_token(session, cast.otavio.telegram_user_id)
    otavio = await (await client.get(f"/api/cases/{ouv.lower()}", headers=own)).json()
    assert otavio["author"]["name"] == "João Batista Pereira"
    assert "João" not in caplog.text


async def test_an_auto_is_handed_over_to_the_penalty_notices(
    client: TestClient, session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """CP Art. 32: the decision records the outcome; the notice is issued from the hand-over, quoting the case."""
    rep, _ouv = await _file_both(session, settings, cast)
    clerk = _as(cast.clara.telegram_user_id)
    refused = await client.post(f"/api/cases/{rep}/decision", json={"outcome": "fine"}, headers=clerk)
    assert refused.status == 422
    response = await client.post(f"/api/cases/{rep}/decision", json={"outcome": "auto"}, headers=clerk)
    assert response.status == 200, await response.text()
    data = await response.json()
    assert data["case"]["status"] == "auto_issued"
    fields = data["handover"]["notice_fields"]
    # Issue 18 §6: the citizen's account is the hand-over's reference, never the notice's body.
    assert fields == {"type": "auto", "rulebook": "nx-posturas", "infraction_code": "CP-I-9",
                      "case_id": data["case"]["id"]}
    assert data["handover"]["accused"] == "Depósito Bom Preço"
    assert "João" not in str(data["handover"])
    notice = await client.post("/api/notices", headers=_as(cast.ines.telegram_user_id), json={
        **fields, "date": "2026-03-02", "time": "11:00", "issuer_name": "Inês Fiscal",
        "offender_name": "Depósito Bom Preço Ltda.", "place": "Rua 7 de Setembro, 200",
        "facts": "Entulho e lixo na calçada, constatados no local.",
    })
    assert notice.status == 201, await notice.text()
    assert (await notice.json())["case_id"] == data["case"]["id"]
    again = await client.post(f"/api/cases/{rep}/decision", json={"outcome": "archive", "reason": "x" * 10},
                              headers=clerk)
    assert again.status == 422 and "closed" in (await again.json())["message"]


async def test_ombudsman_actions_and_their_limits(
    client: TestClient, session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    _rep, ouv = await _file_both(session, settings, cast)
    otavio, clara = await own_token(session, cast.otavio.telegram_user_id), _as(cast.clara.telegram_user_id)
    assert (await client.post(f"/api/cases/{ouv}/extend", json={"reason": "Falta a Secretaria."},
                              headers=clara)).status == 404  # restricted: not even its existence is told
    assert (await client.post(f"/api/cases/{ouv}/extend", json={"reason": ""}, headers=otavio)).status == 422
    extended = await client.post(f"/api/cases/{ouv}/extend", json={"reason": "Aguardando a Secretaria de Saúde."},
                                 headers=otavio)
    assert (await extended.json())["due_on"] == "2026-05-04"
    twice = await client.post(f"/api/cases/{ouv}/extend", json={"reason": "Mais trinta dias, por favor."},
                              headers=otavio)
    assert twice.status == 422 and "only one extension" in (await twice.json())["message"]
    asked = await client.post(f"/api/cases/{ouv}/complement", json={"question": "Qual é o endereço do posto?"},
                              headers=otavio)
    assert (await asked.json())["complement_due_on"] == "2026-03-23"
    answered = await client.post(f"/api/cases/{ouv}/answer", json={"text": "O médico começa na segunda-feira."},
                                 headers=otavio)
    data = await answered.json()
    assert data["case"]["status"] == "answered"
    assert [e["event"] for e in data["case"]["timeline"]] == [
        "filed", "extended", "complement_requested", "answered"
    ]
    assert (await client.post(f"/api/cases/{ouv}/archive", json={"reason": "tarde demais"},
                              headers=otavio)).status == 422
    assert (await client.get("/api/cases/XYZ-1", headers=otavio)).status == 404
    assert (await client.get("/api/cases/REP-2026-000099", headers=otavio)).status == 404
    bad = await client.post(f"/api/cases/{ouv}/answer", data="not json", headers=otavio)
    assert bad.status == 400


async def test_files_and_assignment(client: TestClient, session: AsyncSession, settings: Settings, cast: Cast) -> None:
    rep, _ouv = await _file_both(session, settings, cast)
    clerk = _as(cast.clara.telegram_user_id)
    case = await (await client.get(f"/api/cases/{rep}", headers=clerk)).json()
    [photo] = case["attachments"]
    download = await client.get(f"/api/cases/{rep}/attachments/{photo['id']}", headers=clerk)
    assert download.status == 200 and download.content_type == "image/png" and await download.read() == png()
    assert (await client.get(f"/api/cases/{rep}/attachments/999", headers=clerk)).status == 404
    refused = await client.post(f"/api/cases/{rep}/assign", json={"staff_telegram_id": cast.otavio.telegram_user_id},
                                headers=clerk)
    assert refused.status == 422
    taken = await (await client.post(f"/api/cases/{rep}/assign", json={}, headers=clerk)).json()
    assert taken["case"]["status"] == "in_progress" and taken["case"]["assigned_staff_id"] is not None


async def test_staff_of_one_municipality_neither_see_nor_act_on_the_others_cases(
    client: TestClient, session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """CF Art. 30: a role is held in one municipality. The representação is Nova Xavantina's (its Código de
    Posturas); an admin of Sapezal gets neither the queue entry nor the case, and may not assign it."""
    rep, _ouv = await _file_both(session, settings, cast)
    await add_staff(session=session, telegram_user_id=7200, role=Role.ADMIN, name="Íris", actor="test",
                    municipality="sapezal")
    sapezal = await (await client.get("/api/cases", headers=_as(7200))).json()
    assert rep not in [c["protocol"] for c in sapezal["cases"]]
    assert (await client.get(f"/api/cases/{rep}", headers=_as(7200))).status == 403
    assert (await client.post(f"/api/cases/{rep}/assign", headers=_as(7200), json={})).status == 403
    await add_staff(session=session, telegram_user_id=7201, role=Role.CLERK, name="Nina", actor="test",
                    municipality="nova-xavantina")
    nx = await (await client.get("/api/cases", headers=_as(7201))).json()
    assert [c["protocol"] for c in nx["cases"]] == [rep]
    assert (await client.get(f"/api/cases/{rep}", headers=_as(7201))).status == 200
