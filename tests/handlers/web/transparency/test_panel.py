"""/transparencia: each municipality's public page shows its own seeded figures (never the other's), pt_BR first,
without sign-in, cached; its open data (CSV and JSON) carry the same figures and a case list with no personal data;
the data dictionary names every field. /transparencia lists the municipalities when the deployment serves several
and shows the only one's page when it serves one. In headless Chromium the pages have no axe-core violation at
WCAG 2.1 AA. The counts by hand are in tests/auxil/transparency.py."""

from __future__ import annotations

import asyncio
import csv
import datetime as dt
import io
import itertools
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import time_machine
from aiohttp.test_utils import TestClient, TestServer
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.web import build_web_app
from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings, load_settings
from models.cases.filing import file_representation
from tests.auxil.browser import axe_violations, chromium, overflows_horizontally, require_axe, require_browser
from tests.auxil.case_people import representation
from tests.auxil.transparency import NX, PANEL_DAY, SAPEZAL, Seeded, seed_panel

PERSONAL = ("João", "Batista", "Pereira", "52998224725", "Rua das Flores", "Pedreiro", "Depósito Bom Preço",
            "entulho", "Som alto", "Rua 7 de Setembro", "Praça central", "Maria", "-14.67891", "iluminação",
            "lâmpadas", "Rodoviária")
"""Names, CPF, addresses, the accused and the authors' words: never in public output."""


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


async def test_the_start_page_lists_the_municipalities(client: TestClient) -> None:
    response = await client.get("/transparencia")
    assert response.status == 200 and response.headers["Cache-Control"] == "public, max-age=300"
    html = await response.text()
    assert "Resultados do atendimento, por município" in html
    assert '<a href="/transparencia/sapezal?lang=pt_BR">Sapezal (MT)</a>' in html
    assert '<a href="/transparencia/nova-xavantina?lang=pt_BR">Nova Xavantina (MT)</a>' in html


async def test_nova_xavantinas_page_shows_its_own_figures_in_portuguese(client: TestClient) -> None:
    response = await client.get(f"/transparencia/{NX}")
    assert response.status == 200
    assert response.headers["Cache-Control"] == "public, max-age=300"
    assert response.headers["Content-Language"] == "pt-BR"
    html = await response.text()
    assert '<html lang="pt-BR">' in html and "<h1>Resultados do atendimento, Nova Xavantina</h1>" in html
    assert "Sapezal" not in html
    assert "De abril de 2025 a março de 2026." in html
    assert "<strong>66,7 %</strong>" in html and "3 casos respondidos" in html  # 2 of 3 on time
    assert "<strong>14</strong>" in html  # median of 3, 14 and 18 days
    assert "<strong>66,7</strong>" in html and "3 avaliações" in html  # (100 + 0 + 100) / 3
    # February: 2 representações received, 1 answered; 1 ombudsman case received and answered. No ride-hailing
    # column: Lei 1.533/2020 is not in force here.
    assert "Denúncia sobre motorista de aplicativo" not in html
    assert '<th scope="row">fev. de 2026</th><td class="n">2 / 1</td><td class="n">1 / 1</td>' \
           '<td class="n">3 / 2</td>' in html
    assert "Capítulo não indicado" in html and "Da Moralidade e do Sossego Público" in html
    assert '<th scope="row">Emitidas</th><td class="n">2</td>' in html
    assert '<th scope="row">Com ciência</th><td class="n">2</td>' in html
    assert '<th scope="row">Com defesa ou recurso</th><td class="n">1</td>' in html
    assert html.count("<svg ") == 6 and 'role="img"' in html  # each chart wide and for a phone
    assert f'href="/transparencia/{NX}/indicadores.csv"' in html and f'href="/transparencia/{NX}/dicionario' in html
    _no_personal_data(html)
    english = await (await client.get(f"/transparencia/{NX}?lang=en")).text()
    assert "<strong>66.7 %</strong>" in english and "Results of the service, Nova Xavantina" in english


async def test_sapezals_page_counts_only_sapezals_cases(client: TestClient) -> None:
    html = await (await client.get(f"/transparencia/{SAPEZAL}")).text()
    assert "<h1>Resultados do atendimento, Sapezal</h1>" in html and "Nova Xavantina" not in html
    assert "<strong>100 %</strong>" in html and "2 casos respondidos" in html
    assert "<strong>9</strong>" in html  # median of 2 and 16 days
    assert "<strong>50</strong>" in html and "1 avaliação" in html
    # January: João's complaint received; February: the report received and answered, the complaint answered
    assert '<th scope="row">jan. de 2026</th><td class="n">0 / 0</td><td class="n">1 / 0</td>' \
           '<td class="n">1 / 0</td>' in html
    assert '<th scope="row">fev. de 2026</th><td class="n">1 / 1</td><td class="n">0 / 1</td>' \
           '<td class="n">1 / 2</td>' in html
    assert "Representação (Código de Posturas)" not in html and "Código de Posturas" not in html
    assert '<th scope="row">Emitidas</th><td class="n">1</td>' in html
    assert '<th scope="row">Com ciência</th><td class="n">0</td>' in html
    assert html.count("<svg ") == 4  # two charts, each wide and for a phone
    _no_personal_data(html)


async def test_pages_are_cached_in_the_server_and_have_one_address(
    client: TestClient, session: AsyncSession, settings: Settings, seeded: Seeded
) -> None:
    first = await (await client.get(f"/transparencia/{NX}")).text()
    await file_representation(session=session, person_id=seeded.cast.maria.id, form=representation(),
                              now=PANEL_DAY - dt.timedelta(minutes=5), cities=cities_of(settings))
    assert await (await client.get(f"/transparencia/{NX}")).text() == first  # within SERVER_CACHE_SECONDS
    assert (await client.get("/transparencia/curitiba-pr")).status == 404
    moved = await client.get("/transparencia/nova-xavantina-mt?lang=en", allow_redirects=False)
    assert (moved.status, moved.headers["Location"]) == (301, "/transparencia/nova-xavantina?lang=en")


async def test_the_figures_as_csv_and_json_per_municipality(client: TestClient) -> None:
    def figures(body: dict[str, object]) -> dict[tuple[str, str], object]:
        return {(row["indicador"], row["recorte"]): row["valor"] for row in body["indicadores"]}  # type: ignore[attr-defined]

    nx_json = await (await client.get(f"/transparencia/{NX}/indicadores.json")).json()
    assert (nx_json["municipio"], nx_json["inicio"], nx_json["fim"]) == (NX, "2025-04-01", "2026-03-01")
    nx = figures(nx_json)
    assert nx[("recebidos", "2026-02/representation")] == 2 and nx[("recebidos", "2026-02/ombudsman")] == 1
    assert ("recebidos", "2026-02/ride_hailing") not in nx
    assert (nx[("respondidos_no_prazo_pct", "")], nx[("mediana_dias_resposta", "")]) == (66.7, 14)
    assert nx[("satisfacao_0_100", "")] == 66.7 and nx[("representacoes_por_capitulo", "—")] == 1
    assert [nx[("notificacoes_" + name, "")] for name in ("emitidas", "com_ciencia", "defendidas",
                                                          "decididas")] == [2, 2, 1, 1]
    sapezal = figures(await (await client.get(f"/transparencia/{SAPEZAL}/indicadores.json")).json())
    assert sapezal[("recebidos", "2026-01/ombudsman")] == 1 and sapezal[("respondidos", "2026-02/ride_hailing")] == 1
    assert (sapezal[("respondidos_no_prazo_pct", "")], sapezal[("mediana_dias_resposta", "")]) == (100.0, 9)
    assert not [key for key in sapezal if key[0] == "representacoes_por_capitulo"]
    assert [sapezal[("notificacoes_" + name, "")] for name in ("emitidas", "com_ciencia", "defendidas",
                                                               "decididas")] == [1, 0, 0, 0]
    response = await client.get(f"/transparencia/{NX}/indicadores.csv")
    assert response.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert response.headers["Content-Disposition"] == f'attachment; filename="indicadores-{NX}.csv"'
    rows = list(csv.DictReader(io.StringIO(await response.text())))
    assert {(row["indicador"], row["recorte"]): row["valor"] for row in rows}[("respondidos_no_prazo", "")] == "2"
    assert len(rows) == len(nx_json["indicadores"])


async def test_the_case_list_of_each_municipality_has_no_personal_data(client: TestClient, seeded: Seeded) -> None:
    as_json = await (await client.get(f"/transparencia/{NX}/casos.json")).json()
    cases = as_json["casos"]
    assert as_json["municipio"] == NX
    assert [case["protocolo"] for case in cases] == [seeded.protocols[name] for name in
                                                    ("rubbish", "noise", "nx_complaint", "unnamed")]
    assert set(cases[0]) == {"protocolo", "servico", "tipo", "latitude", "longitude", "recebido_em", "prazo",
                             "respondido_em", "situacao", "tipo_descricao", "situacao_descricao"}
    # the codes stay for machines; people read the words beside them (issue 20 §2)
    assert (cases[3]["tipo_descricao"], cases[3]["situacao_descricao"]) == (
        "Representação (Código de Posturas)", "Recebido, aguardando na fila")
    assert (cases[3]["latitude"], cases[3]["longitude"], cases[3]["situacao"]) == (-14.68, -52.35, "received")
    as_csv = await (await client.get(f"/transparencia/{NX}/casos.csv")).text()
    assert as_csv.splitlines()[0] == "protocolo,servico,tipo,latitude,longitude,recebido_em,prazo,respondido_em," \
                                     "situacao,tipo_descricao,situacao_descricao"
    assert len(as_csv.splitlines()) == 5
    sapezal = await (await client.get(f"/transparencia/{SAPEZAL}/casos.csv")).text()
    assert [line.split(",")[0] for line in sapezal.splitlines()[1:]] == [seeded.protocols["complaint"],
                                                                         seeded.protocols["ride"]]
    _no_personal_data(str(as_json) + as_csv + sapezal)


async def test_the_dictionary_names_every_published_field(client: TestClient) -> None:
    html = await (await client.get(f"/transparencia/{NX}/dicionario")).text()
    for name in ("protocolo", "servico", "latitude", "recebido_em", "respondido_em", "situacao", "indicador",
                 "recorte", "valor", "auto_issued"):
        assert f"<code>{name}</code>" in html, name
    assert "<h1>Dicionário de dados, Nova Xavantina</h1>" in html and "Sapezal" not in html
    assert "nunca trazem nome, contato, CPF ou endereço" in html
    old = await client.get("/transparencia/dados/dicionario?lang=es", allow_redirects=False)
    assert (old.status, old.headers["Location"]) == (301, "/transparencia/sapezal/dicionario?lang=es")


async def test_a_single_municipality_deployment_shows_its_page_at_transparencia(
    settings: Settings, sessions: SessionFactory, seeded: Seeded, tmp_path: Path
) -> None:
    """One municipality served: /transparencia is its page, and Open311 needs no jurisdiction_id."""
    only = tmp_path / "one.toml"
    only.write_text('[[municipality]]\nslug = "nova-xavantina"\nname = "Nova Xavantina"\nibge_code = "5106257"\n'
                    'rulebooks = ["nx-posturas"]\n', encoding="utf-8")
    single = load_settings(database_url=settings.database_url, municipalities_file=only)
    with time_machine.travel(PANEL_DAY, tick=False):
        async with TestClient(TestServer(build_web_app(single, sessions))) as test_client:
            html = await (await test_client.get("/transparencia")).text()
            assert "<h1>Resultados do atendimento, Nova Xavantina</h1>" in html and "<strong>14</strong>" in html
            services = await test_client.get("/open311/v2/services.json")
            assert services.status == 200 and len(await services.json()) == 27


@pytest.mark.browser
async def test_the_pages_pass_axe_at_wcag_21_aa(settings: Settings, sessions: SessionFactory, seeded: Seeded) -> None:
    require_browser()
    require_axe()
    paths = ("/transparencia", f"/transparencia/{NX}", f"/transparencia/{SAPEZAL}?lang=es",
             f"/transparencia/{NX}/dicionario")
    with time_machine.travel(PANEL_DAY, tick=False):
        server = TestServer(build_web_app(settings, sessions), host="127.0.0.1")
        await server.start_server()
        try:
            def check() -> dict[str, list[object]]:
                found: dict[str, list[object]] = {}
                with chromium() as driver:
                    driver.get("data:text/html,<html><body><img src='x.png'></body></html>")  # axe does look
                    found["control"] = [violation["id"] for violation in axe_violations(driver)]
                    for path in paths:
                        driver.get(str(server.make_url(path)))
                        found[path] = axe_violations(driver)
                return found

            found = await asyncio.to_thread(check)
            assert {"html-has-lang", "image-alt"} <= set(found.pop("control"))
            assert found == {path: [] for path in paths}
        finally:
            await server.close()


_LABEL_BOXES = """
return Array.from(document.querySelectorAll(arguments[0] + ' text.category'))
  .map(t => [t.getBoundingClientRect(), t.textContent])
  .filter(([r]) => r.width > 0)  // a chart the page's CSS hides has no box
  .map(([r, text]) => [r.left, r.right, r.height, text]);"""


@pytest.mark.browser
async def test_the_charts_read_on_a_desktop_and_on_a_phone(settings: Settings, sessions: SessionFactory,
                                                          seeded: Seeded) -> None:
    """A newcomer's walk (issue 20 §3): the monthly labels overlapped on a desktop and were 6 px on a phone, and a
    table made the page scroll sideways at 390 px."""
    require_browser()
    require_axe()
    with time_machine.travel(PANEL_DAY, tick=False):
        server = TestServer(build_web_app(settings, sessions), host="127.0.0.1")
        await server.start_server()
        try:
            def look(window: str) -> dict[str, object]:
                with chromium(window) as driver:
                    driver.get(str(server.make_url(f"/transparencia/{NX}")))
                    return {"wide": driver.execute_script(_LABEL_BOXES, "svg[aria-labelledby^='por-mes-t']"),
                            "narrow": driver.execute_script(_LABEL_BOXES,
                                                            "svg[aria-labelledby^='por-mes-celular-t']"),
                            "overflows": overflows_horizontally(driver), "axe": axe_violations(driver)}

            desktop = await asyncio.to_thread(look, "1280,900")
            phone = await asyncio.to_thread(look, "390,844")
        finally:
            await server.close()
    wide = desktop["wide"]
    assert isinstance(wide, list) and len(wide) == 12 and not desktop["narrow"]  # only the wide chart is shown
    for (_, right, _, first), (left, _, _, second) in itertools.pairwise(wide):
        assert right <= left, (first, second)  # no two month labels overlap
    narrow = phone["narrow"]
    assert isinstance(narrow, list) and len(narrow) == 12 and not phone["wide"]
    assert min(height for _, _, height, _ in narrow) >= 12  # 13-unit text at about its own size, not 6 px
    assert phone["overflows"] is False and desktop["overflows"] is False
    assert phone["axe"] == [] and desktop["axe"] == []
