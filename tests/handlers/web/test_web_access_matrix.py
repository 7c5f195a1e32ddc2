"""Who reads what, through the web: every role against every kind of case, in the console's case page and the
staff API's (each member with their own token), as models/cases/access.py says (LGPD Art. 6 III; CP Art. 31;
L13460 Art. 10 §7)."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator

import pytest
import time_machine
from aiohttp.test_utils import TestClient, TestServer
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.web import build_web_app
from core.db import SessionFactory
from core.settings import Settings
from models.people import Role
from tests.auxil.access_matrix import AUTHOR_NAME, MATRIX, Gets, file_every_kind, member_of
from tests.auxil.case_people import NOW, Cast, make_cast
from tests.auxil.console import sign_in
from tests.auxil.staff_api import own_token

STATUS = {Gets.AUTHOR: 200, Gets.REFUSED: 403, Gets.ABSENT: 404}
IDS = [f"{role.value}-{kind}" for role, kind, _ in MATRIX]


@pytest.fixture
async def cast(session: AsyncSession) -> Cast:
    return await make_cast(session, with_admin=True)


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory, cast: Cast) -> AsyncIterator[TestClient]:
    with time_machine.travel(NOW + dt.timedelta(hours=1), tick=False):
        async with TestClient(TestServer(build_web_app(settings, sessions))) as test_client:
            yield test_client


@pytest.mark.parametrize(("role", "kind", "gets"), MATRIX, ids=IDS)
async def test_the_console_case_page_follows_the_matrix(
    client: TestClient, session: AsyncSession, sessions: SessionFactory, settings: Settings, cast: Cast,
    role: Role, kind: str, gets: Gets,
) -> None:
    _case_id, protocol = (await file_every_kind(session, settings, cast))[kind]
    await sign_in(client, sessions, settings, member_of(cast, role))
    response = await client.get(f"/painel/casos/{protocol}")
    page = await response.text()
    assert response.status == STATUS[gets], page
    assert (AUTHOR_NAME in page) is (gets is Gets.AUTHOR)
    listed = await (await client.get("/painel/casos?situacao=todos")).text()
    assert (protocol in listed) is (gets is Gets.AUTHOR)


@pytest.mark.parametrize(("role", "kind", "gets"), MATRIX, ids=IDS)
async def test_the_staff_api_follows_the_matrix(
    client: TestClient, session: AsyncSession, settings: Settings, cast: Cast, role: Role, kind: str, gets: Gets,
) -> None:
    _case_id, protocol = (await file_every_kind(session, settings, cast))[kind]
    headers = await own_token(session, member_of(cast, role))
    response = await client.get(f"/api/cases/{protocol}", headers=headers)
    assert response.status == STATUS[gets], await response.text()
    body = await response.json()
    assert (body.get("author", {}).get("name") == AUTHOR_NAME) is (gets is Gets.AUTHOR)
    queue = await (await client.get("/api/cases", headers=headers)).json()
    assert (protocol in {case["protocol"] for case in queue["cases"]}) is (gets is Gets.AUTHOR)
