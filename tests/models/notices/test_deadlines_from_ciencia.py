"""Deadlines counted from the ciência this package records, each pinned to its article (issue 6, items 5 and 8).

Dates cross Christmas, New Year, Tiradentes and 1 May, weekends and year ends; business days per
``models.calendar`` (national + MT holidays; pontos facultativos are business days by default).
"""

from __future__ import annotations

import datetime as dt

from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import Publication, cities_of
from core.settings import Settings
from models.deadlines import WindowRole
from models.notices.delivery import record_explicit_ciencia, record_staff_delivery
from models.notices.filings import decide_filing, file_filing
from models.notices.status import NoticeView, notice_view
from models.notices.tables import CienciaKind, FilingOutcome, NoticeDelivery
from tests.auxil.notices import CHEFE, cp_auto, cp_preliminar, issue, l1533_auto
from tests.models.notices.conftest import Cast


def at_cuiaba(day: dt.date, hour: int = 10) -> dt.datetime:
    """A moment on a civil day in Cuiabá (UTC−4)."""
    return dt.datetime(day.year, day.month, day.day, hour + 4, tzinfo=dt.UTC)


async def _view(session: AsyncSession, settings: Settings, notice_id: int, today: dt.date) -> NoticeView:
    from models.notices.tables import Notice

    notice = await session.get(Notice, notice_id)
    assert notice is not None
    await session.refresh(notice)
    return await notice_view(session=session, city=cities_of(settings).of(notice.municipality), notice=notice,
                             today=today)


def _finals(view: NoticeView) -> dict[str, tuple[dt.date, WindowRole]]:
    return {w.rule.id: (w.final_date, w.role) for w in view.windows}


async def _notified(session: AsyncSession, settings: Settings, cast: Cast, data: object, ciencia: dt.date) -> int:
    issued = await issue(session, settings, data, now=at_cuiaba(ciencia) - dt.timedelta(minutes=10))  # type: ignore[arg-type]
    delivery = (await session.exec(__import__("sqlmodel").select(NoticeDelivery))).all()[-1]
    assert delivery.id is not None
    await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                  person_id=cast.maria.id, now=at_cuiaba(ciencia))
    assert issued.notice.id is not None
    return issued.notice.id


async def test_cp_art_37_reclamacao_8_business_days_across_christmas_and_new_year(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Ciência Tue 22/12/2026: 23, 24, 28, 29, 30, 31 Dec, 4 and 5 Jan count (25 Dec and 1 Jan are holidays)."""
    notice_id = await _notified(session, settings, cast, cp_auto(person_id=cast.maria.id), dt.date(2026, 12, 22))
    view = await _view(session, settings, notice_id, dt.date(2026, 12, 22))
    finals = _finals(view)
    assert finals["cp-37-reclamacao"][0] == dt.date(2027, 1, 5)
    # Art. 278 §2: 30 calendar days from the notice; by default the window that closes last governs
    assert finals["cp-278-defesa"] == (dt.date(2027, 1, 21), WindowRole.CHOSEN)
    assert view.acts.defence is not None and view.acts.defence.final_date == dt.date(2027, 1, 21)


async def test_cp_art_25_vi_preliminar_deadline_is_the_one_printed_on_it(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """30 days (BALCAO_CP_NOTICE_DEFENCE_DAYS) from ciência on Mon 2/3/2026 → Wed 1/4/2026; a later change of the
    setting does not move the deadline of a notice already issued."""
    notice_id = await _notified(session, settings, cast, cp_preliminar(person_id=cast.maria.id), dt.date(2026, 3, 2))
    changed = settings.model_copy(update={"cp_notice_defence_days": 5})
    finals = _finals(await _view(session, changed, notice_id, dt.date(2026, 3, 2)))
    assert finals["cp-24-defesa-notificacao"][0] == dt.date(2026, 4, 1)


async def test_lei_1533_art_22_defence_ending_on_a_saturday_moves_to_monday(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Ciência Wed 23/12/2026 + 10 days = Sat 2/1/2027 → Mon 4/1/2027 (CC Art. 132 §1); the payment the notice sets
    (Art. 13 XXIII, 30 days) ends Fri 22/1/2027."""
    notice_id = await _notified(session, settings, cast, l1533_auto(person_id=cast.maria.id), dt.date(2026, 12, 23))
    view = await _view(session, settings, notice_id, dt.date(2026, 12, 23))
    assert _finals(view) == {"l1533-22-defesa": (dt.date(2027, 1, 4), WindowRole.ONLY),
                             "l1533-13xxiii-pagamento": (dt.date(2027, 1, 22), WindowRole.ONLY)}


async def test_cp_art_43_appeal_from_the_ciencia_of_the_decision_and_no_art_46_deposit(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Decision acknowledged Fri 17/4/2026: Art. 43 ten business days skip Tiradentes (21/4) and 1 May → Tue 5/5.

    No Art. 46 deposit window: a deposit cannot condition the appeal (STF Súmula Vinculante 21; CF Art. 5 LV).
    """
    notice_id = await _notified(session, settings, cast, cp_auto(person_id=cast.maria.id), dt.date(2026, 4, 6))
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id,
                               person_id=cast.maria.id,
                               text="Limpei o terreno.", now=at_cuiaba(dt.date(2026, 4, 8)))
    assert filing.id is not None
    await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                        filing_id=filing.id, outcome=FilingOutcome.DENIED,
                        text="Fotos mostram o mato alto. Vistos os fatos e as provas dos autos.",
                        decider_telegram_id=CHEFE, now=at_cuiaba(dt.date(2026, 4, 16)))
    decision = (await session.exec(__import__("sqlmodel").select(NoticeDelivery))).all()[-1]
    assert decision.id is not None
    await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=decision.id,
                                  person_id=cast.maria.id, now=at_cuiaba(dt.date(2026, 4, 17)))
    view = await _view(session, settings, notice_id, dt.date(2026, 4, 17))
    finals = _finals(view)
    assert finals["cp-43-recurso"] == (dt.date(2026, 5, 5), WindowRole.ONLY)
    assert list(finals) == ["cp-43-recurso"]


async def test_cp_art_36_ii_postal_delivery_counts_from_the_ar_date(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """AR signed Wed 30/12/2026: Art. 37 eight business days → Tue 12/1/2027 (31/12, 4–8 and 11–12 Jan)."""
    issued = await issue(session, settings, cp_auto(offender_document=None), now=at_cuiaba(dt.date(2026, 12, 1)))
    delivery = (await session.exec(__import__("sqlmodel").select(NoticeDelivery))).one()
    assert delivery.id is not None and issued.notice.id is not None
    await record_staff_delivery(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                how=CienciaKind.POSTAL,
                                on=dt.date(2026, 12, 30), actor="staff:9102", now=at_cuiaba(dt.date(2027, 1, 4)))
    finals = _finals(await _view(session, settings, issued.notice.id, dt.date(2027, 1, 4)))
    assert finals["cp-37-reclamacao"][0] == dt.date(2027, 1, 12)
    assert finals["cp-278-defesa"][0] == dt.date(2027, 1, 29)


async def test_lei_11419_art_5_2_electronic_ciencia_on_a_saturday_counts_from_monday(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """"Tomo ciência" pressed Sat 5/12/2026: the windows count from Mon 7/12 (L11419 Art. 5 §2 by analogy,
    LEGAL-CHOICES #75). CP Art. 37's 8 business days end Thu 17/12 (not Wed 16/12); Art. 278 §2's 30 days end
    Wed 6/1/2027 (not Mon 4/1). The ciência itself stays recorded on the Saturday it was given."""
    notice_id = await _notified(session, settings, cast, cp_auto(person_id=cast.maria.id), dt.date(2026, 12, 5))
    finals = _finals(await _view(session, settings, notice_id, dt.date(2026, 12, 5)))
    assert finals["cp-37-reclamacao"][0] == dt.date(2026, 12, 17)
    assert finals["cp-278-defesa"] == (dt.date(2027, 1, 6), WindowRole.CHOSEN)
    delivery = (await session.exec(__import__("sqlmodel").select(NoticeDelivery))).all()[-1]
    assert delivery.ciencia_on == dt.date(2026, 12, 5)
    # BALCAO_CIENCIA_DAY_OFF=same_day: L9784 Art. 66 caput read literally, from the Saturday itself
    literal = settings.model_copy(update={"ciencia_day_off": "same_day"})
    finals = _finals(await _view(session, literal, notice_id, dt.date(2026, 12, 5)))
    assert finals["cp-37-reclamacao"][0] == dt.date(2026, 12, 16)
    assert finals["cp-278-defesa"][0] == dt.date(2027, 1, 4)


async def test_lei_11419_art_5_2_decision_acknowledged_on_a_sunday_appeal_counts_from_monday(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Decision acknowledged in the bot on Sun 19/4/2026: CP Art. 43's 10 business days count from Mon 20/4
    (skipping Tiradentes 21/4 and 1 May) and end Wed 6/5, not Tue 5/5 as counted from the Sunday."""
    notice_id = await _notified(session, settings, cast, cp_auto(person_id=cast.maria.id), dt.date(2026, 4, 6))
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id,
                               person_id=cast.maria.id,
                               text="Limpei o terreno.", now=at_cuiaba(dt.date(2026, 4, 8)))
    assert filing.id is not None
    await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                        filing_id=filing.id, outcome=FilingOutcome.DENIED,
                        text="Fotos mostram o mato alto. Vistos os fatos e as provas dos autos.",
                        decider_telegram_id=CHEFE, now=at_cuiaba(dt.date(2026, 4, 16)))
    decision = (await session.exec(__import__("sqlmodel").select(NoticeDelivery))).all()[-1]
    assert decision.id is not None
    await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=decision.id,
                                  person_id=cast.maria.id, now=at_cuiaba(dt.date(2026, 4, 19)))
    finals = _finals(await _view(session, settings, notice_id, dt.date(2026, 4, 19)))
    assert finals["cp-43-recurso"] == (dt.date(2026, 5, 6), WindowRole.ONLY)


async def test_cp_art_36_i_delivery_in_person_on_a_saturday_keeps_its_day(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """A copy handed over in person on Sat 5/12/2026 (CP Art. 36 I): the agent's dated receipt is the ciência
    and the count starts from it (L9784 Art. 66 caput); only an electronic ciência moves (LEGAL-CHOICES #75)."""
    issued = await issue(session, settings, cp_auto(offender_document=None), now=at_cuiaba(dt.date(2026, 12, 1)))
    delivery = (await session.exec(__import__("sqlmodel").select(NoticeDelivery))).one()
    assert delivery.id is not None and issued.notice.id is not None
    await record_staff_delivery(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                how=CienciaKind.PERSONAL, on=dt.date(2026, 12, 5), actor="staff:9102",
                                now=at_cuiaba(dt.date(2026, 12, 7)))
    finals = _finals(await _view(session, settings, issued.notice.id, dt.date(2026, 12, 7)))
    assert finals["cp-37-reclamacao"][0] == dt.date(2026, 12, 16)
