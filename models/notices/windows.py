"""The windows a notice opens for the offender, from the ciência this package records (issue 6, item 5).

The counting and the legal choices belong to :mod:`models.deadlines`; this module only says *which*
windows a notice shows (by its rulebook, its type and how it was served) and *from when*:

- Código de Posturas, notificação preliminar: the deadline written on it (Art. 24; Art. 25 VI) and Art. 278 §2,
  from the ciência;
- Código de Posturas, auto de infração: the reclamação (Art. 37) and Art. 278 §2, from the receipt of the auto —
  or, served by edital (Art. 36 III), the reclamação from its publication as ``BALCAO_CP_EDITAL_START`` reads it,
  and Art. 278 §2 from the ciência that edital gives (never before the person is deemed notified, CF Art. 5 LV);
- Lei 1.533/2020: the defesa prévia (Art. 22), from the ciência;
- after a first-instance decision: the recurso (CP Art. 43; L1533 Art. 22), from the ciência of the decision.
  No deposit window: CP Art. 46's deposit is not required (STF Súmula Vinculante 21), so the appeal is always
  admitted;
- after the final decision (CP Art. 47 I): payment;
- a reclamação the first instance did not decide in time may be taken to appeal as if rejected (Art. 42): the
  time is Art. 40's 10 days from the filing, or, when staff gave vista (Art. 40 §1: 3 days to each side in turn),
  the 5 days after the last vista (§2); while a diligência is pending no Art. 42 appeal opens, and once it is
  concluded the 10 days of Art. 40 count again from its conclusion (``docs/LEGAL-CHOICES.md``).

The lengths the city sets (the deadline written on a preliminar, the Lei 1.533 defence days) are printed on
the notice at issue and kept with it, so a later change of setting does not move a notice's deadlines.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass

from core.i18n import N_
from core.municipality import Municipality
from models.calendar import BusinessCalendar
from models.deadlines import (
    DEFENCE,
    NoticeType,
    Window,
    WindowRole,
    applicable_windows,
    compute_deadline,
    cp_edital_ciencia,
)
from models.notices.tables import CienciaKind, FilingKind, Notice, NoticeDelivery, NoticeFiling
from models.notices.tables import NoticeType as Kind
from models.rulebooks.catalogue import CP, L1533
from models.rulebooks.deadline_rules import DeadlineChoices, DeadlineRule, Unit, get_rule

NO_DEPOSIT = N_("No deposit is needed to appeal: the deposit of half the fine of Art. 46 is not required "
                "(STF Súmula Vinculante 21).")
"""What a Código de Posturas notice and decision say of Art. 46 (CF Art. 5 XXXIV and LV; STF SV 21)."""


def choices_for(notice: Notice, city: Municipality) -> DeadlineChoices:
    """The deployment's legal choices, with the lengths printed on this notice."""
    choices = DeadlineChoices.of(city.readings)
    if notice.payment_days is not None:
        choices = dataclasses.replace(choices, l1533_payment_days=notice.payment_days)
    if notice.defence_days is None:
        return choices
    if notice.rulebook == CP:
        return dataclasses.replace(choices, cp_notice_defence_days=notice.defence_days)
    return dataclasses.replace(choices, l1533_defence_days=notice.defence_days)


def printed_defence_days(*, rulebook: str, notice_type: Kind, city: Municipality) -> int | None:
    """The length the city sets and the notice prints: CP Art. 25 VI (preliminar), L1533 Art. 22 (defesa)."""
    choices = DeadlineChoices.of(city.readings)
    if rulebook == CP and notice_type is Kind.PRELIMINAR:
        return choices.cp_notice_defence_days
    if rulebook == L1533:
        return choices.l1533_defence_days
    return None


def edital_ciencia(*, notice: Notice, published_on: dt.date, city: Municipality,
                   calendar: BusinessCalendar) -> dt.date:
    """The day an edital counts as the offender's ciência.

    Código de Posturas: the business day after the edital's 30 days (Art. 36 III; CPC Art. 231 IV by analogy) or
    its publication, as
    ``BALCAO_CP_EDITAL_START`` chooses (DEADLINES.md B1.6). L1533 Art. 22 §1 gives the edital no
    period: its publication.
    """
    if notice.rulebook == CP:
        return cp_edital_ciencia(published_on=published_on, calendar=calendar, choices=choices_for(notice, city))
    return published_on


ELECTRONIC_CIENCIA = frozenset({CienciaKind.EXPLICIT, CienciaKind.TACIT})
"""The ciências the bot records by itself, at any hour of any day (``Tomo ciência``, or the tacit period)."""


def counted_from(*, delivery: NoticeDelivery, city: Municipality, calendar: BusinessCalendar) -> dt.date:
    """The day a delivery's windows count from: its ciência, moved off a day without office hours if electronic.

    L9784 Art. 66 caput counts "a partir da data da cientificação oficial"; it says nothing of a ciência
    the person gives themselves on a Saturday or a holiday, which only the bot can receive. Lei 11.419/2006
    Art. 5 §2 (the electronic intimação read on a day without office hours "será considerada como realizada no
    primeiro dia útil seguinte") answers it for electronic acts, and does not shorten a defence (CF Art. 5 LV):
    with ``BALCAO_CIENCIA_DAY_OFF=next_business_day`` (default) that business day is the start, not counted
    (CC Art. 132). A ciência in person, by post or by edital keeps its own day. The ciência itself (its moment,
    its day) is recorded as it happened (``docs/LEGAL-CHOICES.md`` #75).
    """
    assert delivery.ciencia_on is not None
    if city.readings.ciencia_day_off == "next_business_day" and delivery.ciencia_kind in ELECTRONIC_CIENCIA:
        return calendar.roll_forward(delivery.ciencia_on)  # L11419 Art. 5 §2, by analogy
    return delivery.ciencia_on


def _served_as(notice: Notice) -> NoticeType:
    """What a notice is served as, delivered in person, by post or in the bot (an edital is apart)."""
    if notice.rulebook == L1533:
        return NoticeType.NOTIFICACAO_PENALIDADE
    return NoticeType.NOTIFICACAO_PRELIMINAR if notice.type is Kind.PRELIMINAR else NoticeType.AUTO_DE_INFRACAO


def _served(notice: Notice, delivery: NoticeDelivery, city: Municipality,
            calendar: BusinessCalendar) -> tuple[NoticeType, dt.date]:
    start = counted_from(delivery=delivery, city=city, calendar=calendar)
    if (notice.rulebook != L1533 and notice.type is not Kind.PRELIMINAR
            and delivery.ciencia_kind is CienciaKind.EDITAL and delivery.edital_published_on is not None):
        return NoticeType.EDITAL, delivery.edital_published_on
    return _served_as(notice), start


def opened_by_ciencia(
    *, notice: Notice, city: Municipality, calendar: BusinessCalendar, on: dt.date
) -> tuple[Window, ...]:
    """The defence windows the notice's ciência will open, counted as if it were on ``on`` (issue 20 §3).

    Shown before the ciência by their lengths only ("depois da ciência: 10 dias úteis para a defesa"): the dates
    exist once the ciência does (L9784 Art. 26 §1 V: the intimação says what the person may do, and by when).
    """
    return applicable_windows(notice_type=_served_as(notice), rulebook=notice.rulebook, start=on, calendar=calendar,
                              choices=choices_for(notice, city))


def first_instance_windows(
    *, notice: Notice, delivery: NoticeDelivery, city: Municipality, calendar: BusinessCalendar
) -> tuple[Window, ...]:
    """The defence windows a served notice opens (empty before its ciência)."""
    if delivery.ciencia_on is None:
        return ()
    kind, start = _served(notice, delivery, city, calendar)
    return applicable_windows(notice_type=kind, rulebook=notice.rulebook, start=start, calendar=calendar,
                              choices=choices_for(notice, city))


def decision_windows(
    *, notice: Notice, delivery: NoticeDelivery, final: bool, city: Municipality, calendar: BusinessCalendar
) -> tuple[Window, ...]:
    """The windows a decision opens from its ciência: the appeal, or (final) the payment.

    The payment is CP Art. 47 I, or L1533 Art. 13 XXIII (the deadline the notice sets).
    """
    if delivery.ciencia_on is None:
        return ()
    kind = NoticeType.DECISAO_DEFINITIVA if final else NoticeType.DECISAO
    start = counted_from(delivery=delivery, city=city, calendar=calendar)
    return applicable_windows(notice_type=kind, rulebook=notice.rulebook, start=start,
                              calendar=calendar, choices=choices_for(notice, city))


@dataclass(frozen=True, slots=True)
class LaterTerm:
    """A deadline whose start has not come yet, by its length (its date comes with that start)."""

    rule: DeadlineRule
    length: int
    unit: Unit


def payment_after_final(*, notice: Notice, city: Municipality) -> LaterTerm:
    """The payment that follows the final decision (CP Art. 47 I; L1533 Art. 13 XXIII).

    Shown while the process goes on, so that a decided defence does not hide that the fine will be due (issue 20 §3).
    """
    rule = get_rule("cp-47-1-pagamento" if notice.rulebook == CP else "l1533-13xxiii-pagamento-final")
    choices = choices_for(notice, city)
    reading = choices.selected(rule)
    return LaterTerm(rule=rule, length=choices.length(reading), unit=reading.unit)


def _windows_of(rule_id: str, *, start: dt.date, choices: DeadlineChoices,
                calendar: BusinessCalendar) -> tuple[Window, ...]:
    """Every reading of one rule from ``start``: the only one, or the chosen one and the alternatives."""
    rule = get_rule(rule_id)
    selected = choices.selected(rule).key
    windows = []
    for reading in rule.readings:
        result = compute_deadline(rule_id=rule_id, start=start, calendar=calendar, choices=choices,
                                  reading=reading.key)
        role = WindowRole.ONLY if not rule.ambiguous else (
            WindowRole.CHOSEN if reading.key == selected else WindowRole.ALTERNATIVE)
        windows.append(Window(result=result, role=role))
    return tuple(windows)


def vista_windows(*, notice: Notice, filing: NoticeFiling, city: Municipality,
                  calendar: BusinessCalendar) -> tuple[Window, ...]:
    """CP Art. 40 §1: the vista periods opened on a reclamação (3 days each, from the day each was opened)."""
    opened = [day for day in (filing.vista_first_on, filing.vista_second_on) if day is not None]
    choices = choices_for(notice, city)
    return tuple(_windows_of("cp-40-1-vista", start=day, choices=choices, calendar=calendar)[0] for day in opened)


def diligencia_pending(filing: NoticeFiling) -> bool:
    """CP Art. 42: the judgment was converted into a diligência that is not concluded yet."""
    return filing.diligencia_at is not None and filing.diligencia_done_at is None


def decision_due(*, notice: Notice, filing: NoticeFiling, city: Municipality,
                 calendar: BusinessCalendar) -> Window | None:
    """The last day for the first instance to decide a reclamação, or None while a diligência is pending.

    CP Art. 40: 10 days from the filing; §2: after vista, 5 days from the end of the last vista; after a
    concluded diligência (Art. 42), the 10 days of Art. 40 again from its conclusion (``docs/LEGAL-CHOICES.md``
    #10), also after a vista: the later of the two governs, so a diligência concluded after the vista moves the
    decision to 10 days after its conclusion.
    """
    if notice.rulebook != CP or filing.kind is not FilingKind.RECLAMACAO or diligencia_pending(filing):
        return None
    due = _due_before_diligencia(notice=notice, filing=filing, city=city, calendar=calendar)
    if filing.diligencia_done_at is None:
        return due
    again = _windows_of("cp-40-decisao", start=filing.diligencia_done_at.astimezone(city.tz).date(),
                        choices=choices_for(notice, city), calendar=calendar)[0]
    return again if again.final_date >= due.final_date else due


def _due_before_diligencia(*, notice: Notice, filing: NoticeFiling, city: Municipality,
                           calendar: BusinessCalendar) -> Window:
    """Art. 40 from the filing, or §2 after the last vista, as if no diligência had been ordered."""
    choices = choices_for(notice, city)
    vistas = vista_windows(notice=notice, filing=filing, city=city, calendar=calendar)
    if vistas:
        return _windows_of("cp-40-2-decisao-apos-vista", start=vistas[-1].final_date, choices=choices,
                           calendar=calendar)[0]
    return _windows_of("cp-40-decisao", start=filing.filed_at.astimezone(city.tz).date(), choices=choices,
                       calendar=calendar)[0]


def appeal_decision_due(*, notice: Notice, filing: NoticeFiling, city: Municipality,
                        calendar: BusinessCalendar) -> Window | None:
    """The last day for the second instance to decide a CP appeal (Art. 45: 10 days from its filing), else None."""
    if notice.rulebook != CP or filing.kind is not FilingKind.RECURSO:
        return None
    return _windows_of("cp-45-decisao-recurso", start=filing.filed_at.astimezone(city.tz).date(),
                       choices=choices_for(notice, city), calendar=calendar)[0]


def art42_appeal_from(*, notice: Notice, filing: NoticeFiling, city: Municipality,
                      calendar: BusinessCalendar) -> dt.date | None:
    """CP Art. 42: the first day the party may appeal a reclamação still undecided, or None when it may not.

    None when it is decided, is not a CP reclamação, or was converted into a diligência still pending. A
    diligência ordered after Art. 40's period had already run out does not take away the appeal that was open
    (Art. 42 speaks of a judgment "convertido em diligência" within the period; CF Art. 5 LV): it stays open
    from the day it opened.
    """
    if filing.decided_at is not None or notice.rulebook != CP or filing.kind is not FilingKind.RECLAMACAO:
        return None
    if filing.diligencia_at is not None:
        before = _due_before_diligencia(notice=notice, filing=filing, city=city, calendar=calendar)
        if filing.diligencia_at.astimezone(city.tz).date() > before.final_date:  # already open: it stays
            return before.final_date + dt.timedelta(days=1)
    due = decision_due(notice=notice, filing=filing, city=city, calendar=calendar)
    return due.final_date + dt.timedelta(days=1) if due is not None else None


@dataclass(frozen=True, slots=True)
class ActWindows:
    """The windows for the acts the offender may do now, picked out of a notice's windows."""

    defence: Window | None = None  # the governing defence window (the one filing is checked against)
    appeal: Window | None = None
    payment: Window | None = None  # CP Art. 47 I; L1533 Art. 13 XXIII


def governing(windows: tuple[Window, ...]) -> ActWindows:
    """The window that governs each act: the chosen (or only) reading, and for defences the chosen window."""
    defence = appeal = payment = None
    for window in windows:
        if window.role is WindowRole.ALTERNATIVE:
            continue
        rule_id = window.rule.id
        if window.group == DEFENCE or rule_id == "l1533-22-defesa":
            defence = window
        elif rule_id.endswith("-recurso"):
            appeal = window
        elif "-pagamento" in rule_id:
            payment = window
    return ActWindows(defence=defence, appeal=appeal, payment=payment)
