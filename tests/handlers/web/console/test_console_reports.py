"""The console's dashboard (figures with charts readable without colour and the same figures as tables), the audit
log with its filters, and the CSV/XLSX exports: today's rows included, formula injection neutralised, personal
data only for the roles that may see it."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import zipfile
from collections.abc import AsyncIterator

import pytest
import time_machine
from aiohttp.test_utils import TestClient, TestServer
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.web import build_web_app
from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.cases.filing import file_ombudsman_case, file_representation
from models.cases.handling import decide
from models.cases.tables import Case, Outcome
from models.outbox import OutboxMessage, OutboxStatus
from models.people import StaffMember
from tests.auxil.case_people import ANA, NOW, Cast, make_cast, ombudsman, representation
from tests.auxil.console import sign_in
from tests.auxil.notices import cp_auto, issue

CLARA, OTAVIO = 7101, 7103
ADMIN = ANA
TODAY = NOW + dt.timedelta(hours=1)


@pytest.fixture
async def cast(session: AsyncSession) -> Cast:
    return await make_cast(session, with_admin=True)


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory, cast: Cast) -> AsyncIterator[TestClient]:
    with time_machine.travel(TODAY, tick=False):
        async with TestClient(TestServer(build_web_app(settings, sessions))) as test_client:
            yield test_client


async def _seed(sessions: SessionFactory, settings: Settings, cast: Cast) -> dict[str, str]:
    async with sessions() as session:
        late = await file_representation(session=session, person_id=cast.joao.id, form=representation(),
                                         now=NOW - dt.timedelta(days=20), cities=cities_of(settings))
        today = await file_representation(
            session=session, person_id=cast.joao.id, cities=cities_of(settings), now=TODAY,
            form=representation(facts="=HYPERLINK(\"http://mal.example\",\"clique\") entulho na calçada"))
        done = await file_representation(session=session, person_id=cast.joao.id, form=representation(),
                                         now=NOW - dt.timedelta(days=2), cities=cities_of(settings))
        ouv = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(restricted=True),
                                        now=NOW, city=cities_of(settings).default)
        done_id = (await session.exec(select(Case).where(Case.protocol == done.protocol))).one().id
        assert done_id is not None
        await decide(session=session, telegram_user_id=CLARA, case_id=done_id, outcome=Outcome.ARCHIVE,
                     reason="Nada encontrado no local.", now=NOW)
        await issue(session, settings, cp_auto(), now=NOW)  # nobody to send it to: on the staff list
        for index, row in enumerate((await session.exec(select(OutboxMessage))).all()):
            row.status = (OutboxStatus.SENT, OutboxStatus.UNREACHABLE)[index % 2]
            row.sent_at = NOW
        await session.commit()
    return {"late": late.protocol, "today": today.protocol, "done": done.protocol, "ouv": ouv.protocol}


def _cells(html: str) -> list[tuple[str, str]]:
    return re.findall(r"<tr><td>([^<]+)</td><td>(\d+)</td></tr>", html)


async def test_the_dashboard_counts_and_draws_readable_charts(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    await _seed(sessions, settings, cast)
    await sign_in(client, sessions, settings, CLARA)
    page = await (await client.get("/painel/")).text()
    assert ("Representações (atendentes) · Novo", "2") in _cells(page)
    assert not [cell for cell in _cells(page) if cell[0].startswith("Ouvidoria")]  # not hers to open (issue 20 §1)
    overdue = re.search(r"<h2>Atrasados</h2><p class=\"big[^\"]*\">(\d+)</p>", page)
    assert overdue is not None and overdue.group(1) == "1"
    assert "100 %" in page and "1 de 1 caso encerrado" in page  # archived within its deadline
    delivery = re.search(r"<h2>Notificações aguardando entrega</h2><p class=\"big\">(\d+)</p>", page)
    assert delivery is not None and delivery.group(1) == "1"
    assert page.count('role="img"') == 2 and 'fill="url(#pat-stripes)"' in page  # patterns, not colour alone
    sent_today = re.search(r"<tr><td>02/03</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td></tr>", page)
    assert sent_today is not None and int(sent_today.group(1)) >= 1 and int(sent_today.group(2)) >= 1


async def test_the_audit_log_filters_by_actor_entity_and_date(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    protocols = await _seed(sessions, settings, cast)
    await sign_in(client, sessions, settings, ADMIN)
    clara = await (await client.get("/painel/auditoria?ator=staff%3A7101")).text()
    rows = re.findall(r"<tr><td>[^<]+</td><td>([^<]+)</td><td>([^<]+)</td>", clara)
    assert rows and {actor for actor, _ in rows} == {f"servidor {CLARA}"}
    assert ("servidor 7101", "Decidiu o caso") in rows
    assert protocols["done"] in clara
    cases = await (await client.get("/painel/auditoria?entidade=citizen_case&de=2026-03-02&ate=2026-03-02")).text()
    assert protocols["done"] in cases and "Entrou no painel" not in cases  # only the cases' events
    later = await (await client.get("/painel/auditoria?de=2026-03-03&ate=2026-03-03")).text()
    assert "Nenhum evento" in later  # another day
    assert "Nenhum evento" in await (await client.get("/painel/auditoria?ator=nobody")).text()
    assert (await client.get("/painel/auditoria?de=not-a-date&pagina=zz")).status == 200


async def test_csv_export_has_today_neutralised_cells_and_the_author_only_where_allowed(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    protocols = await _seed(sessions, settings, cast)
    await sign_in(client, sessions, settings, ADMIN)
    response = await client.get("/painel/exportar/casos.csv")
    assert response.status == 200 and "casos-2026-03-02.csv" in response.headers["Content-Disposition"]
    raw = await response.read()
    assert raw.startswith("\ufeff".encode())
    rows = {row["Protocolo"]: row for row in csv.DictReader(io.StringIO(raw.decode("utf-8-sig")), delimiter=";")}
    # today's case is in; the restricted ombudsman case is the Ombudsman's alone, as in the list (L13460 Art. 10 §7)
    assert set(rows) == set(protocols.values()) - {protocols["ouv"]}
    assert rows[protocols["today"]]["Resumo"].startswith("'=HYPERLINK(")
    assert rows[protocols["late"]]["Autor"] == "João Batista Pereira"
    assert "52998224725" not in raw.decode("utf-8-sig")  # never a CPF

    await sign_in(client, sessions, settings, OTAVIO)
    mine = await (await client.get("/painel/exportar/casos.csv")).read()
    ombudsman_rows = list(csv.DictReader(io.StringIO(mine.decode("utf-8-sig")), delimiter=";"))
    assert [(r["Protocolo"], r["Autor"]) for r in ombudsman_rows] == [(protocols["ouv"], "João Batista Pereira")]
    notices = await (await client.get("/painel/exportar/notificacoes.csv")).read()
    notice_rows = list(csv.DictReader(io.StringIO(notices.decode("utf-8-sig")), delimiter=";"))
    assert len(notice_rows) == 1 and notice_rows[0]["Autuado"] == ""  # not the Ombudsman's to see


async def test_xlsx_export_is_a_workbook_with_text_cells(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    protocols = await _seed(sessions, settings, cast)
    await sign_in(client, sessions, settings, CLARA)
    response = await client.get("/painel/exportar/casos.xlsx")
    assert response.status == 200 and response.content_type.endswith("spreadsheetml.sheet")
    with zipfile.ZipFile(io.BytesIO(await response.read())) as book:
        sheet = book.read("xl/worksheets/sheet1.xml").decode()
    assert protocols["today"] in sheet and protocols["ouv"] not in sheet  # the clerks' queue only
    assert "'=HYPERLINK(" in sheet.replace("&apos;", "'").replace("&quot;", '"')
    assert "<f>" not in sheet  # no formula cell at all
    deliveries = await client.get("/painel/exportar/entregas.xlsx")
    assert deliveries.status == 200
    assert (await client.get("/painel/exportar/outra.csv")).status == 404


def _csv_rows(raw: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig")), delimiter=";"))


async def test_exports_read_in_words_with_the_readers_numbers_and_dates(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    """A newcomer's walk (issue 20 §2): the exports read `representation`, `notified`, `awaiting_ciencia`, "504.0"
    for a fine, microsecond timestamps and `responsavel_id` "1"; a Brazilian spreadsheet reads 504,00 and
    01/12/2026 16:36."""
    from models.notices.tables import Notice

    protocols = await _seed(sessions, settings, cast)
    await sign_in(client, sessions, settings, ADMIN)
    exports = {name: _csv_rows(await (await client.get(f"/painel/exportar/{name}.csv")).read())
               for name in ("casos", "notificacoes", "entregas")}
    codes = {"representation", "ombudsman", "received", "archived", "clerk", "archive", "auto", "awaiting_ciencia",
             "staff", "notice", "no_person", "nx-posturas", "True", "False", "None"}
    for name, rows in exports.items():
        assert rows, name
        for row in rows:
            assert not codes & set(row.values()), (name, row)
    cases = {row["Protocolo"]: row for row in exports["casos"]}
    done = cases[protocols["done"]]
    assert done["Tipo"] == "Representação" and done["Situação"] == "Arquivado" and done["Fila"].startswith("Atend")
    assert done["Responsável"] == "Clara"  # a name, not a staff id
    assert re.fullmatch(r"\d{2}/\d{2}/\d{4} \d{2}:\d{2}", done["Recebido em"])  # to the minute, in Cuiabá
    assert re.fullmatch(r"\d{2}/\d{2}/\d{4}", done["Prazo"])
    async with sessions() as session:
        notice = (await session.exec(select(Notice))).one()
    row = exports["notificacoes"][0]
    reais, cents = divmod(notice.fine_cents, 100)
    assert row["Multa (R$)"] == f"{reais:,}".replace(",", ".") + f",{cents:02d}"
    assert row["Lei"].startswith("Lei nº 1.101/2004") and row["Reincidente"] == "não"
    delivery = exports["entregas"][0]
    assert delivery["Documento"] == "A notificação" and delivery["Por que a equipe entrega"] == "ninguém no bot"


async def test_xlsx_export_writes_a_fine_as_a_number_and_codes_by_their_names(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    await _seed(sessions, settings, cast)
    await sign_in(client, sessions, settings, ADMIN)
    response = await client.get("/painel/exportar/notificacoes.xlsx")
    with zipfile.ZipFile(io.BytesIO(await response.read())) as book:
        sheet = book.read("xl/worksheets/sheet1.xml").decode()
        strings = book.read("xl/sharedStrings.xml").decode() if "xl/sharedStrings.xml" in book.namelist() else ""
    assert "awaiting_ciencia" not in sheet + strings and "nx-posturas" not in sheet + strings
    assert "Multa (R$)" in sheet + strings


async def test_the_dashboard_counts_only_what_its_reader_may_open_and_tells_the_admin_who_is_missing(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    """Issue 20 §1: "Ouvidoria · Novo: 1" was counted for everyone while the complaint opened for nobody."""
    protocols = await _seed(sessions, settings, cast)
    await sign_in(client, sessions, settings, OTAVIO)
    assert ("Ouvidoria · Novo", "1") in _cells(await (await client.get("/painel/")).text())  # the Ombudsman's
    await sign_in(client, sessions, settings, ADMIN)
    page = await (await client.get("/painel/")).text()
    assert not [cell for cell in _cells(page) if cell[0].startswith("Ouvidoria")]  # L13460 Art. 10 §7
    assert "sem Ouvidor" not in page and "não tem Ouvidor" not in page  # Otávio reads it
    async with sessions() as session:
        otavio = (await session.exec(select(StaffMember).where(StaffMember.telegram_user_id == OTAVIO))).one()
        otavio.active = False
        session.add(otavio)
        await session.commit()
    page = await (await client.get("/painel/")).text()
    assert "1 manifestação com identidade restrita aguarda em Sapezal, que não tem Ouvidor" in page
    assert protocols["ouv"] not in page and "João" not in page  # how many, never what
