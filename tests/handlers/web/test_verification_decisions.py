"""/verificar reports each decision's own signed PDF (issue 18 "Done when"): valid, altered, or given before
decisions were signed ("unsigned, before this version", which migration 0017 leaves on older decisions)."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy import update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.web import build_web_app
from core.db import SessionFactory
from core.municipality import Publication, cities_of
from core.settings import Settings
from models.notices.delivery import record_explicit_ciencia
from models.notices.filings import decide_filing, file_filing
from models.notices.tables import FilingOutcome, NoticeDelivery, NoticeFiling
from tests.auxil.notices import CHEFE, cp_auto, issue, opted_in, person
from tests.auxil.signing import flipped_byte

NOW = dt.datetime(2026, 3, 2, 14, 0, tzinfo=dt.UTC)
REASONS = "Improcedente: as fotos do auto mostram o mato alto na data da vistoria."


@pytest.fixture
async def signed_client(signed_settings: Settings, sessions: SessionFactory) -> AsyncIterator[TestClient]:
    async with TestClient(TestServer(build_web_app(signed_settings, sessions))) as test_client:
        yield test_client


async def _decided(session: AsyncSession, settings: Settings) -> tuple[str, NoticeFiling]:
    maria = await person(session, 5201, "Maria")
    assert maria.id is not None
    await opted_in(session, maria.id, now=NOW)
    issued = await issue(session, settings, cp_auto(person_id=maria.id), now=NOW)
    delivery = (await session.exec(select(NoticeDelivery))).one()
    assert delivery.id is not None and issued.notice.id is not None
    await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                  person_id=maria.id,
                                  now=NOW)
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id,
                               person_id=maria.id,
                               text="Não sou a proprietária.", now=NOW)
    assert filing.id is not None
    decided = await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                                  filing_id=filing.id,
                                  outcome=FilingOutcome.DENIED, text=REASONS, decider_telegram_id=CHEFE, now=NOW)
    return issued.code, decided


async def _set_pdf(session: AsyncSession, filing_id: int, pdf: bytes | None) -> None:
    connection = await session.connection()  # behind the ORM, as someone with write access to the database
    await connection.execute(update(NoticeFiling).where(col(NoticeFiling.id) == filing_id).values(decision_pdf=pdf))
    await session.commit()


async def test_a_signed_decision_is_reported_valid_and_an_altered_one_invalid(
    signed_client: TestClient, session: AsyncSession, signed_settings: Settings
) -> None:
    code, decided = await _decided(session, signed_settings)
    assert decided.id is not None and decided.decision_pdf is not None
    page = await (await signed_client.get(f"/verificar/{code}")).text()
    assert 'id="assinatura-decisao-1"' in page and "Assinatura digital de cada decisão" in page
    assert '<dd class="ok" id="assinatura-decisao-1">Válida' in page
    await _set_pdf(session, decided.id, flipped_byte(decided.decision_pdf))
    page = await (await signed_client.get(f"/verificar/{code}")).text()
    assert '<dd class="bad" id="assinatura-decisao-1">✘ Inválida' in page


async def test_a_decision_given_before_this_version_reads_unsigned(
    signed_client: TestClient, session: AsyncSession, signed_settings: Settings
) -> None:
    code, decided = await _decided(session, signed_settings)
    assert decided.id is not None
    await _set_pdf(session, decided.id, None)
    page = await (await signed_client.get(f"/verificar/{code}")).text()
    assert "Sem documento próprio: decidida antes desta versão (sem assinatura)." in page
    assert "Carlos Chefe" in page  # still named as its author (issue 18 §1): the decision stays valid as given
