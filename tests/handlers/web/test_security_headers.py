"""Safe headers on every answer (handlers/web/security_headers.py): no HTML page can be framed (CSP
frame-ancestors 'none'), nothing is sniffed, no address leaves in a Referer, HSTS behind https; a citizen's file
goes out of the staff API as a sandboxed download."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestClient, TestServer
from pydantic import SecretStr
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.web import build_web_app
from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.cases.attachments import store_attachment
from models.cases.filing import file_representation
from models.cases.limits import CaseLimits
from tests.auxil.case_files import pdf
from tests.auxil.case_people import NOW, make_cast, representation
from tests.auxil.staff_api import own_token

PAGES = ("/transparencia", "/transparencia/sapezal", "/verificar", "/verificar/7K2M-QX9D-4HRT")


async def _client(settings: Settings, sessions: SessionFactory) -> TestClient:
    return TestClient(TestServer(build_web_app(settings, sessions)))


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory) -> AsyncIterator[TestClient]:
    shared = settings.model_copy(update={"staff_api_token": SecretStr("shared")})
    async with await _client(shared, sessions) as test_client:
        yield test_client


@pytest.mark.parametrize("path", PAGES)
async def test_every_html_page_refuses_frames_and_sniffing(client: TestClient, path: str) -> None:
    response = await client.get(path)
    assert response.content_type == "text/html", path
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert "Strict-Transport-Security" not in response.headers  # plain http: HSTS would mean nothing


async def test_json_and_errors_are_not_sniffed_and_https_adds_hsts(settings: Settings, sessions: SessionFactory
                                                                   ) -> None:
    behind_tls = settings.model_copy(update={"public_url": "https://balcao.example.gov.br"})
    async with await _client(behind_tls, sessions) as client:
        for path in ("/healthz", "/verificar/sth.json", "/nada-aqui", "/transparencia"):
            response = await client.get(path)
            assert response.headers["X-Content-Type-Options"] == "nosniff", path
            assert response.headers["Strict-Transport-Security"].startswith("max-age=31536000"), path


async def test_a_file_from_the_staff_api_is_a_sandboxed_download(
    client: TestClient, session: AsyncSession, settings: Settings
) -> None:
    cast = await make_cast(session)
    stored = await store_attachment(session=session, person_id=cast.joao.id, content=pdf(), file_name="a.pdf",
                                    limits=CaseLimits.of(settings), already=[])
    filed = await file_representation(session=session, person_id=cast.joao.id, now=NOW, cities=cities_of(settings),
                                      form=representation(attachment_ids=[stored.id]))
    headers = await own_token(session, cast.clara.telegram_user_id)
    case = await (await client.get(f"/api/cases/{filed.protocol}", headers=headers)).json()
    response = await client.get(f"/api/cases/{filed.protocol}/attachments/{case['attachments'][0]['id']}",
                                headers=headers)
    assert response.status == 200
    assert response.headers["Content-Disposition"].startswith("attachment;")
    assert response.headers["Content-Security-Policy"].startswith("sandbox")
    assert response.headers["X-Content-Type-Options"] == "nosniff"
