"""Equipe in the console (issue 18 §1): an admin gives a staff member a competence with their matrícula and
designation act; the office and role come from the municipalities file; CP Art. 12 refuses autuar without the
portaria; admins only."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestClient
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.db import SessionFactory
from core.settings import Settings
from models.authorities import StaffAuthority
from models.people import Role, StaffMember
from tests.auxil.case_people import ANA, NOW, Cast, make_cast
from tests.auxil.console import console_client, sign_in

CLARA = 7101


@pytest.fixture
async def cast(session: AsyncSession) -> Cast:
    return await make_cast(session, with_admin=True)


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory, cast: Cast) -> AsyncIterator[TestClient]:
    async with console_client(settings, sessions, NOW) as test_client:
        yield test_client


async def test_an_admin_designates_the_agent_and_names_the_head_of_department(
    client: TestClient, sessions: SessionFactory, settings: Settings
) -> None:
    csrf = await sign_in(client, sessions, settings, ANA)
    page = await (await client.get("/painel/competencias")).text()
    assert "Agente fiscal designado (Departamento de Fiscalização)" in page  # the defaults of CP Art. 12
    form = {"csrf": csrf, "telegram_id": "7300", "name": "Rui Fiscal", "registration": "4321",
            "municipality": "nova-xavantina", "role": "inspector", "act": "autuar", "designation_kind": "Portaria"}
    refused = await client.post("/painel/competencias", data=form)
    text = await refused.text()
    assert refused.status == 422 and "Art. 12" in text and 'value="Rui Fiscal"' in text  # nothing typed is lost
    saved = await client.post("/painel/competencias", data={**form, "designation_number": "12/2026",
                                                      "designation_date": "2026-01-02"})
    assert saved.status == 200 and "Rui Fiscal" in await saved.text() and "Portaria 12/2026" in await saved.text()
    head = {**form, "telegram_id": "7301", "name": "Carlos Chefe", "role": "clerk", "act": "primeira_instancia"}
    assert (await client.post("/painel/competencias", data=head)).status == 200
    async with sessions() as session:
        rows = (await session.exec(select(StaffMember, StaffAuthority).join(
            StaffAuthority, StaffAuthority.staff_member_id == StaffMember.id))).all()  # type: ignore[arg-type]
    assert {(m.name, m.registration, a.act, a.title, a.designation_number) for m, a in rows} == {
        ("Rui Fiscal", "4321", "autuar", "Agente fiscal designado", "12/2026"),
        ("Carlos Chefe", "4321", "primeira_instancia", "Chefe do Departamento", ""),
    }


async def test_only_admins_open_the_staff_page(client: TestClient, sessions: SessionFactory,
                                              settings: Settings) -> None:
    csrf = await sign_in(client, sessions, settings, CLARA)
    assert (await client.get("/painel/competencias", allow_redirects=False)).status == 403
    posted = await client.post("/painel/competencias", data={"csrf": csrf, "telegram_id": str(CLARA), "name": "Clara",
                                                       "registration": "1", "municipality": "nova-xavantina",
                                                       "role": "admin", "act": "segunda_instancia"})
    assert posted.status == 403


async def test_an_overlong_name_or_matricula_is_refused_with_everything_kept(
    client: TestClient, sessions: SessionFactory, settings: Settings
) -> None:
    """The columns hold 128 and 32 characters: longer is a clear 422 with the form kept, never a 500 (PostgreSQL
    refuses to store it) nor a row longer than its column (SQLite keeps it)."""
    csrf = await sign_in(client, sessions, settings, ANA)
    form = {"csrf": csrf, "telegram_id": "7300", "name": "N" * 150, "registration": "4321",
            "municipality": "nova-xavantina", "role": "clerk", "act": "primeira_instancia"}
    long_name = await client.post("/painel/competencias", data=form)
    assert long_name.status == 422 and 'value="4321"' in await long_name.text()
    long_number = await client.post("/painel/competencias", data={**form, "name": "Rui", "registration": "9" * 40})
    assert long_number.status == 422 and 'value="Rui"' in await long_number.text()
    async with sessions() as session:
        assert (await session.exec(select(StaffMember).where(StaffMember.telegram_user_id == 7300))).first() is None


async def test_an_admin_cannot_make_themselves_the_ombudsman(
    client: TestClient, sessions: SessionFactory, settings: Settings
) -> None:
    """An admin reads no restricted ombudsman case (L13460 Art. 10 §7); on main this form turned Ana's own
    role into ``ombudsman`` and opened every one of them to her."""
    csrf = await sign_in(client, sessions, settings, ANA)
    form = {"csrf": csrf, "telegram_id": str(ANA), "name": "Ana", "registration": "77",
            "municipality": "nova-xavantina", "role": "ombudsman", "act": "primeira_instancia"}
    refused = await client.post("/painel/competencias", data=form)
    assert refused.status == 403 and 'value="77"' in await refused.text()
    async with sessions() as session:
        roles = {m.role for m in (await session.exec(select(StaffMember).where(
            StaffMember.telegram_user_id == ANA))).all()}
    assert Role.OMBUDSMAN not in roles
