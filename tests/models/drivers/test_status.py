"""authorization_status pins each rule of Lei 1.533/2020 to its article, with dates at the edges."""

from __future__ import annotations

import datetime as dt

import pytest

from core.municipality import cities_of
from core.settings import Settings
from models.deadlines import add_months
from models.drivers.status import (
    AuthorizationStatus,
    StatusKind,
    StepCode,
    authorization_status,
    validity_end,
    vehicle_last_day,
)
from models.drivers.tables import Authorization, Inspection, InspectionResult, Vehicle

D = dt.date


def car(model_year: int = 2023) -> Vehicle:
    return Vehicle(id=7, plate="QBX1234", renavam="01234567897", model_year=model_year)


APPROVED_ON = D(2026, 3, 10)


def authorization(settings: Settings, paid: D = APPROVED_ON, **fields: object) -> Authorization:
    values: dict[str, object] = {
        "id": 1,
        "number": "2026/001",
        "driver_id": 1,
        "vehicle_id": 7,
        "approved_on": paid,
        "fee_paid_on": paid,
        "valid_until": validity_end(paid, cities_of(settings).default),
        "vehicle_since": paid,
    }
    values.update(fields)
    return Authorization(**values)


def inspected(day: D, result: InspectionResult = InspectionResult.APPROVED, vehicle_id: int = 7) -> Inspection:
    return Inspection(vehicle_id=vehicle_id, inspected_on=day, result=result)


def status(settings: Settings, on: D, auth: Authorization | None = None, inspections: list[Inspection] | None = None,
           vehicle: Vehicle | None = None) -> AuthorizationStatus:
    return authorization_status(
        authorization=auth or authorization(settings),
        inspections=[inspected(D(2026, 3, 10))] if inspections is None else inspections,
        vehicle=vehicle or car(),
        on=on,
        city=cities_of(settings).default,
    )


def step(result: AuthorizationStatus, code: StepCode):  # type: ignore[no-untyped-def]
    return next(s for s in result.next_steps if s.code is code)


# --- Art. 3 par. único: 12 months from the fee payment ---------------------------------------------------------


def test_validity_is_twelve_months_from_the_fee_payment_art_3(rules: Settings) -> None:
    assert validity_end(D(2026, 3, 10), cities_of(rules).default) == D(2027, 3, 10)
    result = status(rules, D(2026, 6, 1))
    assert (result.kind, result.rule, result.article) == (StatusKind.ACTIVE, "l1533-3-validade", "Art. 3º, par. único")
    assert (result.until, result.days_left) == (D(2027, 3, 10), 282)
    assert result.may_serve


def test_a_fee_paid_on_29_february_is_valid_until_1_march_art_3_and_cc_132(rules: Settings) -> None:
    assert validity_end(D(2024, 2, 29), cities_of(rules).default) == D(2025, 3, 1)


def test_the_clamp_reading_ends_29_february_validity_on_28_february(rules: Settings) -> None:
    clamp = rules.model_copy(update={"month_end_rule": "clamp"})
    assert validity_end(D(2024, 2, 29), cities_of(clamp).default) == D(2025, 2, 28)


def test_a_validity_across_the_year_end(rules: Settings) -> None:
    auth = authorization(rules, paid=D(2026, 12, 31))
    assert auth.valid_until == D(2027, 12, 31)
    assert status(rules, D(2027, 12, 31), auth, [inspected(D(2026, 12, 31))]).kind is StatusKind.EXPIRING_SOON
    assert status(rules, D(2028, 1, 1), auth, [inspected(D(2026, 12, 31))]).kind is StatusKind.EXPIRED


def test_expiring_soon_starts_exactly_at_the_configured_threshold(rules: Settings) -> None:
    valid_until = D(2027, 3, 10)
    assert status(rules, valid_until - dt.timedelta(days=31)).kind is StatusKind.ACTIVE
    soon = status(rules, valid_until - dt.timedelta(days=30))
    assert (soon.kind, soon.days_left) == (StatusKind.EXPIRING_SOON, 30)
    wider = rules.model_copy(update={"driver_expiring_soon_days": 60})
    assert status(wider, valid_until - dt.timedelta(days=45)).kind is StatusKind.EXPIRING_SOON


def test_the_last_day_of_validity_still_counts_and_the_next_is_expired_art_3(rules: Settings) -> None:
    last = status(rules, D(2027, 3, 10))
    assert (last.kind, last.days_left, last.may_serve) == (StatusKind.EXPIRING_SOON, 0, True)
    after = status(rules, D(2027, 3, 11))
    assert (after.kind, after.until, after.days_left, after.may_serve) == (
        StatusKind.EXPIRED, D(2027, 3, 10), -1, False,
    )
    assert step(after, StepCode.RENEW).overdue


def test_a_validity_ending_on_a_sunday_is_not_extended_but_says_the_last_office_day(rules: Settings) -> None:
    auth = authorization(rules, paid=D(2026, 3, 14))  # valid until Sunday 14 March 2027
    assert auth.valid_until.weekday() == 6
    on_sunday = status(rules, D(2027, 3, 14), auth, [inspected(D(2026, 3, 14))])
    assert on_sunday.kind is StatusKind.EXPIRING_SOON
    assert on_sunday.renew_by == D(2027, 3, 12)  # Friday: the SMFO is closed on the weekend
    assert status(rules, D(2027, 3, 15), auth, [inspected(D(2026, 3, 14))]).kind is StatusKind.EXPIRED


def test_renew_by_skips_a_holiday_too(rules: Settings) -> None:
    auth = authorization(rules, paid=D(2026, 4, 21))  # valid until Wednesday 21 April 2027, Tiradentes
    assert status(rules, D(2027, 4, 1), auth, [inspected(D(2026, 4, 21))]).renew_by == D(2027, 4, 20)


# --- Art. 9 and Art. 15 par. único VI: awaiting the first inspection ----------------------------------------------


def test_without_an_inspection_the_driver_has_five_days_to_present_the_vehicle_art_9(rules: Settings) -> None:
    result = status(rules, D(2026, 3, 11), inspections=[])  # approved Tuesday 10 March 2026
    assert (result.kind, result.rule, result.article) == (
        StatusKind.AWAITING_INSPECTION, "l1533-9-vistoria", "Art. 9º",
    )
    assert (result.until, result.days_left, result.may_serve) == (D(2026, 3, 16), 5, False)
    # the 5th day, Sunday 15 March, is not a business day: the deadline moves to Monday (CC Art. 132 §1)
    present = step(result, StepCode.PRESENT_VEHICLE)
    assert (present.deadline, present.legal_deadline, present.overdue) == (D(2026, 3, 16), True, False)
    assert result.obligations == (present,)


def test_the_art_9_deadline_passes_the_day_after(rules: Settings) -> None:
    result = status(rules, D(2026, 3, 17), inspections=[])
    assert step(result, StepCode.PRESENT_VEHICLE).overdue


def test_an_inspection_before_the_approval_counts_art_15_vi(rules: Settings) -> None:
    result = status(rules, D(2026, 3, 11), inspections=[inspected(D(2026, 3, 2))])
    assert result.kind is StatusKind.ACTIVE
    assert StepCode.PRESENT_VEHICLE not in {s.code for s in result.next_steps}


def test_inspections_of_another_vehicle_do_not_count_art_8_par_2(rules: Settings) -> None:
    result = status(rules, D(2026, 3, 11), inspections=[inspected(D(2026, 3, 10), vehicle_id=99)])
    assert result.kind is StatusKind.AWAITING_INSPECTION


# --- Art. 16: annual inspection; §2: 5 days to fix; Art. 26 II: barred after them ---------------------------------


def test_the_annual_inspection_is_due_twelve_months_after_the_last_approved_one_art_16(rules: Settings) -> None:
    result = status(rules, D(2026, 6, 1), inspections=[inspected(D(2025, 9, 1)), inspected(D(2026, 3, 10))])
    assert (result.inspection.due_on, result.inspection.last_result) == (D(2027, 3, 10), InspectionResult.APPROVED)
    annual = step(result, StepCode.ANNUAL_INSPECTION)
    assert (annual.article, annual.deadline, annual.legal_deadline) == ("Art. 16", D(2027, 3, 10), False)


def test_an_inspection_on_29_february_is_due_on_1_march(rules: Settings) -> None:
    auth = authorization(rules, paid=D(2024, 2, 29))
    result = status(rules, D(2024, 6, 1), auth, [inspected(D(2024, 2, 29))], car(2023))
    assert result.inspection.due_on == D(2025, 3, 1)


def test_the_validity_reading_makes_the_inspection_due_with_each_renewal_art_16(rules: Settings) -> None:
    by_validity = rules.model_copy(update={"driver_inspection_start": "validity"})
    before = status(by_validity, D(2027, 1, 5))
    assert before.inspection.due_on == D(2027, 3, 10)
    done = status(by_validity, D(2027, 2, 20), inspections=[inspected(D(2026, 3, 10)), inspected(D(2027, 2, 15))])
    assert done.inspection.due_on is None  # inspected within the 30 days before the validity ends
    assert StepCode.ANNUAL_INSPECTION not in {s.code for s in done.next_steps}


def test_a_failed_inspection_gives_five_days_to_fix_then_bars_the_vehicle_art_16_par_2_art_26_ii(
    rules: Settings,
) -> None:
    history = [inspected(D(2026, 3, 10)), inspected(D(2026, 9, 1), InspectionResult.FAILED)]  # a Tuesday
    within = status(rules, D(2026, 9, 6), inspections=history)
    fix = step(within, StepCode.FIX_INSPECTION)
    assert (fix.article, fix.deadline, fix.days_left, fix.legal_deadline) == ("Art. 16, §2º", D(2026, 9, 8), 2, True)
    # the label says what happened, never "ativa"; within the 5 days the driver may still work (fix_window)
    assert (within.kind, within.rule, within.until) == (StatusKind.INSPECTION_FAILED, "l1533-16-regularizar",
                                                        D(2026, 9, 8))
    assert within.may_serve
    # 6 Sep: the 5th day falls on a Sunday and 7 Sep is a holiday, so the deadline moves to Tuesday 8 Sep
    barred = status(rules, D(2026, 9, 9), inspections=history)
    assert step(barred, StepCode.FIX_INSPECTION).overdue
    assert (barred.kind, barred.article, barred.may_serve) == (StatusKind.BARRED, "Art. 26, II", False)
    fixed = status(rules, D(2026, 9, 9), inspections=[*history, inspected(D(2026, 9, 4))])
    assert fixed.may_serve and StepCode.FIX_INSPECTION not in {s.code for s in fixed.next_steps}


# --- Art. 2 §§1–2: the vehicle's age, counted year by year to 31 December --------------------------------------


def test_vehicle_age_after_model_year_reading_art_2(rules: Settings) -> None:
    assert vehicle_last_day(2021, cities_of(rules).default) == D(2026, 12, 31)
    vehicle = car(2021)
    last_day = status(rules, D(2026, 12, 31), authorization(rules, paid=D(2026, 6, 1)), [inspected(D(2026, 6, 1))],
                      vehicle)
    assert last_day.may_serve and last_day.vehicle_days_left == 0
    replace = step(last_day, StepCode.REPLACE_VEHICLE)
    assert (replace.deadline, replace.article) == (D(2026, 12, 31), "Art. 2º, §§1º–2º")
    next_year = status(rules, D(2027, 1, 1), authorization(rules, paid=D(2026, 6, 1)), [inspected(D(2026, 6, 1))],
                       vehicle)
    assert not next_year.may_serve and step(next_year, StepCode.REPLACE_VEHICLE).overdue


def test_vehicle_age_including_model_year_reading_art_2(rules: Settings) -> None:
    including = rules.model_copy(update={"driver_vehicle_age_reading": "including_model_year"})
    assert vehicle_last_day(2021, cities_of(including).default) == D(2025, 12, 31)
    result = status(including, D(2026, 1, 1), authorization(including, paid=D(2025, 6, 1)),
                    [inspected(D(2025, 6, 1))], car(2021))
    assert not result.may_serve


def test_no_replacement_step_before_the_last_year(rules: Settings) -> None:
    assert StepCode.REPLACE_VEHICLE not in {s.code for s in status(rules, D(2026, 6, 1), vehicle=car(2023)).next_steps}


# --- Art. 24: suspension, revocation, cassação ---------------------------------------------------------------------


def test_a_suspension_wins_over_validity_until_its_last_day_art_24(rules: Settings) -> None:
    auth = authorization(rules, suspended_since=D(2026, 5, 1), suspended_until=D(2026, 5, 31))
    during = status(rules, D(2026, 5, 31), auth)
    assert (during.kind, during.until, during.days_left, during.article) == (
        StatusKind.SUSPENDED, D(2026, 5, 31), 0, "Art. 24, par. único",
    )
    assert not during.may_serve
    assert step(during, StepCode.WAIT_SUSPENSION).deadline == D(2026, 5, 31)
    after = status(rules, D(2026, 6, 1), auth)
    assert after.kind is StatusKind.ACTIVE and after.suspended_until is None


def test_revoked_and_cassada_leave_only_the_office_to_contact(rules: Settings) -> None:
    revoked = status(rules, D(2026, 6, 1), authorization(rules, revoked_on=D(2026, 5, 1)))
    assert (revoked.kind, revoked.article, revoked.until, revoked.may_serve) == (
        StatusKind.REVOKED, "Art. 24, I, c", None, False,
    )
    assert [s.code for s in revoked.next_steps] == [StepCode.CONTACT_OFFICE]
    cassada = status(rules, D(2026, 6, 1), authorization(rules, revoked_on=D(2026, 5, 1), cassada_on=D(2026, 5, 20)))
    assert (cassada.kind, cassada.article) == (StatusKind.CASSADA, "Art. 24, I, f")


@pytest.mark.parametrize(
    ("on", "kind"),
    [(D(2026, 4, 30), StatusKind.ACTIVE), (D(2026, 5, 1), StatusKind.SUSPENDED), (D(2027, 5, 1), StatusKind.EXPIRED)],
)
def test_precedence_between_suspension_and_expiry(rules: Settings, on: D, kind: StatusKind) -> None:
    auth = authorization(rules, suspended_since=D(2026, 5, 1), suspended_until=D(2026, 10, 31))
    assert status(rules, on, auth).kind is kind


def test_steps_are_ordered_by_deadline_and_end_with_the_duty_to_report_changes_art_13_xx(rules: Settings) -> None:
    result = status(rules, D(2026, 12, 1), vehicle=car(2021))
    codes = [s.code for s in result.next_steps]
    # inspection and renewal fall on the same day: inspect first, then renew
    assert codes == [StepCode.REPLACE_VEHICLE, StepCode.ANNUAL_INSPECTION, StepCode.RENEW, StepCode.REPORT_CHANGES]
    assert result.next_steps[-1].article == "Art. 13, XX"


def test_add_months_counts_backwards_too() -> None:
    assert add_months(D(2027, 3, 1), -12) == D(2026, 3, 1)
    assert add_months(D(2026, 1, 31), 1) == D(2026, 3, 1)
    assert add_months(D(2026, 1, 31), 1, month_end_rule="clamp") == D(2026, 2, 28)


# --- one coherent status (Art. 9, 16, 26 II): label, may_serve and rule decided together ----------------------


def test_a_failed_extra_inspection_is_not_active_and_bars_after_five_days_art_16_par_1_art_26_ii(
    rules: Settings,
) -> None:
    """Art. 16 §1 (extra inspection) failed: never labelled "ativa" while barred (today's main said ACTIVE)."""
    history = [inspected(D(2026, 3, 10)), inspected(D(2026, 6, 1), InspectionResult.FAILED)]
    later = status(rules, D(2026, 6, 20), inspections=history)
    assert later.kind is StatusKind.BARRED and not later.may_serve and later.rule == "l1533-26-ii-impedimento"
    strict = rules.model_copy(update={"driver_failed_inspection": "barred"})
    at_once = status(strict, D(2026, 6, 2), inspections=history)
    assert at_once.kind is StatusKind.INSPECTION_FAILED and not at_once.may_serve


def test_a_failed_first_inspection_is_not_awaiting_inspection_art_9_art_16_par_2(rules: Settings) -> None:
    """Art. 9 then Art. 16 §2: the vehicle was presented and failed; it never passed, so it may not serve."""
    result = status(rules, D(2026, 3, 12), inspections=[inspected(D(2026, 3, 11), InspectionResult.FAILED)])
    assert result.kind is StatusKind.INSPECTION_FAILED and result.kind is not StatusKind.AWAITING_INSPECTION
    assert not result.may_serve and result.article == "Art. 16, §2º"
    after = status(rules, D(2026, 3, 20), inspections=[inspected(D(2026, 3, 11), InspectionResult.FAILED)])
    assert after.kind is StatusKind.BARRED and not after.may_serve


def test_an_overdue_annual_inspection_stops_the_driver_art_16(rules: Settings) -> None:
    """Art. 16: three weeks after the due day the label is not "ativa" and the driver may not work."""
    paid = D(2026, 3, 10)
    auth = authorization(rules, paid=D(2026, 12, 1))  # renewed: still valid
    overdue = status(rules, D(2027, 3, 31), auth, [inspected(paid)])
    assert overdue.inspection.due_on == D(2027, 3, 10)
    assert (overdue.kind, overdue.rule, overdue.until) == (StatusKind.INSPECTION_OVERDUE, "l1533-16-anual",
                                                           D(2027, 3, 10))
    assert not overdue.may_serve and overdue.article == "Art. 16"


def test_an_inspection_due_on_a_weekend_is_handled_like_the_validity_art_16_art_3(rules: Settings) -> None:
    """Art. 16 due Sunday 13/6/2027: not moved (like the validity), the office's last open day is Friday 11/6."""
    auth = authorization(rules, paid=D(2026, 12, 1))
    result = status(rules, D(2027, 6, 1), auth, [inspected(D(2026, 6, 13))])
    assert result.inspection.due_on == D(2027, 6, 13)
    assert result.inspection.inspect_by == D(2027, 6, 11)
    assert status(rules, D(2027, 6, 13), auth, [inspected(D(2026, 6, 13))]).may_serve
    assert status(rules, D(2027, 6, 14), auth, [inspected(D(2026, 6, 13))]).kind is StatusKind.INSPECTION_OVERDUE
