"""The windows a notice opens for the offender, from the ciência this package records (issue 6, item 5).

The counting and the legal choices belong to :mod:`models.deadlines`; this module only says *which*
windows a notice shows (by its rulebook, its type and how it was served) and *from when*:

- Código de Posturas, notificação preliminar: the deadline written on it (Art. 24; Art. 25 VI) and Art. 278 §2,
  from the ciência;
- Código de Posturas, auto de infração: the reclamação (Art. 37) and Art. 278 §2, from the receipt of the auto —
  or, served by edital (Art. 36 III), from its publication as ``BALCAO_CP_EDITAL_START`` reads it;
- Lei 1.533/2020: the defesa prévia (Art. 22), from the ciência;
- after a first-instance decision: the recurso (CP Art. 43; Lei 1.533 Art. 22) and, in the Código de Posturas,
  the deposit of half the fine (Art. 46), from the ciência of the decision;
- after the final decision (CP Art. 47): payment;
- a reclamação the first instance did not decide within Art. 40's 10 days may be taken to appeal as if rejected
  (Art. 42): the appeal is open from the day after that period until a decision is given, and its deposit
  (Art. 46) is counted from the appeal (``cp-42-deposito``).

The lengths the city sets (the deadline written on a preliminar, the Lei 1.533 defence days) are printed on
the notice at issue and kept with it, so a later change of setting does not move a notice's deadlines.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass

from bot.settings import Settings
from models.calendar import BusinessCalendar
from models.deadlines import DEFENCE, NoticeType, Window, WindowRole, applicable_windows, compute_deadline
from models.notices.tables import CienciaKind, FilingKind, Notice, NoticeDelivery, NoticeFiling
from models.notices.tables import NoticeType as Kind
from models.rulebooks.catalogue import CP, L1533
from models.rulebooks.deadline_rules import DeadlineChoices, get_rule


def choices_for(notice: Notice, settings: Settings) -> DeadlineChoices:
    """The deployment's legal choices, with the lengths printed on this notice."""
    choices = DeadlineChoices.from_settings(settings)
    if notice.defence_days is None:
        return choices
    if notice.rulebook == CP:
        return dataclasses.replace(choices, cp_notice_defence_days=notice.defence_days)
    return dataclasses.replace(choices, l1533_defence_days=notice.defence_days)


def printed_defence_days(*, rulebook: str, notice_type: Kind, settings: Settings) -> int | None:
    """The length the city sets and the notice prints: CP Art. 25 VI (preliminar), Lei 1.533 Art. 22 (defesa)."""
    choices = DeadlineChoices.from_settings(settings)
    if rulebook == CP and notice_type is Kind.PRELIMINAR:
        return choices.cp_notice_defence_days
    if rulebook == L1533:
        return choices.l1533_defence_days
    return None


def edital_ciencia(*, notice: Notice, published_on: dt.date, settings: Settings,
                   calendar: BusinessCalendar) -> dt.date:
    """The day an edital counts as the offender's ciência.

    Código de Posturas: the end of the edital's 30 days (Art. 36 III) or its publication, as
    ``BALCAO_CP_EDITAL_START`` chooses (DEADLINES.md B1.6). Lei 1.533/2020 Art. 22 §1 gives the edital no
    period: its publication.
    """
    choices = choices_for(notice, settings)
    if notice.rulebook == CP and choices.cp_edital_start == "fim_do_edital":
        return compute_deadline(rule_id="cp-36-edital", start=published_on, calendar=calendar,
                                choices=choices).final_date
    return published_on


def _served(notice: Notice, delivery: NoticeDelivery) -> tuple[NoticeType, dt.date]:
    assert delivery.ciencia_on is not None
    if notice.rulebook == L1533:
        return NoticeType.NOTIFICACAO_PENALIDADE, delivery.ciencia_on
    if notice.type is Kind.PRELIMINAR:
        return NoticeType.NOTIFICACAO_PRELIMINAR, delivery.ciencia_on
    if delivery.ciencia_kind is CienciaKind.EDITAL and delivery.edital_published_on is not None:
        return NoticeType.EDITAL, delivery.edital_published_on
    return NoticeType.AUTO_DE_INFRACAO, delivery.ciencia_on


def first_instance_windows(
    *, notice: Notice, delivery: NoticeDelivery, settings: Settings, calendar: BusinessCalendar
) -> tuple[Window, ...]:
    """The defence windows a served notice opens (empty before its ciência)."""
    if delivery.ciencia_on is None:
        return ()
    kind, start = _served(notice, delivery)
    return applicable_windows(notice_type=kind, rulebook=notice.rulebook, start=start, calendar=calendar,
                              choices=choices_for(notice, settings))


def decision_windows(
    *, notice: Notice, delivery: NoticeDelivery, final: bool, settings: Settings, calendar: BusinessCalendar
) -> tuple[Window, ...]:
    """The windows a decision opens from its ciência: appeal and deposit, or (final) payment (CP Art. 47)."""
    if delivery.ciencia_on is None:
        return ()
    kind = NoticeType.DECISAO_DEFINITIVA if final else NoticeType.DECISAO
    if final and notice.rulebook != CP:
        return ()
    return applicable_windows(notice_type=kind, rulebook=notice.rulebook, start=delivery.ciencia_on,
                              calendar=calendar, choices=choices_for(notice, settings))


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


def decision_due(*, notice: Notice, filing: NoticeFiling, settings: Settings,
                 calendar: BusinessCalendar) -> Window | None:
    """CP Art. 40: the last day for the first instance to decide a reclamação (10 days from its filing)."""
    if notice.rulebook != CP or filing.kind is not FilingKind.RECLAMACAO:
        return None
    return _windows_of("cp-40-decisao", start=filing.filed_at.astimezone(settings.tz).date(),
                       choices=choices_for(notice, settings), calendar=calendar)[0]


def art42_appeal_from(*, notice: Notice, filing: NoticeFiling, settings: Settings,
                      calendar: BusinessCalendar) -> dt.date | None:
    """CP Art. 42: the first day the party may appeal a reclamação still undecided, or None when it may not."""
    if filing.decided_at is not None:
        return None
    due = decision_due(notice=notice, filing=filing, settings=settings, calendar=calendar)
    return due.final_date + dt.timedelta(days=1) if due is not None else None


def art42_deposit_windows(*, notice: Notice, appeal: NoticeFiling, settings: Settings,
                          calendar: BusinessCalendar) -> tuple[Window, ...]:
    """CP Art. 42 and 46: the deposit of an appeal filed without a first-instance decision, from the appeal."""
    return _windows_of("cp-42-deposito", start=appeal.filed_at.astimezone(settings.tz).date(),
                       choices=choices_for(notice, settings), calendar=calendar)


@dataclass(frozen=True, slots=True)
class ActWindows:
    """The windows for the acts the offender may do now, picked out of a notice's windows."""

    defence: Window | None = None  # the governing defence window (the one filing is checked against)
    appeal: Window | None = None
    deposit: Window | None = None


def governing(windows: tuple[Window, ...]) -> ActWindows:
    """The window that governs each act: the chosen (or only) reading, and for defences the chosen window."""
    defence = appeal = deposit = None
    for window in windows:
        if window.role is WindowRole.ALTERNATIVE:
            continue
        rule_id = window.rule.id
        if window.group == DEFENCE or rule_id == "l1533-22-defesa":
            defence = window
        elif rule_id.endswith("-recurso"):
            appeal = window
        elif rule_id.endswith("-deposito"):
            deposit = window
    return ActWindows(defence=defence, appeal=appeal, deposit=deposit)
