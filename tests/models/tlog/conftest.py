"""A notice with its whole life in the log: issued to Maria, ciência, a reclamação with a photo, the decision and
its ciência; a second notice nobody touched; audit rows; and the day's head written out (issue 10, item 12)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pytest
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import Publication, Timestamping, cities_of
from core.settings import Settings
from models.audit import record
from models.notices.delivery import record_explicit_ciencia
from models.notices.filings import decide_filing, file_filing, store_filing_attachment
from models.notices.tables import FilingOutcome, NoticeDelivery
from models.tlog.heads import TreeHead
from models.tlog.notices import signed_current_head
from models.tlog.proofs import run
from notifications.log_heads import publish_log_head
from tests.auxil.case_files import png
from tests.auxil.notices import CHEFE, cp_auto, issue
from tests.models.notices.conftest import Cast, cast  # noqa: F401  (the cast fixture)

DAY = dt.date(2026, 3, 2)


def at_cuiaba(day: dt.date, hour: int = 10) -> dt.datetime:
    """A moment on a civil day in Cuiabá (UTC−4)."""
    return dt.datetime(day.year, day.month, day.day, hour + 4, tzinfo=dt.UTC)


@dataclass(frozen=True)
class Life:
    notice_id: int
    other_id: int
    filing_id: int
    attachment_id: int
    published: TreeHead
    code: str


async def _acknowledge_last(session: AsyncSession, settings: Settings, person_id: int, day: dt.date) -> None:
    delivery = (await session.exec(select(NoticeDelivery).order_by(col(NoticeDelivery.id).desc()))).first()
    assert delivery is not None and delivery.id is not None
    await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                  person_id=person_id,
                                  now=at_cuiaba(day, 12))


@pytest.fixture
async def life(session: AsyncSession, settings: Settings, cast: Cast) -> Life:  # noqa: F811
    issued = await issue(session, settings, cp_auto(person_id=cast.maria.id), now=at_cuiaba(DAY, 11))
    notice = issued.notice
    assert notice.id is not None
    await _acknowledge_last(session, settings, cast.maria.id, DAY)
    photo = await store_filing_attachment(session=session, city=cities_of(settings).default, person_id=cast.maria.id,
                                          content=png(), file_name="foto.png", already=[])
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=notice.id,
                               person_id=cast.maria.id,
                               text="Reclamo: o terreno foi limpo.", attachment_ids=[photo.id or 0],
                               now=at_cuiaba(DAY + dt.timedelta(days=1)))
    assert filing.id is not None and photo.id is not None
    await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                        filing_id=filing.id, outcome=FilingOutcome.DENIED,
                        text="Improcedente. Vistos os fatos e as provas dos autos.",
                        decider_telegram_id=CHEFE, now=at_cuiaba(DAY + dt.timedelta(days=2)))
    await _acknowledge_last(session, settings, cast.maria.id, DAY + dt.timedelta(days=3))
    other = (await issue(session, settings, cp_auto(infraction_code="CP-I-2"), now=at_cuiaba(DAY, 15))).notice
    assert other.id is not None
    await record(session=session, actor="staff:9102", action="notice.note", entity="notice", entity_id=str(other.id))
    await session.commit()
    assert await publish_log_head(session=session, now=at_cuiaba(DAY + dt.timedelta(days=3), 19),
                                  cities=cities_of(settings), timestamping=Timestamping.of(settings)) == 1
    await session.commit()
    published = await run(session, signed_current_head)
    return Life(notice_id=notice.id, other_id=other.id, filing_id=filing.id, attachment_id=photo.id,
                published=published, code=issued.code)
