"""Another municipality's records in the console: refused, and nothing changed (CF Art. 30: each city hall has its
own staff). The test deployment serves Sapezal (Lei 1.533/2020) and Nova Xavantina (Código de Posturas); a clerk,
inspector or ombudsman of one, signed in, opens and posts to the other's case, notice, delivery, defence, driver and
broadcast by URL, bulk-acts on a mix of ids, and reads the lists, exports and dashboard; an admin of both chooses
which municipality the console shows, and someone who works in one cannot switch to the other."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import time_machine
from aiohttp.test_utils import TestClient, TestServer
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.sandbox.demo_data import demo_csv
from bot.web import build_web_app
from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from handlers.web.console.guard import PLACE_COOKIE
from models.audit import AuditEvent
from models.broadcasts import Broadcast, BroadcastStatus
from models.cases.filing import file_ombudsman_case, file_representation
from models.cases.tables import Case, CaseEvent, CaseStatus
from models.drivers.importing import import_drivers
from models.drivers.tables import Authorization, Driver, Inspection, LinkCode
from models.notices.delivery import record_explicit_ciencia
from models.notices.filings import file_filing
from models.notices.tables import DeliveryState, Notice, NoticeDelivery, NoticeFiling
from models.open311.tables import Open311Client
from models.people import Role, add_staff
from notifications.broadcasts import AudienceChoice, create_broadcast
from notifications.plugins import load_all
from tests.auxil.broadcasts import sent_by
from tests.auxil.case_people import NOW, ombudsman, representation
from tests.auxil.console import sign_in
from tests.auxil.notices import cp_auto, issue, opted_in, person

TODAY = NOW + dt.timedelta(hours=1)
SA_CLERK, SA_INSPECTOR, SA_OMBUDSMAN, NX_CLERK, NX_INSPECTOR, BOTH_ADMIN, SA_ADMIN, MIXED, SPLIT = (
    7401, 7402, 7403, 7411, 7412, 7420, 7421, 7422, 7423)
JOAO, MARIA = 7001, 7002
SA, NX = "sapezal", "nova-xavantina"
FOREIGN = "outro município"


@dataclass(frozen=True)
class World:
    nx_case: Case  # a representação under Nova Xavantina's Código de Posturas (clerks)
    sa_ombudsman: Case
    nx_ombudsman: Case
    notice: Notice  # Nova Xavantina's auto, addressed to Maria in the bot and with a reclamação pending
    paper: NoticeDelivery  # Nova Xavantina's document waiting for staff delivery
    filing: NoticeFiling
    authorization: str  # a driver of Sapezal's registry (Lei 1.533/2020)
    broadcast_id: int  # Sapezal's broadcast, still active


async def _staff(session: AsyncSession, telegram_id: int, role: Role, *places: str) -> None:
    await person(session, telegram_id, f"Staff {telegram_id}")
    for place in places:
        await add_staff(session=session, telegram_user_id=telegram_id, role=role, name=f"Staff {telegram_id}",
                        actor="test", municipality=place)


@pytest.fixture
async def world(session: AsyncSession, settings: Settings) -> World:
    load_all()
    for telegram_id, role, places in ((SA_CLERK, Role.CLERK, (SA,)), (SA_INSPECTOR, Role.INSPECTOR, (SA,)),
                                      (SA_OMBUDSMAN, Role.OMBUDSMAN, (SA,)), (NX_CLERK, Role.CLERK, (NX,)),
                                      (NX_INSPECTOR, Role.INSPECTOR, (NX,)), (BOTH_ADMIN, Role.ADMIN, (SA, NX)),
                                      (SA_ADMIN, Role.ADMIN, (SA,))):
        await _staff(session, telegram_id, role, *places)
    await _staff(session, MIXED, Role.ADMIN, SA)
    await add_staff(session=session, telegram_user_id=MIXED, role=Role.INSPECTOR, name="Mixed", actor="test",
                    municipality=NX)  # admin in Sapezal, inspector in Nova Xavantina
    await _staff(session, SPLIT, Role.INSPECTOR, SA)
    await add_staff(session=session, telegram_user_id=SPLIT, role=Role.OMBUDSMAN, name="Split", actor="test",
                    municipality=NX)  # inspector in Sapezal, ombudsman in Nova Xavantina
    joao = await person(session, JOAO, "João")
    maria = await person(session, MARIA, "Maria")
    filed = await file_representation(session=session, person_id=joao.id, form=representation(), now=NOW,
                                      cities=cities_of(settings))
    sa_ouv = await file_ombudsman_case(session=session, person_id=joao.id, form=ombudsman(restricted=False),
                                       now=NOW, city=cities_of(settings).of(SA))
    nx_ouv = await file_ombudsman_case(session=session, person_id=joao.id, form=ombudsman(restricted=False),
                                       now=NOW, city=cities_of(settings).of(NX))
    cases = {case.protocol: case for case in (await session.exec(select(Case))).all()}
    await opted_in(session, maria.id, now=NOW)
    issued = await issue(session, settings, cp_auto(person_id=maria.id), now=NOW)
    on_paper = await issue(session, settings, cp_auto(offender_name="Bar do Zé"), now=NOW)
    assert issued.notice.id is not None and on_paper.notice.id is not None
    electronic = (await session.exec(select(NoticeDelivery).where(
        NoticeDelivery.notice_id == issued.notice.id))).one()
    assert electronic.id is not None
    await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=electronic.id,
                                  person_id=maria.id,
                                  now=NOW)
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id,
                               person_id=maria.id,
                               text="O terreno foi limpo no dia seguinte.", now=TODAY)
    paper = (await session.exec(select(NoticeDelivery).where(NoticeDelivery.notice_id == on_paper.notice.id))).one()
    await import_drivers(session=session, text=demo_csv(TODAY.date()), actor="test", cities=cities_of(settings),
                         today=TODAY.date())
    driver = (await session.exec(select(Driver).order_by(col(Driver.id)))).first()
    assert driver is not None and driver.municipality == SA
    driver.person_id = joao.id
    await session.commit()
    authorization = (await session.exec(select(Authorization).where(Authorization.driver_id == driver.id))).one()
    made = await create_broadcast(session=session, **sent_by(settings, SA),
                                  choice=AudienceChoice("drivers"), text="Vistoria anual.", actor="test", now=NOW,
                                  send_at=NOW + dt.timedelta(days=1))
    assert cases[filed.protocol].municipality == NX and cases[sa_ouv.protocol].municipality == SA
    return World(nx_case=cases[filed.protocol], sa_ombudsman=cases[sa_ouv.protocol],
                 nx_ombudsman=cases[nx_ouv.protocol], notice=issued.notice, paper=paper, filing=filing,
                 authorization=authorization.number, broadcast_id=made.id)


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory, world: World) -> AsyncIterator[TestClient]:
    with time_machine.travel(TODAY, tick=False):
        async with TestClient(TestServer(build_web_app(settings, sessions))) as test_client:
            yield test_client


async def _claimed_by(sessions: SessionFactory, telegram_id: int) -> list[AuditEvent]:
    """Audit entries of this staff member's acts: not signing in (``console_*``) nor exports (reading a list)."""
    async with sessions() as session:
        return [event for event in (await session.exec(select(AuditEvent).where(
            AuditEvent.actor == f"staff:{telegram_id}"))).all()
            if not event.entity.startswith("console_") and event.action != "console.export"]


async def _refused(client: TestClient, method: str, url: str, **data: str) -> None:
    response = await client.request(method, url, data=data or None, allow_redirects=False)
    page = await response.text()
    assert response.status in (403, 404), (url, response.status)
    assert FOREIGN in page and "nada foi alterado" in page, url  # a clear page, never a stack trace


async def test_another_municipalitys_case_is_refused_and_nothing_changed(
    client: TestClient, sessions: SessionFactory, settings: Settings, world: World
) -> None:
    case = world.nx_case
    csrf = await sign_in(client, sessions, settings, SA_CLERK)  # a clerk, as the case's queue, but of Sapezal
    async with sessions() as session:
        events_before = len((await session.exec(select(CaseEvent).where(CaseEvent.case_id == case.id))).all())
    await _refused(client, "GET", f"/painel/casos/{case.protocol}")
    await _refused(client, "GET", f"/painel/casos/{case.protocol}/anexos/1")
    for action, extra in (("assign", {}), ("answer", {"text": "Resolvido."}), ("ask", {"text": "Qual o número?"}),
                          ("archive", {"text": "Duplicado."}), ("extend", {"text": "Vistoria."}),
                          ("decide", {"outcome": "auto", "text": ""})):
        await _refused(client, "POST", f"/painel/casos/{case.protocol}/{action}", csrf=csrf, **extra)
    await _refused(client, "GET", f"/painel/notificacoes/nova?caso={case.id}")  # the hand-over to a notice
    await _refused(client, "POST", "/painel/notificacoes/nova", csrf=csrf, type="auto", rulebook="nx-posturas",
                   infraction_code="CP-I-9", offender_name="Depósito Bom Preço", place="Rua 7 de Setembro",
                   drawn_up_on="2026-03-02", drawn_up_time="09:00", facts="Entulho na calçada.",
                   issuer_name="Clara", case_id=str(case.id))
    listed = await (await client.get("/painel/casos?situacao=all")).text()
    assert case.protocol not in listed
    exported = await (await client.get("/painel/exportar/casos.csv")).text()
    assert case.protocol not in exported and exported.startswith("\ufeffProtocolo")
    async with sessions() as session:
        stored = await session.get(Case, case.id)
        assert stored is not None
        events_after = len((await session.exec(select(CaseEvent).where(CaseEvent.case_id == case.id))).all())
        notices = len((await session.exec(select(Notice))).all())
    assert stored.status is CaseStatus.RECEIVED and stored.assigned_staff_id is None and stored.outcome is None
    assert stored.due_on == case.due_on and events_after == events_before and notices == 2
    assert await _claimed_by(sessions, SA_CLERK) == []

    await sign_in(client, sessions, settings, NX_CLERK)  # the same pages work for Nova Xavantina's clerk
    assert (await client.get(f"/painel/casos/{case.protocol}")).status == 200
    assert case.protocol in await (await client.get("/painel/casos")).text()
    assert case.protocol in await (await client.get("/painel/exportar/casos.csv")).text()


async def test_a_bulk_action_does_the_own_cases_and_refuses_the_foreign_ones(
    client: TestClient, sessions: SessionFactory, settings: Settings, world: World
) -> None:
    csrf = await sign_in(client, sessions, settings, SA_OMBUDSMAN)
    own, foreign = world.sa_ombudsman, world.nx_ombudsman
    page = await client.post("/painel/casos/lote", data=[
        # answered, not archived: an ombudsman case is owed its answer (L13460 Art. 12, 16; issue 18 §1)
        ("csrf", csrf), ("action", "answer"), ("text", "Atendido por telefone, com a orientação pedida."),
        ("ids", str(own.id)),
        ("ids", str(foreign.id))])
    text = await page.text()
    assert page.status == 200 and FOREIGN in text
    async with sessions() as session:
        mine, theirs = await session.get(Case, own.id), await session.get(Case, foreign.id)
    assert mine is not None and theirs is not None
    assert mine.status is CaseStatus.ANSWERED and theirs.status is CaseStatus.RECEIVED
    claimed = await _claimed_by(sessions, SA_OMBUDSMAN)
    assert claimed and {event.entity_id for event in claimed} == {str(own.id)}  # one entry, the own case's
    assert foreign.protocol not in await (await client.get("/painel/casos?situacao=all")).text()


async def test_another_municipalitys_notices_deliveries_and_defences_are_refused(
    client: TestClient, sessions: SessionFactory, settings: Settings, world: World
) -> None:
    number = world.notice.number
    csrf = await sign_in(client, sessions, settings, SA_CLERK)
    assert number not in await (await client.get("/painel/notificacoes")).text()
    await _refused(client, "GET", f"/painel/notificacoes/{number}.pdf")
    assert world.paper.notice_id is not None
    paper_number = (await _notice(sessions, world.paper.notice_id)).number
    deliveries = await (await client.get("/painel/entregas")).text()
    assert paper_number not in deliveries
    await _refused(client, "POST", f"/painel/entregas/{world.paper.id}", csrf=csrf, how="personal",
                   date=TODAY.date().isoformat())
    await _refused(client, "POST", f"/painel/entregas/{world.paper.id}", csrf=csrf, how="edital",
                   date=TODAY.date().isoformat())
    assert number not in await (await client.get("/painel/defesas")).text()
    await _refused(client, "POST", f"/painel/defesas/{world.filing.id}/decisao", csrf=csrf, outcome="granted",
                   text="Procedente.")
    await _refused(client, "POST", "/painel/notificacoes/nova", csrf=csrf, type="auto", rulebook="nx-posturas",
                   infraction_code="CP-I-1", offender_name="Maria", place="Rua 7", drawn_up_on="2026-03-02",
                   drawn_up_time="09:00", facts="Mato alto.", issuer_name="Sá")  # Nova Xavantina's law (CF Art. 30 I)
    for name in ("notificacoes", "entregas"):
        exported = await (await client.get(f"/painel/exportar/{name}.csv")).text()
        assert number not in exported and paper_number not in exported, name
    async with sessions() as session:
        paper = await session.get(NoticeDelivery, world.paper.id)
        filing = await session.get(NoticeFiling, world.filing.id)
        notices = len((await session.exec(select(Notice))).all())
    assert paper is not None and paper.state is DeliveryState.STAFF and paper.ciencia_on is None
    assert filing is not None and filing.outcome is None and filing.decided_at is None and notices == 2
    assert await _claimed_by(sessions, SA_CLERK) == []

    await sign_in(client, sessions, settings, NX_CLERK)
    assert number in await (await client.get("/painel/notificacoes")).text()
    assert paper_number in await (await client.get("/painel/entregas")).text()
    assert number in await (await client.get("/painel/defesas")).text()


async def _notice(sessions: SessionFactory, notice_id: int) -> Notice:
    async with sessions() as session:
        notice = await session.get(Notice, notice_id)
    assert notice is not None
    return notice


async def test_another_municipalitys_drivers_are_refused(
    client: TestClient, sessions: SessionFactory, settings: Settings, world: World
) -> None:
    number = world.authorization
    csrf = await sign_in(client, sessions, settings, NX_CLERK)  # Lei 1.533/2020 is Sapezal's, and so its registry
    found = await (await client.get(f"/painel/motoristas?q={number}")).text()
    assert f'href="/painel/motoristas/{number}"' not in found
    await _refused(client, "GET", f"/painel/motoristas/{number}")
    await _refused(client, "POST", f"/painel/motoristas/{number}/codigo", csrf=csrf)
    await _refused(client, "POST", f"/painel/motoristas/{number}/sancao", csrf=csrf, sanction="suspension",
                   since=TODAY.date().isoformat())
    await _refused(client, "POST", "/painel/motoristas/importar", csrf=csrf, csv=demo_csv(TODAY.date()),
                   apply="1")
    csrf = await sign_in(client, sessions, settings, NX_INSPECTOR)
    await _refused(client, "POST", f"/painel/motoristas/{number}/vistoria", csrf=csrf,
                   date=TODAY.date().isoformat(), result="approved")
    async with sessions() as session:
        codes = (await session.exec(select(LinkCode))).all()
        inspections = len((await session.exec(select(Inspection))).all())
    assert codes == [] and await _claimed_by(sessions, NX_CLERK) == []
    assert await _claimed_by(sessions, NX_INSPECTOR) == []
    await sign_in(client, sessions, settings, SA_INSPECTOR)
    assert (await client.get(f"/painel/motoristas/{number}")).status == 200
    async with sessions() as session:
        assert len((await session.exec(select(Inspection))).all()) == inspections


async def test_another_municipalitys_broadcast_is_refused(
    client: TestClient, sessions: SessionFactory, settings: Settings, world: World
) -> None:
    url = f"/painel/avisos/{world.broadcast_id}"
    csrf = await sign_in(client, sessions, settings, NX_CLERK)
    assert f'href="{url}"' not in await (await client.get("/painel/avisos")).text()
    await _refused(client, "GET", url)
    await _refused(client, "GET", f"{url}/eventos")
    await _refused(client, "POST", f"{url}/cancelar", csrf=csrf)
    async with sessions() as session:
        broadcast = await session.get(Broadcast, world.broadcast_id)
    assert broadcast is not None and broadcast.status is BroadcastStatus.ACTIVE
    assert await _claimed_by(sessions, NX_CLERK) == []
    await sign_in(client, sessions, settings, SA_CLERK)
    assert f'href="{url}"' in await (await client.get("/painel/avisos")).text()


async def _dashboard(client: TestClient) -> tuple[list[str], int]:
    """The dashboard's cards (due this week, overdue, on time, awaiting ciência, awaiting delivery) and open cases."""
    page = await (await client.get("/painel/")).text()
    table = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return re.findall(r'<p class="big[^"]*">([^<]+)</p>', page), sum(
        int(n) for n in re.findall(r"<td>(\d+)</td>", table))


async def test_the_dashboard_counts_only_the_municipalities_worked(
    client: TestClient, sessions: SessionFactory, settings: Settings, world: World
) -> None:
    await sign_in(client, sessions, settings, SA_CLERK)
    cards, open_cases = await _dashboard(client)
    # Sapezal: no notice of its own, and its ombudsman case is the Ombudsman's to read, not a clerk's (issue 20 §1:
    # the dashboard counts only what its reader may open, models/cases/access.py)
    assert cards[3:] == ["0", "0"] and open_cases == 0
    await sign_in(client, sessions, settings, NX_CLERK)
    cards, open_cases = await _dashboard(client)
    assert cards[4] == "1" and open_cases == 1  # Nova Xavantina: the auto on paper; the representação


async def test_an_admin_of_both_chooses_the_municipality_shown(
    client: TestClient, sessions: SessionFactory, settings: Settings, world: World
) -> None:
    csrf = await sign_in(client, sessions, settings, BOTH_ADMIN)
    both = await (await client.get("/painel/casos")).text()
    assert world.nx_case.protocol in both and world.sa_ombudsman.protocol in both
    assert 'name="municipio"' in both and "Nova Xavantina" in both
    chose = await client.post("/painel/municipio", data={"csrf": csrf, "municipio": NX, "voltar": "/painel/casos"},
                              allow_redirects=False)
    assert chose.status == 303 and chose.headers["Location"] == "/painel/casos"
    only_nx = await (await client.get("/painel/casos")).text()
    assert world.nx_case.protocol in only_nx and world.sa_ombudsman.protocol not in only_nx
    assert re.search(rf'<option value="{NX}" selected>', only_nx)
    exported = await (await client.get("/painel/exportar/casos.csv")).text()
    assert world.nx_case.protocol in exported and world.sa_ombudsman.protocol not in exported
    await _refused(client, "GET", f"/painel/casos/{world.sa_ombudsman.protocol}")  # not shown now: not worked
    assert (await client.get(f"/painel/avisos/{world.broadcast_id}")).status == 403
    elsewhere = await client.post("/painel/municipio", data={"csrf": csrf, "municipio": SA,
                                                            "voltar": "//evil.example/painel/"}, allow_redirects=False)
    assert elsewhere.headers["Location"] == "/painel/"  # back to a console page only
    assert world.nx_case.protocol not in await (await client.get("/painel/casos")).text()
    assert (await client.get(f"/painel/avisos/{world.broadcast_id}")).status == 200
    await client.post("/painel/municipio", data={"csrf": csrf, "municipio": "todos"})
    again = await (await client.get("/painel/casos")).text()
    assert world.nx_case.protocol in again and world.sa_ombudsman.protocol in again
    no_csrf = await client.post("/painel/municipio", data={"municipio": NX}, allow_redirects=False)
    assert no_csrf.status == 403 and PLACE_COOKIE not in no_csrf.cookies


async def test_staff_of_one_municipality_cannot_switch_to_another(
    client: TestClient, sessions: SessionFactory, settings: Settings, world: World
) -> None:
    csrf = await sign_in(client, sessions, settings, SA_OMBUDSMAN)
    page = await (await client.get("/painel/casos")).text()
    assert 'name="municipio"' not in page  # nothing to choose
    refused = await client.post("/painel/municipio", data={"csrf": csrf, "municipio": NX}, allow_redirects=False)
    assert refused.status == 403 and "nada foi alterado" in (await refused.text()).lower()
    assert PLACE_COOKIE not in refused.cookies
    client.session.cookie_jar.update_cookies({PLACE_COOKIE: NX})  # a forged choice is ignored
    forged = await (await client.get("/painel/casos")).text()
    assert world.sa_ombudsman.protocol in forged and world.nx_ombudsman.protocol not in forged
    await _refused(client, "GET", f"/painel/casos/{world.nx_ombudsman.protocol}")


async def test_the_audit_log_and_open311_keys_are_for_an_admin_of_every_municipality(
    client: TestClient, sessions: SessionFactory, settings: Settings, world: World
) -> None:
    """The log names every municipality's records, and an Open311 key files in any of them: Sapezal's admin does
    not read Nova Xavantina's entries nor issue keys; an admin of both does."""
    csrf = await sign_in(client, sessions, settings, SA_ADMIN)
    for path in ("/painel/auditoria", "/painel/open311"):
        refused = await client.get(path)
        assert refused.status == 403 and "todos" in await refused.text(), path
    assert (await client.post("/painel/open311", data={"csrf": csrf, "name": "App"})).status == 403
    async with sessions() as session:
        assert (await session.exec(select(Open311Client))).all() == []
    assert world.nx_case.protocol not in await (await client.get("/painel/casos")).text()
    csrf = await sign_in(client, sessions, settings, MIXED)  # an admin of Sapezal with another role elsewhere
    for path in ("/painel/auditoria", "/painel/open311"):
        assert (await client.get(path)).status == 403, path
    assert (await client.post("/painel/open311", data={"csrf": csrf, "name": "App"})).status == 403
    async with sessions() as session:
        assert (await session.exec(select(Open311Client))).all() == []
    await sign_in(client, sessions, settings, BOTH_ADMIN)
    assert (await client.get("/painel/auditoria")).status == 200
    assert (await client.get("/painel/open311")).status == 200


async def test_lists_and_exports_use_the_role_held_in_each_municipality(
    client: TestClient, sessions: SessionFactory, settings: Settings, world: World
) -> None:
    """A page lists a municipality's records only where the member holds the page's role, and exports each
    municipality's rows with the role held there: Sapezal's admin who inspects in Nova Xavantina exports Nova
    Xavantina's inspectors' queue only, not its clerks' representação nor its Ouvidoria's case; an inspector of
    Sapezal who is Nova Xavantina's ombudsman lists no Nova Xavantina notice or delivery (an inspector's pages) and
    exports them without the offender's name (the Ombudsman's view there)."""
    await sign_in(client, sessions, settings, MIXED)
    cases = await (await client.get("/painel/exportar/casos.csv")).text()
    assert world.sa_ombudsman.protocol in cases  # admin in Sapezal: every queue there
    assert world.nx_case.protocol not in cases and world.nx_ombudsman.protocol not in cases
    assert world.notice.number in await (await client.get("/painel/notificacoes")).text()  # inspects there

    await sign_in(client, sessions, settings, SPLIT)
    assert world.paper.notice_id is not None
    paper_number = (await _notice(sessions, world.paper.notice_id)).number
    assert world.notice.number not in await (await client.get("/painel/notificacoes")).text()
    assert paper_number not in await (await client.get("/painel/entregas")).text()
    for name in ("notificacoes", "entregas"):  # the Ouvidoria's export of notices has no offender (not its to see)
        exported = await (await client.get(f"/painel/exportar/{name}.csv")).text()
        assert world.notice.number in exported and "Bar do Zé" not in exported, name
    cases = await (await client.get("/painel/exportar/casos.csv")).text()
    assert world.nx_ombudsman.protocol in cases and world.nx_case.protocol not in cases  # the Ouvidoria's only


async def test_the_actions_offered_follow_the_role_held_in_the_cases_municipality(
    client: TestClient, sessions: SessionFactory, settings: Settings, world: World
) -> None:
    """Admin in Sapezal, inspector in Nova Xavantina: Sapezal's cases may be worked; Nova Xavantina's representação
    (a clerks' case, LGPD Art. 6 III: models/cases/access.py) is not shown to the inspector, and posting one anyway
    is refused with nothing changed."""
    csrf = await sign_in(client, sessions, settings, MIXED)
    own = await (await client.get(f"/painel/casos/{world.sa_ombudsman.protocol}")).text()
    assert f'action="/painel/casos/{world.sa_ombudsman.protocol}/answer"' in own
    shown = await client.get(f"/painel/casos/{world.nx_case.protocol}")
    assert shown.status == 403 and f'action="/painel/casos/{world.nx_case.protocol}/answer"' not in await shown.text()
    refused = await client.post(f"/painel/casos/{world.nx_case.protocol}/archive", data={"csrf": csrf,
                                                                                          "text": "Duplicado."})
    assert refused.status == 403
    async with sessions() as session:
        stored = await session.get(Case, world.nx_case.id)
    assert stored is not None and stored.status is CaseStatus.RECEIVED
    assert await _claimed_by(sessions, MIXED) == []
