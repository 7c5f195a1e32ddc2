"""Signing in to the staff console: a one-time link (single use, 10 minutes, stored hashed), a server-side session
(HttpOnly, SameSite=Lax, idle timeout, sign-out), the role checked on every request, and CSRF on every change.
Every refusal changes nothing."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator

import pytest
import time_machine
from aiohttp.test_utils import TestClient, TestServer
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.web import build_web_app
from core.db import SessionFactory
from core.municipality import ConsoleTimes, cities_of
from core.settings import Settings
from models.audit import AuditEvent
from models.cases.filing import file_representation
from models.cases.tables import Case, CaseStatus
from models.console.signin import TooManyLinks, digest, issue_link
from models.console.tables import ConsoleLink, ConsoleSession
from models.people import PermissionDenied, Role, StaffMember, add_staff, set_locale
from tests.auxil.case_people import NOW, Cast, make_cast, representation
from tests.auxil.console import new_link, sign_in

CLARA, INES, JOAO = 7101, 7102, 7001


@pytest.fixture
async def cast(session: AsyncSession) -> Cast:
    return await make_cast(session)


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory, cast: Cast) -> AsyncIterator[TestClient]:
    with time_machine.travel(NOW, tick=False):
        async with TestClient(TestServer(build_web_app(settings, sessions))) as test_client:
            yield test_client


async def _case(sessions: SessionFactory, settings: Settings, cast: Cast) -> str:
    async with sessions() as session:
        filed = await file_representation(session=session, person_id=cast.joao.id, form=representation(), now=NOW,
                                          cities=cities_of(settings))
    return filed.protocol


async def _status(sessions: SessionFactory, protocol: str) -> tuple[CaseStatus, int | None]:
    async with sessions() as session:
        case = (await session.exec(select(Case).where(Case.protocol == protocol))).one()
        return case.status, case.assigned_staff_id


async def test_a_link_signs_in_once_and_only_its_hash_is_stored(
    client: TestClient, sessions: SessionFactory, settings: Settings
) -> None:
    path = await new_link(sessions, settings, CLARA)
    token = path.rsplit("/", 1)[1]
    async with sessions() as session:
        stored = (await session.exec(select(ConsoleLink))).one()
    assert stored.token_sha256 == digest(token) and token not in stored.token_sha256
    assert stored.expires_at - stored.created_at == dt.timedelta(minutes=10)

    page = await client.get(path)  # looking at the link (a preview, a prefetch) does not use it
    assert page.status == 200 and "Entrar" in await page.text()
    signed = await client.post(path, allow_redirects=False)
    assert signed.status == 303 and signed.headers["Location"] == "/painel/"
    cookie = signed.cookies["balcao_console"]
    assert cookie["httponly"] and cookie["samesite"] == "Lax" and not cookie["secure"]  # http in the tests
    assert cookie["path"] == "/painel/"
    home = await client.get("/painel/")
    assert home.status == 200 and "Painel" in await home.text()
    assert home.headers["Referrer-Policy"] == "no-referrer" and "frame-ancestors 'none'" in home.headers[
        "Content-Security-Policy"]

    client.session.cookie_jar.clear()
    again = await client.post(path)
    assert again.status == 410 and "já foi usado" in await again.text()
    async with sessions() as session:
        assert len((await session.exec(select(ConsoleSession))).all()) == 1
        actions = [e.action for e in (await session.exec(select(AuditEvent))).all()]
    assert actions.count("console.link") == 1 and actions.count("console.signin") == 1


async def test_expired_unknown_and_foreign_links_are_refused_with_a_page(
    client: TestClient, sessions: SessionFactory, settings: Settings
) -> None:
    path = await new_link(sessions, settings, CLARA)
    with time_machine.travel(NOW + dt.timedelta(minutes=10, seconds=1), tick=False):
        expired = await client.post(path)
    assert expired.status == 410 and "expirou" in await expired.text()
    unknown = await client.get("/painel/entrar/not-a-real-token")
    assert unknown.status == 404 and "/painel" in await unknown.text()

    await sign_in(client, sessions, settings, INES)
    foreign = await client.post(await new_link(sessions, settings, CLARA))
    assert foreign.status == 403 and "Saia primeiro" in await foreign.text()
    async with sessions() as session:
        owners = [s.telegram_user_id for s in (await session.exec(select(ConsoleSession))).all()]
    assert owners == [INES]


async def test_link_requests_are_rate_limited_and_only_for_staff(sessions: SessionFactory, settings: Settings,
                                                                 cast: Cast) -> None:
    async with sessions() as session:
        with pytest.raises(PermissionDenied):
            await issue_link(session=session, telegram_user_id=JOAO, now=NOW, times=ConsoleTimes.of(settings))
        for _ in range(settings.console_links_per_hour):
            await issue_link(session=session, telegram_user_id=CLARA, now=NOW, times=ConsoleTimes.of(settings))
        with pytest.raises(TooManyLinks):
            await issue_link(session=session, telegram_user_id=CLARA, now=NOW + dt.timedelta(minutes=59),
                             times=ConsoleTimes.of(settings))
        await issue_link(session=session, telegram_user_id=CLARA, now=NOW + dt.timedelta(minutes=61),
                         times=ConsoleTimes.of(settings))


async def test_no_session_and_an_idle_session_get_nothing(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    protocol = await _case(sessions, settings, cast)
    for path in ("/painel/", "/painel/casos", f"/painel/casos/{protocol}", "/painel/auditoria"):
        response = await client.get(path)
        assert response.status == 401 and "/painel" in await response.text(), path
    refused = await client.post(f"/painel/casos/{protocol}/assign", data={"csrf": "0" * 64})
    assert refused.status == 401
    assert await _status(sessions, protocol) == (CaseStatus.RECEIVED, None)

    await sign_in(client, sessions, settings, CLARA)
    with time_machine.travel(NOW + dt.timedelta(minutes=31), tick=False):
        assert (await client.get("/painel/")).status == 401  # BALCAO_CONSOLE_IDLE_MINUTES = 30
    assert (await client.get("/painel/")).status == 401  # and it stays ended


async def test_missing_or_wrong_csrf_changes_nothing(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    protocol = await _case(sessions, settings, cast)
    csrf = await sign_in(client, sessions, settings, CLARA)
    for data in ({}, {"csrf": "0" * 64}, {"csrf": csrf[:-1]}):
        refused = await client.post(f"/painel/casos/{protocol}/assign", data=data)
        assert refused.status == 403 and "nada foi alterado" in await refused.text()
    assert await _status(sessions, protocol) == (CaseStatus.RECEIVED, None)
    assert (await client.post("/painel/sair")).status == 403  # signing out is a change too
    done = await client.post(f"/painel/casos/{protocol}/assign", data={"csrf": csrf}, allow_redirects=False)
    assert done.status == 303
    assert (await _status(sessions, protocol))[0] is CaseStatus.IN_PROGRESS


async def test_another_role_and_a_removed_member_are_refused(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    protocol = await _case(sessions, settings, cast)
    csrf = await sign_in(client, sessions, settings, INES)  # an inspector; representações are the clerks'
    refused = await client.post(f"/painel/casos/{protocol}/decide",
                                data={"csrf": csrf, "outcome": "archive", "text": "Não procede, verificado."})
    assert refused.status == 403
    assert (await client.get("/painel/auditoria")).status == 403  # admins only
    assert await _status(sessions, protocol) == (CaseStatus.RECEIVED, None)

    async with sessions() as session:
        member = (await session.exec(select(StaffMember).where(StaffMember.telegram_user_id == INES))).one()
        member.active = False
        await session.commit()
    assert (await client.get("/painel/")).status == 401  # the role is checked on every request


async def test_sign_out_ends_the_session(
    client: TestClient, sessions: SessionFactory, settings: Settings
) -> None:
    async with sessions() as session:
        await add_staff(session=session, telegram_user_id=7200, role=Role.ADMIN, name="Ana", actor="test")
    csrf = await sign_in(client, sessions, settings, 7200)
    cookie = client.session.cookie_jar.filter_cookies(client.make_url("/painel/"))["balcao_console"].value
    out = await client.post("/painel/sair", data={"csrf": csrf})
    assert out.status == 200 and "saiu" in (await out.text()).lower()
    client.session.cookie_jar.update_cookies({"balcao_console": cookie})  # a copied cookie is dead too
    assert (await client.get("/painel/")).status == 401


async def test_the_cookie_is_secure_behind_https(settings: Settings, sessions: SessionFactory, cast: Cast) -> None:
    public = settings.model_copy(update={"public_url": "https://balcao.example.gov.br"})
    with time_machine.travel(NOW, tick=False):
        async with TestClient(TestServer(build_web_app(public, sessions))) as client:
            signed = await client.post(await new_link(sessions, public, CLARA), allow_redirects=False)
    assert signed.status == 303 and signed.cookies["balcao_console"]["secure"]


async def test_two_presses_of_one_link_at_the_same_instant_open_one_session(
    settings: Settings, sessions: SessionFactory, cast: Cast
) -> None:
    with time_machine.travel(NOW, tick=False):
        path = await new_link(sessions, settings, CLARA)
        async with TestClient(TestServer(build_web_app(settings, sessions))) as first, \
                TestClient(TestServer(build_web_app(settings, sessions))) as second:
            answers = await asyncio.gather(first.post(path, allow_redirects=False),
                                           second.post(path, allow_redirects=False))
    assert sorted(a.status for a in answers) == [303, 410]
    async with sessions() as session:
        assert len((await session.exec(select(ConsoleSession))).all()) == 1


async def test_the_console_speaks_the_staff_members_bot_language(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    async with sessions() as session:
        await set_locale(session=session, person_id=cast.clara.id, locale="es")
    await sign_in(client, sessions, settings, CLARA)
    page = await (await client.get("/painel/casos")).text()
    assert '<html lang="es">' in page and "Casos" in page and "Filtrar los casos" in page
