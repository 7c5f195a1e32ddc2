"""Open311 keys in the console (issue 13: issued by an admin, stored hashed): the client systems listed, a new key
shown once and working in the API's check, revoked after a confirmation; admins only on every request, CSRF on every
change, each change audited with the actor."""

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
from models.cases.tables import Case
from models.open311.keys import client_for_key
from models.open311.tables import Open311Client, Open311Submission
from tests.auxil.case_people import ANA, NOW, Cast, make_cast, representation
from tests.auxil.console import sign_in

CLARA = 7101
ADMIN = ANA
KEY = re.compile(r'id="the-key" class="key" value="([A-Za-z0-9_-]{40,})"')


@pytest.fixture
async def cast(session: AsyncSession) -> Cast:
    return await make_cast(session, with_admin=True)


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory, cast: Cast) -> AsyncIterator[TestClient]:
    with time_machine.travel(NOW, tick=False):
        async with TestClient(TestServer(build_web_app(settings, sessions))) as test_client:
            yield test_client


async def test_an_admin_issues_a_key_shown_once_and_revokes_it_after_confirming(
    client: TestClient, sessions: SessionFactory, settings: Settings
) -> None:
    csrf = await sign_in(client, sessions, settings, ADMIN)
    empty = await (await client.get("/painel/open311")).text()
    assert "Nenhum sistema" in empty
    made = await client.post("/painel/open311", data={"csrf": csrf, "name": "App Cidadão"})
    page = await made.text()
    found = KEY.search(page)
    assert made.status == 201 and found is not None and made.headers["Cache-Control"] == "no-store"
    key = found.group(1)
    async with sessions() as session:
        stored = (await session.exec(select(Open311Client))).one()
        assert (await client_for_key(session=session, key=key)) is not None  # the API accepts it
    assert stored.key_sha256 != key and key not in stored.key_sha256  # only its hash is kept
    listed = await (await client.get("/painel/open311")).text()
    assert "App Cidadão" in listed and key not in listed  # shown once, never again
    again = await client.post("/painel/open311", data={"csrf": csrf, "name": "App Cidadão"})
    assert again.status == 422 and "App Cidadão" in await again.text()
    assert (await client.post("/painel/open311", data={"csrf": csrf, "name": " "})).status == 422

    url = f"/painel/open311/{stored.id}/revogar"
    confirm = await client.get(url)
    assert confirm.status == 200 and f'action="{url}"' in await confirm.text()  # asks first; nothing done yet
    assert (await client.post(url, data={})).status == 403  # without the CSRF token nothing runs
    async with sessions() as session:
        assert (await client_for_key(session=session, key=key)) is not None
    revoked = await client.post(url, data={"csrf": csrf}, allow_redirects=False)
    assert revoked.status == 303
    async with sessions() as session:
        assert (await client_for_key(session=session, key=key)) is None
        audit = (await session.exec(select(AuditEvent).where(AuditEvent.entity == "open311_client"))).all()
    assert [(event.action, event.actor) for event in audit] == [
        ("open311.key_add", f"staff:{ADMIN}"), ("open311.key_revoke", f"staff:{ADMIN}")]
    assert all(key not in str(event.details) for event in audit)
    after = await (await client.get("/painel/open311")).text()
    assert "Revogada em" in after and url not in after
    assert (await client.post(url, data={"csrf": csrf})).status == 404  # already revoked: said, not a 500
    renewal = await client.post("/painel/open311", data={"csrf": csrf, "name": "App Cidadão"})
    renewed = KEY.search(await renewal.text())
    assert renewed is not None and renewed.group(1) != key  # a revoked system gets a new key under its name


async def test_the_keys_are_for_admins_only_on_every_request(
    client: TestClient, sessions: SessionFactory, settings: Settings
) -> None:
    csrf = await sign_in(client, sessions, settings, ADMIN)
    made = await client.post("/painel/open311", data={"csrf": csrf, "name": "FixMyStreet"})
    assert made.status == 201
    async with sessions() as session:
        stored = (await session.exec(select(Open311Client))).one()
    csrf = await sign_in(client, sessions, settings, CLARA)  # a clerk
    assert (await client.get("/painel/open311")).status == 403
    assert (await client.get(f"/painel/open311/{stored.id}/revogar")).status == 403
    assert (await client.post("/painel/open311", data={"csrf": csrf, "name": "Outro"})).status == 403
    assert (await client.post(f"/painel/open311/{stored.id}/revogar", data={"csrf": csrf})).status == 403
    async with sessions() as session:
        clients = (await session.exec(select(Open311Client))).all()
    assert [(c.name, c.revoked_at) for c in clients] == [("FixMyStreet", None)]
    client.session.cookie_jar.clear()
    assert (await client.get("/painel/open311")).status == 401  # no session


async def test_the_list_shows_when_a_key_was_last_used(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    csrf = await sign_in(client, sessions, settings, ADMIN)
    await client.post("/painel/open311", data={"csrf": csrf, "name": "App Cidadão"})
    page = await (await client.get("/painel/open311")).text()
    assert "nunca" in page and "<td>0</td>" in page
    filed_at = NOW - dt.timedelta(days=1)
    async with sessions() as session:
        stored = (await session.exec(select(Open311Client))).one()
        assert stored.id is not None
        filed = await file_representation(session=session, person_id=cast.joao.id, form=representation(),
                                          now=filed_at, cities=cities_of(settings))
        case = (await session.exec(select(Case).where(Case.protocol == filed.protocol))).one()
        assert case.id is not None
        session.add(Open311Submission(case_id=case.id, client_id=stored.id, account_sha256="0" * 64,
                                      service_code="CP-I-9"))
        await session.commit()
    page = await (await client.get("/painel/open311")).text()
    assert "nunca" not in page and "<td>1</td>" in page
    assert "1 de mar. de 2026 10:00" in page  # its last request, in the deployment's time zone
