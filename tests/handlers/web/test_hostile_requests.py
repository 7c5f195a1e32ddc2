"""Issue 10 item 7: a malformed request is a 4xx with the documented error shape, never a 500.

Every route the server mounts (``handlers.web.routes.ROUTE_TABLES``) gets hostile path values, a hostile
``X-Balcao-Staff`` header and hostile bodies, as an admin with the right token.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from pydantic import SecretStr

from bot.web import build_web_app
from core.db import SessionFactory
from core.settings import Settings
from handlers.web.routes import ROUTE_TABLES
from models.people import Person, Role, add_staff
from notifications.plugins import load_all

TOKEN = "api-token-for-hostile-tests"
ADMIN = 880101
load_all()


def _routes() -> list[tuple[str, str]]:
    found = []
    for table in ROUTE_TABLES:
        for route in table:
            if isinstance(route, web.RouteDef) and route.method in ("GET", "POST"):
                found.append((route.method, route.path))
    return found


ROUTES = _routes()
PROBES = {"/healthz", "/readyz"}
"""Their documented answer when not ready is 503 (here: a schema made without Alembic); never a 500."""


def _not_a_server_error(path: str, status: int) -> bool:
    return status < 500 or (path in PROBES and status == 503)
HOSTILE_IDS = ["²", "1" * 20, "9" * 30, "-1", "%00", "x" * 300]
NESTED = "[" * 100_000 + "]" * 100_000
BODIES: list[tuple[str, Any]] = [
    ("array", "[1, 2]"),
    ("number", "42"),
    ("string", '"x"'),
    ("nested", NESTED),
    ("not json", "{nope"),
    ("far future", '{"at": "9999-12-31T23:59", "audience": "everyone", "text": "x", "topic": "y"}'),
    ("huge topic", '{"audience": "citizens", "text": "x", "topic": "' + "t" * 10_000 + '"}'),
    ("huge topic, other audience", '{"audience": "everyone", "text": "x", "topic": "' + "t" * 10_000 + '"}'),
    ("huge ids", '{"staff_id": ' + "9" * 30 + ', "telegram_user_id": 1e999, "days": 99999999999999999999}'),
    ("wrong types", '{"audience": 5, "text": [], "at": {}, "days": "x", "outcome": 7, "reason": null}'),
]


def _fill(path: str, value: str) -> str:
    return re.sub(r"\{([^}:]+)(:[^}]+)?\}", lambda m: "1" if m.group(2) == ":\\d+" else value, path)


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory) -> AsyncIterator[TestClient]:
    async with sessions() as session:
        session.add(Person(telegram_user_id=ADMIN, chat_id=ADMIN, first_name="x", locale="pt_BR"))
        await session.commit()
        await add_staff(session=session, telegram_user_id=ADMIN, role=Role.ADMIN, actor="test")
    with_token = settings.model_copy(update={"staff_api_token": SecretStr(TOKEN)})
    async with TestClient(TestServer(build_web_app(with_token, sessions))) as test_client:
        yield test_client


def _headers(staff: str = str(ADMIN)) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}", "X-Balcao-Staff": staff, "Content-Type": "application/json"}


async def _is_4xx_with_shape(response: Any, where: str) -> None:
    assert response.status < 500, f"{where}: {response.status}"
    if response.status >= 400 and response.content_type == "application/json":
        body = await response.json()
        assert isinstance(body.get("error"), str) and isinstance(body.get("message"), str), where


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=[f"{m} {p}" for m, p in ROUTES])
async def test_hostile_staff_header_is_a_4xx(client: TestClient, method: str, path: str) -> None:
    for staff in ["²", "1" * 20, "9" * 30, "-5", "0x10", "1e5"]:
        response = await client.request(method, _fill(path, "REP-2026-000001"), headers=_headers(staff), data="{}")
        if path.startswith("/api/"):
            assert response.status == 400, (path, staff, response.status)
            await _is_4xx_with_shape(response, f"{path} staff={staff!r}")
        else:
            assert _not_a_server_error(path, response.status), (path, staff)


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=[f"{m} {p}" for m, p in ROUTES])
async def test_hostile_path_values_are_a_4xx(client: TestClient, method: str, path: str) -> None:
    if "{" not in path:
        pytest.skip("no path parameter")
    for value in HOSTILE_IDS:
        response = await client.request(method, _fill(path, value), headers=_headers(), data="{}")
        assert response.status < 500, (path, value, response.status)
        await _is_4xx_with_shape(response, f"{path} value={value!r}")


@pytest.mark.parametrize(("method", "path"), [r for r in ROUTES if r[0] == "POST"],
                         ids=[f"{m} {p}" for m, p in ROUTES if m == "POST"])
async def test_hostile_bodies_are_a_4xx(client: TestClient, method: str, path: str) -> None:
    for name, body in BODIES:
        response = await client.request(method, _fill(path, "1"), headers=_headers(), data=body)
        assert response.status < 500, (path, name, response.status)
        await _is_4xx_with_shape(response, f"{path} body={name}")


async def test_an_unexpected_error_is_a_json_500_with_a_reference_and_never_a_traceback(
    settings: Settings, sessions: SessionFactory, caplog: pytest.LogCaptureFixture
) -> None:
    async def boom(_request: web.Request) -> web.Response:
        raise RuntimeError("secret internals")

    app = build_web_app(settings, sessions)
    app.router.add_get("/boom", boom)
    async with TestClient(TestServer(app)) as test_client:
        response = await test_client.get("/boom")
        body = await response.json()
    assert response.status == 500 and body["error"] == "internal"
    assert re.fullmatch(r"E-[0-9A-F]{6}", body["reference"]) and "secret internals" not in str(body)
    assert any(body["reference"] in r.getMessage() and r.exc_info for r in caplog.records)
