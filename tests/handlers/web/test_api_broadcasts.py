"""The staff HTTP API of broadcasts: audiences, preview with count, create (idempotent), follow, cancel."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from pydantic import SecretStr

from bot.web import build_web_app
from core.db import SessionFactory
from core.settings import Settings
from models.people import Person, Role, add_staff
from notifications.audiences import AudienceParams, audience
from notifications.plugins import load_all

TOKEN = "api-token-for-broadcast-tests"
CLARA, INES = 870101, 870102
CITIZENS = (870001, 870002)

load_all()


async def _topics(*, session: Any) -> list[tuple[str, str]]:
    return [("iluminacao", "Street lighting")]


@audience("test-api-topics", label="People following a topic (API test)", takes_topic=True, topic_choices=_topics)
async def followers(*, session: Any, now: dt.datetime, params: AudienceParams) -> list[int]:
    return []


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory) -> AsyncIterator[TestClient]:
    async with sessions() as session:
        for telegram_id in (CLARA, INES, *CITIZENS):
            session.add(Person(telegram_user_id=telegram_id, chat_id=telegram_id, first_name="x", locale="pt_BR"))
        await session.commit()
        await add_staff(session=session, telegram_user_id=CLARA, role=Role.CLERK, actor="test")
        await add_staff(session=session, telegram_user_id=INES, role=Role.INSPECTOR, actor="test")
    with_token = settings.model_copy(update={"staff_api_token": SecretStr(TOKEN)})
    async with TestClient(TestServer(build_web_app(with_token, sessions))) as test_client:
        yield test_client


def headers(staff_id: int = CLARA, **extra: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}", "X-Balcao-Staff": str(staff_id), **extra}


async def test_only_clerks_and_admins_with_the_token(client: TestClient) -> None:
    assert (await client.get("/api/audiences")).status == 401
    assert (await client.get("/api/audiences", headers={**headers(), "Authorization": "Bearer nope"})).status == 401
    assert (await client.get("/api/audiences", headers=headers(INES))).status == 403
    response = await client.get("/api/audiences", headers=headers())
    assert response.status == 200
    names = {item["name"]: item for item in (await response.json())["audiences"]}
    assert names["everyone"]["label"] == "Everyone who has used the bot" and not names["everyone"]["takes_days"]
    assert names["test-api-topics"]["topics"] == [{"topic": "iluminacao", "label": "Street lighting"}]


async def test_preview_counts_and_shows_the_notice_as_received(client: TestClient) -> None:
    body = {"audience": "everyone", "text": "Vacinação <b>amanhã</b>", "html": True, "locale": "en"}
    response = await client.post("/api/broadcasts/preview", json=body, headers=headers())
    assert response.status == 200, await response.text()
    data = await response.json()
    assert data["recipients"] == 4 and data["left_out"] == 0
    assert "Notice from the City Hall of Sapezal" in data["preview"] and "Vacinação <b>amanhã</b>" in data["preview"]
    bad = await client.post("/api/broadcasts/preview", json={**body, "text": "<b>open"}, headers=headers())
    assert bad.status == 422 and (await bad.json())["error"] == "bad_html"


async def test_create_follow_and_cancel(client: TestClient) -> None:
    body = {"audience": "everyone", "text": "Reunião às 19h.", "at": "31/12/2099 08:00"}
    created = await client.post("/api/broadcasts", json=body, headers=headers(**{"Idempotency-Key": "k-1"}))
    assert created.status == 201, await created.text()
    data = await created.json()
    assert data["recipients"] == 4 and data["counts"]["pending"] == 4 and data["status"] == "active"
    assert data["send_at"] == "2099-12-31T12:00:00+00:00"
    again = await client.post("/api/broadcasts", json=body, headers=headers(**{"Idempotency-Key": "k-1"}))
    assert again.status == 200 and (await again.json())["id"] == data["id"]  # a retried request: one broadcast

    listed = await (await client.get("/api/broadcasts", headers=headers())).json()
    assert [item["id"] for item in listed["broadcasts"]] == [data["id"]]
    shown = await client.get(f"/api/broadcasts/{data['id']}", headers=headers())
    assert (await shown.json())["counts"]["pending"] == 4

    cancelled = await client.post(f"/api/broadcasts/{data['id']}/cancel", headers=headers())
    result = await cancelled.json()
    assert cancelled.status == 200 and result["status"] == "cancelled" and result["counts"]["cancelled"] == 4
    assert (await client.post(f"/api/broadcasts/{data['id']}/cancel", headers=headers())).status == 409
    assert (await client.get("/api/broadcasts/999", headers=headers())).status == 404
    for odd in ("%C2%B2", "99999999999", "x"):  # "²" and an id over INTEGER used to answer 500
        assert (await client.get(f"/api/broadcasts/{odd}", headers=headers())).status == 404, odd
        assert (await client.post(f"/api/broadcasts/{odd}/cancel", headers=headers())).status == 404, odd


async def test_bad_requests_get_a_code_and_a_message(client: TestClient) -> None:
    cases = [
        ({"text": "x"}, 400, "bad_request"),
        ({"audience": "everyone", "text": "x", "days": "ten"}, 400, "bad_request"),
        ({"audience": "nobody-knows", "text": "x"}, 422, "unknown_audience"),
        ({"audience": "everyone", "text": "   "}, 422, "empty_text"),
        ({"audience": "everyone", "text": "x" * 5000}, 422, "text_too_long"),
        ({"audience": "everyone", "text": "x", "at": "2001-01-01T08:00-04:00"}, 422, "in_the_past"),
        ({"audience": "everyone", "text": "x", "at": "someday"}, 400, "bad_request"),
    ]
    for body, status, code in cases:
        response = await client.post("/api/broadcasts", json=body, headers=headers())
        data = await response.json()
        assert (response.status, data["error"]) == (status, code), body
        assert data["message"]
    raw = await client.post("/api/broadcasts", data=b"not json", headers=headers())
    assert raw.status == 400
