"""Each act cites its own law in the console (issue 18 §3): a Lei 1.533 auto's decision box and delivery list cite
Lei 1.533/2020, not the Código de Posturas; an "Outros" item is refused without the provision infringed."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestClient
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.notices.chain import events_of
from models.notices.delivery import record_explicit_ciencia
from models.notices.filings import file_filing
from models.notices.platform_delivery import NoticePlatformDelivery, PlatformMeans
from models.notices.tables import CienciaKind, DeliveryState, NoticeDelivery
from tests.auxil.case_people import NOW, Cast, make_cast
from tests.auxil.console import console_client, sign_in
from tests.auxil.notices import cp_preliminar, designate, issue, l1533_auto, opted_in

CLARA = 7101
TODAY = NOW + dt.timedelta(hours=1)


@pytest.fixture
async def cast(session: AsyncSession, settings: Settings) -> Cast:
    made = await make_cast(session)
    await designate(session, settings, CLARA, "autuar")  # CP Art. 12: Clara signs what she issues in the console
    await session.commit()
    return made


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory, cast: Cast) -> AsyncIterator[TestClient]:
    async with console_client(settings, sessions, TODAY) as test_client:
        yield test_client


async def test_a_lei_1533_defence_is_decided_under_lei_1533_not_the_codigo_de_posturas(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    # CF Art. 30 I: Sapezal's act under Sapezal's law; L1533 Art. 17 (the SMFO applies penalties), Art. 22.
    async with sessions() as session:
        await opted_in(session, cast.maria.id, now=NOW)
        issued = await issue(session, settings, l1533_auto(person_id=cast.maria.id), now=NOW)
        delivery = (await session.exec(select(NoticeDelivery))).one()
        assert delivery.id is not None and issued.notice.id is not None
        await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                      person_id=cast.maria.id, now=NOW)
        await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id,
                          person_id=cast.maria.id,
                          text="Eu estava aguardando a chamada no aplicativo.", now=TODAY)
    await sign_in(client, sessions, settings, CLARA)
    page = await (await client.get("/painel/defesas")).text()
    assert issued.notice.number in page
    assert "Decisão (Lei nº 1.533/2020, Art. 17 e 22)" in page
    assert "Código de Posturas Art. 40" not in page


async def test_a_lei_1533_notice_to_deliver_lists_lei_1533s_means_not_cp_art_36(
    client: TestClient, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    # L1533 Art. 22 §1: directly, by post with the Correio's receipt, electronically, or by edital; not CP Art. 36.
    async with sessions() as session:
        issued = await issue(session, settings, l1533_auto(), now=NOW)
    await sign_in(client, sessions, settings, CLARA)
    page = await (await client.get("/painel/entregas")).text()
    assert issued.notice.number in page
    assert "Lei 1.533/2020, Art. 22 §1" in page and "comprovante do Correio" in page
    assert "Art. 36" not in page


async def test_an_outros_item_is_refused_in_the_console_without_the_provision_infringed(
    client: TestClient, sessions: SessionFactory, settings: Settings
) -> None:
    # CP Art. 34 III: "Outros" names no conduct; the refusal sits next to the provision field, with its article.
    csrf = await sign_in(client, sessions, settings, CLARA)
    form = {"csrf": csrf, "type": "auto", "rulebook": "nx-posturas", "infraction_code": "CP-I-11",
            "offender_name": "Depósito Bom Preço Ltda.", "place": "Rua 7 de Setembro, 200",
            "drawn_up_on": "2026-03-02", "drawn_up_time": "10:30", "facts": "Restos de obra varridos para o ralo.",
            "issuer_name": "Clara (mat. 77)"}
    refused = await client.post("/painel/notificacoes/nova", data=form)
    page = await refused.text()
    assert refused.status == 422
    assert re.search(r'<p class="errors" id="e-infringed_provision-1">[^<]*não descreve nenhuma conduta[^<]*'
                     r'Art\. 34, III\)</p>', page)
    issued = await client.post("/painel/notificacoes/nova", data={**form, "infringed_provision": "Art. 50, IX"},
                               allow_redirects=False)
    assert issued.status == 303, await issued.text()


async def test_a_lei_1533_notice_goes_to_the_platform_too_and_its_delivery_is_recorded_apart(
    client: TestClient, sessions: SessionFactory, settings: Settings
) -> None:
    # L1533 Art. 22: "expedição da notificação à plataforma tecnológica e ao condutor"; §1: the means of delivery.
    async with sessions() as session:
        issued = await issue(session, settings, l1533_auto(platform_name="Uber do Brasil Tecnologia Ltda."), now=NOW)
    csrf = await sign_in(client, sessions, settings, CLARA)
    page = await (await client.get("/painel/entregas")).text()
    assert "Cópias para as plataformas tecnológicas (Lei 1.533/2020, Art. 22)" in page
    assert f"{issued.notice.number} · Uber do Brasil Tecnologia Ltda." in page
    form = re.search(r'action="/painel/entregas/plataforma/(\d+)"', page)
    assert form is not None
    future = await client.post(f"/painel/entregas/plataforma/{form.group(1)}", data={
        "csrf": csrf, "means": "postal", "date": (TODAY + dt.timedelta(days=2)).date().isoformat()})
    assert future.status == 422
    done = await client.post(f"/painel/entregas/plataforma/{form.group(1)}", data={
        "csrf": csrf, "means": "postal", "date": TODAY.date().isoformat()})
    assert done.status == 200 and "Uber do Brasil" not in await done.text()
    async with sessions() as session:
        platform = (await session.exec(select(NoticePlatformDelivery))).one()
        driver = (await session.exec(select(NoticeDelivery))).one()
    assert (platform.means, platform.delivered_on) == (PlatformMeans.POSTAL, TODAY.date())
    assert driver.state is DeliveryState.STAFF  # the driver's delivery, and its deadlines, are untouched


async def test_a_refused_preliminar_is_delivered_that_day_and_leads_to_the_auto_at_once(
    client: TestClient, sessions: SessionFactory, settings: Settings
) -> None:
    # CP Art. 26 sole paragraph: the refusal, declared by the agent, neither favours nor harms; Art. 29: the auto.
    async with sessions() as session:
        issued = await issue(session, settings, cp_preliminar(), now=NOW)
        await issue(session, settings, l1533_auto(), now=NOW)
    csrf = await sign_in(client, sessions, settings, CLARA)
    page = await (await client.get("/painel/entregas")).text()
    assert page.count('value="refusal:receipt"') == 1  # the preliminar's; Lei 1.533 provides no such refusal
    assert "Art. 26, parágrafo único" in page and 'value="refusal:sign"' not in page
    delivery_id = re.search(rf'{issued.notice.number}.*?action="/painel/entregas/(\d+)"', page, re.S)
    assert delivery_id is not None
    refused = await client.post(f"/painel/entregas/{delivery_id.group(1)}", data={
        "csrf": csrf, "how": "refusal:receipt", "date": TODAY.date().isoformat()}, allow_redirects=False)
    assert refused.status == 303
    assert refused.headers["Location"] == f"/painel/notificacoes/nova?preliminar={issued.notice.number}"
    form = await (await client.get(refused.headers["Location"])).text()
    assert 'value="auto" id="type-auto" checked' in form and f'value="{issued.notice.number}"' in form
    async with sessions() as session:
        delivery = await session.get(NoticeDelivery, int(delivery_id.group(1)))
        assert delivery is not None
        events = [event.kind for event in await events_of(session=session, notice_id=issued.notice.id)]
    assert delivery.state is DeliveryState.DONE and delivery.ciencia_kind is CienciaKind.PERSONAL
    assert "delivery.refusal" in events
