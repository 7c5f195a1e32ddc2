"""Fines: catalogue units × the year's unit value, CP Art. 8 doubling, Lei 1.533 repeat consequences."""

import datetime as dt
from decimal import Decimal

import pytest

from core.i18n import translator
from models.fines import (
    ConsequenceKind,
    FineError,
    MissingCatalogueValue,
    MissingUnitValue,
    compute_fine,
    recidivism_consequences,
)
from models.rulebooks import DeadlineChoices, get_infraction

UNIT_VALUES = {
    "URS": {2026: Decimal("5.25"), 2027: Decimal("5.125")},
    "UPF-NX": {2026: Decimal("42.00")},
}


def test_a_codigo_de_posturas_fine_is_the_table_value_in_upf_nx() -> None:
    """Tabela I item 1 (Art. 53): 9 UPF-NX × R$ 42,00 in 2026."""
    fine = compute_fine(
        infraction=get_infraction("CP-I-1"), on=dt.date(2026, 8, 3), unit_values=UNIT_VALUES, recidivist=False
    )
    assert (fine.units, fine.unit, fine.unit_value, fine.amount) == (
        Decimal(9),
        "UPF-NX",
        Decimal("42.00"),
        Decimal("378.00"),
    )
    assert not fine.doubled and fine.doubling_article is None
    assert fine.article == "Art. 53"
    assert fine.money(translator("pt_BR")) == "R$\xa0378,00"


def test_specific_recidivism_doubles_a_codigo_de_posturas_fine() -> None:
    """CP Art. 8: nas reincidências específicas, as multas serão aplicadas em dobro."""
    fine = compute_fine(
        infraction=get_infraction("CP-I-1"), on=dt.date(2026, 8, 3), unit_values=UNIT_VALUES, recidivist=True
    )
    assert (fine.base_units, fine.units, fine.amount) == (Decimal(9), Decimal(18), Decimal("756.00"))
    assert fine.doubled and fine.doubling_article == "Art. 8º"


def test_art_8_doubles_even_where_the_chapter_repeats_no_clause() -> None:
    """Art. 247 (Tabela XXIII) has no repeat clause of its own; Art. 8 is the general rule."""
    fine = compute_fine(
        infraction=get_infraction("CP-XXIII-1"), on=dt.date(2026, 1, 2), unit_values=UNIT_VALUES, recidivist=True
    )
    assert fine.doubled and fine.units == Decimal(44)


def test_lei_1533_fines_are_never_doubled() -> None:
    """L1533 Art. 25 III: grave = 20 URS; the Law has no doubling (Art. 26 §§1–2 give other sanctions)."""
    first = compute_fine(
        infraction=get_infraction("L1533-26-IV"), on=dt.date(2026, 5, 1), unit_values=UNIT_VALUES, recidivist=False
    )
    again = compute_fine(
        infraction=get_infraction("L1533-26-IV"), on=dt.date(2026, 5, 1), unit_values=UNIT_VALUES, recidivist=True
    )
    assert first.amount == again.amount == Decimal("105.00")
    assert not again.doubled


def test_amounts_round_to_cents_half_up() -> None:
    """5 URS × R$ 5,125 = R$ 25,625 → R$ 25,63 (half up, not the banker's 25,62)."""
    fine = compute_fine(
        infraction=get_infraction("L1533-26-I"), on=dt.date(2027, 3, 1), unit_values=UNIT_VALUES, recidivist=False
    )
    assert fine.amount == Decimal("25.63")
    assert fine.money(translator("en")) == "R$25.63"


def test_the_year_of_the_infraction_picks_the_unit_value_and_a_missing_year_names_the_setting() -> None:
    infraction = get_infraction("CP-I-1")
    with pytest.raises(MissingUnitValue, match=r"UPF-NX in 2027: add it to BALCAO_UNIT_VALUES") as caught:
        compute_fine(infraction=infraction, on=dt.date(2027, 1, 1), unit_values=UNIT_VALUES, recidivist=False)
    assert (caught.value.unit, caught.value.year) == ("UPF-NX", 2027)


def test_a_row_whose_value_the_table_lost_needs_the_units_given() -> None:
    """Tabela III item 1 (Art. 68): the value is missing from the published table."""
    infraction = get_infraction("CP-III-1")
    assert infraction.units is None
    with pytest.raises(MissingCatalogueValue, match="CP-III-1"):
        compute_fine(infraction=infraction, on=dt.date(2026, 1, 2), unit_values=UNIT_VALUES, recidivist=False)
    fine = compute_fine(
        infraction=infraction, on=dt.date(2026, 1, 2), unit_values=UNIT_VALUES, recidivist=True, units=Decimal(10)
    )
    assert fine.amount == Decimal("840.00")
    with pytest.raises(FineError, match=r"9\.00 UPF-NX"):
        compute_fine(
            infraction=get_infraction("CP-I-1"),
            on=dt.date(2026, 1, 2),
            unit_values=UNIT_VALUES,
            recidivist=False,
            units=Decimal(12),
        )


def test_repeat_of_art_26_iv_suspends_for_30_days_or_12_months_by_setting() -> None:
    """L1533 Art. 26 §1 (30 days) vs Art. 24 par. único (12 months): configurable, 30 days by default."""
    infraction = get_infraction("L1533-26-IV")
    assert recidivism_consequences(infraction=infraction, recidivist=False) == ()
    (default,) = recidivism_consequences(infraction=infraction, recidivist=True)
    assert (default.kind, default.article, default.reading, default.recidivism) == (
        ConsequenceKind.SUSPENSION,
        "Art. 26, §1º",
        "art26",
        True,
    )
    assert default.duration is not None and default.duration.id == "l1533-26-1-suspensao"
    (long,) = recidivism_consequences(
        infraction=infraction, recidivist=True, choices=DeadlineChoices(l1533_repeat_suspension="art24")
    )
    assert long.reading == "art24"


@pytest.mark.parametrize(
    ("code", "recidivist", "expected"),
    [
        ("L1533-26-V", True, [(ConsequenceKind.CASSATION, "Art. 26, §2º")]),
        ("L1533-26-V", False, []),
        ("L1533-27", True, [(ConsequenceKind.VEHICLE_SEIZURE, "Art. 27, par. único")]),
        ("L1533-26-VI", False, [(ConsequenceKind.SUSPENSION, "Art. 26, VI")]),
        ("L1533-26-II", False, [(ConsequenceKind.IMMEDIATE_BAN, "Art. 26, II")]),
        ("L1533-26-I", True, []),
        ("CP-I-1", True, []),
    ],
)
def test_lei_1533_sanctions_besides_the_fine(
    code: str, recidivist: bool, expected: list[tuple[ConsequenceKind, str]]
) -> None:
    consequences = recidivism_consequences(infraction=get_infraction(code), recidivist=recidivist)
    assert [(item.kind, item.article) for item in consequences] == expected
    assert all(translator("pt_BR")._(item.label) != item.label for item in consequences)
