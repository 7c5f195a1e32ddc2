"""The notices' municipality check lives in the domain (issue 19 §2; CF Art. 30 I): the acts refuse a notice of
another municipality themselves, whichever entry point calls them, before any competence is weighed.
"""

from __future__ import annotations

import datetime as dt

import pytest
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import Publication, cities_of
from core.settings import Settings
from models.notices.access import NoticeOutOfReach, access_delivery, access_filing, access_notice, notices_reach
from models.notices.delivery import record_explicit_ciencia
from models.notices.filings import decide_filing, file_filing
from models.notices.review import open_vista, order_diligencia
from models.notices.tables import FilingOutcome, Notice, NoticeDelivery, NoticeFiling
from models.people import Role, add_staff
from tests.auxil.notices import CHEFE, cp_auto, designate, issue
from tests.models.notices.conftest import Cast
from tests.models.notices.test_deadlines_from_ciencia import at_cuiaba

SAPEZAL_CHEFE = 97301
REASONS = "Improcedente: as fotos do auto mostram o mato alto na data da vistoria."


async def _reclamacao(session: AsyncSession, settings: Settings, cast: Cast) -> tuple[Notice, NoticeFiling]:
    """A Nova Xavantina auto (CP) with a pending reclamação, and a Chefe designated in Sapezal only."""
    issued = await issue(session, settings, cp_auto(person_id=cast.maria.id), now=at_cuiaba(dt.date(2026, 4, 6), 11))
    delivery = (await session.exec(select(NoticeDelivery))).first()
    assert delivery is not None
    await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                  person_id=cast.maria.id, now=at_cuiaba(dt.date(2026, 4, 6)))
    assert issued.notice.id is not None
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id,
                               person_id=cast.maria.id, text="Não sou a proprietária.",
                               now=at_cuiaba(dt.date(2026, 4, 7)))
    await add_staff(session=session, telegram_user_id=SAPEZAL_CHEFE, role=Role.CLERK, name="Chefe de Sapezal",
                    actor="test", municipality="sapezal")
    await designate(session, settings, SAPEZAL_CHEFE, "primeira_instancia")
    return issued.notice, filing


async def test_the_acts_on_a_filing_refuse_staff_of_another_municipality_themselves(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    notice, filing = await _reclamacao(session, settings, cast)
    assert filing.id is not None
    with pytest.raises(NoticeOutOfReach):  # competent in Sapezal, not here: no decision, no vista, no diligência
        await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                            filing_id=filing.id, outcome=FilingOutcome.GRANTED,
                            text=REASONS, decider_telegram_id=SAPEZAL_CHEFE, now=at_cuiaba(dt.date(2026, 4, 9)))
    with pytest.raises(NoticeOutOfReach):
        await open_vista(session=session, cities=cities_of(settings), filing_id=filing.id,
                         decider_telegram_id=SAPEZAL_CHEFE,
                         now=at_cuiaba(dt.date(2026, 4, 9)))
    with pytest.raises(NoticeOutOfReach):
        await order_diligencia(session=session, cities=cities_of(settings), filing_id=filing.id,
                               text="Vistoriar de novo.",
                               decider_telegram_id=SAPEZAL_CHEFE, now=at_cuiaba(dt.date(2026, 4, 9)))
    await session.refresh(filing)
    assert filing.decided_at is None and filing.vista_first_on is None and filing.diligencia_at is None
    await designate(session, settings, CHEFE, "primeira_instancia")  # the Chefe of Nova Xavantina decides
    decided = await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                                  filing_id=filing.id,
                                  outcome=FilingOutcome.DENIED, text=REASONS, decider_telegram_id=CHEFE,
                                  now=at_cuiaba(dt.date(2026, 4, 9)))
    assert decided.outcome is FilingOutcome.DENIED and notice.municipality == "nova-xavantina"


async def test_access_loads_a_notice_its_delivery_and_its_filing_only_for_staff_of_its_municipality(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    notice, filing = await _reclamacao(session, settings, cast)
    assert filing.id is not None
    assert await notices_reach(session=session, telegram_user_id=SAPEZAL_CHEFE,
                               roles=frozenset({Role.CLERK})) == frozenset({"sapezal"})
    with pytest.raises(NoticeOutOfReach):
        await access_notice(session=session, number=notice.number.lower(), telegram_user_id=SAPEZAL_CHEFE)
    with pytest.raises(NoticeOutOfReach):
        await access_filing(session=session, filing_id=filing.id, telegram_user_id=SAPEZAL_CHEFE)
    found = await access_notice(session=session, number=notice.number.lower(),
                                telegram_user_id=cast.clara.telegram_user_id)
    assert found is not None and found.id == notice.id
    assert await access_notice(session=session, number="AI-1999-000009", telegram_user_id=SAPEZAL_CHEFE) is None
    assert await access_delivery(session=session, delivery_id=10_000, telegram_user_id=SAPEZAL_CHEFE) is None


async def test_recording_a_delivery_refuses_staff_of_another_municipality_before_anything_changes(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    from models.notices.delivery import record_edital, record_staff_delivery
    from models.notices.tables import CienciaKind

    issued = await issue(session, settings, cp_auto(), now=at_cuiaba(dt.date(2026, 4, 6), 11))  # to the staff list
    await add_staff(session=session, telegram_user_id=SAPEZAL_CHEFE, role=Role.INSPECTOR, name="Fiscal de Sapezal",
                    actor="test", municipality="sapezal")
    delivery = (await session.exec(select(NoticeDelivery))).one()
    assert delivery.id is not None and issued.notice.municipality == "nova-xavantina"
    with pytest.raises(NoticeOutOfReach):
        await record_staff_delivery(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                    how=CienciaKind.POSTAL, on=dt.date(2026, 4, 8), actor=f"staff:{SAPEZAL_CHEFE}",
                                    now=at_cuiaba(dt.date(2026, 4, 9)), staff_telegram_id=SAPEZAL_CHEFE)
    with pytest.raises(NoticeOutOfReach):
        await record_edital(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                            published_on=dt.date(2026, 4, 8), actor=f"staff:{SAPEZAL_CHEFE}",
                            now=at_cuiaba(dt.date(2026, 4, 9)), staff_telegram_id=SAPEZAL_CHEFE)
    await session.refresh(delivery)
    assert delivery.ciencia_on is None and delivery.edital_published_on is None
    done = await record_staff_delivery(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                       how=CienciaKind.POSTAL, on=dt.date(2026, 4, 8),
                                       actor=f"staff:{cast.ines.telegram_user_id}",
                                       now=at_cuiaba(dt.date(2026, 4, 9)),
                                       staff_telegram_id=cast.ines.telegram_user_id)
    assert done.delivery.ciencia_on == dt.date(2026, 4, 8)
