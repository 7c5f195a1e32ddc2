"""The notice scans: tacit ciência (SNE model), reminders before each deadline, the Lei 1.533 90-day warning."""

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
from models.notices.review import open_vista
from models.notices.tables import CienciaKind, FilingOutcome, Notice, NoticeDelivery
from models.outbox import OutboxMessage
from models.people import Role
from notifications.notice_scans import notice_ciencia, notice_limit_warnings, notice_reminders, polite_moment
from notifications.rendering import render
from notifications.scans import SCANS, ScanInputs, run_scan
from tests.auxil.notices import (
    AUTUANTE,
    CHEFE,
    competent,
    cp_auto,
    issue,
    l1533_auto,
    mark_outbox_sent,
    opted_in,
    outbox,
    pdf_text,
    person,
    staff,
)

NOW = dt.datetime(2026, 3, 2, 14, 0, tzinfo=dt.UTC)  # Monday, 10:00 in Cuiabá


def cuiaba(day: dt.date, hour: int = 10) -> dt.datetime:
    return dt.datetime(day.year, day.month, day.day, hour + 4, tzinfo=dt.UTC)


async def _maria(session: AsyncSession) -> int:
    maria = await person(session, 9001, "Maria")
    await opted_in(session, maria.id, now=NOW - dt.timedelta(days=1))
    return maria.id


async def _acknowledged(session: AsyncSession, settings: Settings, person_id: int, day: dt.date,
                        data: object = None, signer: int = AUTUANTE) -> int:
    issued = await issue(session, settings, data or cp_auto(person_id=person_id), now=cuiaba(day, 11),  # type: ignore[arg-type]
                         signer=signer)
    delivery = (await session.exec(select(NoticeDelivery).order_by(NoticeDelivery.id.desc()))).first()  # type: ignore[union-attr]
    assert delivery is not None and delivery.id is not None
    await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                  person_id=person_id,
                                  now=cuiaba(day, 12))
    assert issued.notice.id is not None
    return issued.notice.id


def test_the_scans_are_registered() -> None:
    assert {"notice-ciencia", "notice-reminders", "notice-limit-warnings"} <= set(SCANS)


async def test_tacit_ciencia_through_the_registered_scan(session: AsyncSession, settings: Settings) -> None:
    maria = await _maria(session)
    await issue(session, settings, l1533_auto(person_id=maria), now=NOW)
    await mark_outbox_sent(session, at=NOW)
    assert await run_scan("notice-ciencia", session=session, now=NOW,
                          inputs=ScanInputs.of(settings)) == 0  # sees it sent
    assert await run_scan("notice-ciencia", session=session, now=NOW + dt.timedelta(days=30),
                          inputs=ScanInputs.of(settings)) == 1
    delivery = (await session.exec(select(NoticeDelivery))).one()
    await session.refresh(delivery)
    assert delivery.ciencia_kind is CienciaKind.TACIT
    assert await notice_ciencia(session=session, now=NOW + dt.timedelta(days=31), cities=cities_of(settings)) == 0


async def test_reminders_3_and_1_days_before_the_defence_window_closes(
    session: AsyncSession, settings: Settings
) -> None:
    """CP auto acknowledged Mon 2/3/2026: the governing window (Art. 278 §2) closes Wed 1/4/2026."""
    maria = await _maria(session)
    await _acknowledged(session, settings, maria, dt.date(2026, 3, 2))
    assert await notice_reminders(session=session, now=cuiaba(dt.date(2026, 3, 28)), cities=cities_of(settings)) == 0
    assert await notice_reminders(session=session, now=cuiaba(dt.date(2026, 3, 29)), cities=cities_of(settings)) == 1
    assert await notice_reminders(session=session, now=cuiaba(dt.date(2026, 3, 30)), cities=cities_of(settings)) == 0
    assert await notice_reminders(session=session, now=cuiaba(dt.date(2026, 3, 31)), cities=cities_of(settings)) == 1
    assert await notice_reminders(session=session, now=cuiaba(dt.date(2026, 4, 2)), cities=cities_of(settings)) == 0
    reminders = await outbox(session, "notice.reminder")
    assert [r.payload["rule"] for r in reminders] == ["cp-278-defesa", "cp-278-defesa"]
    assert {r.payload["final_date"] for r in reminders} == {"2026-04-01"}


async def test_a_late_ciencia_gets_only_the_nearest_reminder(session: AsyncSession, settings: Settings) -> None:
    maria = await _maria(session)
    await _acknowledged(session, settings, maria, dt.date(2026, 3, 2), l1533_auto(person_id=maria))
    # Lei 1.533 defence: 10 days → Thu 12/3/2026; on 11/3 only the 1-day reminder is due
    assert await notice_reminders(session=session, now=cuiaba(dt.date(2026, 3, 11)), cities=cities_of(settings)) == 1
    [reminder] = await outbox(session, "notice.reminder")
    assert reminder.dedupe_key.endswith(":1")


async def test_no_reminder_once_the_defence_is_filed_then_only_the_appeal_reminder(
    session: AsyncSession, settings: Settings
) -> None:
    maria = await _maria(session)
    notice_id = await _acknowledged(session, settings, maria, dt.date(2026, 4, 6))
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id, person_id=maria,
                               text="Reclamação.", now=cuiaba(dt.date(2026, 4, 7)))
    assert await notice_reminders(session=session, now=cuiaba(dt.date(2026, 5, 4)), cities=cities_of(settings)) == 0
    assert filing.id is not None
    await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                        filing_id=filing.id, outcome=FilingOutcome.DENIED,
                        text="Improcedente. Vistos os fatos e as provas dos autos.",
                        decider_telegram_id=CHEFE, now=cuiaba(dt.date(2026, 4, 16)))
    decision = (await session.exec(select(NoticeDelivery).order_by(NoticeDelivery.id.desc()))).first()  # type: ignore[union-attr]
    assert decision is not None and decision.id is not None
    await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=decision.id, person_id=maria,
                                  now=cuiaba(dt.date(2026, 4, 17)))
    # appeal (Art. 43) closes Tue 5/5; no deposit reminder for Mon 27/4 (Art. 46 is not applied: STF SV 21)
    assert await notice_reminders(session=session, now=cuiaba(dt.date(2026, 4, 24)), cities=cities_of(settings)) == 0
    assert await notice_reminders(session=session, now=cuiaba(dt.date(2026, 5, 2)), cities=cities_of(settings)) == 1
    rules = [r.payload["rule"] for r in await outbox(session, "notice.reminder")]
    assert rules == ["cp-43-recurso"]


def test_reminders_wait_for_the_morning(settings: Settings) -> None:
    night = dt.datetime(2026, 3, 3, 1, 30, tzinfo=dt.UTC)  # 21:30 in Cuiabá on 2/3
    assert polite_moment(night, settings.tz) == dt.datetime(2026, 3, 3, 12, 0, tzinfo=dt.UTC)
    early = dt.datetime(2026, 3, 3, 9, 0, tzinfo=dt.UTC)  # 05:00 in Cuiabá
    assert polite_moment(early, settings.tz) == dt.datetime(2026, 3, 3, 12, 0, tzinfo=dt.UTC)
    assert polite_moment(NOW, settings.tz) == NOW


async def test_staff_are_warned_before_the_90_day_limit_of_lei_1533_art_22(
    session: AsyncSession, settings: Settings
) -> None:
    """Drawn up Mon 2/3/2026: the 90 days end Sun 31/5 → Mon 1/6/2026; warned from 17/5 (15 days before)."""
    ines = await staff(session, 9101, "Inês", Role.INSPECTOR)
    clara = await staff(session, 9102, "Clara", Role.CLERK)
    await staff(session, 9103, "Otávio", Role.OMBUDSMAN)
    await issue(session, settings, l1533_auto(offender_document=None), now=NOW, signer=9101)
    await issue(session, settings, cp_auto(offender_document=None), now=NOW, signer=9101)  # the CP has no limit
    assert await notice_limit_warnings(session=session, now=cuiaba(dt.date(2026, 5, 16)),
                                       cities=cities_of(settings)) == 0
    assert await notice_limit_warnings(session=session, now=cuiaba(dt.date(2026, 5, 17)),
                                       cities=cities_of(settings)) == 2
    assert await notice_limit_warnings(session=session, now=cuiaba(dt.date(2026, 5, 18)),
                                       cities=cities_of(settings)) == 0
    warnings = await outbox(session, "notice.limit_warning")
    assert {w.person_id for w in warnings} == {ines.id, clara.id}
    assert {w.payload["final_date"] for w in warnings} == {"2026-06-01"}


async def test_no_warning_once_the_notice_is_delivered(session: AsyncSession, settings: Settings) -> None:
    await staff(session, 9102, "Clara", Role.CLERK)
    maria = await _maria(session)
    await _acknowledged(session, settings, maria, dt.date(2026, 3, 2), l1533_auto(person_id=maria))
    assert await notice_limit_warnings(session=session, now=cuiaba(dt.date(2026, 5, 30)),
                                       cities=cities_of(settings)) == 0
    assert (await session.exec(select(OutboxMessage).where(OutboxMessage.kind == "notice.limit_warning"))).all() == []


async def test_under_the_juntada_reading_the_90_days_run_from_the_issue_lei_1533_art_22_2(
    session: AsyncSession, settings: Settings
) -> None:
    """Drawn up on 2/3/2026, issued (filed in the case) on 12/3: §2 counts 90 days from 12/3, to Wed 10/6/2026."""
    juntada = settings.model_copy(update={"l1533_notice_90d_start": "juntada"})
    await staff(session, 9102, "Clara", Role.CLERK)
    await issue(session, juntada, l1533_auto(offender_document=None), now=cuiaba(dt.date(2026, 3, 12)), signer=9102)
    assert await notice_limit_warnings(session=session, now=cuiaba(dt.date(2026, 5, 25)),
                                       cities=cities_of(juntada)) == 0
    assert await notice_limit_warnings(session=session, now=cuiaba(dt.date(2026, 5, 26)),
                                       cities=cities_of(juntada)) == 1
    [warning] = await outbox(session, "notice.limit_warning")
    assert warning.payload["final_date"] == "2026-06-10"


async def test_lei_1533_art_13_xxiii_the_notice_states_the_payment_deadline_and_it_is_reminded(
    session: AsyncSession, settings: Settings
) -> None:
    """Art. 13 XXIII "pagar multas no prazo estabelecido": the notice sets 30 days (BALCAO_L1533_PAYMENT_DAYS), printed
    on it and frozen; acknowledged Mon 2/3/2026 they end Wed 1/4/2026, reminded 3 and 1 days before."""
    maria = await _maria(session)
    notice_id = await _acknowledged(session, settings, maria, dt.date(2026, 3, 2), l1533_auto(person_id=maria))
    notice = await session.get(Notice, notice_id)
    assert notice is not None and notice.payment_days == 30
    assert "Art. 13, XXIII" in pdf_text(notice.pdf)
    longer = settings.model_copy(update={"l1533_payment_days": 60})  # a later change does not move this notice
    await notice_reminders(session=session, now=cuiaba(dt.date(2026, 3, 9)), cities=cities_of(longer))
    assert await notice_reminders(session=session, now=cuiaba(dt.date(2026, 3, 29)), cities=cities_of(longer)) == 1
    assert await notice_reminders(session=session, now=cuiaba(dt.date(2026, 3, 31)), cities=cities_of(longer)) == 1
    rules = [(r.payload["rule"], r.payload["final_date"]) for r in await outbox(session, "notice.reminder")]
    assert rules[-2:] == [("l1533-13xxiii-pagamento", "2026-04-01")] * 2


async def test_cp_art_40_the_decision_due_is_warned_to_clerks_by_the_registered_scan(
    session: AsyncSession, settings: Settings
) -> None:
    """A reclamação filed Tue 7/4/2026 must be decided by Fri 17/4 (Art. 40): the scan warns the Chefe 3 and 1 days
    before and on the day, once each, with a button to the filing; after a vista the due day moves (Art. 40 §2)."""
    await staff(session, 9102, "Clara", Role.CLERK)
    chefe = await person(session, CHEFE, "Carlos Chefe")
    await competent(session, settings, CHEFE, "primeira_instancia", name="Carlos Chefe", role=Role.OMBUDSMAN)
    maria = await _maria(session)
    notice_id = await _acknowledged(session, settings, maria, dt.date(2026, 4, 6), signer=9102)
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id, person_id=maria,
                               text="Reclamação.", now=cuiaba(dt.date(2026, 4, 7)))
    assert "notice-decision-warnings" in SCANS
    counts = [await run_scan("notice-decision-warnings", session=session, now=cuiaba(dt.date(2026, 4, day)),
                             inputs=ScanInputs.of(settings)) for day in (13, 14, 15, 16, 17, 17)]
    assert counts == [0, 1, 0, 1, 1, 0]
    [first, *_] = await outbox(session, "notice.decision_warning")
    with time_machine.travel(cuiaba(dt.date(2026, 4, 14)), tick=False):
        text = render("notice.decision_warning", first.payload, translator("pt_BR")).text
    assert "sexta-feira, 17 de abril de 2026" in text and "Art. 40" in text
    assert first.payload["filing_id"] == filing.id
    assert filing.id is not None
    # CP Art. 40: the warnings go to the Chefe, who decides; Clara drew the auto up and may not (L9784 Art. 18 I)
    assert {row.person_id for row in await outbox(session, "notice.decision_warning")} == {chefe.id}
    await open_vista(session=session, cities=cities_of(settings), filing_id=filing.id, decider_telegram_id=CHEFE,
                     now=cuiaba(dt.date(2026, 4, 15)))  # vista: 3 days end Sat 18/4 → Mon 20/4
    # §2: 5 days after the vista end on Sat 25/4 → Mon 27/4; warned 3 days before, on Fri 24/4
    assert await run_scan("notice-decision-warnings", session=session, now=cuiaba(dt.date(2026, 4, 23)),
                          inputs=ScanInputs.of(settings)) == 0
    assert await run_scan("notice-decision-warnings", session=session, now=cuiaba(dt.date(2026, 4, 24)),
                          inputs=ScanInputs.of(settings)) == 1
    [*_, last] = await outbox(session, "notice.decision_warning")
    assert (last.payload["rule"], last.payload["final_date"]) == ("cp-40-2-decisao-apos-vista", "2026-04-27")
