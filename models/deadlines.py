"""Deadline computation: from a start date and a rulebook deadline to the final date, with every step shown.

How a deadline is counted (the laws in force say nothing else, so the general rules apply):

- the start day is excluded and the last day included (Código Civil Art. 132 caput; L9784 Art. 66);
- *dias* are calendar days (``DEADLINES.md``: neither law says *corridos*); *dias úteis* count only business days
  (:class:`models.calendar.BusinessCalendar`: weekends, national, Mato Grosso and municipal holidays);
- a deadline to act that ends on a non-business day moves to the next business day (CC Art. 132 §1;
  L9784 Art. 66 §1). Durations (a suspension, a validity, the period of an *edital*) do not move;
- months and years end on the day with the same number; when the last month lacks it, on the next day
  (CC Art. 132 §3; Lei 810/1949 Art. 3) or, with ``BALCAO_MONTH_END_RULE=clamp``, on the month's last day;
- hours run minute by minute from an aware date-time (CC Art. 132 §4) and never move.

:func:`compute_deadline` gives one deadline; :func:`applicable_windows` gives every window a notice must show
(for the ambiguous ones, every reading, marked chosen or alternative); :func:`delivery_windows` gives the Lei 1.533
Art. 22 90-day delivery deadline under both readings.
"""

from __future__ import annotations

import calendar as gregorian
import datetime as dt
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Final

from core.i18n import Translator
from models.calendar import BusinessCalendar, DayOff, DayOffKind
from models.rulebooks.deadline_rules import (
    CP,
    L1533,
    START_EVENT_LABELS,
    DeadlineChoices,
    DeadlineRule,
    MonthEndRule,
    Reading,
    StartEvent,
    Unit,
    get_rule,
    unit_phrase,
)

if TYPE_CHECKING:
    from core.readings import ReadingFields


class DeadlineError(ValueError):
    """A deadline cannot be computed from these arguments (e.g. an hours deadline from a bare date)."""


class StepKind(StrEnum):
    """What happened on a day of the count."""

    START = "start"  # the start day: excluded from the count
    COUNTED = "counted"  # a day that counts (``count`` = how many so far)
    SKIPPED = "skipped"  # a business-day count passes over a non-business day
    PERIOD_END = "period_end"  # months/years/hours: the day the period ends
    PASSED = "passed"  # the deadline cannot end on this non-business day
    MOVED_TO = "moved_to"  # the next business day, where the deadline ends instead


class MonthAdjustment(StrEnum):
    """How a period of months or years ended when the last month lacks the start's day number."""

    NEXT_DAY = "next_day"  # CC Art. 132 §3 / Lei 810/1949 Art. 3
    CLAMPED = "clamped"  # BALCAO_MONTH_END_RULE=clamp


@dataclass(frozen=True, slots=True)
class DayStep:
    """One day walked by the count.

    Attributes:
        day: the date.
        kind: what happened on it.
        count: for ``COUNTED`` days, how many days have counted so far.
        off: why the day is not a business day (also on counted calendar days, for information).
        adjustment: for ``PERIOD_END``, how a missing day number was handled.
        optional: the *ponto facultativo* on a day that counts as a business day (``BALCAO_CALENDAR_OPTIONAL_DAYS_OFF``
            is off), so the count can say it was counted on purpose.
    """

    day: dt.date
    kind: StepKind
    count: int | None = None
    off: DayOff | None = None
    adjustment: MonthAdjustment | None = None
    optional: DayOff | None = None


@dataclass(frozen=True, slots=True)
class DeadlineResult:
    """A computed deadline.

    Attributes:
        rule: the rulebook deadline (article, description…).
        reading: the reading applied (the chosen one unless another was asked for).
        length: the length counted (the legal readings give it when the law does not).
        start: the start date (excluded from the count).
        final_date: the last day to act (or the last day of the measure).
        steps: every day walked, in order; the last one is ``final_date``.
        final_moment: for hours deadlines, the exact end (aware).
        start_moment: for hours deadlines, the exact start (aware).
        moved: whether the end fell on a non-business day and moved to the next business day.
        adjustment: for months/years, how a missing day number was handled.
        preceded_by: when the reading starts at the end of another period (the *edital*), that period.
        start_moved_from: the short office day the start fell on, moved to the next business day
            (CPC Art. 224 §1, ``BALCAO_SHORT_DAY_RULE=cpc_224``), else ``None``.
    """

    rule: DeadlineRule
    reading: Reading
    length: int
    start: dt.date
    final_date: dt.date
    steps: tuple[DayStep, ...]
    final_moment: dt.datetime | None = None
    start_moment: dt.datetime | None = None
    moved: bool = False
    adjustment: MonthAdjustment | None = None
    preceded_by: DeadlineResult | None = None
    start_moved_from: DayOff | None = None

    @property
    def unit(self) -> Unit:
        """How the length was counted."""
        return self.reading.unit

    @property
    def period_end(self) -> DayStep:
        """The day the count itself ended (before any move to the next business day)."""
        return next(step for step in reversed(self.steps) if step.kind in (StepKind.COUNTED, StepKind.PERIOD_END))

    @property
    def not_counted(self) -> tuple[DayStep, ...]:
        """The days skipped or passed over, each with its reason (for "how it was counted")."""
        return tuple(step for step in self.steps if step.kind in (StepKind.SKIPPED, StepKind.PASSED))

    def is_open(self, on: dt.date) -> bool:
        """Whether the deadline has not expired on ``on`` (the final day included)."""
        return on <= self.final_date

    def days_left(self, today: dt.date) -> int:
        """Calendar days from ``today`` to the final date (0 on the last day, negative once expired)."""
        return (self.final_date - today).days


def add_months(start: dt.date, months: int, *, month_end_rule: MonthEndRule = "next_day") -> dt.date:
    """The day a period of ``months`` months from ``start`` ends (negative ``months`` count backwards).

    The period ends on the day with the same number; when the last month lacks it, on the next day (Código Civil
    Art. 132 §3; Lei 810/1949 Art. 3) or, with ``month_end_rule="clamp"``, on the month's last day.

    Args:
        start: first day of the count (excluded, as in every deadline).
        months: length of the period.
        month_end_rule: ``next_day`` or ``clamp`` (``BALCAO_MONTH_END_RULE``).
    """
    index = start.month - 1 + months
    year, month = start.year + index // 12, index % 12 + 1
    last = gregorian.monthrange(year, month)[1]
    if start.day <= last:
        return dt.date(year, month, start.day)
    if month_end_rule == "clamp":
        return dt.date(year, month, last)
    return dt.date(year, month, last) + dt.timedelta(days=1)


def _month_adjustment(start: dt.date, end: dt.date, rule: MonthEndRule) -> MonthAdjustment | None:
    """How :func:`add_months` adjusted an end whose month lacks the start's day number (None when it did not)."""
    if end.day == start.day:
        return None
    return MonthAdjustment.CLAMPED if rule == "clamp" else MonthAdjustment.NEXT_DAY


def _closed_for_an_end(calendar: BusinessCalendar, day: dt.date) -> DayOff | None:
    """Why a deadline cannot end on ``day``: not a business day, or a short office day (L9784 Art. 66 §1)."""
    return calendar.day_off(day) or calendar.short_day(day)


def _extend(steps: list[DayStep], end: dt.date, calendar: BusinessCalendar, rule: DeadlineRule) -> tuple[dt.date, bool]:
    """Move an end on a non-business or short office day to the next business day (CC Art. 132 §1; Art. 66 §1)."""
    if not rule.extends_to_business_day:
        return end, False
    short = calendar.short_day(end)
    if calendar.is_business_day(end) and short is None:
        return end, False
    if short is not None:  # the end day counted, but the office closes early: say why the deadline goes on
        steps.append(DayStep(end, StepKind.PASSED, off=short))
    day = end + dt.timedelta(days=1)
    while (off := _closed_for_an_end(calendar, day)) is not None:
        steps.append(DayStep(day, StepKind.PASSED, off=off))
        day += dt.timedelta(days=1)
    steps.append(DayStep(day, StepKind.MOVED_TO))
    return day, True


def _count_days(
    steps: list[DayStep], start: dt.date, length: int, calendar: BusinessCalendar, *, business: bool
) -> dt.date:
    day, counted = start, 0
    while counted < length:
        day += dt.timedelta(days=1)
        off = calendar.day_off(day)
        if business and off is not None:
            steps.append(DayStep(day, StepKind.SKIPPED, off=off))
            continue
        counted += 1
        steps.append(DayStep(day, StepKind.COUNTED, count=counted, off=off, optional=calendar.optional_day(day)))
    return day


def compute_deadline(
    *,
    rule_id: str,
    start: dt.date,
    calendar: BusinessCalendar,
    choices: DeadlineChoices | None = None,
    reading: str | None = None,
) -> DeadlineResult:
    """Compute a rulebook deadline from its start event.

    Args:
        rule_id: the deadline's id (see ``models.rulebooks.RULES``), e.g. ``cp-43-recurso``.
        start: the date of the start event (excluded from the count). Hours deadlines need an aware
            ``datetime``; other deadlines accept a ``datetime`` too and use its civil date.
        calendar: the business-day calendar (``BusinessCalendar.of(city)``).
        choices: the configurable legal choices (``DeadlineChoices.of(city.readings)``); defaults if omitted.
        reading: compute this reading of an ambiguous rule instead of the chosen one (e.g. ``"business"``).

    Returns:
        The final date and every step of the count.

    Raises:
        UnknownRule: no such rule id.
        KeyError: the rule has no such reading.
        DeadlineError: an hours deadline without an aware start time.
    """
    rule = get_rule(rule_id)
    choices = choices or DeadlineChoices()
    chosen = rule.reading(reading) if reading is not None else choices.selected(rule)
    length = choices.length(chosen)

    if chosen.unit is Unit.HOURS:
        if not isinstance(start, dt.datetime) or start.tzinfo is None:
            raise DeadlineError(f"{rule.id} is counted in hours: give the start as an aware date and time")
        moment = start + dt.timedelta(hours=length)
        local = moment.astimezone(start.tzinfo)
        hour_steps = (DayStep(start.date(), StepKind.START), DayStep(local.date(), StepKind.PERIOD_END))
        return DeadlineResult(
            rule, chosen, length, start.date(), local.date(), hour_steps, final_moment=moment, start_moment=start
        )

    day0 = start.date() if isinstance(start, dt.datetime) else start
    preceded_by = None
    if chosen.after is not None:
        # CPC Art. 231 IV (by analogy): the start is the business day after the preceding period (the edital's
        # 30 days) ends; CPC Art. 224: that start day is excluded, so counting begins the day after it.
        preceded_by = compute_deadline(rule_id=chosen.after, start=day0, calendar=calendar, choices=choices)
        day0 = calendar.next_business_day(preceded_by.final_date)
    start_moved_from = None
    if rule.extends_to_business_day and calendar.start_moves_on_short_days:
        # CPC Art. 224 §1 (BALCAO_SHORT_DAY_RULE=cpc_224): "os dias do começo e do vencimento do prazo serão
        # protraídos para o primeiro dia útil seguinte" when the office closes early or opens late on them.
        while (short := calendar.short_day(day0)) is not None:
            start_moved_from = start_moved_from or short
            day0 = calendar.next_business_day(day0)

    steps: list[DayStep] = [DayStep(day0, StepKind.START, off=calendar.day_off(day0))]
    adjustment = None
    if chosen.unit in (Unit.CALENDAR_DAYS, Unit.BUSINESS_DAYS):
        end = _count_days(steps, day0, length, calendar, business=chosen.unit is Unit.BUSINESS_DAYS)
    else:
        months = length * 12 if chosen.unit is Unit.YEARS else length
        end = add_months(day0, months, month_end_rule=choices.month_end_rule)
        adjustment = _month_adjustment(day0, end, choices.month_end_rule)
        steps.append(DayStep(end, StepKind.PERIOD_END, off=calendar.day_off(end), adjustment=adjustment))
    final, moved = _extend(steps, end, calendar, rule)
    return DeadlineResult(
        rule=rule,
        reading=chosen,
        length=length,
        start=day0 if preceded_by is None else preceded_by.start,
        final_date=final,
        steps=tuple(steps),
        moved=moved,
        adjustment=adjustment,
        preceded_by=preceded_by,
        start_moved_from=start_moved_from,
    )


def cp_edital_ciencia(*, published_on: dt.date, calendar: BusinessCalendar, choices: DeadlineChoices) -> dt.date:
    """The day a Código de Posturas edital counts as the offender's ciência.

    CP Art. 36 III ("edital com prazo de 30 dias"): with ``BALCAO_CP_EDITAL_START=fim_do_edital`` the business day
    after those 30 days (CPC Art. 231 IV by analogy), else the publication (Art. 37, literal).
    """
    if choices.cp_edital_start == "fim_do_edital":
        period = compute_deadline(rule_id="cp-36-edital", start=published_on, calendar=calendar, choices=choices)
        return calendar.next_business_day(period.final_date)
    return published_on


class NoticeType(StrEnum):
    """The notices (and decisions) that open windows for the person notified."""

    NOTIFICACAO_PRELIMINAR = "notificacao_preliminar"  # CP Art. 24
    AUTO_DE_INFRACAO = "auto_de_infracao"  # CP Art. 36 I–II (in person, by letter)
    EDITAL = "edital"  # CP Art. 36 III (address unknown); start = publication
    DECISAO = "decisao"  # first-instance decision (CP Art. 43; L1533 Art. 22 recurso)
    DECISAO_DEFINITIVA = "decisao_definitiva"  # CP Art. 47
    NOTIFICACAO_PENALIDADE = "notificacao_penalidade"  # L1533 Art. 22
    REPROVACAO_VISTORIA = "reprovacao_vistoria"  # L1533 Art. 16 §2


class WindowRole(StrEnum):
    """How a window relates to the others on the same notice."""

    ONLY = "only"  # the law is clear: the one window for this act
    CHOSEN = "chosen"  # one of several readings/windows for the same act: the one the system applies
    ALTERNATIVE = "alternative"  # another reading/window for the same act, shown for information


DEFENCE: Final = "defence"

# (rulebook, notice) -> (rule id, group); rules in the same group are windows for the same act.
_NOTICE_WINDOWS: Final[dict[tuple[str, NoticeType], tuple[tuple[str, str | None], ...]]] = {
    (CP, NoticeType.NOTIFICACAO_PRELIMINAR): (("cp-24-defesa-notificacao", DEFENCE), ("cp-278-defesa", DEFENCE)),
    (CP, NoticeType.AUTO_DE_INFRACAO): (("cp-37-reclamacao", DEFENCE), ("cp-278-defesa", DEFENCE)),
    (CP, NoticeType.EDITAL): (("cp-37-reclamacao-edital", DEFENCE), ("cp-278-defesa", DEFENCE)),
    # No deposit window: CP Art. 46 is not applied (STF Súmula Vinculante 21), so neither its 10 days nor the
    # difference between fine and deposit (Art. 47 III) is counted; the appeal is always admitted.
    (CP, NoticeType.DECISAO): (("cp-43-recurso", None),),
    (CP, NoticeType.DECISAO_DEFINITIVA): (("cp-47-1-pagamento", None),),
    (L1533, NoticeType.NOTIFICACAO_PENALIDADE): (("l1533-22-defesa", None), ("l1533-13xxiii-pagamento", None)),
    (L1533, NoticeType.DECISAO): (("l1533-22-recurso", None),),
    (L1533, NoticeType.DECISAO_DEFINITIVA): (("l1533-13xxiii-pagamento-final", None),),
    (L1533, NoticeType.REPROVACAO_VISTORIA): (("l1533-16-regularizar", None),),
}

_DEFENCE_RULE_PREFIX: Final = {"art24": "cp-24-", "art37": "cp-37-", "art278": "cp-278-"}


@dataclass(frozen=True, slots=True)
class Window:
    """A deadline a notice shows.

    Attributes:
        result: the computed deadline (``result.rule`` has the article and description).
        role: only, chosen or alternative.
        group: windows with the same group are for the same act (``"defence"``), else ``None``.
    """

    result: DeadlineResult
    role: WindowRole
    group: str | None = None

    @property
    def rule(self) -> DeadlineRule:
        """The rulebook deadline."""
        return self.result.rule

    @property
    def final_date(self) -> dt.date:
        """The last day of the window."""
        return self.result.final_date


def _governing_defence(candidates: list[DeadlineResult], policy: str) -> DeadlineResult:
    prefix = _DEFENCE_RULE_PREFIX.get(policy)
    if prefix is not None:
        for result in candidates:
            if result.rule.id.startswith(prefix):
                return result
    if policy == "earliest":
        return min(candidates, key=lambda result: result.final_date)
    return max(candidates, key=lambda result: result.final_date)


def applicable_windows(
    *,
    notice_type: NoticeType | str,
    rulebook: str,
    start: dt.date,
    calendar: BusinessCalendar,
    readings: ReadingFields | None = None,
    choices: DeadlineChoices | None = None,
) -> tuple[Window, ...]:
    """Every window a notice must show to the person notified, computed from its start.

    For an ambiguous deadline every reading is returned, the one the readings choose marked ``CHOSEN`` and the
    others ``ALTERNATIVE``. The Código de Posturas defence windows (Art. 24/25 VI, 37, 278 §2) are all shown; the
    one ``BALCAO_CP_DEFENCE_WINDOW`` selects (by default the one that closes last) is ``CHOSEN``.

    Args:
        notice_type: what was served (:class:`NoticeType`).
        rulebook: ``nx-posturas`` or ``sapezal-1533``.
        start: the date of ciência (for an *edital*, its publication; the windows counted from the ciência then
            start from the ciência the edital gives, :func:`cp_edital_ciencia`).
        calendar: the business-day calendar.
        readings: the deployment's legal readings (for the choices), unless ``choices`` is given.
        choices: the legal choices to apply; from ``readings`` (or the defaults) when omitted.

    Raises:
        DeadlineError: this rulebook has no such notice.
    """
    known_types = {kind.value for kind in NoticeType}
    if str(notice_type) not in known_types:
        raise DeadlineError(f"unknown notice type {notice_type!r}; use one of {', '.join(sorted(known_types))}")
    notice = NoticeType(notice_type)
    spec = _NOTICE_WINDOWS.get((rulebook, notice))
    if spec is None:
        known = ", ".join(f"{book}/{kind.value}" for book, kind in _NOTICE_WINDOWS)
        raise DeadlineError(f"no windows for {rulebook}/{notice.value}; known: {known}")
    if choices is None:
        choices = DeadlineChoices.of(readings) if readings is not None else DeadlineChoices()

    computed: list[tuple[DeadlineResult, str | None, bool]] = []  # (result, group, selected reading)
    # CP Art. 278 §2 counts from the notificação: served by edital, from the ciência that edital gives, not from
    # its publication (a defence cannot close before the person is deemed notified, CF Art. 5 LV).
    ciencia = cp_edital_ciencia(published_on=start, calendar=calendar, choices=choices) \
        if notice is NoticeType.EDITAL else start
    for rule_id, group in spec:
        rule = get_rule(rule_id)
        selected_key = choices.selected(rule).key
        for reading in rule.readings:
            begins = ciencia if reading.start_event is StartEvent.CIENCIA_NOTIFICACAO else start
            result = compute_deadline(
                rule_id=rule_id, start=begins, calendar=calendar, choices=choices, reading=reading.key
            )
            computed.append((result, group, reading.key == selected_key))

    defence = [result for result, group, is_selected in computed if group == DEFENCE and is_selected]
    governing = _governing_defence(defence, choices.cp_defence_window) if defence else None
    windows = []
    for result, group, is_selected in computed:
        if group == DEFENCE:
            role = WindowRole.CHOSEN if result is governing else WindowRole.ALTERNATIVE
        elif result.rule.ambiguous:
            role = WindowRole.CHOSEN if is_selected else WindowRole.ALTERNATIVE
        else:
            role = WindowRole.ONLY
        windows.append(Window(result=result, role=role, group=group))
    return tuple(windows)


def delivery_windows(
    *,
    lavratura: dt.date,
    juntada: dt.date | None,
    calendar: BusinessCalendar,
    choices: DeadlineChoices | None = None,
) -> tuple[Window, ...]:
    """L1533 Art. 22 §§1–2: the 90 days to deliver the penalty notice, under each reading.

    Args:
        lavratura: the day the *Auto de Infração* was drawn up (§1).
        juntada: the day the notice was filed in the case file (§2), if it has been.
        calendar: the business-day calendar.
        choices: the legal choices (``BALCAO_L1533_NOTICE_90D_START`` picks the governing reading).

    Returns:
        One window per reading whose start is known, the configured one ``CHOSEN``.
    """
    choices = choices or DeadlineChoices()
    rule = get_rule("l1533-22-entrega")
    starts = {"lavratura": lavratura, "juntada": juntada}
    selected_key = choices.selected(rule).key
    windows = []
    for reading in rule.readings:
        start = starts[reading.key]
        if start is None:
            continue
        result = compute_deadline(rule_id=rule.id, start=start, calendar=calendar, choices=choices, reading=reading.key)
        role = WindowRole.CHOSEN if reading.key == selected_key else WindowRole.ALTERNATIVE
        windows.append(Window(result=result, role=role, group="delivery"))
    return tuple(windows)


def explain(result: DeadlineResult, tr: Translator, *, alternatives: tuple[DeadlineResult, ...] = ()) -> list[str]:
    """How a deadline was counted, line by line, in the reader's language (the ``prazo`` command prints it).

    Args:
        result: the computed deadline.
        tr: the reader's translator.
        alternatives: the other readings of an ambiguous rule, to show their final dates too.

    Returns:
        The rule and article, the kind of day, the start, every day not counted with its reason, any move to the
        next business day or month-end adjustment, the final date, and the other readings.
    """
    rule = result.rule
    lines = [
        tr._("Deadline: {description}").format(description=tr._(rule.description)),
        rule.citation,
        tr._("Counted in: {length}, from {event}").format(
            length=unit_phrase(tr, result.unit, result.length),
            event=tr._(START_EVENT_LABELS[result.reading.start_event]),
        ),
    ]
    if rule.ambiguous or result.reading.basis:
        lines.append(tr._("Reading applied: {basis}").format(basis=tr._(result.reading.basis)))
    if result.final_moment is not None and result.start_moment is not None:
        lines.append(tr._("Start: {moment}").format(moment=tr.datetime(result.start_moment, format="short")))
        lines.append(tr._("Ends at: {moment}").format(moment=tr.datetime(result.final_moment, format="short")))
        return lines
    start_day = result.steps[0].day.day
    lines += _start_lines(result, tr)
    lines += _days_lines(result, tr)
    lines += _end_lines(result, tr, start_day=start_day)
    lines.append(tr._("Final date: {date}").format(date=tr.date(result.final_date)))
    for other in alternatives:
        lines.append(
            tr._("Other reading: {basis} → {date}").format(
                basis=tr._(other.reading.basis), date=tr.date(other.final_date)
            )
        )
    return lines


def _start_lines(result: DeadlineResult, tr: Translator) -> list[str]:
    """The day the count starts from, and why it is not the event's own day when it is not."""
    lines: list[str] = []
    if result.preceded_by is None:
        lines.append(tr._("Start: {date} (not counted)").format(date=tr.date(result.start)))
    else:  # CPC Art. 231 IV and Art. 224: the business day after the preceding period starts the term, not counted
        before = result.preceded_by
        lines.append(tr._("Publication: {date}").format(date=tr.date(result.start)))
        lines.append(
            tr._("{description} ({article}): ends on {date}; the term starts on the next business day").format(
                description=tr._(before.rule.description), article=before.rule.article, date=tr.date(before.final_date)
            )
        )
        lines.append(tr._("Start: {date} (not counted)").format(date=tr.date(result.steps[0].day)))
    if result.start_moved_from is not None:  # CPC Art. 224 §1: the dia do começo moves off a short office day
        lines.append(tr._("The start fell on {date}, a short office day ({reason}); it moves to the next business "
                          "day (CPC Art. 224 §1).").format(date=tr.date(result.start_moved_from.day),
                                                           reason=result.start_moved_from.describe(tr)))
    return lines


def _days_lines(result: DeadlineResult, tr: Translator) -> list[str]:
    """The days not counted (business days) or a last day that counts although optional (calendar days)."""
    lines: list[str] = []
    if result.unit is Unit.BUSINESS_DAYS:
        skipped = [step for step in result.steps if step.kind is StepKind.SKIPPED]
        if skipped:
            lines.append(tr._("Days not counted:"))
            lines.extend(f"  {tr.date(step.day)}: {step.off.describe(tr)}" for step in skipped if step.off)
        else:
            lines.append(tr._("No day skipped."))
        optional = [step for step in result.steps if step.kind is StepKind.COUNTED and step.optional]
        if optional:
            lines.append(tr._("Counted as business days (the city hall did not declare them days off):"))
            lines.extend(f"  {tr.date(step.day)}: {step.optional.describe(tr)}" for step in optional if step.optional)
    elif result.unit is Unit.CALENDAR_DAYS and not result.moved and result.period_end.optional is not None:
        lines.append(tr._("The last day, {date} ({reason}), counts as a business day: the deadline does not "
                          "move.").format(
            date=tr.date(result.final_date), reason=result.period_end.optional.describe(tr)))
    return lines


def _end_lines(result: DeadlineResult, tr: Translator, *, start_day: int) -> list[str]:
    """A month-end adjustment, and the move of a last day that is not a business day."""
    lines: list[str] = []
    if result.adjustment is MonthAdjustment.NEXT_DAY:
        lines.append(tr._("The last month has no day {day}: the period ends on the next day.").format(day=start_day))
    elif result.adjustment is MonthAdjustment.CLAMPED:
        lines.append(
            tr._("The last month has no day {day}: the period ends on the month's last day.").format(day=start_day)
        )
    short_end = next((step for step in result.steps if step.kind is StepKind.PASSED and step.off is not None
                      and step.day == result.period_end.day
                      and step.off.kind in (DayOffKind.CLOSES_EARLY, DayOffKind.OPENS_LATE)), None)
    if result.moved and short_end is not None and short_end.off is not None:
        article = ("CPC Art. 224 §1" if short_end.off.kind is DayOffKind.OPENS_LATE else "Lei 9.784/1999 Art. 66 §1")
        lines.append(
            tr._("The count ended on {date}, a short office day ({reason}); it moves to the next business day "
                 "({article}).").format(date=tr.date(short_end.day), reason=short_end.off.describe(tr),
                                        article=article)
        )
        lines.extend(
            f"  {tr.date(step.day)}: {step.off.describe(tr)}"
            for step in result.steps
            if step.kind is StepKind.PASSED and step.off and step is not short_end
        )
    elif result.moved:
        end = result.period_end
        lines.append(
            tr._("The count ended on {date} ({reason}), not a business day; it moves to the next business day.").format(
                date=tr.date(end.day), reason=end.off.describe(tr) if end.off else ""
            )
        )
        lines.extend(
            f"  {tr.date(step.day)}: {step.off.describe(tr)}"
            for step in result.steps
            if step.kind is StepKind.PASSED and step.off
        )
    return lines
