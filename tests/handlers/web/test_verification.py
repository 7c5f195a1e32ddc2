"""The public page /verificar: a code's authenticity, in Portuguese, without any personal data (issue 6, item 3)."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.web import build_web_app
from core.db import SessionFactory
from core.municipality import Publication, cities_of
from core.settings import Settings, load_settings
from models.notices.delivery import record_explicit_ciencia
from models.notices.filings import decide_filing, file_filing
from models.notices.tables import FilingOutcome, NoticeDelivery
from tests.auxil.municipalities import write_municipalities
from tests.auxil.notices import CHEFE, cp_auto, issue, opted_in, person

NOW = dt.datetime(2026, 3, 2, 14, 0, tzinfo=dt.UTC)


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory) -> AsyncIterator[TestClient]:
    async with TestClient(TestServer(build_web_app(settings, sessions))) as test_client:
        yield test_client


async def test_a_valid_code_shows_the_public_data_and_nothing_personal(
    client: TestClient, session: AsyncSession, settings: Settings
) -> None:
    issued = await issue(session, settings, cp_auto(offender_name="Maria <b>Aparecida</b>"), now=NOW)
    response = await client.get(f"/verificar/{issued.code}")
    assert response.status == 200 and response.content_type == "text/html"
    page = await response.text()
    for shown in ("Documento autêntico", "Auto de infração", issued.notice.number, "2 de março de 2026",
                  "Código de Posturas", "Art. 53", 'lang="pt-BR"', "Nova Xavantina"):
        assert shown in page, shown
    assert "Sapezal" not in page  # the Prefeitura that issued it, not the deployment's first (CF Art. 30 I)
    # CP Art. 34 III: the provision infringed, apart from the penalty article (Art. 53 only sets the fine).
    assert "Dispositivo infringido</dt><dd>Lei nº 1.101/2004 – Código de Posturas (Nova Xavantina), Art. 50, I" in page
    assert "Penalidade</dt><dd>Lei nº 1.101/2004 – Código de Posturas (Nova Xavantina), Art. 53" in page
    for personal in ("Maria", "Aparecida", "529.982.247-25", "52998224725", "Acácias", "mato alto"):
        assert personal not in page, personal
    assert response.headers["Cache-Control"] == "no-store"


async def test_the_code_is_forgiving_to_type(client: TestClient, session: AsyncSession, settings: Settings) -> None:
    issued = await issue(session, settings, cp_auto(), now=NOW)
    sloppy = issued.code.lower().replace("-", " ")
    response = await client.get("/verificar", params={"codigo": sloppy}, allow_redirects=False)
    assert response.status == 303 and response.headers["Location"] == f"/verificar/{issued.code}"
    followed = await client.get("/verificar", params={"codigo": sloppy})
    assert issued.notice.number in await followed.text()


@pytest.mark.parametrize("code", ["ZZZZ-ZZZZ-ZZZZ", "not-a-code", "<script>alert(1)<script>"])
async def test_an_unknown_or_malformed_code_is_not_found_and_escaped(client: TestClient, code: str) -> None:
    response = await client.get(f"/verificar/{code}")
    assert response.status == 404
    page = await response.text()
    assert "Código não encontrado" in page and "<script>" not in page


async def test_the_form(client: TestClient) -> None:
    response = await client.get("/verificar")
    page = await response.text()
    assert response.status == 200 and 'name="codigo"' in page and "Verificar" in page


async def test_the_page_is_headed_by_the_issuing_prefeitura_even_after_it_leaves_the_file(
    session: AsyncSession, settings: Settings, sessions: SessionFactory, tmp_path: Path, db_url: str
) -> None:
    # CF Art. 30 I: the act is the Prefeitura's; its name is recorded on the act, so the heading outlives the file.
    issued = await issue(session, settings, cp_auto(), now=NOW)
    path = write_municipalities(tmp_path)
    path.write_text(path.read_text(encoding="utf-8").split("[[municipality]]\nslug = \"nova-xavantina\"")[0],
                    encoding="utf-8")
    only_sapezal = load_settings(database_url=db_url, municipalities_file=path)
    assert "nova-xavantina" not in only_sapezal.municipalities
    async with TestClient(TestServer(build_web_app(only_sapezal, sessions))) as client:
        page = await (await client.get(f"/verificar/{issued.code}")).text()
    body = page.split("<body>", 1)[1]
    assert '<p class="issuer"><strong>Prefeitura Municipal de Nova Xavantina</strong></p>' in body
    assert "Sapezal" not in page


async def test_the_page_shows_the_lavratura_and_who_signed_it_when(
    client: TestClient, session: AsyncSession, settings: Settings
) -> None:
    """Issue 18 §2: "lavrada em …" and "assinada eletronicamente em … por …", two moments, both on the page. The
    signer is the public official who acted (name, role, office, designation), not personal data of the party."""
    later = NOW + dt.timedelta(days=18, hours=1)  # issued Fri 20/3/2026 at 11:00 in Cuiabá
    issued = await issue(session, settings, cp_auto(), now=later)
    page = await (await client.get(f"/verificar/{issued.code}")).text()
    assert "Lavrada em" in page and "2 de março de 2026 às 09:30" in page
    assert ("Assinada eletronicamente em 20/03/2026 às 11:00 por Inês Fiscal, Agente fiscal designado, "
            "Departamento de Fiscalização, matrícula nº 1234, Portaria nº 97001/2026, de 02/01/2026") in page


async def test_the_page_names_the_author_of_each_decision(
    client: TestClient, session: AsyncSession, settings: Settings
) -> None:
    """Issue 18 §1: the decision on the reclamação is named with its author (CP Art. 40: the Chefe), not its reasons."""
    maria = await person(session, 9001, "Maria")
    await opted_in(session, maria.id, now=NOW)
    issued = await issue(session, settings, cp_auto(person_id=maria.id), now=NOW)
    delivery = (await session.exec(select(NoticeDelivery))).one()
    await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id or 0,
                                  person_id=maria.id, now=NOW)
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id or 0,
                               person_id=maria.id, text="Não é meu terreno.", now=NOW)
    await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                        filing_id=filing.id or 0, outcome=FilingOutcome.DENIED,
                        text="Improcedente: a certidão mostra o imóvel em nome da autuada.",
                        decider_telegram_id=CHEFE, now=NOW + dt.timedelta(days=3))
    page = await (await client.get(f"/verificar/{issued.code}")).text()
    assert "Decisão sobre a reclamação" in page and "Em 05/03/2026, por Carlos Chefe, Chefe do Departamento" in page
    assert "certidão" not in page  # the reasons are the parties', not the public page's
