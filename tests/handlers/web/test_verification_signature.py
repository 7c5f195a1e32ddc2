"""/verificar reports the PDF's PAdES signature beside the log's inclusion proof (L14063 Art. 4; issue 18)."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy import update
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.web import build_web_app
from core.db import SessionFactory
from core.settings import Settings
from models.notices.tables import Notice
from tests.auxil.notices import cp_auto, issue
from tests.auxil.signing import flipped_byte

NOW = dt.datetime(2026, 3, 2, 14, 0, tzinfo=dt.UTC)


@pytest.fixture
async def signed_client(signed_settings: Settings, sessions: SessionFactory) -> AsyncIterator[TestClient]:
    async with TestClient(TestServer(build_web_app(signed_settings, sessions))) as test_client:
        yield test_client


async def test_a_signed_notice_shows_a_valid_trusted_signature_beside_the_proof(
    signed_client: TestClient, session: AsyncSession, signed_settings: Settings
) -> None:
    issued = await issue(session, signed_settings, cp_auto(), now=NOW)
    page = await (await signed_client.get(f"/verificar/{issued.code}")).text()
    assert 'id="prova"' in page and 'id="assinatura"' in page
    for shown in ("Assinatura digital do PDF", "Válida: o PDF não mudou desde que foi assinado",
                  "Prefeitura Municipal de Nova Xavantina", "cadeia até a raiz em que a Prefeitura confia"):
        assert shown in page, shown


async def test_a_stored_pdf_altered_after_signing_is_reported_invalid(
    signed_client: TestClient, session: AsyncSession, signed_settings: Settings
) -> None:
    issued = await issue(session, signed_settings, cp_auto(), now=NOW)
    # Someone with write access to the database alters the stored PDF behind the ORM's guard.
    connection = await session.connection()
    await connection.execute(update(Notice).where(col(Notice.id) == issued.notice.id)
                          .values(pdf=flipped_byte(issued.pdf)))
    await session.commit()
    page = await (await signed_client.get(f"/verificar/{issued.code}")).text()
    assert "Inválida: a assinatura do PDF não corresponde ao conteúdo" in page


async def test_an_unsigned_notice_says_not_signed(
    client_unsigned: TestClient, session: AsyncSession, settings: Settings
) -> None:
    issued = await issue(session, settings, cp_auto(), now=NOW)
    page = await (await client_unsigned.get(f"/verificar/{issued.code}")).text()
    assert "Não assinada" in page


@pytest.fixture
async def client_unsigned(settings: Settings, sessions: SessionFactory) -> AsyncIterator[TestClient]:
    async with TestClient(TestServer(build_web_app(settings, sessions))) as test_client:
        yield test_client
