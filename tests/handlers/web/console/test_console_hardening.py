"""The console's second-wave findings over HTTP: the audit log no longer shows a restricted ombudsman case to
admins (L13460 Art. 10 §7) and names the author's steps "o autor"; reply templates belong to a municipality
(CF Art. 30); a session ends at its absolute lifetime (OWASP ASVS V3.3.1). The browser side is in
test_console_hardening_browser.py."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator

import pytest
import time_machine
from aiohttp.test_utils import TestClient
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.db import SessionFactory
from core.municipality import ConsoleTimes, cities_of
from core.settings import Settings
from models.cases.filing import file_ombudsman_case
from models.cases.tables import Case
from models.console.signin import session_owner
from models.console.tables import ResponseTemplate
from models.people import Role, acknowledge_privacy, add_staff
from tests.auxil.case_people import ANA, NOW, Cast, make_cast, ombudsman
from tests.auxil.console import COOKIE_NAME, console_client, sign_in

SAPEZAL_CLERK, NX_OMBUDSMAN = 7301, 7302


@pytest.fixture
async def cast(session: AsyncSession) -> Cast:
    cast = await make_cast(session, with_admin=True)
    await add_staff(session=session, telegram_user_id=SAPEZAL_CLERK, role=Role.CLERK, name="Sara", actor="test",
                    municipality="sapezal")
    await add_staff(session=session, telegram_user_id=NX_OMBUDSMAN, role=Role.OMBUDSMAN, name="Nilo", actor="test",
                    municipality="nova-xavantina")
    return cast


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory, cast: Cast) -> AsyncIterator[TestClient]:
    async with console_client(settings, sessions, NOW + dt.timedelta(hours=1)) as test_client:
        yield test_client


async def test_the_audit_log_hides_a_restricted_case_from_admins_and_names_no_author(
    client: TestClient, session: AsyncSession, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    """The admins' audit log showed the restricted filing right after the author's own step as person:N."""
    await acknowledge_privacy(session=session, person_id=cast.joao.id)
    restricted = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                           city=cities_of(settings).default)
    identified = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(restricted=False),
                                           now=NOW, city=cities_of(settings).default)
    await sign_in(client, sessions, settings, ANA)
    page = await (await client.get("/painel/auditoria")).text()
    assert restricted.protocol not in page and f"Caso {restricted.case_id}<" not in page
    assert identified.protocol in page and "<td>o autor</td>" in page
    found = await (await client.get(f"/painel/auditoria?entidade=citizen_case&id={restricted.case_id}")).text()
    assert restricted.protocol not in found  # not by its id either


async def test_reply_templates_belong_to_their_municipality(
    client: TestClient, session: AsyncSession, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    """CF Art. 30: a Sapezal clerk's template, with a link in it, is not offered to Nova Xavantina's Ombudsman."""
    case = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(restricted=False),
                                     now=NOW, city=cities_of(settings)["nova-xavantina"])
    csrf = await sign_in(client, sessions, settings, SAPEZAL_CLERK)
    saved = await client.post("/painel/modelos", data={
        "csrf": csrf, "name": "Resposta padrão", "municipio": "nova-xavantina",  # not where Sara works: Sapezal's
        "text_pt_BR": "Veja https://golpe.example/ {protocol}."})
    assert saved.status == 200
    async with sessions() as fresh:
        [template] = (await fresh.exec(select(ResponseTemplate))).all()
    assert template.municipality == "sapezal"

    csrf = await sign_in(client, sessions, settings, NX_OMBUDSMAN)
    assert "golpe.example" not in await (await client.get("/painel/modelos")).text()
    page = await (await client.get(f"/painel/casos/{case.protocol}?modelo={template.id}")).text()
    assert "golpe.example" not in page and "Resposta padrão" not in page
    bulk = await client.post("/painel/casos/lote", data=[
        ("csrf", csrf), ("action", "answer"), ("template", str(template.id)), ("ids", str(case.case_id))])
    assert "Este modelo é de outro município." in await bulk.text()
    async with sessions() as fresh:
        assert (await fresh.get(Case, case.case_id)).answer is None  # type: ignore[union-attr]
    retired = await client.post(f"/painel/modelos/{template.id}/retirar", data={"csrf": csrf})
    assert retired.status == 200
    async with sessions() as fresh:
        assert (await fresh.get(ResponseTemplate, template.id)).active is True  # type: ignore[union-attr]


async def test_a_session_ends_at_its_absolute_lifetime_however_busy(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    """OWASP ASVS V3.3.1: BALCAO_CONSOLE_SESSION_HOURS (12 by default) after sign-in, even used every 20 minutes."""
    with time_machine.travel(NOW, tick=False) as traveller:
        await sign_in(client, sessions, settings, ANA)
        token = client.session.cookie_jar.filter_cookies(client.make_url("/painel/"))[COOKIE_NAME].value
        for _step in range(35):  # 11 h 40 min of steady work
            traveller.shift(dt.timedelta(minutes=20))
            assert (await client.get("/painel/")).status == 200
        traveller.shift(dt.timedelta(minutes=20))  # 12 hours after sign-in
        assert (await client.get("/painel/")).status == 401
        async with sessions() as session:
            assert await session_owner(session=session, token=token, now=NOW,
                                       times=ConsoleTimes.of(settings)) is None  # ended
