"""The console's "Atribuir a": each colleague once, and the reader only as "Mim" (a newcomer's walk, issue 20 §3).

A clerk who holds the role in two municipalities, or in one and deployment-wide, has a row for each; the list
offered them twice. The reader was offered as "Mim" and again by name.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestClient
from sqlmodel.ext.asyncio.session import AsyncSession

from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.cases.filing import file_representation
from models.console.case_list import colleagues
from models.people import Role, add_staff
from tests.auxil.case_people import NOW, Cast, make_cast, representation
from tests.auxil.console import console_client, sign_in

CLARA, BIA = 7101, 7150


@pytest.fixture
async def cast(session: AsyncSession) -> Cast:
    cast = await make_cast(session)
    for municipality in ("sapezal", "nova-xavantina"):  # Bia covers both cities' counters
        await add_staff(session=session, telegram_user_id=BIA, role=Role.CLERK, name="Bia", actor="test",
                        municipality=municipality)
    return cast


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory, cast: Cast) -> AsyncIterator[TestClient]:
    async with console_client(settings, sessions, NOW + dt.timedelta(hours=1)) as test_client:
        yield test_client


def _offered(html: str, select_id: str) -> list[str]:
    block = re.search(rf'<select name="assignee" id="{select_id}">(.*?)</select>', html, re.S)
    assert block is not None
    return re.findall(r"<option value=\"\d*\">([^<]+)</option>", block.group(1))


async def test_each_colleague_is_offered_once_and_the_reader_only_as_mim(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    async with sessions() as session:
        filed = await file_representation(session=session, person_id=cast.joao.id, form=representation(),
                                          now=NOW, cities=cities_of(settings))
    await sign_in(client, sessions, settings, CLARA)
    case_page = await (await client.get(f"/painel/casos/{filed.protocol}")).text()
    list_page = await (await client.get("/painel/casos")).text()
    for offered in (_offered(case_page, "assignee"), _offered(list_page, "bulk-assignee")):
        assert offered.count("Bia") == 1, offered
        assert "Clara" not in offered, offered  # she is "Mim"
        assert offered[0] == "Mim"


async def test_colleagues_prefers_the_row_of_the_municipality_shown(session: AsyncSession, cast: Cast) -> None:
    await add_staff(session=session, telegram_user_id=BIA, role=Role.CLERK, name="Bia", actor="test")
    offered = await colleagues(session=session, role=Role.CLERK, municipalities=("sapezal",), viewer=CLARA)
    bia = [member for member in offered if member.telegram_user_id == BIA]
    assert len(bia) == 1 and bia[0].municipality == "sapezal"
