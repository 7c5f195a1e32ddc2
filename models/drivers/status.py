"""The status of a driver's authorization on a date: a pure function of the registry rows and the municipality.

:func:`authorization_status` answers what a driver asks from the phone: is my authorization valid, until
when, when is my vehicle's inspection, what must I do and by when. Every answer carries the rule and the
article of Lei 1.533/2020 that decided it. Choices where the Law is ambiguous (each a ``BALCAO_*`` setting):

- vehicle age (Art. 2 §§1–2, "5 anos de uso, a partir do ano modelo", counted "ano a ano" with the model year
  closing on 31 December): ``driver_vehicle_age_reading=after_model_year`` (default) lets a 2021 model serve
  until 31/12/2026 (the model year closes on 31/12/2021 and five years are counted from then);
  ``including_model_year`` counts the model year as the first of the five (until 31/12/2025);
- annual inspection (Art. 16, start not stated, ``DEADLINES.md`` A2.5): ``driver_inspection_start=last_inspection``
  (default) makes it due 12 months after the last approved inspection; ``validity`` makes it due by the end of
  each validity, done by an approved inspection in the ``driver_expiring_soon_days`` before it;
- validity (Art. 3 par. único) is not extended when it ends on a weekend or holiday (it is a duration, not a
  deadline to act); the status gives the last business day to renew (``renew_by``) instead. The annual
  inspection's due day is treated the same way: it does not move, and the status gives the last day the office
  is open on or before it (``inspection.inspect_by``); the day after the due day the inspection is overdue;
- a failed inspection of a vehicle that had passed one before (an annual or extra one, Art. 16 §1): the driver
  may work during the 5 days to fix it and is barred after them (Art. 16 §2, Art. 26 II:
  ``driver_failed_inspection=fix_window``, the text), or is barred at once (``barred``). A vehicle that never
  passed one may not serve (Art. 15 par. único VI).

:func:`authorization_status` is the one place that decides the label (``kind``), whether the driver may work today
(``may_serve``) and the rule that decides it (``rule``, with its article): every screen and reminder reads it.

The 5-day deadlines to act (Art. 9, Art. 16 §2) are counted by :func:`models.deadlines.compute_deadline`, which
moves an end on a non-business day to the next business day (Código Civil Art. 132 §1).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from core.i18n import N_
from core.municipality import Municipality
from models.calendar import BusinessCalendar
from models.deadlines import add_months, compute_deadline
from models.drivers.periods import last_business_day, office_calendar
from models.drivers.tables import Authorization, Inspection, InspectionResult, Vehicle
from models.rulebooks import DeadlineChoices, get_rule

LAW = "Lei 1.533/2020"

RULE_VALIDITY = "l1533-3-validade"
RULE_PRESENT_VEHICLE = "l1533-9-vistoria"
RULE_FIX_INSPECTION = "l1533-16-regularizar"
RULE_REPORT_CHANGES = "l1533-13xx-alteracao"
RULE_SUSPENSION = "l1533-24-suspensao"
RULE_ANNUAL_INSPECTION = "l1533-16-anual"
RULE_VEHICLE_AGE = "l1533-2-idade"
RULE_REVOCATION = "l1533-24-revogacao"
RULE_CASSACAO = "l1533-24-cassacao"

ARTICLES: dict[str, str] = {
    RULE_VALIDITY: get_rule(RULE_VALIDITY).article,
    RULE_PRESENT_VEHICLE: get_rule(RULE_PRESENT_VEHICLE).article,
    RULE_FIX_INSPECTION: get_rule(RULE_FIX_INSPECTION).article,
    RULE_REPORT_CHANGES: get_rule(RULE_REPORT_CHANGES).article,
    RULE_SUSPENSION: get_rule(RULE_SUSPENSION).article,
    RULE_ANNUAL_INSPECTION: "Art. 16",
    RULE_VEHICLE_AGE: "Art. 2º, §§1º–2º",
    RULE_REVOCATION: "Art. 24, I, c",
    RULE_CASSACAO: "Art. 24, I, f",
}
"""The article of each rule, as the second line of a message cites it (``Lei 1.533/2020, Art. 9º``)."""

RULE_BARRED = "l1533-26-ii-impedimento"
ARTICLES[RULE_BARRED] = "Art. 26, II"

BARRED_AFTER_FAILED_INSPECTION = ARTICLES[RULE_BARRED]
"""A vehicle not regularised within the Art. 16 §2 period is "imediatamente impedido" from service."""


class StatusKind(StrEnum):
    """The state of an authorization on a date (most serious first in :func:`authorization_status`)."""

    CASSADA = "cassada"
    REVOKED = "revoked"
    SUSPENDED = "suspended"
    EXPIRED = "expired"
    BARRED = "barred"  # Art. 26 II: the failed vehicle was not fixed within Art. 16 §2's 5 days
    INSPECTION_OVERDUE = "inspection_overdue"  # Art. 16: the annual inspection's due day has passed
    AWAITING_INSPECTION = "awaiting_inspection"  # Art. 9: the vehicle was never inspected
    INSPECTION_FAILED = "inspection_failed"  # Art. 16 §2: failed; 5 days to fix it
    EXPIRING_SOON = "expiring_soon"
    ACTIVE = "active"


STATUS_LABELS: dict[StatusKind, str] = {
    StatusKind.ACTIVE: N_("Active"),
    StatusKind.EXPIRING_SOON: N_("Expiring soon"),
    StatusKind.EXPIRED: N_("Expired"),
    StatusKind.BARRED: N_("Barred from service"),
    StatusKind.INSPECTION_OVERDUE: N_("Inspection overdue"),
    StatusKind.AWAITING_INSPECTION: N_("Awaiting inspection"),
    StatusKind.INSPECTION_FAILED: N_("Failed inspection"),
    StatusKind.SUSPENDED: N_("Suspended"),
    StatusKind.REVOKED: N_("Revoked"),
    StatusKind.CASSADA: N_("Cancelled (cassada)"),
}
"""The label of each state, as every screen shows it (English msgids)."""

STATE_MESSAGES: dict[StatusKind, str] = {
    StatusKind.BARRED: N_("The vehicle was not fixed within 5 days of the failed inspection (by {date}): you may "
                          "not drive until it passes a new one."),
    StatusKind.INSPECTION_OVERDUE: N_("The yearly inspection was due on {date}: you may not drive until the "
                                      "vehicle passes it."),
    StatusKind.INSPECTION_FAILED: N_("The vehicle did not pass the inspection: fix it and present it again by "
                                     "{date} ({left})."),
}
"""What the states this module added mean (``{date}`` is ``until``, ``{left}`` the days to it)."""


class StepCode(StrEnum):
    """Something the driver must do (or wait for)."""

    CONTACT_OFFICE = "contact_office"  # revoked or cassada: only the SMFO can say what is possible
    WAIT_SUSPENSION = "wait_suspension"  # Art. 24 par. único
    PRESENT_VEHICLE = "present_vehicle"  # Art. 9: within 5 days of approval (also a replacement, Art. 8 §2)
    FIX_INSPECTION = "fix_inspection"  # Art. 16 §2: within 5 days of failing
    ANNUAL_INSPECTION = "annual_inspection"  # Art. 16
    RENEW = "renew"  # Art. 3 par. único, Art. 10 par. único: pay the fees before the validity ends
    REPLACE_VEHICLE = "replace_vehicle"  # Art. 2 §§1–2, Art. 8 §2: the vehicle reaches the age limit
    REPORT_CHANGES = "report_changes"  # Art. 13 XX: any change of registered data within 7 days


@dataclass(frozen=True, slots=True)
class Step:
    """One thing to do, with its deadline and article.

    Attributes:
        code: what to do.
        rule: the rule id (see :data:`ARTICLES`).
        deadline: the last day, if the Law gives one.
        days_left: days from the status date to the deadline (negative once overdue).
        overdue: the deadline has passed.
        legal_deadline: the Law itself sets the deadline to act (Art. 9, Art. 16 §2): reminders are mandatory.
    """

    code: StepCode
    rule: str
    deadline: dt.date | None = None
    days_left: int | None = None
    overdue: bool = False
    legal_deadline: bool = False

    @property
    def article(self) -> str:
        """The article of Lei 1.533/2020 behind this step."""
        return ARTICLES[self.rule]


@dataclass(frozen=True, slots=True)
class InspectionFacts:
    """The vehicle's inspections as the driver needs them (Art. 16).

    Attributes:
        last_on: date of the latest inspection, if any.
        last_result: its result.
        last_approved_on: date of the latest approved inspection, if any.
        due_on: when the next annual inspection is due (None before the first approval, or when the
            ``validity`` reading counts this period's inspection as done).
        days_left: days to ``due_on``.
        inspect_by: the last day the office is open on or before ``due_on`` (like ``renew_by``).
    """

    last_on: dt.date | None
    last_result: InspectionResult | None
    last_approved_on: dt.date | None
    due_on: dt.date | None
    days_left: int | None
    inspect_by: dt.date | None = None


@dataclass(frozen=True, slots=True)
class AuthorizationStatus:
    """What the registry says about an authorization on a date.

    Attributes:
        kind: the state.
        rule: the rule that decided the state (see :data:`ARTICLES`).
        until: the day the state ends (validity end, suspension end, the deadline to present the vehicle);
            for ``expired`` the day it ended; None for revoked and cassada.
        days_left: days from the status date to ``until`` (negative for expired).
        valid_until: last day of validity (Art. 3 par. único).
        validity_days_left: days to ``valid_until`` (negative once expired).
        renew_by: the last business day on or before ``valid_until`` (the office is closed on weekends).
        inspection: the inspections (Art. 16).
        vehicle_last_day: last day the vehicle may serve under the age limit (Art. 2 §§1–2).
        vehicle_days_left: days to ``vehicle_last_day``.
        suspended_until: last day of a suspension in force.
        may_serve: the driver may work today (valid, inspected, within the age limit, not barred).
        next_steps: what to do, most urgent first; ``REPORT_CHANGES`` (no deadline) last.
        on: the date of the status.
    """

    kind: StatusKind
    rule: str
    until: dt.date | None
    days_left: int | None
    valid_until: dt.date
    validity_days_left: int
    renew_by: dt.date
    inspection: InspectionFacts
    vehicle_last_day: dt.date
    vehicle_days_left: int
    suspended_until: dt.date | None
    may_serve: bool
    next_steps: tuple[Step, ...]
    on: dt.date

    @property
    def article(self) -> str:
        """The article of Lei 1.533/2020 that decided the state."""
        return ARTICLES[self.rule]

    @property
    def obligations(self) -> tuple[Step, ...]:
        """The open obligations with a deadline set by the Law (Art. 9, Art. 16 §2)."""
        return tuple(step for step in self.next_steps if step.legal_deadline)


def vehicle_last_day(model_year: int, city: Municipality) -> dt.date:
    """The last day a vehicle may serve under the 5-year age limit (Art. 2 §§1–2).

    ``after_model_year``: model year + 5 (the model year closes on 31/12 and the five years count from then);
    ``including_model_year``: model year + 4.
    """
    years = 5 if city.readings.driver_vehicle_age_reading == "after_model_year" else 4
    return dt.date(model_year + years, 12, 31)


@lru_cache(maxsize=4096)
def _final_date(rule_id: str, start: dt.date, calendar: BusinessCalendar, choices: DeadlineChoices) -> dt.date:
    return compute_deadline(rule_id=rule_id, start=start, calendar=calendar, choices=choices).final_date


def legal_deadline(rule_id: str, start: dt.date, city: Municipality) -> dt.date:
    """The last day of a Lei 1.533 rulebook deadline (Art. 3, 9, 13 XX, 16 §2, 24) counted from ``start``."""
    return _final_date(rule_id, start, office_calendar(city), DeadlineChoices.of(city.readings))


def validity_end(fee_paid_on: dt.date, city: Municipality) -> dt.date:
    """The last day of an authorization's validity: 12 months from the fee payment (Art. 3 par. único)."""
    return legal_deadline(RULE_VALIDITY, fee_paid_on, city)


def _inspection_facts(
    authorization: Authorization, inspections: list[Inspection], on: dt.date, city: Municipality
) -> InspectionFacts:
    last = inspections[-1] if inspections else None
    approved = [inspection for inspection in inspections if inspection.result is InspectionResult.APPROVED]
    last_approved = approved[-1].inspected_on if approved else None
    due: dt.date | None = None
    if city.readings.driver_inspection_start == "validity":
        window_start = authorization.valid_until - dt.timedelta(days=city.readings.driver_expiring_soon_days)
        done = last_approved is not None and window_start <= last_approved <= authorization.valid_until
        due = None if done or last_approved is None else authorization.valid_until
    elif last_approved is not None:
        due = annual_inspection_due(last_approved, city)
    return InspectionFacts(
        last_on=last.inspected_on if last else None,
        last_result=last.result if last else None,
        last_approved_on=last_approved,
        due_on=due,
        days_left=(due - on).days if due else None,
        inspect_by=last_office_day(due, city) if due else None,
    )


def last_office_day(day: dt.date, city: Municipality) -> dt.date:
    """The last day the office is open on or before ``day`` (a validity or inspection ending on a weekend)."""
    return last_business_day(day, office_calendar(city))


def annual_inspection_due(last_approved_on: dt.date, city: Municipality) -> dt.date:
    """Art. 16 (``last_inspection`` reading): the annual inspection is due 12 months after the last approved one."""
    return add_months(last_approved_on, 12, month_end_rule=city.readings.month_end_rule)


def _step(code: StepCode, rule: str, on: dt.date, deadline: dt.date | None, *, legal: bool = False) -> Step:
    if deadline is None:
        return Step(code, rule)
    return Step(code, rule, deadline, (deadline - on).days, on > deadline, legal)


@dataclass(frozen=True, slots=True)
class _Pending:
    """Where the vehicle's inspection stands: the day to present it, or the 5 days to fix a failure (Art. 16 §2)."""

    present_by: dt.date | None = None
    fix_by: dt.date | None = None
    barred: bool = False
    fixing: bool = False


def _inspection_steps(authorization: Authorization, inspected: bool, facts: InspectionFacts, on: dt.date,
                      city: Municipality) -> tuple[list[Step], _Pending]:
    """The step of presenting a never-inspected vehicle, or of fixing a failed one, and where that stands."""
    if not inspected:
        present_by = legal_deadline(RULE_PRESENT_VEHICLE, authorization.vehicle_since, city)
        return ([_step(StepCode.PRESENT_VEHICLE, RULE_PRESENT_VEHICLE, on, present_by, legal=True)],
                _Pending(present_by=present_by))
    if facts.last_result is InspectionResult.FAILED and facts.last_on is not None:
        fix_by = legal_deadline(RULE_FIX_INSPECTION, facts.last_on, city)
        barred = on > fix_by  # Art. 26 II: "imediatamente impedido de realizar o serviço"
        return ([_step(StepCode.FIX_INSPECTION, RULE_FIX_INSPECTION, on, fix_by, legal=True)],
                _Pending(fix_by=fix_by, barred=barred, fixing=not barred))
    return [], _Pending()


def _state(authorization: Authorization, *, on: dt.date, city: Municipality, suspended: bool, overdue: bool,
           inspected: bool, pending: _Pending, annual_due: dt.date | None) -> tuple[StatusKind, str, dt.date | None]:
    """The most serious state that applies (see :func:`authorization_status`), its rule and until when."""
    valid_until = authorization.valid_until
    if authorization.cassada_on is not None and authorization.cassada_on <= on:
        return StatusKind.CASSADA, RULE_CASSACAO, None
    if authorization.revoked_on is not None and authorization.revoked_on <= on:
        return StatusKind.REVOKED, RULE_REVOCATION, None
    if suspended:
        return StatusKind.SUSPENDED, RULE_SUSPENSION, authorization.suspended_until
    if on > valid_until:
        return StatusKind.EXPIRED, RULE_VALIDITY, valid_until
    if pending.barred:
        return StatusKind.BARRED, RULE_BARRED, pending.fix_by
    if overdue:
        return StatusKind.INSPECTION_OVERDUE, RULE_ANNUAL_INSPECTION, annual_due
    if not inspected:
        return StatusKind.AWAITING_INSPECTION, RULE_PRESENT_VEHICLE, pending.present_by
    if pending.fixing:
        return StatusKind.INSPECTION_FAILED, RULE_FIX_INSPECTION, pending.fix_by
    if (valid_until - on).days <= city.readings.driver_expiring_soon_days:
        return StatusKind.EXPIRING_SOON, RULE_VALIDITY, valid_until
    return StatusKind.ACTIVE, RULE_VALIDITY, valid_until


def authorization_status(
    *,
    authorization: Authorization,
    inspections: Iterable[Inspection],
    vehicle: Vehicle,
    on: dt.date,
    city: Municipality,
) -> AuthorizationStatus:
    """The status of an authorization on a civil date, with the rule and article that decided it.

    The state is the most serious that applies, in this order: cassada (Art. 24 I f), revoked (Art. 24 I c),
    suspended on that date (Art. 24 par. único), expired (Art. 3 par. único), barred because a failed vehicle was
    not fixed in the 5 days (Art. 26 II, Art. 16 §2), the annual inspection overdue (Art. 16), the vehicle never
    inspected (Art. 9, Art. 15 par. único VI), failed and within the 5 days to fix it (Art. 16 §2), expiring
    within ``driver_expiring_soon_days``, active. ``may_serve`` follows from the state and the age limit.

    Args:
        authorization: the authorization row.
        inspections: the inspections of its vehicle (others and those after ``on`` are ignored).
        vehicle: its current vehicle.
        on: the civil date (America/Cuiaba) to compute the status for.
        city: the registry's municipality (its legal readings, thresholds, holidays).

    Returns:
        The status, its next steps and the facts behind them.
    """
    history = sorted(
        (i for i in inspections if i.vehicle_id == vehicle.id and i.inspected_on <= on), key=lambda i: i.inspected_on
    )
    facts = _inspection_facts(authorization, history, on, city)
    valid_until = authorization.valid_until
    last_day = vehicle_last_day(vehicle.model_year, city)
    suspended = (
        authorization.suspended_since is not None
        and authorization.suspended_until is not None
        and authorization.suspended_since <= on <= authorization.suspended_until
    )

    steps, pending = _inspection_steps(authorization, bool(history), facts, on, city)
    overdue = facts.due_on is not None and on > facts.due_on  # Art. 16: the annual inspection was not done
    if facts.due_on is not None:
        steps.append(_step(StepCode.ANNUAL_INSPECTION, RULE_ANNUAL_INSPECTION, on, facts.due_on))
    steps.append(_step(StepCode.RENEW, RULE_VALIDITY, on, valid_until))
    if on.year >= last_day.year:
        steps.append(_step(StepCode.REPLACE_VEHICLE, RULE_VEHICLE_AGE, on, last_day))
    if suspended:
        steps.append(_step(StepCode.WAIT_SUSPENSION, RULE_SUSPENSION, on, authorization.suspended_until))
    steps.sort(key=lambda step: (step.deadline is None, step.deadline or on))
    steps.append(_step(StepCode.REPORT_CHANGES, RULE_REPORT_CHANGES, on, None))
    kind, rule, until = _state(authorization, on=on, city=city, suspended=suspended, overdue=overdue,
                               inspected=bool(history), pending=pending, annual_due=facts.due_on)
    if kind in (StatusKind.CASSADA, StatusKind.REVOKED):  # Art. 24 I f, c: nothing is left but the office
        steps = [_step(StepCode.CONTACT_OFFICE, rule, on, None)]

    # Art. 15 par. único VI: a vehicle that never passed an inspection may not serve; during the 5 days of
    # Art. 16 §2 one that passed before may, unless BALCAO_DRIVER_FAILED_INSPECTION=barred.
    fixing_may_serve = (kind is StatusKind.INSPECTION_FAILED and facts.last_approved_on is not None
                        and city.readings.driver_failed_inspection == "fix_window")
    may_serve = (kind in (StatusKind.ACTIVE, StatusKind.EXPIRING_SOON) or fixing_may_serve) and on <= last_day
    return AuthorizationStatus(
        kind=kind,
        rule=rule,
        until=until,
        days_left=(until - on).days if until is not None else None,
        valid_until=valid_until,
        validity_days_left=(valid_until - on).days,
        renew_by=last_office_day(valid_until, city),
        inspection=facts,
        vehicle_last_day=last_day,
        vehicle_days_left=(last_day - on).days,
        suspended_until=authorization.suspended_until if suspended else None,
        may_serve=may_serve,
        next_steps=tuple(steps),
        on=on,
    )
