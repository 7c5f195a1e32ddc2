"""/transparencia: the public page shows the seeded figures, pt_BR first, without sign-in, cached; the open data
(CSV and JSON) carry the same figures and a case list with no personal data; the data dictionary names every
field. In headless Chromium the page and the dictionary have no axe-core violation at WCAG 2.1 AA."""

from __future__ import annotations

import asyncio
import csv
import datetime as dt
import io
from collections.abc import AsyncIterator

import pytest
import time_machine
from aiohttp.test_utils import TestClient, TestServer
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db import SessionFactory
from bot.settings import Settings
from bot.web import build_web_app
from models.cases.filing import file_representation
from tests.auxil.browser import axe_violations, chromium, require_axe, require_browser
from tests.auxil.case_people import representation
from tests.auxil.transparency import PANEL_DAY, Seeded, seed_panel

PERSONAL = ("João", "Batista", "Pereira", "52998224725", "Rua das Flores", "Pedreiro", "Depósito Bom Preço",
            "entulho", "Som alto", "Rua 7 de Setembro", "Praça central", "Maria", "-14.67891")
"""Names, CPF, addresses, the accused and the authors' words: never in public output."""
PLACE = "sapezal"


@pytest.fixture
async def seeded(session: AsyncSession, settings: Settings) -> Seeded:
    return await seed_panel(session, settings)


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory, seeded: Seeded) -> AsyncIterator[TestClient]:
    with time_machine.travel(PANEL_DAY, tick=False):
        async with TestClient(TestServer(build_web_app(settings, sessions))) as test_client:
            yield test_client


def _no_personal_data(text: str) -> None:
    assert not [secret for secret in PERSONAL if secret in text], [s for s in PERSONAL if s in text]


async def test_the_page_shows_the_seeded_figures_in_portuguese(client: TestClient) -> None:
    response = await client.get("/transparencia")
    assert response.status == 200
    assert response.headers["Cache-Control"] == "public, max-age=300"
    assert response.headers["Content-Language"] == "pt-BR"
    html = await response.text()
    assert '<html lang="pt-BR">' in html and "Resultados do atendimento, Sapezal" in html
    assert "De abril de 2025 a março de 2026." in html
    assert "<strong>75 %</strong>" in html and "4 casos respondidos" in html  # 3 of 4 on time
    assert "<strong>9,5</strong>" in html  # median of 2, 3, 16 and 18 days
    assert "<strong>50</strong>" in html and "3 avaliações" in html  # (100 + 0 + 50) / 3
    assert '<th scope="row">fev. de 2026</th><td class="n">2 / 1</td><td class="n">1 / 1</td><td class="n">0 / 1</td>' \
           '<td class="n">3 / 3</td>' in html
    assert "Capítulo não indicado" in html and "Da Moralidade e do Sossego Público" in html
    assert '<th scope="row">Emitidas</th><td class="n">3</td>' in html
    assert '<th scope="row">Com ciência</th><td class="n">2</td>' in html
    assert '<th scope="row">Com defesa ou recurso</th><td class="n">1</td>' in html
    assert html.count("<svg ") == 3 and 'role="img"' in html
    _no_personal_data(html)
    english = await (await client.get("/transparencia/sapezal?lang=en")).text()
    assert "<strong>75 %</strong>" in english and "Results of the service, Sapezal" in english


async def test_the_page_is_cached_in_the_server(
    client: TestClient, session: AsyncSession, settings: Settings, seeded: Seeded
) -> None:
    first = await (await client.get("/transparencia")).text()
    await file_representation(session=session, person_id=seeded.cast.maria.id, form=representation(),
                              now=PANEL_DAY - dt.timedelta(minutes=5), settings=settings)
    assert await (await client.get("/transparencia")).text() == first  # within SERVER_CACHE_SECONDS
    assert (await client.get("/transparencia/curitiba-pr")).status == 404


async def test_the_figures_as_csv_and_json(client: TestClient) -> None:
    as_json = await (await client.get(f"/transparencia/{PLACE}/indicadores.json")).json()
    assert (as_json["municipio"], as_json["inicio"], as_json["fim"]) == (PLACE, "2025-04-01", "2026-03-01")
    figures = {(row["indicador"], row["recorte"]): row["valor"] for row in as_json["indicadores"]}
    assert figures[("recebidos", "2026-02/representation")] == 2
    assert figures[("respondidos", "2026-02/ombudsman")] == 1
    assert figures[("respondidos_no_prazo_pct", "")] == 75.0
    assert figures[("mediana_dias_resposta", "")] == 9.5
    assert figures[("satisfacao_0_100", "")] == 50.0
    assert figures[("representacoes_por_capitulo", "—")] == 1
    assert [figures[("notificacoes_" + name, "")] for name in ("emitidas", "com_ciencia", "defendidas",
                                                               "decididas")] == [3, 2, 1, 1]
    response = await client.get(f"/transparencia/{PLACE}/indicadores.csv")
    assert response.headers["Content-Type"] == "text/csv; charset=utf-8"
    rows = list(csv.DictReader(io.StringIO(await response.text())))
    assert {(row["indicador"], row["recorte"]): row["valor"] for row in rows}[("respondidos_no_prazo", "")] == "3"
    assert len(rows) == len(as_json["indicadores"])


async def test_the_case_list_has_no_personal_data(client: TestClient, seeded: Seeded) -> None:
    as_json = await (await client.get(f"/transparencia/{PLACE}/casos.json")).json()
    cases = as_json["casos"]
    assert [case["protocolo"] for case in cases] == [seeded.protocols[name] for name in
                                                    ("rubbish", "complaint", "noise", "unnamed", "ride")]
    assert set(cases[0]) == {"protocolo", "servico", "tipo", "latitude", "longitude", "recebido_em", "prazo",
                             "respondido_em", "situacao"}
    assert (cases[3]["latitude"], cases[3]["longitude"], cases[3]["situacao"]) == (-14.68, -52.35, "received")
    as_csv = await (await client.get(f"/transparencia/{PLACE}/casos.csv")).text()
    assert as_csv.splitlines()[0] == "protocolo,servico,tipo,latitude,longitude,recebido_em,prazo,respondido_em," \
                                     "situacao"
    assert len(as_csv.splitlines()) == 6
    _no_personal_data(str(as_json) + as_csv)


async def test_the_dictionary_names_every_published_field(client: TestClient) -> None:
    html = await (await client.get("/transparencia/dados/dicionario")).text()
    for name in ("protocolo", "servico", "latitude", "recebido_em", "respondido_em", "situacao", "indicador",
                 "recorte", "valor", "auto_issued"):
        assert f"<code>{name}</code>" in html, name
    assert "nunca trazem nome, contato, CPF ou endereço" in html


@pytest.mark.browser
async def test_the_page_and_the_dictionary_pass_axe_at_wcag_21_aa(
    settings: Settings, sessions: SessionFactory, seeded: Seeded
) -> None:
    require_browser()
    require_axe()
    with time_machine.travel(PANEL_DAY, tick=False):
        server = TestServer(build_web_app(settings, sessions), host="127.0.0.1")
        await server.start_server()
        try:
            def check() -> dict[str, list[object]]:
                found: dict[str, list[object]] = {}
                with chromium() as driver:
                    driver.get("data:text/html,<html><body><img src='x.png'></body></html>")  # axe does look
                    found["control"] = [violation["id"] for violation in axe_violations(driver)]
                    for path in ("/transparencia", "/transparencia/dados/dicionario", "/transparencia?lang=es"):
                        driver.get(str(server.make_url(path)))
                        found[path] = axe_violations(driver)
                return found

            found = await asyncio.to_thread(check)
            assert {"html-has-lang", "image-alt"} <= set(found.pop("control"))
            assert found == {"/transparencia": [], "/transparencia/dados/dicionario": [], "/transparencia?lang=es": []}
        finally:
            await server.close()
