"""Driver reminders under Lei 1.533/2020: the daily scan that enqueues them, how each one reads, and their topics.

What is sent (days are civil days in the deployment's time zone, America/Cuiaba by default):

========================  ==========================================================  ===========  ==========
kind                      when                                                        topic        mandatory
========================  ==========================================================  ===========  ==========
``driver.renewal``        60, 30, 15, 7 and 1 days before the validity ends, and on    renewal      no
                          the day (Art. 3 par. único)
``driver.inspection``     30, 7 and 1 days before the annual inspection is due         inspection   no
                          (Art. 16)
``driver.obligation``     every day of the 5 days to present the vehicle (Art. 9) or   —            yes
                          to fix a failed inspection (Art. 16 §2), then once when
                          the deadline has passed (Art. 26 II)
``driver.vehicle_age``    on 1 January of the vehicle's last year (Art. 2 §§1–2)       vehicle      no
``driver.suspension_end`` 7 days before a suspension ends, and the day it is over      —            no
                          (Art. 24 par. único)
``driver.link_moved``     when the registration is linked to another account          —            yes
========================  ==========================================================  ===========  ==========

How the scan stays correct and fast (``bench/bench_driver_scan.py`` runs it over 1,000,000 authorizations):

- **Set-based.** Each reminder is one ``INSERT … SELECT … ON CONFLICT (dedupe_key) DO NOTHING`` per milestone and
  day, selecting by an indexed date (``valid_until``, ``inspected_on``, ``vehicle_since``, ``suspended_until``,
  ``model_year``); nothing is loaded into Python. Dates that depend on the calendar (a deadline moved past a
  holiday, a validity's last office day, 12 months from an inspection) are computed in Python for the few days
  concerned and bound as literals, so SQLite and PostgreSQL give the same answer.
- **Never twice.** The dedupe key names the reminder, its milestone and the date it is about
  (``driver.renewal:2027-03-10:30:42``): re-running a scan, or two processes running it, adds nothing.
- **Never lost to downtime.** The scan remembers the last civil day it completed (``driver_reminder_scan``) and
  covers every milestone day from that day to today, so a process that was down catches up. A milestone that a
  later one has reached is skipped (after a week down, the driver gets "7 days left", not also "15" and "30").
  The first scan ever starts from its own day. A driver who links after a milestone day gets the next one.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Boolean, Date, Integer, String, bindparam, cast, exists, func, literal, or_, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.sql.base import Executable
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.selectable import FromClause
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_, Translator
from core.municipality import Cities, Municipality
from models.columns import UTCDateTime
from models.days_left import days_words
from models.drivers.registry import linked_driver, registry_city
from models.drivers.status import (
    ARTICLES,
    BARRED_AFTER_FAILED_INSPECTION,
    LAW,
    RULE_ANNUAL_INSPECTION,
    RULE_FIX_INSPECTION,
    RULE_PRESENT_VEHICLE,
    RULE_SUSPENSION,
    RULE_VALIDITY,
    RULE_VEHICLE_AGE,
    annual_inspection_due,
    last_office_day,
    legal_deadline,
    vehicle_last_day,
)
from models.drivers.tables import Authorization, Driver, Inspection, InspectionResult, ReminderScanMark, Vehicle
from models.outbox import OutboxMessage, OutboxStatus
from models.people import Person
from models.when import municipal_today
from notifications.rendering import Rendered, renderer
from notifications.scans import scan
from notifications.topics import reminder_topic

SCAN_NAME = "driver-reminders"
RENEWAL_DAYS = (60, 30, 15, 7, 1, 0)
INSPECTION_DAYS = (30, 7, 1)
SUSPENSION_END_DAYS = (7, 0)
REMINDER_TIME = dt.time(8, 0)
"""Reminders found at night wait until 08:00 (civil time) to be sent."""
MAX_CATCH_UP_DAYS = 400
"""A scan covers at most this many missed days."""

RENEWAL = "driver.renewal"
INSPECTION = "driver.inspection"
OBLIGATION = "driver.obligation"
VEHICLE_AGE = "driver.vehicle_age"
SUSPENSION_END = "driver.suspension_end"
LINK_MOVED = "driver.link_moved"
STATUS_BUTTON = "drivers:status"

_A = Authorization.__table__  # type: ignore[attr-defined]
_D = Driver.__table__  # type: ignore[attr-defined]
_P = Person.__table__  # type: ignore[attr-defined]
_V = Vehicle.__table__  # type: ignore[attr-defined]
_I = Inspection.__table__  # type: ignore[attr-defined]
_OUTBOX = OutboxMessage.__table__  # type: ignore[attr-defined]


async def _is_linked_driver(*, session: AsyncSession, person_id: int) -> bool:
    return await linked_driver(session=session, person_id=person_id) is not None


reminder_topic(
    "renewal",
    label=N_("Authorization renewal"),
    description=N_("60, 30, 15, 7 and 1 day before your authorization ends, and on the day."),
    applies=_is_linked_driver,
)
reminder_topic(
    "inspection",
    label=N_("Vehicle inspection"),
    description=N_("30, 7 and 1 day before your vehicle's yearly inspection is due."),
    applies=_is_linked_driver,
)
reminder_topic(
    "vehicle",
    label=N_("Vehicle age limit"),
    description=N_("At the start of the last year your vehicle may serve."),
    applies=_is_linked_driver,
)


# --- the scan ---------------------------------------------------------------------------------------------------


def milestone_targets(milestones: Sequence[int], start_day: dt.date, today: dt.date) -> list[tuple[int, dt.date]]:
    """The (milestone, target date) pairs whose reminder is due in a scan covering ``start_day`` to ``today``.

    A target (a validity end, an inspection due date…) gets milestone ``m`` when the day ``target - m`` is
    within the covered days and no smaller milestone's day has been reached yet (it would supersede it).

    Args:
        milestones: days before the target, e.g. ``(60, 30, 15, 7, 1, 0)``.
        start_day: first civil day covered (the last day the scan completed, or today).
        today: the civil today.
    """
    ordered = sorted(milestones, reverse=True)
    targets: list[tuple[int, dt.date]] = []
    for index, days in enumerate(ordered):
        low = start_day + dt.timedelta(days=days)
        if index + 1 < len(ordered):
            low = max(low, today + dt.timedelta(days=ordered[index + 1] + 1))
        day = low
        while day <= today + dt.timedelta(days=days):
            targets.append((days, day))
            day += dt.timedelta(days=1)
    return targets


def anchors_for(due: dt.date, city: Municipality) -> list[dt.date]:
    """The approved-inspection dates whose 12 months end on ``due`` (two on 1 March after a 29 February)."""
    return [
        anchor
        for offset in range(364, 368)
        if annual_inspection_due(anchor := due - dt.timedelta(days=offset), city) == due
    ]


@dataclass(frozen=True, slots=True)
class _Context:
    session: AsyncSession
    city: Municipality
    now: dt.datetime
    today: dt.date
    start_day: dt.date
    not_before: dt.datetime

    @property
    def postgres(self) -> bool:
        return self.session.bind is not None and self.session.bind.dialect.name == "postgresql"


def _text(value: str) -> ColumnElement[Any]:
    return literal(value, String)


def _json(context: _Context, payload: dict[str, ColumnElement[Any]]) -> ColumnElement[Any]:
    arguments: list[ColumnElement[Any]] = []
    for key, value in payload.items():
        arguments += [_text(key), value]
    return func.jsonb_build_object(*arguments) if context.postgres else func.json_object(*arguments)


def _linked(*joins: tuple[FromClause, ColumnElement[bool]]) -> FromClause:
    """Authorization ⋈ driver ⋈ person (linked, so reminders have a recipient) ⋈ vehicle, plus ``joins``."""
    from_clause = _A.join(_D, _D.c.id == _A.c.driver_id).join(_P, _P.c.id == _D.c.person_id)
    from_clause = from_clause.join(_V, _V.c.id == _A.c.vehicle_id)
    for table, on in joins:
        from_clause = from_clause.join(table, on)
    return from_clause


def _in_force(today: dt.date, *, suspended_ok: bool = False) -> list[ColumnElement[bool]]:
    """Neither revoked nor cassada (Art. 24 I c, f), the person not erased, and (by default) not suspended today."""
    conditions: list[ColumnElement[bool]] = [
        _P.c.erased_at.is_(None),
        or_(_A.c.revoked_on.is_(None), _A.c.revoked_on > today),
        or_(_A.c.cassada_on.is_(None), _A.c.cassada_on > today),
    ]
    if not suspended_ok:
        conditions.append(
            or_(_A.c.suspended_until.is_(None), _A.c.suspended_until < today, _A.c.suspended_since > today)
        )
    return conditions


def _prepare(
    context: _Context,
    *,
    kind: str,
    key: Sequence[ColumnElement[Any]],
    payload: dict[str, ColumnElement[Any]],
    from_clause: FromClause,
    where: Iterable[ColumnElement[bool]],
    mandatory: bool = False,
) -> Executable:
    """``INSERT INTO outbox_message … SELECT … ON CONFLICT (dedupe_key) DO NOTHING``, built once per scan.

    The dedupe key is the bound ``prefix`` followed by ``key`` columns (ids) separated by colons; the other
    per-date values are bound parameters too, so the statement compiles once and runs for each date.
    """
    dedupe_key: ColumnElement[Any] = bindparam("prefix", type_=String)
    for index, column in enumerate(key):
        dedupe_key = dedupe_key + (_text(":") if index else _text("")) + cast(column, String)
    rows = (
        select(
            _D.c.person_id,
            _text(kind),
            _json(context, payload),
            dedupe_key,
            literal(mandatory, Boolean),
            literal(context.not_before, UTCDateTime()),
            literal(OutboxStatus.PENDING, _OUTBOX.c.status.type),
            literal(0, Integer),
            literal(context.now, UTCDateTime()),
        )
        .select_from(from_clause)
        .where(*where)
    )
    names = ["person_id", "kind", "payload", "dedupe_key", "mandatory", "not_before", "status", "attempts"]
    names.append("created_at")
    insert = pg_insert if context.postgres else sqlite_insert
    return insert(_OUTBOX).from_select(names, rows).on_conflict_do_nothing(index_elements=["dedupe_key"])


async def _run(context: _Context, statement: Executable, **params: object) -> int:
    result = await context.session.exec(statement, params=params)  # type: ignore[call-overload]
    return int(result.rowcount or 0)


def _iso(name: str) -> ColumnElement[Any]:
    return bindparam(name, type_=String)


async def _renewals(context: _Context) -> int:
    """``driver.renewal``: 60, 30, 15, 7, 1 days before the validity ends and on the day (Art. 3 par. único)."""
    statement = _prepare(
        context,
        kind=RENEWAL,
        key=[_A.c.id],
        payload={
            "number": _A.c.number,
            "valid_until": _iso("valid_until_text"),
            "renew_by": _iso("renew_by_text"),
            "office": _text(context.city.driver_office),
        },
        from_clause=_linked(),
        where=[_A.c.valid_until == bindparam("valid_until", type_=Date), *_in_force(context.today)],
    )
    added = 0
    for days, valid_until in milestone_targets(RENEWAL_DAYS, context.start_day, context.today):
        added += await _run(
            context,
            statement,
            prefix=f"{RENEWAL}:{valid_until.isoformat()}:{days}:",
            valid_until=valid_until,
            valid_until_text=valid_until.isoformat(),
            renew_by_text=last_office_day(valid_until, context.city).isoformat(),
        )
    return added


async def _inspections(context: _Context) -> int:
    """``driver.inspection``: 30, 7 and 1 days before the annual inspection is due (Art. 16)."""
    approved = _I.c.result == literal(InspectionResult.APPROVED, _I.c.result.type)
    payload = {"plate": _V.c.plate, "due": _iso("due_text"), "inspect_by": _iso("inspect_by_text"),
               "office": _text(context.city.driver_office)}
    due_param = bindparam("due", type_=Date)
    if context.city.readings.driver_inspection_start == "validity":
        window_start = bindparam("window_start", type_=Date)
        approved_ever = exists().where(_I.c.vehicle_id == _A.c.vehicle_id, approved)
        done = exists().where(
            _I.c.vehicle_id == _A.c.vehicle_id, approved, _I.c.inspected_on.between(window_start, due_param)
        )
        statement = _prepare(
            context, kind=INSPECTION, key=[_A.c.id], payload=payload, from_clause=_linked(),
            where=[_A.c.valid_until == due_param, approved_ever, ~done, *_in_force(context.today)],
        )
    else:
        later = _I.alias("later")
        newer = exists().where(
            later.c.vehicle_id == _I.c.vehicle_id,
            later.c.result == literal(InspectionResult.APPROVED, _I.c.result.type),
            later.c.inspected_on > _I.c.inspected_on,
        )
        statement = _prepare(
            context, kind=INSPECTION, key=[_A.c.id], payload=payload,
            from_clause=_linked((_I, _I.c.vehicle_id == _A.c.vehicle_id)),
            where=[_I.c.inspected_on == bindparam("anchor", type_=Date), approved, ~newer, *_in_force(context.today)],
        )
    added = 0
    for days, due in milestone_targets(INSPECTION_DAYS, context.start_day, context.today):
        params: dict[str, object] = {
            "prefix": f"{INSPECTION}:{due.isoformat()}:{days}:", "due": due, "due_text": due.isoformat(),
            "inspect_by_text": last_office_day(due, context.city).isoformat(),  # as /situacao says it
        }
        if context.city.readings.driver_inspection_start == "validity":
            window = dt.timedelta(days=context.city.readings.driver_expiring_soon_days)
            added += await _run(context, statement, window_start=due - window, **params)
            continue
        for anchor in anchors_for(due, context.city):
            added += await _run(context, statement, anchor=anchor, **params)
    return added


Starts = list[tuple[dt.date, dt.date]]


def _obligation_starts(context: _Context, rule_id: str) -> tuple[Starts, Starts]:
    """Start dates (approval or failed inspection) with their deadline, for today's reminders and overdue notices.

    The first list holds the starts whose window contains today; the second those whose deadline passed on a
    day the scan covers.
    """
    in_window: Starts = []
    overdue: Starts = []
    day = context.start_day - dt.timedelta(days=30)
    while day <= context.today:
        deadline = legal_deadline(rule_id, day, context.city)
        if day <= context.today <= deadline:
            in_window.append((day, deadline))
        elif context.start_day <= deadline + dt.timedelta(days=1) <= context.today:
            overdue.append((day, deadline))
        day += dt.timedelta(days=1)
    return in_window, overdue


async def _obligations(context: _Context) -> int:
    """``driver.obligation``: daily within the 5 days of Art. 9 and Art. 16 §2, then once overdue (Art. 26 II)."""
    start = bindparam("start", type_=Date)
    later = _I.alias("later")
    payload = {
        "rule": _iso("rule"),
        "stage": _iso("stage"),
        "deadline": _iso("deadline"),
        "plate": _V.c.plate,
        "office": _text(context.city.driver_office),
    }
    statements = {
        "present_vehicle": _prepare(  # Art. 9: the current vehicle was never inspected
            context, kind=OBLIGATION, key=[_A.c.id], payload=payload, from_clause=_linked(), mandatory=True,
            where=[
                _A.c.vehicle_since == start,
                ~exists().where(_I.c.vehicle_id == _A.c.vehicle_id),
                *_in_force(context.today),
            ],
        ),
        "fix_inspection": _prepare(  # Art. 16 §2: its latest inspection failed on ``start``
            context, kind=OBLIGATION, key=[_A.c.id], payload=payload, mandatory=True,
            from_clause=_linked((_I, _I.c.vehicle_id == _A.c.vehicle_id)),
            where=[
                _I.c.inspected_on == start,
                _I.c.result == literal(InspectionResult.FAILED, _I.c.result.type),
                ~exists().where(later.c.vehicle_id == _I.c.vehicle_id, later.c.inspected_on > _I.c.inspected_on),
                *_in_force(context.today),
            ],
        ),
    }
    added = 0
    for code, rule in (("present_vehicle", RULE_PRESENT_VEHICLE), ("fix_inspection", RULE_FIX_INSPECTION)):
        in_window, overdue = _obligation_starts(context, rule)
        for stage, starts in (("due", in_window), ("overdue", overdue)):
            for day, deadline in starts:
                marker = context.today.isoformat() if stage == "due" else stage
                added += await _run(
                    context,
                    statements[code],
                    prefix=f"{OBLIGATION}:{code}:{day.isoformat()}:{marker}:",
                    start=day,
                    rule=code,
                    stage=stage,
                    deadline=deadline.isoformat(),
                )
    return added


async def _vehicle_age(context: _Context) -> int:
    """``driver.vehicle_age``: on 1 January of the vehicle's last year of service (Art. 2 §§1–2)."""
    new_year = dt.date(context.today.year, 1, 1)
    if not context.start_day <= new_year <= context.today:
        return 0
    last_day = dt.date(context.today.year, 12, 31)
    model_year = context.today.year - (vehicle_last_day(2000, context.city).year - 2000)
    statement = _prepare(
        context,
        kind=VEHICLE_AGE,
        key=[_A.c.id, _V.c.id],
        payload={"plate": _V.c.plate, "model_year": _V.c.model_year, "last_day": _text(last_day.isoformat())},
        from_clause=_linked(),
        where=[_V.c.model_year == model_year, *_in_force(context.today)],
    )
    return await _run(context, statement, prefix=f"{VEHICLE_AGE}:{context.today.year}:")


async def _suspension_ends(context: _Context) -> int:
    """``driver.suspension_end``: 7 days before the driver may work again, and on that day (Art. 24 par. único)."""
    statement = _prepare(
        context,
        kind=SUSPENSION_END,
        key=[_A.c.id],
        payload={"number": _A.c.number, "resume_on": _iso("resume_text")},
        from_clause=_linked(),
        where=[
            _A.c.suspended_until == bindparam("last_day", type_=Date),
            _A.c.suspended_since <= context.today,
            *_in_force(context.today, suspended_ok=True),
        ],
    )
    added = 0
    for days, resume_on in milestone_targets(SUSPENSION_END_DAYS, context.start_day, context.today):
        added += await _run(
            context,
            statement,
            prefix=f"{SUSPENSION_END}:{resume_on.isoformat()}:{days}:",
            last_day=resume_on - dt.timedelta(days=1),
            resume_text=resume_on.isoformat(),
        )
    return added


async def _covered_from(session: AsyncSession, today: dt.date) -> dt.date:
    mark = await session.get(ReminderScanMark, SCAN_NAME)
    if mark is None or mark.last_day > today:
        return today
    return max(mark.last_day, today - dt.timedelta(days=MAX_CATCH_UP_DAYS))


@scan(SCAN_NAME)
async def driver_reminders(*, session: AsyncSession, now: dt.datetime, cities: Cities) -> int:
    """Enqueue every driver reminder due from the last completed scan day to today (the caller commits).

    Args:
        session: database session; the reminders and the scan mark are committed together by the caller.
        now: the current moment (aware); its civil date in the registry municipality's time zone is "today".
        cities: the municipalities served; the one where Lei 1.533/2020 is in force gives the time zone, the legal
            readings and the office.

    Returns:
        How many messages were enqueued.
    """
    # Drivers are registrations under Lei 1.533/2020, Sapezal's law: its calendar and office (CF Art. 30 I).
    city = registry_city(cities)
    today = municipal_today(city.tz, now=now)
    morning = dt.datetime.combine(today, REMINDER_TIME, tzinfo=city.tz)
    context = _Context(session, city, now, today, await _covered_from(session, today), max(now, morning))
    added = 0
    for step in (_renewals, _inspections, _obligations, _vehicle_age, _suspension_ends):
        added += await step(context)
    mark = await session.get(ReminderScanMark, SCAN_NAME)
    if mark is None:
        session.add(ReminderScanMark(name=SCAN_NAME, last_day=today))
    else:
        mark.last_day = max(mark.last_day, today)
    await session.flush()
    return added


# --- how each reminder reads ------------------------------------------------------------------------------------


def _legal(*rules: str) -> str:
    articles = "; ".join(ARTICLES.get(rule, rule) for rule in rules)
    return f"\n<i>{LAW}, {articles}</i>"


def _today(tr: Translator) -> dt.date:
    return dt.datetime.now(tr.tz).date()


def _status_button(tr: Translator) -> list[list[tuple[str, str]]]:
    return [[(tr._("See my situation"), STATUS_BUTTON)]]


@renderer(RENEWAL, topic="renewal")
def render_renewal(payload: dict[str, Any], tr: Translator) -> Rendered:
    """The validity is ending or has ended (Art. 3 par. único, Art. 10 par. único)."""
    valid_until = dt.date.fromisoformat(payload["valid_until"])
    renew_by = dt.date.fromisoformat(payload["renew_by"])
    days = (valid_until - _today(tr)).days
    number, office = payload["number"], payload["office"]
    if days > 0:
        text = tr._("Your authorization nº {number} is valid until {date}: {left}.").format(
            number=number, date=tr.date(valid_until), left=days_words(tr, days)
        )
        text += "\n" + tr._("Renew it in time: pay the fees and go to the {office}.").format(office=office)
        if renew_by != valid_until:
            text += "\n" + tr._("The office is closed on the last day: go by {date}.").format(date=tr.date(renew_by))
    elif days == 0:
        text = tr._("Your authorization nº {number} ends today. From tomorrow you may not drive for the apps "
                    "until you renew it at the {office}.").format(number=number, office=office)
    else:
        text = tr._("Your authorization nº {number} ended on {date}. You may not drive for the apps until you "
                    "renew it at the {office}.").format(number=number, date=tr.date(valid_until), office=office)
    return Rendered(text + _legal(RULE_VALIDITY), _status_button(tr))


@renderer(INSPECTION, topic="inspection")
def render_inspection(payload: dict[str, Any], tr: Translator) -> Rendered:
    """The annual inspection is due (Art. 16)."""
    due = dt.date.fromisoformat(payload["due"])
    days = (due - _today(tr)).days
    values = {"plate": payload["plate"], "date": tr.date(due), "office": payload["office"]}
    inspect_by = dt.date.fromisoformat(payload.get("inspect_by") or payload["due"])
    if days > 0:
        text = tr._("The yearly inspection of your vehicle {plate} is due by {date}: {left}. "
                    "Book it at the {office}.").format(left=days_words(tr, days), **values)
        if inspect_by != due:  # the same last open day /situacao gives (models.drivers.status)
            text += "\n" + tr._("The office is closed on the last day: go by {date}.").format(date=tr.date(inspect_by))
    elif days == 0:
        text = tr._("The yearly inspection of your vehicle {plate} is due today. Go to the {office}.").format(**values)
    else:  # Art. 16: overdue, so not allowed to drive (StatusKind.INSPECTION_OVERDUE)
        text = tr._("The yearly inspection of your vehicle {plate} was due on {date}: until it passes you may not "
                    "drive for the apps. Go to the {office} as soon as you can.").format(**values)
    return Rendered(text + _legal(RULE_ANNUAL_INSPECTION), _status_button(tr))


@renderer(OBLIGATION)
def render_obligation(payload: dict[str, Any], tr: Translator) -> Rendered:
    """A 5-day legal deadline: present the vehicle (Art. 9) or fix a failed inspection (Art. 16 §2)."""
    deadline = dt.date.fromisoformat(payload["deadline"])
    days = (deadline - _today(tr)).days
    values = {"plate": payload["plate"], "date": tr.date(deadline), "office": payload["office"]}
    present = payload["rule"] == "present_vehicle"
    if payload["stage"] == "overdue" or days < 0:  # a daily reminder sent after its deadline reads as overdue
        if present:
            text = tr._("The deadline to present your vehicle {plate} for inspection ended on {date}. Until it "
                        "passes the inspection you may not drive for the apps. Go to the {office}.").format(**values)
            return Rendered(text + _legal(RULE_PRESENT_VEHICLE), _status_button(tr))
        text = tr._("The deadline to fix your vehicle {plate} ended on {date}. It may not serve until it passes "
                    "a new inspection at the {office}.").format(**values)
        return Rendered(text + f"\n<i>{LAW}, {ARTICLES[RULE_FIX_INSPECTION]}; {BARRED_AFTER_FAILED_INSPECTION}</i>",
                        _status_button(tr))
    when = days_words(tr, days)
    if present:
        text = tr._("Present your vehicle {plate} for inspection at the {office} by {date} ({when}).")
        rule = RULE_PRESENT_VEHICLE
    else:
        text = tr._("Your vehicle {plate} did not pass the inspection. Fix what was pointed out and present it "
                    "again at the {office} by {date} ({when}).")
        rule = RULE_FIX_INSPECTION
    return Rendered(text.format(when=when, **values) + _legal(rule), _status_button(tr))


@renderer(VEHICLE_AGE, topic="vehicle")
def render_vehicle_age(payload: dict[str, Any], tr: Translator) -> Rendered:
    """The vehicle's last year of service under the age limit (Art. 2 §§1–2; replacement, Art. 8 §2)."""
    last_day = dt.date.fromisoformat(payload["last_day"])
    text = tr._("This is the last year your vehicle {plate} (model {model_year}) may serve: until {date}. "
                "Plan its replacement; the new vehicle must pass an inspection before it serves.").format(
        plate=payload["plate"], model_year=payload["model_year"], date=tr.date(last_day)
    )
    return Rendered(text + f"\n<i>{LAW}, {ARTICLES[RULE_VEHICLE_AGE]}; Art. 8º, §2º</i>", _status_button(tr))


@renderer(SUSPENSION_END)
def render_suspension_end(payload: dict[str, Any], tr: Translator) -> Rendered:
    """A suspension ends (Art. 24 par. único)."""
    resume_on = dt.date.fromisoformat(payload["resume_on"])
    days = (resume_on - _today(tr)).days
    if days > 0:
        text = tr.ngettext(
            "Your suspension ends in {n} day: from {date} you may drive again, if your authorization nº {number} "
            "is valid and your vehicle inspected.",
            "Your suspension ends in {n} days: from {date} you may drive again, if your authorization nº {number} "
            "is valid and your vehicle inspected.",
            days,
        ).format(n=days, date=tr.date(resume_on), number=payload["number"])
    else:
        text = tr._("Your suspension is over: from {date} you may drive again, if your authorization nº {number} "
                    "is valid and your vehicle inspected.").format(date=tr.date(resume_on), number=payload["number"])
    return Rendered(text + _legal(RULE_SUSPENSION), _status_button(tr))


@renderer(LINK_MOVED)
def render_link_moved(payload: dict[str, Any], tr: Translator) -> Rendered:
    """The driver registration was linked to another Telegram account (a new phone, or someone else)."""
    text = tr._("Your driver registration was linked to another Telegram account, so this one will no longer "
                "receive its reminders. If it was not you, contact the city hall at once.")
    return Rendered(text)
