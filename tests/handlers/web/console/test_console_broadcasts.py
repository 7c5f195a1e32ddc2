"""Avisos in the console: the live recipient count, a refusal in the bot's words, the preview exactly as it
arrives (escaped), one broadcast per confirmed preview, progress as server-sent events until it is cancelled."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import AsyncIterator

import pytest
import time_machine
from aiohttp.test_utils import TestClient, TestServer
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.sandbox.demo_data import demo_csv
from bot.web import build_web_app
from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.broadcasts import Broadcast
from models.drivers.importing import import_drivers
from models.drivers.tables import Driver
from models.outbox import OutboxMessage
from tests.auxil.case_people import NOW, Cast, make_cast
from tests.auxil.console import sign_in

CLARA, OTAVIO = 7101, 7103
TODAY = NOW + dt.timedelta(hours=1)


@pytest.fixture
async def cast(session: AsyncSession, settings: Settings) -> Cast:
    cast = await make_cast(session)
    await import_drivers(session=session, text=demo_csv(TODAY.date()), actor="test", cities=cities_of(settings),
                         today=TODAY.date())
    drivers = (await session.exec(select(Driver).order_by(Driver.id))).all()  # type: ignore[arg-type]
    drivers[0].person_id, drivers[1].person_id = cast.joao.id, cast.maria.id  # two linked drivers
    await session.commit()
    return cast


@pytest.fixture
async def client(settings: Settings, sessions: SessionFactory, cast: Cast) -> AsyncIterator[TestClient]:
    with time_machine.travel(TODAY, tick=True):
        async with TestClient(TestServer(build_web_app(settings, sessions))) as test_client:
            yield test_client


async def test_compose_preview_send_once_and_follow_until_cancelled(
    client: TestClient, sessions: SessionFactory, settings: Settings
) -> None:
    csrf = await sign_in(client, sessions, settings, CLARA)
    counted = await (await client.get("/painel/avisos/contagem?audience=drivers")).json()
    assert counted["recipients"] == 2 and "2 pessoas" in counted["text"]
    assert (await client.get("/painel/avisos/contagem?audience=nope")).status == 422

    empty = await client.post("/painel/avisos/previa", data={"csrf": csrf, "audience": "drivers", "text": " "})
    assert empty.status == 422 and "vazio" in await empty.text()
    text = "Vistoria anual: traga o carro <b>limpo</b> <script>alert(1)</script>"
    shown = await client.post("/painel/avisos/previa", data={"csrf": csrf, "audience": "drivers", "text": text})
    page = await shown.text()
    assert shown.status == 200 and "2 pessoas vão receber" in page
    assert "<script>alert" not in page and "&lt;script&gt;" in page  # shown as the text it is, never run
    key = re.search(r'name="key" value="([0-9a-f]+)"', page)
    assert key is not None
    form = {"csrf": csrf, "key": key.group(1), "audience": "drivers", "text": text, "at": ""}
    first = await client.post("/painel/avisos", data=form, allow_redirects=False)
    again = await client.post("/painel/avisos", data=form, allow_redirects=False)  # a double press
    assert first.status == again.status == 303 and first.headers["Location"] == again.headers["Location"]
    async with sessions() as session:
        assert len((await session.exec(select(Broadcast))).all()) == 1
        assert len((await session.exec(select(OutboxMessage))).all()) == 2
    progress = await (await client.get(first.headers["Location"])).text()
    assert "0 de 2 concluídas" in progress and "Parar o envio" in progress

    broadcast_id = first.headers["Location"].rsplit("/", 1)[1]
    stream = await client.get(f"/painel/avisos/{broadcast_id}/eventos")
    assert stream.headers["Content-Type"].startswith("text/event-stream")
    first_event = await stream.content.readline()
    while not first_event.startswith(b"data:"):
        first_event = await stream.content.readline()
    assert json.loads(first_event[5:])["status"] == "active"
    cancelled = await client.post(f"/painel/avisos/{broadcast_id}/cancelar", data={"csrf": csrf})
    assert cancelled.status == 200 and "Parado" in await cancelled.text()
    events = [json.loads(line[5:]) for line in (await stream.read()).splitlines() if line.startswith(b"data:")]
    assert events[-1]["status"] == "cancelled" and events[-1]["cancelled"] == 2  # the stream ends with it


async def test_broadcasts_are_for_clerks(client: TestClient, sessions: SessionFactory, settings: Settings) -> None:
    csrf = await sign_in(client, sessions, settings, OTAVIO)
    assert (await client.get("/painel/avisos")).status == 403
    refused = await client.post("/painel/avisos", data={"csrf": csrf, "audience": "drivers", "text": "Olá a todos"})
    assert refused.status == 403
    async with sessions() as session:
        assert (await session.exec(select(Broadcast))).all() == []


async def test_amanha_8h_is_understood(client: TestClient, sessions: SessionFactory, settings: Settings) -> None:
    """Issue 20 §2: the send moment typed as in the chat (models/when.py); it was refused ("25/12 08:00" only)."""
    csrf = await sign_in(client, sessions, settings, CLARA)
    text = "Mutirão da vistoria amanhã na garagem municipal."
    shown = await client.post("/painel/avisos/previa",
                              data={"csrf": csrf, "audience": "drivers", "text": text, "at": "amanhã às 8h"})
    page = await shown.text()
    assert shown.status == 200, page
    key = re.search(r'name="key" value="([0-9a-f]+)"', page)
    assert key is not None
    form = {"csrf": csrf, "key": key.group(1), "audience": "drivers", "text": text, "at": "amanhã às 8h"}
    sent = await client.post("/painel/avisos", data=form, allow_redirects=False)
    assert sent.status == 303
    async with sessions() as session:
        broadcast = (await session.exec(select(Broadcast))).one()
    assert broadcast.send_at == dt.datetime(2026, 3, 3, 12, 0, tzinfo=dt.UTC)  # Tuesday 08:00 in Cuiabá
