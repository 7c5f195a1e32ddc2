"""L1533 Art. 5 IX: the platforms send the list of vehicles, owners and drivers every 30 days; staff record
each list and are warned, one outbox row per late platform and due day, when one is late."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from zoneinfo import ZoneInfo

import pytest
import time_machine
from aiohttp.test_utils import TestClient, TestServer
from pydantic import SecretStr
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.web import build_web_app
from core.db import SessionFactory
from core.i18n import translator
from core.settings import Settings
from models.outbox import OutboxMessage
from models.people import Role, add_staff, ensure_person
from notifications.platform_lists import LATE_LIST
from notifications.rendering import render
from notifications.scans import ScanInputs, run_scan

TOKEN = "api-token-for-platforms"
CLARA, IVO = 7301, 7302  # a clerk, an inspector
CUIABA = ZoneInfo("America/Cuiaba")


def at(day: dt.date) -> dt.datetime:
    return dt.datetime(day.year, day.month, day.day, 10, tzinfo=CUIABA)


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory, session: AsyncSession) -> AsyncIterator[TestClient]:
    await add_staff(session=session, telegram_user_id=CLARA, role=Role.CLERK, name="Clara", actor="test")
    await add_staff(session=session, telegram_user_id=IVO, role=Role.INSPECTOR, name="Ivo", actor="test")
    await ensure_person(session=session, telegram_user_id=CLARA, chat_id=CLARA, first_name="Clara",
                        language_code="pt-br")
    with_token = settings.model_copy(update={"staff_api_token": SecretStr(TOKEN)})
    async with TestClient(TestServer(build_web_app(with_token, sessions))) as test_client:
        yield test_client


def _as(staff_id: int) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}", "X-Balcao-Staff": str(staff_id)}


async def _late_rows(session: AsyncSession) -> list[OutboxMessage]:
    return list((await session.exec(select(OutboxMessage).where(OutboxMessage.kind == LATE_LIST))).all())


async def test_art_5_ix_lists_every_30_days_late_platforms_are_warned_once(
    client: TestClient, session: AsyncSession, settings: Settings
) -> None:
    with time_machine.travel(at(dt.date(2027, 1, 4)), tick=False):
        assert (await client.post("/api/platforms", json={"name": "Roda Já"}, headers=_as(IVO))).status == 403
        created = await client.post("/api/platforms", json={"name": "Roda Já", "accredited_on": "2027-01-04"},
                                    headers=_as(CLARA))
        assert created.status == 201
        platform_id = (await created.json())["id"]
        assert (await client.post("/api/platforms", json={"name": "roda já"}, headers=_as(CLARA))).status == 409
    # accredited Monday 4 January: the first list is due 30 days later, Wednesday 3 February
    assert await run_scan("platform-lists", session=session, now=at(dt.date(2027, 2, 3)),
                          inputs=ScanInputs.of(settings)) == 0
    assert await run_scan("platform-lists", session=session, now=at(dt.date(2027, 2, 4)),
                          inputs=ScanInputs.of(settings)) == 1
    assert await run_scan("platform-lists", session=session, now=at(dt.date(2027, 2, 5)),
                          inputs=ScanInputs.of(settings)) == 0
    [warning] = await _late_rows(session)
    with time_machine.travel(at(dt.date(2027, 2, 4)), tick=False):
        listed = await (await client.get("/api/platforms", headers=_as(CLARA))).json()
        text = render(LATE_LIST, warning.payload, translator("pt_BR")).text
    assert listed["platforms"][0] | {"id": 0} == {
        "id": 0, "name": "Roda Já", "accredited_on": "2027-01-04", "last_received_on": None,
        "due_on": "2027-02-03", "late": True, "days_late": 1, "article": "Lei 1.533/2020, Art. 5º, IX"}
    assert "Roda Já" in text and "3 de fevereiro de 2027" in text and "Art. 5º, IX" in text

    with time_machine.travel(at(dt.date(2027, 2, 5)), tick=False):
        got = await client.post(f"/api/platforms/{platform_id}/lists", json={}, headers=_as(CLARA))
        assert got.status == 201
        bad = await client.post(f"/api/platforms/{platform_id}/lists", json={"received_on": "2027-03-01"},
                                headers=_as(CLARA))
        assert bad.status == 422  # a day in the future
        assert (await client.post("/api/platforms/999/lists", json={}, headers=_as(CLARA))).status == 404
        listed = await (await client.get("/api/platforms", headers=_as(CLARA))).json()
    # 30 days from 5 February end Sunday 7 March: due on the next business day, Monday 8 March
    assert (listed["platforms"][0]["due_on"], listed["platforms"][0]["late"]) == ("2027-03-08", False)
    assert await run_scan("platform-lists", session=session, now=at(dt.date(2027, 3, 8)),
                          inputs=ScanInputs.of(settings)) == 0
    assert await run_scan("platform-lists", session=session, now=at(dt.date(2027, 3, 9)),
                          inputs=ScanInputs.of(settings)) == 1


async def test_the_days_are_typed_as_in_the_chat(client: TestClient) -> None:
    """models/when.py: a weekday, "ontem" and a day without a year (they were refused: YYYY-MM-DD or DD/MM/YYYY)."""
    with time_machine.travel(at(dt.date(2027, 2, 5)), tick=False):  # a Friday
        created = await client.post("/api/platforms", json={"name": "Roda Já", "accredited_on": "segunda"},
                                    headers=_as(CLARA))
        assert created.status == 201, await created.text()
        platform_id = (await created.json())["id"]
        got = await client.post(f"/api/platforms/{platform_id}/lists", json={"received_on": "ontem"},
                                headers=_as(CLARA))
        assert (got.status, (await got.json())["received_on"]) == (201, "2027-02-04")
        listed = await (await client.get("/api/platforms", headers=_as(CLARA))).json()
        bad = await client.post(f"/api/platforms/{platform_id}/lists", json={"received_on": "31/02"},
                                headers=_as(CLARA))
    assert listed["platforms"][0]["accredited_on"] == "2027-02-01"
    assert bad.status == 422
