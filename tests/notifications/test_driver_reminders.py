"""The daily driver reminder scan: milestones pinned to their articles, civil days in Cuiabá, never twice,
caught up after downtime; and how each reminder reads."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import time_machine
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import translator
from core.municipality import cities_of
from core.settings import Settings
from models.drivers.linking import confirm_cpf_digits, drivers_with_phone
from models.drivers.registry import Sanction, apply_sanction, authorization_by_number, record_inspection
from models.drivers.tables import InspectionResult, ReminderScanMark
from models.outbox import OutboxMessage
from models.people import ensure_person
from notifications.driver_reminders import SCAN_NAME, anchors_for, milestone_targets
from notifications.rendering import render
from notifications.scans import ScanInputs, run_scan
from tests.auxil.drivers import driver_row, seed_registry

CUIABA = ZoneInfo("America/Cuiaba")
D = dt.date


def at(day: D, hour: int = 9) -> dt.datetime:
    """A civil moment in Cuiabá."""
    return dt.datetime(day.year, day.month, day.day, hour, tzinfo=CUIABA)


async def linked_maria(session: AsyncSession, settings: Settings, **row: str) -> int:
    await seed_registry(session, settings, [driver_row(**row)], today=D(2026, 3, 20))
    person = await ensure_person(session=session, telegram_user_id=1001, chat_id=1001, first_name="Maria",
                                 language_code="pt-br")
    candidates = await drivers_with_phone(session=session, phone="+5565999110001")
    await confirm_cpf_digits(session=session, person_id=person.id, candidates=candidates, digits="123",
                             now=at(D(2026, 3, 20)))
    return person.id


async def scan_on(session: AsyncSession, settings: Settings, when: dt.datetime) -> list[OutboxMessage]:
    """Run the scan at ``when`` and return the messages it added."""
    before = {m.id for m in (await session.exec(select(OutboxMessage))).all()}
    await run_scan(SCAN_NAME, session=session, now=when, inputs=ScanInputs.of(settings))
    rows = (await session.exec(select(OutboxMessage).order_by(OutboxMessage.id))).all()
    return [row for row in rows if row.id not in before]


async def scan_days(session: AsyncSession, settings: Settings, first: D, last: D) -> dict[D, list[str]]:
    """Scan every day from ``first`` to ``last`` and return the dedupe keys added each day."""
    found: dict[D, list[str]] = {}
    day = first
    while day <= last:
        added = await scan_on(session, settings, at(day))
        if added:
            found[day] = [m.dedupe_key for m in added]
        day += dt.timedelta(days=1)
    return found


def test_milestones_superseded_by_a_later_one_are_skipped() -> None:
    today = D(2027, 2, 28)
    targets = milestone_targets((60, 30, 15, 7, 1, 0), D(2027, 2, 1), today)
    # validity ending 2027-03-10: the 30-day day (8 Feb) and the 15-day day (23 Feb) were both missed: only 15
    assert [days for days, target in targets if target == D(2027, 3, 10)] == [15]
    steady = milestone_targets((60, 30, 15, 7, 1, 0), today, today)
    assert steady == [(60, D(2027, 4, 29)), (30, D(2027, 3, 30)), (15, D(2027, 3, 15)), (7, D(2027, 3, 7)),
                      (1, D(2027, 3, 1)), (0, D(2027, 2, 28))]


def test_the_inspection_due_on_1_march_comes_from_28_february_and_29_february(settings: Settings) -> None:
    assert anchors_for(D(2025, 3, 1), cities_of(settings).default) == [D(2024, 3, 1), D(2024, 2, 29)]
    assert anchors_for(D(2025, 2, 28), cities_of(settings).default) == [D(2024, 2, 28)]
    clamp = settings.model_copy(update={"month_end_rule": "clamp"})
    assert anchors_for(D(2025, 2, 28), cities_of(clamp).default) == [D(2024, 2, 29), D(2024, 2, 28)]


async def test_renewal_reminders_60_30_15_7_1_days_before_and_on_the_day_art_3(
    session: AsyncSession, settings: Settings
) -> None:
    await linked_maria(session, settings)  # valid until 2027-03-10
    await scan_on(session, settings, at(D(2027, 1, 1)))
    keys = await scan_days(session, settings, D(2027, 1, 2), D(2027, 3, 12))
    renewal = {day: [k for k in found if k.startswith("driver.renewal")] for day, found in keys.items()}
    assert {day: found for day, found in renewal.items() if found} == {
        D(2027, 1, 9): ["driver.renewal:2027-03-10:60:1"],
        D(2027, 2, 8): ["driver.renewal:2027-03-10:30:1"],
        D(2027, 2, 23): ["driver.renewal:2027-03-10:15:1"],
        D(2027, 3, 3): ["driver.renewal:2027-03-10:7:1"],
        D(2027, 3, 9): ["driver.renewal:2027-03-10:1:1"],
        D(2027, 3, 10): ["driver.renewal:2027-03-10:0:1"],
    }


async def test_inspection_reminders_30_7_1_days_before_it_is_due_art_16(
    session: AsyncSession, settings: Settings
) -> None:
    await linked_maria(session, settings)  # inspected 2026-03-10: due 2027-03-10
    await scan_on(session, settings, at(D(2027, 2, 1)))
    keys = await scan_days(session, settings, D(2027, 2, 2), D(2027, 3, 12))
    inspection = sorted(k for found in keys.values() for k in found if k.startswith("driver.inspection"))
    assert inspection == ["driver.inspection:2027-03-10:1:1", "driver.inspection:2027-03-10:30:1",
                          "driver.inspection:2027-03-10:7:1"]


async def test_days_are_counted_in_cuiaba_and_reminders_wait_for_the_morning(
    session: AsyncSession, settings: Settings
) -> None:
    await linked_maria(session, settings)
    await scan_on(session, settings, at(D(2027, 1, 8)))
    late_evening = dt.datetime(2027, 1, 9, 3, 30, tzinfo=dt.UTC)  # still 8 January, 23:30 in Cuiabá
    assert await scan_on(session, settings, late_evening) == []
    after_midnight = dt.datetime(2027, 1, 9, 4, 30, tzinfo=dt.UTC)  # 9 January, 00:30 in Cuiabá
    [reminder] = await scan_on(session, settings, after_midnight)
    assert reminder.dedupe_key == "driver.renewal:2027-03-10:60:1"
    assert reminder.not_before == dt.datetime(2027, 1, 9, 12, 0, tzinfo=dt.UTC)  # 08:00 in Cuiabá
    assert (reminder.mandatory, reminder.payload["number"]) == (False, "2026/001")


async def test_a_reminder_is_never_sent_twice_and_downtime_is_caught_up(
    session: AsyncSession, settings: Settings
) -> None:
    await linked_maria(session, settings)
    await scan_on(session, settings, at(D(2027, 2, 1)))
    assert await scan_on(session, settings, at(D(2027, 2, 1), 23)) == []
    # down from 2 to 27 February: the 30-day (8 Feb) and 15-day (23 Feb) days passed; only the latest is sent
    caught_up = await scan_on(session, settings, at(D(2027, 2, 28)))
    assert sorted(m.dedupe_key for m in caught_up) == ["driver.inspection:2027-03-10:30:1",
                                                       "driver.renewal:2027-03-10:15:1"]
    mark = await session.get(ReminderScanMark, SCAN_NAME)
    assert mark is not None and mark.last_day == D(2027, 2, 28)
    assert await scan_on(session, settings, at(D(2027, 2, 28), 20)) == []


async def test_a_driver_who_is_not_linked_gets_no_reminder(
    session: AsyncSession, settings: Settings
) -> None:
    await seed_registry(session, settings, [driver_row()], today=D(2026, 3, 20))  # not linked
    await scan_on(session, settings, at(D(2027, 1, 8)))
    assert await scan_on(session, settings, at(D(2027, 1, 9))) == []


async def test_the_five_days_to_present_the_vehicle_are_reminded_daily_then_once_overdue_art_9(
    session: AsyncSession, settings: Settings
) -> None:
    # approved Tuesday 10 March 2026, no inspection: 5 days end Sunday 15, moved to Monday 16 (CC Art. 132 §1)
    await linked_maria(session, settings, vistoria_data="", vistoria_resultado="")
    await session.exec(ReminderScanMark.__table__.delete())  # type: ignore[attr-defined]
    await scan_on(session, settings, at(D(2026, 3, 9)))
    keys = await scan_days(session, settings, D(2026, 3, 10), D(2026, 3, 20))
    obligations = {day: [k for k in found if k.startswith("driver.obligation")] for day, found in keys.items()}
    assert {day: found for day, found in obligations.items() if found} == {
        **{D(2026, 3, d): [f"driver.obligation:present_vehicle:2026-03-10:2026-03-{d}:1"] for d in range(10, 17)},
        D(2026, 3, 17): ["driver.obligation:present_vehicle:2026-03-10:overdue:1"],
    }
    rows = (await session.exec(select(OutboxMessage).where(OutboxMessage.kind == "driver.obligation"))).all()
    assert all(row.mandatory for row in rows)
    assert rows[0].payload["deadline"] == "2026-03-16"


async def test_a_failed_inspection_is_reminded_daily_until_fixed_art_16_par_2(
    session: AsyncSession, settings: Settings
) -> None:
    await linked_maria(session, settings)
    authorization = await authorization_by_number(session=session, number="2026/001")
    assert authorization is not None
    await record_inspection(session=session, vehicle_id=authorization.vehicle_id, inspected_on=D(2026, 9, 1),
                            result=InspectionResult.FAILED, actor="test")
    await session.commit()
    await scan_on(session, settings, at(D(2026, 8, 31)))
    first = await scan_on(session, settings, at(D(2026, 9, 1)))
    second = await scan_on(session, settings, at(D(2026, 9, 2)))
    assert [m.dedupe_key for m in first + second] == [
        "driver.obligation:fix_inspection:2026-09-01:2026-09-01:1",
        "driver.obligation:fix_inspection:2026-09-01:2026-09-02:1",
    ]
    assert first[0].payload["deadline"] == "2026-09-08"  # 6 Sep is a Sunday and 7 Sep a holiday
    await record_inspection(session=session, vehicle_id=authorization.vehicle_id, inspected_on=D(2026, 9, 2),
                            result=InspectionResult.APPROVED, actor="test")
    await session.commit()
    assert await scan_days(session, settings, D(2026, 9, 3), D(2026, 9, 12)) == {}


async def test_the_vehicle_last_year_is_announced_on_1_january_art_2(
    session: AsyncSession, settings: Settings
) -> None:
    await linked_maria(session, settings, ano_modelo="2021")  # after_model_year: may serve until 31/12/2026
    await scan_on(session, settings, at(D(2025, 12, 31)))
    [message] = await scan_on(session, settings, at(D(2026, 1, 1)))
    assert (message.kind, message.payload["last_day"], message.payload["model_year"]) == (
        "driver.vehicle_age", "2026-12-31", 2021,
    )
    assert await scan_on(session, settings, at(D(2026, 1, 2))) == []


async def test_a_suspension_ending_is_announced_7_days_before_and_on_the_day_art_24(
    session: AsyncSession, settings: Settings
) -> None:
    await linked_maria(session, settings)
    authorization = await authorization_by_number(session=session, number="2026/001")
    assert authorization is not None
    await apply_sanction(session=session, authorization=authorization, sanction=Sanction.SUSPENSION,
                         since=D(2026, 5, 1), until=D(2026, 5, 31), actor="test", city=cities_of(settings).default)
    await session.commit()
    await scan_on(session, settings, at(D(2026, 5, 20)))
    keys = await scan_days(session, settings, D(2026, 5, 21), D(2026, 6, 5))
    assert keys == {D(2026, 5, 25): ["driver.suspension_end:2026-06-01:7:1"],
                    D(2026, 6, 1): ["driver.suspension_end:2026-06-01:0:1"]}


async def test_revoked_authorizations_get_nothing(session: AsyncSession, settings: Settings) -> None:
    await linked_maria(session, settings)
    authorization = await authorization_by_number(session=session, number="2026/001")
    assert authorization is not None
    await apply_sanction(session=session, authorization=authorization, sanction=Sanction.REVOCATION,
                         since=D(2026, 12, 1), actor="test", city=cities_of(settings).default)
    await session.commit()
    await scan_on(session, settings, at(D(2027, 1, 1)))
    assert await scan_on(session, settings, at(D(2027, 3, 12))) == []  # one scan covering every milestone day


# --- how they read ------------------------------------------------------------------------------------------------


def test_a_renewal_reads_with_the_days_left_the_last_office_day_and_the_article() -> None:
    payload = {"number": "2026/001", "valid_until": "2027-03-14", "renew_by": "2027-03-12", "office": "SMFO"}
    with time_machine.travel(dt.datetime(2027, 3, 7, 12, tzinfo=CUIABA), tick=False):
        rendered = render("driver.renewal", payload, translator("pt_BR"))
        english = render("driver.renewal", payload, translator("en"))
    assert "7 dias" in rendered.text and "domingo, 14 de março de 2027" in rendered.text
    assert "sexta-feira, 12 de março de 2027" in rendered.text
    assert rendered.text.endswith("<i>Lei 1.533/2020, Art. 3º, par. único</i>")
    assert rendered.buttons == [[("Ver minha situação", "drivers:status")]]
    assert "7 days left" in english.text and "Friday, March 12, 2027" in english.text


def test_the_day_count_is_taken_when_the_message_is_sent() -> None:
    payload = {"number": "2026/001", "valid_until": "2027-03-10", "renew_by": "2027-03-10", "office": "SMFO"}
    with time_machine.travel(dt.datetime(2027, 3, 9, 12, tzinfo=CUIABA), tick=False):
        one = render("driver.renewal", payload, translator("en")).text
    with time_machine.travel(dt.datetime(2027, 3, 11, 12, tzinfo=CUIABA), tick=False):
        ended = render("driver.renewal", payload, translator("es")).text
    assert "1 day left" in one and "office is closed" not in one
    assert "terminó" in ended


def test_an_overdue_fix_cites_the_bar_of_art_26_ii() -> None:
    payload = {"rule": "fix_inspection", "stage": "overdue", "deadline": "2026-09-08", "plate": "QBX1234",
               "office": "SMFO"}
    text = render("driver.obligation", payload, translator("pt_BR")).text
    assert "QBX1234" in text and text.endswith("<i>Lei 1.533/2020, Art. 16, §2º; Art. 26, II</i>")


def test_a_daily_reminder_sent_after_its_deadline_reads_as_overdue() -> None:
    payload = {"rule": "present_vehicle", "stage": "due", "deadline": "2026-03-16", "plate": "QBX1234",
               "office": "SMFO"}
    with time_machine.travel(dt.datetime(2026, 3, 16, 12, tzinfo=CUIABA), tick=False):
        on_time = render("driver.obligation", payload, translator("en")).text
    with time_machine.travel(dt.datetime(2026, 3, 17, 12, tzinfo=CUIABA), tick=False):
        late = render("driver.obligation", payload, translator("en")).text
    assert "(last day today)" in on_time and on_time.endswith("<i>Lei 1.533/2020, Art. 9º</i>")
    assert "ended on Monday, March 16, 2026" in late


async def test_an_inspection_due_on_a_sunday_is_reminded_as_situacao_says_it_art_16(
    session: AsyncSession, settings: Settings
) -> None:
    """Art. 16: due Sunday 14/3/2027 (12 months from 14/3/2026); the reminder names the last open day, Friday 12/3,
    as models.drivers.status does, and once overdue says the driver may not work (StatusKind.INSPECTION_OVERDUE)."""
    await linked_maria(session, settings, vistoria_data="14/03/2026")
    [reminder] = [m for m in await scan_on(session, settings, at(D(2027, 3, 7))) if m.kind == "driver.inspection"]
    assert (reminder.payload["due"], reminder.payload["inspect_by"]) == ("2027-03-14", "2027-03-12")
    with time_machine.travel(dt.datetime(2027, 3, 7, 12, tzinfo=CUIABA), tick=False):
        text = render("driver.inspection", reminder.payload, translator("pt_BR")).text
    assert "sexta-feira, 12 de março de 2027" in text
    with time_machine.travel(dt.datetime(2027, 3, 16, 12, tzinfo=CUIABA), tick=False):
        late = render("driver.inspection", reminder.payload, translator("en")).text
    assert "you may not drive for the apps" in late
