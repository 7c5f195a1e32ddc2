"""Deadline computation pinned to each article, with dates across holidays, weekends and year ends.

Counting: start day excluded, last day included (Código Civil Art. 132; L9784 Art. 66); an act's deadline
that ends on a non-business day moves to the next business day (CC Art. 132 §1; L9784 Art. 66 §1).
Every expected date below was worked out by hand from a 2026–2029 calendar.
"""

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from core.i18n import translator
from core.municipality import LegalReadings
from models.calendar import BusinessCalendar, DayOffKind
from models.deadlines import (
    DeadlineError,
    MonthAdjustment,
    NoticeType,
    StepKind,
    WindowRole,
    applicable_windows,
    compute_deadline,
    delivery_windows,
    explain,
)
from models.rulebooks import RULES, DeadlineChoices

D = dt.date
CUIABA = ZoneInfo("America/Cuiaba")


@pytest.fixture(scope="module")
def calendar() -> BusinessCalendar:
    return BusinessCalendar()


# One case per rule: (rule id, start, final date, what the case exercises).
PINNED = [
    ("cp-24-defesa-notificacao", D(2027, 3, 1), D(2027, 3, 31), "Art. 24/25 VI: 30 days written on the notice"),
    ("cp-36-edital", D(2027, 11, 26), D(2027, 12, 26), "Art. 36 III: 30 days; the edital's period does not move"),
    ("cp-37-reclamacao", D(2027, 4, 15), D(2027, 4, 28), "Art. 37: 8 dias úteis skipping Tiradentes"),
    ("cp-37-reclamacao-edital", D(2027, 3, 1), D(2027, 4, 13),
     "Art. 37 after the edital: starts Thu 1/4, the business day after its 30 days (CPC 231 IV), not counted"),
    ("cp-40-decisao", D(2027, 12, 15), D(2027, 12, 27), "Art. 40: ends on Christmas (Saturday) → Monday"),
    ("cp-40-1-vista", D(2027, 4, 18), D(2027, 4, 22), "Art. 40 §1: 3 days ending on Tiradentes → Thursday"),
    ("cp-40-2-decisao-apos-vista", D(2027, 2, 3), D(2027, 2, 8), "Art. 40 §2: Carnaval Monday is a business day"),
    ("cp-43-recurso", D(2026, 12, 18), D(2027, 1, 5), "Art. 43: 10 dias úteis across Christmas and New Year"),
    ("cp-45-decisao-recurso", D(2028, 2, 19), D(2028, 2, 29), "Art. 45: 10 days ending on 29 February 2028"),
    ("l1533-13xxiii-pagamento", D(2027, 3, 1), D(2027, 3, 31), "Art. 13 XXIII: the notice's 30 days (setting)"),
    ("l1533-13xxiii-pagamento-final", D(2027, 3, 1), D(2027, 3, 31), "Art. 13 XXIII after the final decision"),
    ("cp-47-1-pagamento", D(2027, 12, 20), D(2028, 1, 3), "Art. 47 I: 10 dias úteis across the year end"),
    ("cp-47-3-diferenca", D(2027, 4, 14), D(2027, 4, 29), "Art. 47 III: 10 dias úteis skipping Tiradentes"),
    ("cp-47-4-saldo-leilao", D(2026, 11, 13), D(2026, 11, 30), "Art. 47 IV: skips 20 November"),
    ("cp-278-defesa", D(2026, 12, 3), D(2027, 1, 4), "Art. 278 §2: ends on Saturday 2 January → Monday"),
    ("cp-16-hasta-publica", D(2027, 1, 1), D(2027, 3, 2), "Art. 16: 60 days"),
    ("cp-16-1-notificar-saldo", D(2027, 10, 7), D(2027, 10, 13), "Art. 16 §1: ends on 12 October → Wednesday"),
    ("cp-16-2-prescricao-saldo", D(2027, 2, 6), D(2027, 3, 8), "Art. 16 §2: 1 month ending on Saturday → Monday"),
    ("cp-183-animal", D(2027, 9, 2), D(2027, 9, 8), "Art. 183: ends on 7 September → Wednesday"),
    ("cp-184-cao", D(2027, 10, 23), D(2027, 11, 3), "Art. 184: ends on Finados → Wednesday"),
    ("cp-184-2-cao-registrado", D(2027, 1, 30), D(2027, 2, 9), "Art. 184 §2: Carnaval Tuesday is a business day"),
    ("l1533-9-vistoria", D(2026, 12, 28), D(2027, 1, 4), "Art. 9: 5 days ending on Saturday 2 January → Monday"),
    ("l1533-13xx-alteracao", D(2027, 3, 1), D(2027, 3, 8), "Art. 13 XX: 7 days"),
    ("l1533-16-regularizar", D(2027, 4, 16), D(2027, 4, 22), "Art. 16 §2: 5 days ending on Tiradentes → Thursday"),
    ("l1533-22-entrega", D(2027, 1, 4), D(2027, 4, 5), "Art. 22 §1: 90 days from the lavratura, Sunday → Monday"),
    ("l1533-22-defesa", D(2027, 3, 1), D(2027, 3, 11), "Art. 22: defence, 10 days by default (setting)"),
    ("l1533-22-recurso", D(2027, 12, 22), D(2028, 1, 3), "Art. 22: appeal ending on 1 January (Saturday) → Monday"),
    ("l1533-3-validade", D(2026, 11, 15), D(2027, 11, 15), "Art. 3: 12 months; a validity does not move"),
    ("l1533-24-suspensao", D(2028, 2, 29), D(2029, 3, 1), "Art. 24: 12 months from 29 Feb end on 1 March"),
    ("l1533-26vi-suspensao", D(2027, 1, 10), D(2028, 1, 10), "Art. 26 VI: 12 months"),
    ("l1533-26-1-suspensao", D(2027, 3, 1), D(2027, 3, 31), "Art. 26 §1: 30 days (specific rule)"),
    ("ouvidoria-13460-resposta", D(2027, 11, 22), D(2027, 12, 22), "Lei 13.460 Art. 16: 30 days"),
    ("ouvidoria-13460-prorrogacao", D(2027, 12, 22), D(2028, 1, 21), "Lei 13.460 Art. 16: one 30-day extension"),
    ("ouvidoria-13460-informacoes", D(2027, 4, 1), D(2027, 4, 22), "Lei 13.460 Art. 16 par. único: 20 days"),
    ("ouvidoria-complementacao", D(2027, 12, 5), D(2027, 12, 27), "20 days ending on Christmas → Monday"),
]
HOURS_RULES = {"cp-16-3-pereciveis", "l1533-4-dados"}


def test_every_rule_is_pinned() -> None:
    assert {rule.id for rule in RULES} == {case[0] for case in PINNED} | HOURS_RULES


@pytest.mark.parametrize(("rule_id", "start", "final", "why"), PINNED, ids=[case[0] for case in PINNED])
def test_each_deadline_ends_where_its_article_says(
    calendar: BusinessCalendar, rule_id: str, start: dt.date, final: dt.date, why: str
) -> None:
    result = compute_deadline(rule_id=rule_id, start=start, calendar=calendar)
    assert result.final_date == final, why
    assert result.steps[-1].day == final
    if result.rule.extends_to_business_day:
        assert calendar.is_business_day(final)


def test_cp_43_appeal_counts_only_business_days_and_says_which_were_skipped(calendar: BusinessCalendar) -> None:
    """CP Art. 43 par. único: 10 dias úteis from the ciência of the decision."""
    result = compute_deadline(rule_id="cp-43-recurso", start=D(2026, 12, 18), calendar=calendar)
    assert result.steps[0].kind is StepKind.START and result.steps[0].day == D(2026, 12, 18)
    counted = [step.day for step in result.steps if step.kind is StepKind.COUNTED]
    assert len(counted) == 10
    assert counted[0] == D(2026, 12, 21) and counted[-1] == D(2027, 1, 5)
    skipped = {step.day: step.off.kind for step in result.not_counted if step.off}
    assert skipped == {
        D(2026, 12, 19): DayOffKind.SATURDAY,
        D(2026, 12, 20): DayOffKind.SUNDAY,
        D(2026, 12, 25): DayOffKind.HOLIDAY,
        D(2026, 12, 26): DayOffKind.SATURDAY,
        D(2026, 12, 27): DayOffKind.SUNDAY,
        D(2027, 1, 1): DayOffKind.HOLIDAY,
        D(2027, 1, 2): DayOffKind.SATURDAY,
        D(2027, 1, 3): DayOffKind.SUNDAY,
    }
    assert not result.moved


def test_cp_278_calendar_days_ending_on_saturday_move_to_monday(calendar: BusinessCalendar) -> None:
    """CP Art. 278 §2: 30 dias; CC Art. 132 §1 moves an end on a Saturday to Monday."""
    result = compute_deadline(rule_id="cp-278-defesa", start=D(2026, 12, 3), calendar=calendar)
    assert result.period_end.day == D(2027, 1, 2)
    assert result.period_end.count == 30
    assert result.period_end.off is not None and result.period_end.off.kind is DayOffKind.SATURDAY
    assert result.moved
    assert [(step.day, step.kind) for step in result.steps[-2:]] == [
        (D(2027, 1, 3), StepKind.PASSED),
        (D(2027, 1, 4), StepKind.MOVED_TO),
    ]
    # Calendar days count weekends and holidays: Christmas and New Year's Day are counted days here.
    counted = {step.day for step in result.steps if step.kind is StepKind.COUNTED}
    assert {D(2026, 12, 25), D(2027, 1, 1)} <= counted


def test_a_municipal_holiday_from_settings_is_skipped(calendar: BusinessCalendar) -> None:
    """CP Art. 37 with the municipality's holiday on Wednesday 10 March 2027."""
    with_holiday = BusinessCalendar([D(2027, 3, 10)])
    plain = compute_deadline(rule_id="cp-37-reclamacao", start=D(2027, 3, 5), calendar=calendar)
    local = compute_deadline(rule_id="cp-37-reclamacao", start=D(2027, 3, 5), calendar=with_holiday)
    assert plain.final_date == D(2027, 3, 17)
    assert local.final_date == D(2027, 3, 18)
    assert [step.off.kind for step in local.not_counted if step.day == D(2027, 3, 10) and step.off] == [
        DayOffKind.MUNICIPAL
    ]


def test_carnaval_counts_unless_the_deployment_closes_on_pontos_facultativos() -> None:
    """CP Art. 37 from Friday 5 February 2027 (Carnaval: 8–9 February, Ash Wednesday 10)."""
    open_result = compute_deadline(rule_id="cp-37-reclamacao", start=D(2027, 2, 5), calendar=BusinessCalendar())
    closed = BusinessCalendar(optional_days_off=True)
    closed_result = compute_deadline(rule_id="cp-37-reclamacao", start=D(2027, 2, 5), calendar=closed)
    assert open_result.final_date == D(2027, 2, 17)
    assert closed_result.final_date == D(2027, 2, 22)
    assert [step.day for step in closed_result.not_counted][:3] == [D(2027, 2, 6), D(2027, 2, 7), D(2027, 2, 8)]


def test_months_from_a_day_the_last_month_lacks_end_on_the_next_day_or_clamp(calendar: BusinessCalendar) -> None:
    """CC Art. 132 §3 / Lei 810/1949 Art. 3 by default; BALCAO_MONTH_END_RULE=clamp ends on the month's last day."""
    leap = compute_deadline(rule_id="l1533-24-suspensao", start=D(2028, 2, 29), calendar=calendar)
    assert (leap.final_date, leap.adjustment) == (D(2029, 3, 1), MonthAdjustment.NEXT_DAY)
    clamp = DeadlineChoices(month_end_rule="clamp")
    clamped = compute_deadline(rule_id="l1533-24-suspensao", start=D(2028, 2, 29), calendar=calendar, choices=clamp)
    assert (clamped.final_date, clamped.adjustment) == (D(2029, 2, 28), MonthAdjustment.CLAMPED)

    one_month = compute_deadline(rule_id="cp-16-2-prescricao-saldo", start=D(2028, 1, 31), calendar=calendar)
    assert one_month.final_date == D(2028, 3, 1)
    one_month_clamped = compute_deadline(
        rule_id="cp-16-2-prescricao-saldo", start=D(2028, 1, 31), calendar=calendar, choices=clamp
    )
    assert one_month_clamped.final_date == D(2028, 2, 29)

    same_day = compute_deadline(rule_id="l1533-3-validade", start=D(2027, 3, 15), calendar=calendar)
    assert (same_day.final_date, same_day.adjustment) == (D(2028, 3, 15), None)


def test_durations_do_not_move_but_acts_do(calendar: BusinessCalendar) -> None:
    """A suspension (L1533 Art. 24) ends when it ends; an act's deadline (CP Art. 16 §2) moves to Monday."""
    suspension = compute_deadline(rule_id="l1533-24-suspensao", start=D(2026, 3, 6), calendar=calendar)
    assert suspension.final_date == D(2027, 3, 6)  # a Saturday
    assert not suspension.moved
    act = compute_deadline(rule_id="cp-16-2-prescricao-saldo", start=D(2027, 2, 6), calendar=calendar)
    assert act.period_end.day == D(2027, 3, 6)
    assert act.final_date == D(2027, 3, 8)


def test_hours_run_minute_by_minute_and_need_a_time(calendar: BusinessCalendar) -> None:
    """L1533 Art. 4 §2: 24 hours for the platform; CC Art. 132 §4 (minute by minute, no move)."""
    start = dt.datetime(2026, 12, 25, 10, 30, tzinfo=CUIABA)
    result = compute_deadline(rule_id="l1533-4-dados", start=start, calendar=calendar)
    assert result.final_moment == dt.datetime(2026, 12, 26, 10, 30, tzinfo=CUIABA)
    assert result.final_date == D(2026, 12, 26)  # a Saturday: hours do not move
    assert result.start_moment == start
    perishable = compute_deadline(rule_id="cp-16-3-pereciveis", start=start, calendar=calendar)
    assert perishable.final_moment == start + dt.timedelta(hours=24)
    with pytest.raises(DeadlineError, match="hours"):
        compute_deadline(rule_id="l1533-4-dados", start=D(2026, 12, 25), calendar=calendar)


def test_lengths_left_to_settings_are_applied(calendar: BusinessCalendar) -> None:
    """L1533 Art. 22 (no length in the Law) and CP Art. 25 VI (the length written on the notice)."""
    choices = DeadlineChoices(l1533_defence_days=20, cp_notice_defence_days=15)
    defence = compute_deadline(rule_id="l1533-22-defesa", start=D(2027, 3, 1), calendar=calendar, choices=choices)
    assert (defence.length, defence.final_date) == (20, D(2027, 3, 22))  # 21 March is a Sunday
    notice = compute_deadline(
        rule_id="cp-24-defesa-notificacao", start=D(2027, 3, 1), calendar=calendar, choices=choices
    )
    assert notice.final_date == D(2027, 3, 16)


def test_a_datetime_start_uses_its_civil_date(calendar: BusinessCalendar) -> None:
    start = dt.datetime(2026, 12, 18, 23, 50, tzinfo=CUIABA)
    result = compute_deadline(rule_id="cp-43-recurso", start=start, calendar=calendar)
    assert result.final_date == D(2027, 1, 5)


def test_days_left_and_open(calendar: BusinessCalendar) -> None:
    result = compute_deadline(rule_id="cp-43-recurso", start=D(2026, 12, 18), calendar=calendar)
    assert result.days_left(D(2026, 12, 31)) == 5
    assert result.days_left(D(2027, 1, 5)) == 0
    assert result.is_open(D(2027, 1, 5))
    assert not result.is_open(D(2027, 1, 6))


def test_unknown_rules_and_readings_are_refused(calendar: BusinessCalendar) -> None:
    with pytest.raises(KeyError, match="cp-99"):
        compute_deadline(rule_id="cp-99", start=D(2027, 1, 4), calendar=calendar)
    with pytest.raises(KeyError, match="publicacao, fim_do_edital"):
        compute_deadline(rule_id="cp-37-reclamacao-edital", start=D(2027, 1, 4), calendar=calendar, reading="weekly")


def _roles(windows: tuple) -> list[tuple[str, str, dt.date, WindowRole]]:
    return [(w.rule.id, w.result.reading.key, w.final_date, w.role) for w in windows]


def test_an_auto_shows_both_defence_windows_and_the_latest_governs(calendar: BusinessCalendar) -> None:
    """CP Art. 37 (8 dias úteis) and Art. 278 §2 (30 dias) both apply to an auto de infração."""
    windows = applicable_windows(
        notice_type=NoticeType.AUTO_DE_INFRACAO, rulebook="nx-posturas", start=D(2027, 3, 1), calendar=calendar
    )
    assert _roles(windows) == [
        ("cp-37-reclamacao", "default", D(2027, 3, 11), WindowRole.ALTERNATIVE),
        ("cp-278-defesa", "default", D(2027, 3, 31), WindowRole.CHOSEN),
    ]
    assert {window.group for window in windows} == {"defence"}
    earliest = applicable_windows(
        notice_type="auto_de_infracao",
        rulebook="nx-posturas",
        start=D(2027, 3, 1),
        calendar=calendar,
        choices=DeadlineChoices(cp_defence_window="art37"),
    )
    assert [window.role for window in earliest] == [WindowRole.CHOSEN, WindowRole.ALTERNATIVE]


def test_a_preliminary_notice_shows_its_own_deadline_and_art_278(calendar: BusinessCalendar) -> None:
    """CP Art. 24/25 VI and Art. 278 §2; Art. 37 (an auto) does not apply yet."""
    windows = applicable_windows(
        notice_type="notificacao_preliminar",
        rulebook="nx-posturas",
        start=D(2027, 3, 1),
        calendar=calendar,
        choices=DeadlineChoices(cp_notice_defence_days=10, cp_defence_window="art37"),
    )
    assert _roles(windows) == [
        ("cp-24-defesa-notificacao", "default", D(2027, 3, 11), WindowRole.ALTERNATIVE),
        ("cp-278-defesa", "default", D(2027, 3, 31), WindowRole.CHOSEN),  # art37 does not apply: latest
    ]


def test_an_edital_shows_every_reading_of_art_37(calendar: BusinessCalendar) -> None:
    """CP Art. 36 III + Art. 37: from publication, or (default) as CPC Art. 231 IV and 224 count.

    Published Monday 1 March 2027, the edital's 30 days end Wednesday 31 March; the start is the business day
    after it, Thursday 1 April, which is not counted (CPC Art. 224): the 8 dias úteis are 2, 5–9 and 12–13 April.
    """
    windows = applicable_windows(notice_type="edital", rulebook="nx-posturas", start=D(2027, 3, 1), calendar=calendar)
    assert _roles(windows) == [
        ("cp-37-reclamacao-edital", "publicacao", D(2027, 3, 11), WindowRole.ALTERNATIVE),
        ("cp-37-reclamacao-edital", "fim_do_edital", D(2027, 4, 13), WindowRole.ALTERNATIVE),
        # Art. 278 §2 from the ciência (1 April), not the publication: 1 May is Saturday and Labour Day → 3 May.
        ("cp-278-defesa", "default", D(2027, 5, 3), WindowRole.CHOSEN),
    ]
    chained = windows[1].result
    assert chained.preceded_by is not None and chained.preceded_by.final_date == D(2027, 3, 31)
    assert chained.start == D(2027, 3, 1)
    assert chained.steps[0].day == D(2027, 4, 1) and chained.steps[0].kind.value == "start"
    assert chained.steps[1].day == D(2027, 4, 2) and chained.steps[1].count == 1


def test_cpc_231_iv_an_edital_ending_before_a_weekend_starts_on_monday(calendar: BusinessCalendar) -> None:
    """CPC Art. 231 IV: "o dia útil seguinte ao fim da dilação" — an edital ending Friday starts the term Monday."""
    # published Wed 3 Feb 2027: its 30 days end Friday 5 March; the term starts Monday 8 March (not counted)
    result = compute_deadline(rule_id="cp-37-reclamacao-edital", start=D(2027, 2, 3), calendar=calendar)
    assert result.steps[0].day == D(2027, 3, 8)
    assert result.final_date == D(2027, 3, 18)


def test_a_first_instance_decision_shows_the_appeal_and_no_deposit(calendar: BusinessCalendar) -> None:
    """CP Art. 43 (appeal); Art. 46's deposit is not counted (STF Súmula Vinculante 21)."""
    windows = applicable_windows(notice_type="decisao", rulebook="nx-posturas", start=D(2027, 2, 5), calendar=calendar)
    assert _roles(windows) == [("cp-43-recurso", "default", D(2027, 2, 19), WindowRole.ONLY)]


def test_lei_1533_notices_and_unknown_combinations(calendar: BusinessCalendar) -> None:
    """L1533 Art. 22: the defence and the appeal (lengths from settings)."""
    defence = applicable_windows(
        notice_type="notificacao_penalidade", rulebook="sapezal-1533", start=D(2027, 3, 1), calendar=calendar
    )
    assert _roles(defence) == [("l1533-22-defesa", "default", D(2027, 3, 11), WindowRole.ONLY),
                               ("l1533-13xxiii-pagamento", "default", D(2027, 3, 31), WindowRole.ONLY)]
    with pytest.raises(DeadlineError, match="nx-posturas/notificacao_penalidade"):
        applicable_windows(
            notice_type="notificacao_penalidade", rulebook="nx-posturas", start=D(2027, 3, 1), calendar=calendar
        )


def test_windows_follow_the_settings(calendar: BusinessCalendar) -> None:
    """BALCAO_CP_EDITAL_START=publicacao (with Art. 37 governing) makes the literal Art. 37 reading the chosen one."""
    windows = applicable_windows(notice_type="edital", rulebook="nx-posturas", start=D(2027, 3, 1), calendar=calendar,
                                 readings=LegalReadings(cp_edital_start="publicacao", cp_defence_window="art37"))
    assert [(w.result.reading.key, w.role) for w in windows[:2]] == [
        ("publicacao", WindowRole.CHOSEN),
        ("fim_do_edital", WindowRole.ALTERNATIVE),
    ]


def test_lei_1533_art_22_delivery_under_both_readings(calendar: BusinessCalendar) -> None:
    """L1533 Art. 22 §1 (from the lavratura, chosen) and §2 (from the juntada, shown)."""
    windows = delivery_windows(lavratura=D(2027, 1, 4), juntada=D(2027, 1, 20), calendar=calendar)
    assert _roles(windows) == [
        ("l1533-22-entrega", "lavratura", D(2027, 4, 5), WindowRole.CHOSEN),
        ("l1533-22-entrega", "juntada", D(2027, 4, 20), WindowRole.ALTERNATIVE),
    ]
    juntada = delivery_windows(
        lavratura=D(2027, 1, 4),
        juntada=None,
        calendar=calendar,
        choices=DeadlineChoices(l1533_notice_90d_start="juntada"),
    )
    assert _roles(juntada) == [("l1533-22-entrega", "lavratura", D(2027, 4, 5), WindowRole.ALTERNATIVE)]


def test_unknown_notice_types_are_refused(calendar: BusinessCalendar) -> None:
    with pytest.raises(DeadlineError, match="unknown notice type 'multa'"):
        applicable_windows(notice_type="multa", rulebook="nx-posturas", start=D(2027, 3, 1), calendar=calendar)


def test_the_explanation_is_in_the_readers_language(calendar: BusinessCalendar) -> None:
    """What a citizen sees when they ask how their deadline was counted (CP Art. 278 §2)."""
    result = compute_deadline(rule_id="cp-278-defesa", start=D(2026, 12, 3), calendar=calendar)
    english = explain(result, translator("en"))
    assert english[0] == "Deadline: Written defence filed at the city hall, addressed to the Mayor's office"
    assert english[2] == "Counted in: 30 calendar days, from receipt (ciência) of the notice"
    assert "not a business day; it moves to the next business day" in english[-3]
    assert english[-1] == "Final date: Monday, January 4, 2027"
    spanish = explain(result, translator("es"))
    assert spanish[-1] == "Fecha final: lunes, 4 de enero de 2027"


@pytest.mark.parametrize("window", ["earliest", "art278"])
def test_cp_art_278_after_an_edital_counts_from_its_ciencia_not_its_publication(
    calendar: BusinessCalendar, window: str
) -> None:
    """CP Art. 278 §2 (30 days from the notificação) with Art. 36 III: an edital published Mon 1/3/2027 is the
    ciência on Thu 1/4 (LEGAL-CHOICES #6), so the defence runs to Mon 3/5/2027. Today's main closed it on
    Wed 31/3, the edital's last day, before the person was deemed notified (CF Art. 5 LV)."""
    choices = DeadlineChoices(cp_defence_window=window)
    windows = applicable_windows(notice_type="edital", rulebook="nx-posturas", start=D(2027, 3, 1),
                                 calendar=calendar, choices=choices)
    art278 = next(w for w in windows if w.rule.id == "cp-278-defesa")
    assert art278.result.start == D(2027, 4, 1) and art278.final_date == D(2027, 5, 3)
    governing = next(w for w in windows if w.role is WindowRole.CHOSEN)
    assert governing.final_date >= D(2027, 4, 1)  # never before the ciência
    literal = DeadlineChoices(cp_defence_window=window, cp_edital_start="publicacao")
    published = applicable_windows(notice_type="edital", rulebook="nx-posturas", start=D(2027, 3, 1),
                                   calendar=calendar, choices=literal)
    assert next(w for w in published if w.rule.id == "cp-278-defesa").final_date == D(2027, 3, 31)
