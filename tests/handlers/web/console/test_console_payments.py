"""Pagamentos in the console: a clerk records a payment or imports the bank's file; the notice then reads "paga" in
the console's list and on /verificar (CP Art. 34 IV; issue 18 §8)."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator

import pytest
from aiohttp import FormData
from aiohttp.test_utils import TestClient
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.db import SessionFactory
from core.settings import Settings
from models.payments.tables import NoticePayment
from tests.auxil.case_people import NOW, Cast, make_cast
from tests.auxil.console import console_client, sign_in
from tests.auxil.notices import cp_auto, issue

CLARA, INES = 7101, 7102
TODAY = NOW + dt.timedelta(days=7)


@pytest.fixture
async def cast(session: AsyncSession) -> Cast:
    return await make_cast(session)


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory, cast: Cast) -> AsyncIterator[TestClient]:
    async with console_client(settings, sessions, TODAY) as test_client:
        yield test_client


async def test_a_clerk_records_a_payment_and_the_notice_reads_paid_everywhere(
    client: TestClient, sessions: SessionFactory, settings: Settings, session: AsyncSession
) -> None:
    issued = await issue(session, settings, cp_auto(), now=NOW)
    number = issued.notice.number
    csrf = await sign_in(client, sessions, settings, CLARA)
    form = {"csrf": csrf, "number": number, "amount": "378,00", "paid_on": "2026-03-05", "reference": "E2E-77"}
    refused = await client.post("/painel/pagamentos", data={**form, "amount": "300,00"})
    page = await refused.text()
    assert refused.status == 422 and "é menos que a multa" in page and 'value="E2E-77"' in page  # nothing lost
    done = await client.post("/painel/pagamentos", data=form)
    assert done.status == 200 and "agora ela aparece como paga" in await done.text()
    again = await client.post("/painel/pagamentos", data=form)  # a double click changes nothing
    assert again.status == 200
    assert len((await session.exec(select(NoticePayment))).all()) == 1
    listed = await (await client.get("/painel/notificacoes")).text()
    assert "paga em 05/03/2026" in listed
    public = await (await client.get(f"/verificar/{issued.code}")).text()
    assert 'id="pagamento"' in public and "Multa paga em quinta-feira, 5 de março de 2026" in public


async def test_the_bank_file_is_imported_from_the_console_and_an_inspector_may_not(
    client: TestClient, sessions: SessionFactory, settings: Settings, session: AsyncSession
) -> None:
    issued = await issue(session, settings, cp_auto(), now=NOW)
    csv = f"data_pagamento;valor;txid;id_transacao\n05/03/2026;378,00;{issued.notice.number.replace('-', '')};E2E-1\n"
    csrf = await sign_in(client, sessions, settings, INES)
    data = FormData({"csrf": csrf})
    data.add_field("file", csv.encode(), filename="banco.csv", content_type="text/csv")
    assert (await client.post("/painel/pagamentos/importar", data=data)).status == 403
    csrf = await sign_in(client, sessions, settings, CLARA)
    data = FormData({"csrf": csrf})
    data.add_field("file", csv.encode(), filename="banco.csv", content_type="text/csv")
    response = await client.post("/painel/pagamentos/importar", data=data)
    assert response.status == 200 and "1 pagamentos registrados, 0 já conhecidos" in await response.text()
    assert len((await session.exec(select(NoticePayment))).all()) == 1


async def test_the_payment_day_is_typed_as_in_the_chat(
    client: TestClient, sessions: SessionFactory, settings: Settings, session: AsyncSession
) -> None:
    """models/when.py: "ontem" is the day before the municipality's today (it was refused: YYYY-MM-DD only)."""
    issued = await issue(session, settings, cp_auto(), now=NOW)
    csrf = await sign_in(client, sessions, settings, CLARA)
    form = {"csrf": csrf, "number": issued.notice.number, "amount": "378,00", "paid_on": "ontem", "reference": "E2E-78"}
    done = await client.post("/painel/pagamentos", data=form)
    assert done.status == 200, await done.text()
    paid_on = (await session.exec(select(NoticePayment.paid_on))).one()
    assert paid_on == TODAY.astimezone(settings.tz).date() - dt.timedelta(days=1)
