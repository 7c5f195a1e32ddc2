"""The cases behind the public panel tests, with the figures counted by hand.

Period: April 2025 to March 2026 (the panel on 2 March 2026). João, Maria, Clara (clerk), Inês (inspector) and
Otávio (ombudsman) of tests.auxil.case_people. The deployment serves Sapezal (SZ) and Nova Xavantina (NX): a
representação is Nova Xavantina's (its Código de Posturas), a ride-hailing report Sapezal's (Lei 1.533/2020), an
ombudsman case the municipality it was written to:

| case | where | filed | kind | answered | days | deadline | rated |
| --- | --- | --- | --- | --- | --- | --- | --- |
| João's rubbish (CP-I-9) | NX | 12 Jan | representação | 15 Jan, notify | 3 | 22 Jan: on time | satisfied |
| João's noise (CP-XI-1) | NX | 2 Feb | representação | 20 Feb, archived | 18 | 12 Feb: late | unsatisfied |
| Maria's, no rule named | NX | 10 Feb | representação | open | | | |
| Maria's complaint | NX | 9 Feb | ombudsman | 23 Feb, answered | 14 | 11 Mar: on time | satisfied |
| João's old case | NX | 10 Mar 2025 | representação | open (before the period) | | | |
| Maria's ride-hailing report | SZ | 16 Feb | report | 18 Feb, auto | 2 | 26 Feb: on time | partly |
| João's complaint | SZ | 20 Jan | ombudsman | 5 Feb, answered | 16 | 19 Feb: on time | |

Notices issued in the period: in Nova Xavantina an auto to Maria (ciência, reclamação, decided) and a notificação
preliminar to Maria (ciência only); in Sapezal a Lei 1.533 auto to nobody in the bot (on the staff list, no ciência).

By hand, Nova Xavantina: received Jan 1 representação, Feb 2 representações and 1 ombudsman; answered Jan 1
representação, Feb 1 representação and 1 ombudsman; 3 answered, 2 on time (67 %), median of 3, 14, 18 = 14 days;
satisfaction (100 + 0 + 100) / 3 = 66.7 over 3 ratings; chapters: hygiene 1, noise 1, not named 1; notices 2 issued,
2 with ciência, 1 defended, 1 decided. Sapezal: received Jan 1 ombudsman, Feb 1 report; answered Feb 1 ombudsman
and 1 report; 2 answered, both on time (100 %), median of 2 and 16 = 9 days; satisfaction 50 over 1 rating; no
representação; notices 1 issued, none with ciência, defended or decided.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import Publication, cities_of
from core.settings import Settings
from models.cases.citizen import rate
from models.cases.filing import (
    Author,
    Place,
    RideHailingForm,
    file_ombudsman_case,
    file_representation,
    file_ride_hailing_report,
)
from models.cases.handling import answer_case, decide
from models.cases.tables import Outcome, Satisfaction
from models.notices.delivery import record_explicit_ciencia
from models.notices.filings import decide_filing, file_filing
from models.notices.tables import FilingOutcome, NoticeDelivery
from tests.auxil.case_people import JOAO, Cast, make_cast, ombudsman, representation
from tests.auxil.notices import CHEFE, MARIA_CPF, cp_auto, cp_preliminar, issue, l1533_auto, opted_in

PANEL_DAY = dt.datetime(2026, 3, 2, 15, 0, tzinfo=dt.UTC)  # Monday 2 March 2026, 11:00 in Cuiabá
NX, SAPEZAL = "nova-xavantina", "sapezal"


def cuiaba(day: dt.date, hour: int = 10) -> dt.datetime:
    """A moment on a civil day in Cuiabá (UTC−4)."""
    return dt.datetime(day.year, day.month, day.day, hour + 4, tzinfo=dt.UTC)


@dataclass(frozen=True)
class Seeded:
    cast: Cast
    protocols: dict[str, str]


async def seed_panel(session: AsyncSession, settings: Settings) -> Seeded:
    """File, decide, answer and rate the cases of the table above, and issue the three notices."""
    cast = await make_cast(session)
    joao, maria = cast.joao.id, cast.maria.id
    rubbish = await file_representation(session=session, person_id=joao, form=representation(),
                                        now=cuiaba(dt.date(2026, 1, 12)), cities=cities_of(settings))
    noise = await file_representation(
        session=session, person_id=joao, cities=cities_of(settings), now=cuiaba(dt.date(2026, 2, 2)),
        form=representation(infraction_code="CP-XI-1", facts="Som alto toda noite no bar."),
    )
    unnamed = await file_representation(session=session, person_id=maria, cities=cities_of(settings),
                                        form=representation(infraction_code=None, place=Place(
                                            text="Praça central", latitude=-14.67891, longitude=-52.34987)),
                                        now=cuiaba(dt.date(2026, 2, 10)))
    ride = await file_ride_hailing_report(session=session, person_id=maria, cities=cities_of(settings),
                                          now=cuiaba(dt.date(2026, 2, 16)), form=RideHailingForm(
                                              author=JOAO, vehicle_ref="ABC1D23", reason="street",
                                              facts="Pegou passageiros na rodoviária sem o aplicativo.",
                                              occurred_on=dt.date(2026, 2, 15), place=Place(text="Rodoviária")))
    complaint = await file_ombudsman_case(session=session, person_id=joao, form=ombudsman(),
                                          now=cuiaba(dt.date(2026, 1, 20)), city=cities_of(settings).of(SAPEZAL))
    nx_complaint = await file_ombudsman_case(
        session=session, person_id=maria, now=cuiaba(dt.date(2026, 2, 9)), city=cities_of(settings).of(NX),
        form=ombudsman(author=Author(name="Maria Souza"), text="A praça do bairro está sem iluminação."))
    old = await file_representation(session=session, person_id=joao, form=representation(),
                                    now=cuiaba(dt.date(2025, 3, 10)), cities=cities_of(settings))
    clara, ines, otavio = cast.clara.telegram_user_id, cast.ines.telegram_user_id, cast.otavio.telegram_user_id
    await decide(session=session, telegram_user_id=clara, case_id=rubbish.case_id, outcome=Outcome.NOTIFY,
                 reason=None, now=cuiaba(dt.date(2026, 1, 15)))
    await decide(session=session, telegram_user_id=clara, case_id=noise.case_id, outcome=Outcome.ARCHIVE,
                 reason="Não foi possível constatar o ruído.", now=cuiaba(dt.date(2026, 2, 20)))
    await decide(session=session, telegram_user_id=ines, case_id=ride.case_id, outcome=Outcome.AUTO, reason=None,
                 now=cuiaba(dt.date(2026, 2, 18)))
    await answer_case(session=session, cities=cities_of(settings), telegram_user_id=otavio, case_id=complaint.case_id,
                      text="O posto recebeu um médico novo nesta semana.", now=cuiaba(dt.date(2026, 2, 5)))
    await answer_case(session=session, cities=cities_of(settings), telegram_user_id=otavio,
                      case_id=nx_complaint.case_id,
                      text="As lâmpadas foram trocadas.", now=cuiaba(dt.date(2026, 2, 23)))
    for case, level in ((rubbish, Satisfaction.SATISFIED), (noise, Satisfaction.UNSATISFIED),
                        (ride, Satisfaction.PARTLY), (nx_complaint, Satisfaction.SATISFIED)):
        author = joao if case not in (ride, nx_complaint) else maria
        await rate(session=session, person_id=author, case_id=case.case_id, satisfaction=level,
                   now=cuiaba(dt.date(2026, 2, 25)))
    await _notices(session, settings, cast)
    return Seeded(cast=cast, protocols={"rubbish": rubbish.protocol, "noise": noise.protocol,
                                        "unnamed": unnamed.protocol, "ride": ride.protocol,
                                        "complaint": complaint.protocol, "old": old.protocol,
                                        "nx_complaint": nx_complaint.protocol})


async def _last_delivery(session: AsyncSession) -> int:
    delivery = (await session.exec(select(NoticeDelivery).order_by(NoticeDelivery.id.desc()))).first()  # type: ignore[union-attr]
    assert delivery is not None and delivery.id is not None
    return delivery.id


async def _notices(session: AsyncSession, settings: Settings, cast: Cast) -> None:
    maria = cast.maria.id
    await opted_in(session, maria, cpf=MARIA_CPF, now=cuiaba(dt.date(2026, 2, 1)))
    day = dt.date(2026, 2, 23)
    auto = await issue(session, settings, cp_auto(person_id=maria, drawn_up_on=day), now=cuiaba(day, 11))
    await record_explicit_ciencia(session=session, cities=cities_of(settings),
                                  delivery_id=await _last_delivery(session),
                                  person_id=maria, now=cuiaba(day, 12))
    assert auto.notice.id is not None
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=auto.notice.id, person_id=maria,
                               text="O terreno foi limpo no dia seguinte.", now=cuiaba(dt.date(2026, 2, 24)))
    assert filing.id is not None
    await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                        filing_id=filing.id, outcome=FilingOutcome.DENIED,
                        text="As fotos mostram o mato alto na data da autuação.", decider_telegram_id=CHEFE,
                        now=cuiaba(dt.date(2026, 2, 26)))
    await issue(session, settings, cp_preliminar(person_id=maria, drawn_up_on=day), now=cuiaba(day, 13))
    await record_explicit_ciencia(session=session, cities=cities_of(settings),
                                  delivery_id=await _last_delivery(session),
                                  person_id=maria, now=cuiaba(day, 14))
    await issue(session, settings, l1533_auto(offender_document=None, drawn_up_on=day), now=cuiaba(day, 15))
