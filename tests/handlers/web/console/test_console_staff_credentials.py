"""Staff credentials in the console: each member's own API token (issued and revoked in *Minhas chaves da API*,
shown once, stored hashed, audited; it names and proves its holder, L13460 Art. 10 §7), and *Equipe*,
where an admin ends a role: the member is signed out at once and their links and tokens stop (LGPD Art. 46)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import AsyncIterator

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
from models.audit import AuditEvent
from models.cases.filing import file_ombudsman_case
from models.console.signin import digest
from models.console.tables import ConsoleLink, ConsoleSession, StaffApiToken
from models.people import Role, add_staff
from tests.auxil.case_people import ANA, NOW, Cast, make_cast, ombudsman
from tests.auxil.console import COOKIE_NAME, new_link, sign_in

TOKEN = re.compile(r'value="(bst_[A-Za-z0-9_-]{40,})"')
CLARA, OTAVIO = 7101, 7103
SHARED = "the-deprecated-shared-token"


@pytest.fixture
async def cast(session: AsyncSession) -> Cast:
    return await make_cast(session, with_admin=True)


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory, cast: Cast) -> AsyncIterator[TestClient]:
    shared = settings.model_copy(update={"staff_api_token": SecretStr(SHARED)})
    with time_machine.travel(NOW + dt.timedelta(hours=1), tick=False):
        async with TestClient(TestServer(build_web_app(shared, sessions))) as test_client:
            yield test_client


async def _issue(client: TestClient, csrf: str, label: str) -> str:
    response = await client.post("/painel/chaves", data={"csrf": csrf, "label": label})
    assert response.status == 201, await response.text()
    found = TOKEN.search(await response.text())
    assert found is not None
    return found.group(1)


async def test_a_personal_token_proves_its_holder_and_the_shared_token_no_longer_opens_a_restricted_case(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    """L13460 Art. 10 §7: with the shared token and the Ombudsman's (public) Telegram id, nobody reads the
    restricted author any more; the Ombudsman's own token does, and it cannot be used to name someone else."""
    async with sessions() as session:
        filed = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                          city=cities_of(settings).default)
    shared = {"Authorization": f"Bearer {SHARED}", "X-Balcao-Staff": str(OTAVIO)}
    posing = await client.get(f"/api/cases/{filed.protocol}", headers=shared)
    assert posing.status == 404 and posing.headers["Deprecation"] == "true"
    assert (await client.post(f"/api/cases/{filed.protocol}/archive", json={"reason": "x" * 30},
                              headers=shared)).status == 404
    async with sessions() as session:  # the log says the shared token asked, naming Otávio without proof
        [noted] = (await session.exec(select(AuditEvent).where(AuditEvent.action == "api.shared_token"))).all()
    assert noted.actor == "api:shared-token" and noted.entity_id == str(OTAVIO) and noted.details["status"] == 404

    csrf = await sign_in(client, sessions, settings, OTAVIO)
    token = await _issue(client, csrf, "planilha da ouvidoria")
    own = {"Authorization": f"Bearer {token}"}
    opened = await client.get(f"/api/cases/{filed.protocol}", headers=own)
    assert opened.status == 200 and (await opened.json())["author"]["name"] == "João Batista Pereira"
    assert "Deprecation" not in opened.headers
    assert (await client.get("/api/cases", headers={**own, "X-Balcao-Staff": str(CLARA)})).status == 403

    async with sessions() as session:
        [row] = (await session.exec(select(StaffApiToken))).all()
        audit = (await session.exec(select(AuditEvent).where(AuditEvent.action == "api_token.issue"))).all()
    assert row.token_sha256 == digest(token) and row.telegram_user_id == OTAVIO
    assert [event.actor for event in audit] == [f"staff:{OTAVIO}"] and token not in str(audit[0].details)

    page = await (await client.get("/painel/chaves")).text()
    assert token not in page and "planilha da ouvidoria" in page  # shown once, then only its name
    revoked = await client.post(f"/painel/chaves/{row.id}/revogar", data={"csrf": csrf}, allow_redirects=False)
    assert revoked.status == 303
    assert (await client.get(f"/api/cases/{filed.protocol}", headers=own)).status == 401


async def test_a_member_revokes_only_their_own_tokens(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    csrf = await sign_in(client, sessions, settings, OTAVIO)
    await _issue(client, csrf, "do Otávio")
    async with sessions() as session:
        [row] = (await session.exec(select(StaffApiToken))).all()
    csrf = await sign_in(client, sessions, settings, CLARA)
    refused = await client.post(f"/painel/chaves/{row.id}/revogar", data={"csrf": csrf})
    assert refused.status == 404
    empty = await client.post("/painel/chaves", data={"csrf": csrf, "label": "   "})
    assert empty.status == 422 and "1 a 64 caracteres" in await empty.text()
    async with sessions() as session:
        assert (await session.get(StaffApiToken, row.id)).revoked_at is None  # type: ignore[union-attr]


async def test_an_admin_ends_a_role_and_the_member_is_out_at_once_everywhere(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    """LGPD Art. 46: the dismissed clerk's open console session, unused link and API token all stop now."""
    clerk_csrf = await sign_in(client, sessions, settings, CLARA)
    clerk_cookie = client.session.cookie_jar.filter_cookies(client.make_url("/painel/"))[COOKIE_NAME].value
    token = await _issue(client, clerk_csrf, "script")
    unused = await new_link(sessions, settings, CLARA)
    assert (await client.get("/painel/equipe")).status == 403  # admins only

    csrf = await sign_in(client, sessions, settings, ANA)
    team = await (await client.get("/painel/equipe")).text()
    assert "Clara" in team and f'action="/painel/equipe/{ANA}/encerrar"' not in team  # not one's own role
    ended = await client.post(f"/painel/equipe/{CLARA}/encerrar", data={"csrf": csrf, "municipio": "*"},
                              allow_redirects=False)
    assert ended.status == 303
    assert (await client.post(f"/painel/equipe/{ANA}/encerrar", data={"csrf": csrf, "municipio": "*"})).status == 403

    client.session.cookie_jar.clear()
    client.session.cookie_jar.update_cookies({COOKIE_NAME: clerk_cookie}, client.make_url("/painel/"))
    assert (await client.get("/painel/")).status == 401
    assert (await client.get("/api/cases", headers={"Authorization": f"Bearer {token}"})).status == 401
    async with sessions() as session:  # given a role back later, nothing from before comes back to life
        await add_staff(session=session, telegram_user_id=CLARA, role=Role.CLERK, name="Clara", actor="test")
    client.session.cookie_jar.clear()
    assert (await client.post(unused, allow_redirects=False)).status == 410
    async with sessions() as session:
        open_sessions = (await session.exec(select(ConsoleSession).where(
            ConsoleSession.telegram_user_id == CLARA, ConsoleSession.ended_at == None))).all()  # noqa: E711
        links = (await session.exec(select(ConsoleLink).where(ConsoleLink.telegram_user_id == CLARA))).all()
        [event] = (await session.exec(select(AuditEvent).where(AuditEvent.action == "staff.remove"))).all()
    assert open_sessions == []
    assert all(link.used_at is not None or link.expires_at <= NOW + dt.timedelta(hours=1) for link in links)
    assert event.actor == f"staff:{ANA}" and event.details["sessions_ended"] == 1
    assert event.details["tokens_revoked"] == 1 and event.details["links_revoked"] == 1
