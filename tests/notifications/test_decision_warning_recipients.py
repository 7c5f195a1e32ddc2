"""The decision warnings go to the competent authority, per municipality, never to an impeded member or to every
clerk: the Chefe do Departamento for a reclamação (CP Art. 40), the Prefeito for the appeal (CP Art. 45)."""

from __future__ import annotations

import datetime as dt

import time_machine
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import translator
from core.municipality import Publication, cities_of
from core.settings import Settings
from models.notices.delivery import record_explicit_ciencia
from models.notices.filings import decide_filing, file_filing
from models.notices.tables import FilingOutcome, NoticeDelivery
from models.people import Role
from notifications.notice_scans import notice_decision_warnings
from notifications.rendering import render
from tests.auxil.notices import AUTUANTE, CHEFE, PREFEITO, competent, cp_auto, issue, opted_in, outbox, person, staff


def cuiaba(day: dt.date, hour: int = 10) -> dt.datetime:
    return dt.datetime(day.year, day.month, day.day, hour + 4, tzinfo=dt.UTC)


CLARK, OTHER_CHEFE, ADMIN = 97020, 97021, 97022


async def _ack_last(session: AsyncSession, settings: Settings, person_id: int, day: dt.date) -> None:
    delivery = (await session.exec(select(NoticeDelivery).order_by(NoticeDelivery.id.desc()))).first()  # type: ignore[union-attr]
    assert delivery is not None and delivery.id is not None
    await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                  person_id=person_id,
                                  now=cuiaba(day, 12))


async def _recipients(session: AsyncSession) -> dict[str, set[int]]:
    found: dict[str, set[int]] = {}
    for row in await outbox(session, "notice.decision_warning"):
        found.setdefault(row.payload["rule"], set()).add(row.person_id)
    return found


async def test_cp_art_40_and_45_each_warning_goes_to_who_may_decide_it(
    session: AsyncSession, settings: Settings
) -> None:
    maria = await person(session, 9001, "Maria")
    assert maria.id is not None
    await opted_in(session, maria.id, now=cuiaba(dt.date(2026, 4, 1)))
    issued = await issue(session, settings, cp_auto(person_id=maria.id), now=cuiaba(dt.date(2026, 4, 6), 11))
    assert issued.notice.id is not None
    people = {tid: (await person(session, tid, name)).id for tid, name in (
        (AUTUANTE, "Inês Fiscal"), (CHEFE, "Carlos Chefe"), (PREFEITO, "Paula Prefeita"), (CLARK, "Ana Atendente"),
        (OTHER_CHEFE, "Chefe de Sapezal"))}
    await staff(session, CLARK, "Ana Atendente", Role.CLERK)  # a clerk with no competence: not warned
    # Sapezal's Chefe decides Sapezal's reclamações, not Nova Xavantina's (CF Art. 30 I)
    await competent(session, settings, OTHER_CHEFE, "primeira_instancia", name="Chefe de Sapezal",
                    municipality="sapezal")
    await _ack_last(session, settings, maria.id, dt.date(2026, 4, 6))
    reclamacao = await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id,
                                   person_id=maria.id, text="Reclamação.", now=cuiaba(dt.date(2026, 4, 7)))
    assert reclamacao.id is not None
    # Art. 40: due Fri 17/4, warned on 14/4 (3 days before)
    assert await notice_decision_warnings(session=session, now=cuiaba(dt.date(2026, 4, 14)),
                                          cities=cities_of(settings)) == 1
    assert await _recipients(session) == {"cp-40-decisao": {people[CHEFE]}}
    await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                        filing_id=reclamacao.id, outcome=FilingOutcome.DENIED,
                        text="Improcedente: as fotos do auto mostram o mato alto na data da vistoria.",
                        decider_telegram_id=CHEFE, now=cuiaba(dt.date(2026, 4, 15)))
    await _ack_last(session, settings, maria.id, dt.date(2026, 4, 15))
    appeal = await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id,
                               person_id=maria.id,
                               text="Recorro.", now=cuiaba(dt.date(2026, 4, 16)))
    # The Chefe also holds the second-instance competence, but decided the first (L9784 Art. 13 II, 56 §1)
    await competent(session, settings, CHEFE, "segunda_instancia", name="Carlos Chefe")
    # Art. 45: 10 days from the filing, Sun 26/4 → Mon 27/4; warned on Fri 24/4 (3 days before) to the Prefeito alone
    assert await notice_decision_warnings(session=session, now=cuiaba(dt.date(2026, 4, 23)),
                                          cities=cities_of(settings)) == 0
    assert await notice_decision_warnings(session=session, now=cuiaba(dt.date(2026, 4, 24)),
                                          cities=cities_of(settings)) == 1
    assert (await _recipients(session))["cp-45-decisao-recurso"] == {people[PREFEITO]}
    [*_, last] = await outbox(session, "notice.decision_warning")
    assert last.payload["filing_id"] == appeal.id
    assert last.payload["final_date"] == "2026-04-27"
    with time_machine.travel(cuiaba(dt.date(2026, 4, 24)), tick=False):
        text = render("notice.decision_warning", last.payload, translator("pt_BR")).text
    assert "recurso" in text and "Art. 45" in text


async def test_with_nobody_competent_the_admins_are_told(session: AsyncSession, settings: Settings) -> None:
    """Nobody holds the first-instance competence: the municipality's admins hear of it, not every clerk."""
    maria = await person(session, 9001, "Maria")
    assert maria.id is not None
    await opted_in(session, maria.id, now=cuiaba(dt.date(2026, 4, 1)))
    await staff(session, CLARK, "Ana Atendente", Role.CLERK)  # designated to draw up (CP Art. 12), nothing else
    issued = await issue(session, settings, cp_auto(person_id=maria.id), signer=CLARK,
                         now=cuiaba(dt.date(2026, 4, 6), 11))
    assert issued.notice.id is not None
    admin = await person(session, ADMIN, "Admin")
    await staff(session, ADMIN, "Admin", Role.ADMIN)
    await _ack_last(session, settings, maria.id, dt.date(2026, 4, 6))
    await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id, person_id=maria.id,
                      text="Reclamação.", now=cuiaba(dt.date(2026, 4, 7)))
    assert await notice_decision_warnings(session=session, now=cuiaba(dt.date(2026, 4, 14)),
                                          cities=cities_of(settings)) == 1
    assert await _recipients(session) == {"cp-40-decisao": {admin.id}}
