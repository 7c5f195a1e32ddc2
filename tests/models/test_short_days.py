"""Short office days (issue 11 item 6): L9784 Art. 66 §1, and CPC Art. 224 §1 as a setting."""

import datetime as dt

from core.i18n import translator
from core.municipalities import ShortDay
from models.calendar import BusinessCalendar, DayOffKind
from models.deadlines import StepKind, compute_deadline, explain

D = dt.date
EVE = ShortDay(date=D(2026, 12, 24), closes=dt.time(11, 0), act="Decreto nº 45/2026")
ASH = ShortDay(date=D(2027, 2, 10), opens=dt.time(14, 0), act="ponto facultativo")


def test_a_deadline_ending_on_a_day_the_office_closes_early_moves_to_the_next_business_day() -> None:
    """L9784 Art. 66 §1: "encerrado antes da hora normal" → the first business day after it."""
    # CP Art. 278 §2: 30 dias from 24 November 2026 end on Thursday 24 December.
    plain = compute_deadline(rule_id="cp-278-defesa", start=D(2026, 11, 24), calendar=BusinessCalendar())
    assert plain.final_date == D(2026, 12, 24) and not plain.moved
    short = compute_deadline(rule_id="cp-278-defesa", start=D(2026, 11, 24),
                             calendar=BusinessCalendar(short_days=[EVE]))
    # 25 December is Christmas, 26-27 a weekend: Monday 28 December.
    assert short.final_date == D(2026, 12, 28) and short.moved
    passed = [(step.day, step.off.kind if step.off else None) for step in short.steps if step.kind is StepKind.PASSED]
    assert passed[0] == (D(2026, 12, 24), DayOffKind.CLOSES_EARLY)
    lines = explain(short, translator("pt_BR"))
    assert any("Lei 9.784/1999 Art. 66 §1" in line and "11:00, Decreto nº 45/2026" in line for line in lines)


def test_a_day_that_only_opens_late_moves_a_deadline_only_under_cpc_224() -> None:
    """Ash Wednesday until 14h: not "encerrado antes da hora normal" (Art. 66 §1), but CPC Art. 224 §1 moves it."""
    start = D(2027, 1, 11)  # 30 days → Wednesday 10 February 2027
    art66 = compute_deadline(rule_id="cp-278-defesa", start=start, calendar=BusinessCalendar(short_days=[ASH]))
    assert art66.final_date == D(2027, 2, 10) and not art66.moved
    cpc = compute_deadline(rule_id="cp-278-defesa", start=start,
                           calendar=BusinessCalendar(short_days=[ASH], late_opening_moves=True))
    assert cpc.final_date == D(2027, 2, 11) and cpc.moved
    assert any("CPC Art. 224 §1" in line for line in explain(cpc, translator("pt_BR")))


def test_a_short_day_still_counts_inside_a_business_day_count() -> None:
    """The short day is a business day: only the end moves (Art. 66 §1 speaks of the vencimento)."""
    start = D(2026, 12, 22)  # cp-43-recurso: business days; the 24th counts
    with_short = compute_deadline(rule_id="cp-43-recurso", start=start, calendar=BusinessCalendar(short_days=[EVE]))
    counted = {step.day for step in with_short.steps if step.kind is StepKind.COUNTED}
    assert D(2026, 12, 24) in counted


def test_cpc_224_moves_the_dia_do_comeco_off_a_short_day_too() -> None:
    """CPC Art. 224 §1: "os dias do começo e do vencimento do prazo serão protraídos para o primeiro dia útil
    seguinte" — under BALCAO_SHORT_DAY_RULE=cpc_224 the start moves off a short day, not only the end.

    Ciência on Ash Wednesday 10/2/2027 (opens at 14h): CP Art. 278 §2 starts on Thursday 11/2, so its 30 days end
    on Saturday 13/3 and move to Monday 15/3 (today's main, and L9784 Art. 66 §1: Friday 12/3)."""
    art66 = compute_deadline(rule_id="cp-278-defesa", start=D(2027, 2, 10), calendar=BusinessCalendar(short_days=[ASH]))
    assert art66.final_date == D(2027, 3, 12) and art66.start_moved_from is None
    cpc = compute_deadline(rule_id="cp-278-defesa", start=D(2027, 2, 10),
                           calendar=BusinessCalendar(short_days=[ASH], late_opening_moves=True))
    assert cpc.start == D(2027, 2, 11) and cpc.final_date == D(2027, 3, 15)
    assert cpc.start_moved_from is not None and cpc.start_moved_from.day == D(2027, 2, 10)
    assert any("CPC Art. 224 §1" in line and "início" in line for line in explain(cpc, translator("pt_BR")))
    # A decree closing early on 24/12/2026: the 10 dias úteis of CP Art. 43 start on Monday 28/12 instead.
    closes = compute_deadline(rule_id="cp-43-recurso", start=D(2026, 12, 24),
                              calendar=BusinessCalendar(short_days=[EVE], late_opening_moves=True))
    assert closes.steps[0].day == D(2026, 12, 28)


def test_cpc_224_moves_the_day_after_an_edital_off_a_short_day() -> None:
    """CP Art. 36 III + Art. 37 with CPC Art. 231 IV and 224 §1: an edital whose 30 days end on Carnival Tuesday
    9/2/2027 starts the reclamação on the next business day, Ash Wednesday 10/2 (opens late); under cpc_224 that
    dia do começo moves to Thursday 11/2 and the 8 dias úteis end on Tuesday 23/2 (not Monday 22/2)."""
    art66 = compute_deadline(rule_id="cp-37-reclamacao-edital", start=D(2027, 1, 10),
                             calendar=BusinessCalendar(short_days=[ASH]))
    assert art66.steps[0].day == D(2027, 2, 10) and art66.final_date == D(2027, 2, 22)
    cpc = compute_deadline(rule_id="cp-37-reclamacao-edital", start=D(2027, 1, 10),
                           calendar=BusinessCalendar(short_days=[ASH], late_opening_moves=True))
    assert cpc.steps[0].day == D(2027, 2, 11) and cpc.final_date == D(2027, 2, 23)
