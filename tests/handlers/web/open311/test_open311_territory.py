"""Open311 refuses a place outside the jurisdiction's municipality with a 400 naming ``lat`` and ``long`` and the
municipality (issue 20 §3): the refusal is the domain's, so FixMyStreet reads why."""

import asyncio
import datetime as dt
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import requests
import time_machine
from sqlmodel.ext.asyncio.session import AsyncSession

from core.db import SessionFactory
from core.settings import Settings, load_settings
from models.columns import utcnow
from models.open311.keys import issue_key
from tests.auxil.case_people import NOW, Cast, make_cast
from tests.auxil.municipalities import write_municipalities
from tests.auxil.open311 import Open311Server, joao_report, open311_server

NX_AREA = "area = { latitude = -14.6731, longitude = -52.3547, radius_km = 80 }"
SAPEZAL_TOWN = (-13.5427, -58.8145)  # about 700 km west of Nova Xavantina


@pytest.fixture
def settings(settings: Settings, tmp_path: Path) -> Settings:
    """The test deployment, Nova Xavantina with its territory as a circle of 80 km."""
    return load_settings(database_url=settings.database_url,
                         municipalities_file=write_municipalities(tmp_path, nx_extra=NX_AREA))


@pytest.fixture
async def cast(session: AsyncSession) -> Cast:
    return await make_cast(session)


@pytest.fixture
async def server(settings: Settings, sessions: SessionFactory, cast: Cast) -> AsyncIterator[Open311Server]:
    with time_machine.travel(NOW + dt.timedelta(hours=1), tick=False):
        async with open311_server(settings, sessions) as running:
            yield running


async def test_open311_refuses_a_far_location_with_a_400_naming_lat_and_long(
    server: Open311Server, sessions: SessionFactory
) -> None:
    async with sessions() as session:
        key = await issue_key(session=session, name="cidade-app", now=utcnow(), actor="test")
    far = joao_report(key, lat=str(SAPEZAL_TOWN[0]), long=str(SAPEZAL_TOWN[1]))
    refused = await asyncio.to_thread(requests.post, server.url("requests.json"), data=far)
    assert refused.status_code == 400, refused.text
    description = refused.json()[0]["description"]
    assert description.startswith("lat, long: ") and "Nova Xavantina" in description
    near = await asyncio.to_thread(requests.post, server.url("requests.json"), data=joao_report(key))
    assert near.status_code == 201, near.text
