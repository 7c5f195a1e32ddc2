"""CPF, CNH, plates, RENAVAM and phone numbers as the SMFO's registry and the drivers write them."""

import pytest

from models.drivers.identifiers import (
    InvalidIdentifier,
    cpf_confirmation,
    format_plate,
    mask_cpf,
    parse_cnh,
    parse_cnh_category,
    parse_cpf,
    parse_phone,
    parse_plate,
    parse_renavam,
)


@pytest.mark.parametrize("typed", ["123.456.789-09", "12345678909", " 123 456 789 09 "])
def test_a_cpf_is_accepted_with_or_without_punctuation(typed: str) -> None:
    assert parse_cpf(typed) == "12345678909"


@pytest.mark.parametrize(
    ("typed", "reason"),
    [("123.456.789-00", "check digits"), ("111.111.111-11", "not valid"), ("1234567890", "11 digits")],
)
def test_a_wrong_cpf_is_refused_with_its_reason(typed: str, reason: str) -> None:
    with pytest.raises(InvalidIdentifier, match=reason):
        parse_cpf(typed)


def test_the_masked_cpf_hides_exactly_the_digits_asked_to_link() -> None:
    assert mask_cpf("12345678909") == "***.456.789-**"
    assert cpf_confirmation("12345678909") == "123"
    assert cpf_confirmation("12345678909") not in mask_cpf("12345678909")


def test_cnh_check_digits() -> None:
    assert parse_cnh("026.503.064-61") == "02650306461"
    with pytest.raises(InvalidIdentifier):
        parse_cnh("02650306462")
    with pytest.raises(InvalidIdentifier):
        parse_cnh("00000000000")


def test_a_cnh_whose_first_check_digit_is_ten_is_accepted_in_both_detran_variants() -> None:
    # 100000001: first sum 9 + 1 = 10 -> first digit 0; second sum 1 + 9 = 10 -> 10 (no "dsc") or 8 (with it)
    assert parse_cnh("10000000100") == "10000000100"
    assert parse_cnh("10000000108") == "10000000108"


@pytest.mark.parametrize(("typed", "category"), [("b", "B"), ("A/B", "AB"), ("ae", "AE"), ("D", "D")])
def test_categories_b_and_above_drive_cars_art_12_i(typed: str, category: str) -> None:
    assert parse_cnh_category(typed) == category


@pytest.mark.parametrize("typed", ["A", "ACC", "", "Z"])
def test_categories_below_b_are_refused_art_12_i(typed: str) -> None:
    with pytest.raises(InvalidIdentifier, match=r"Art\. 12 I"):
        parse_cnh_category(typed)


@pytest.mark.parametrize(
    ("typed", "plate"), [("qbx-1234", "QBX1234"), ("QBX1C34", "QBX1C34"), ("abc 1d23", "ABC1D23")]
)
def test_old_and_mercosul_plates(typed: str, plate: str) -> None:
    assert parse_plate(typed) == plate


@pytest.mark.parametrize("typed", ["QB1234", "QBX12345", "1BX1234", "QBX1CC4", "QBXA234"])
def test_other_plates_are_refused(typed: str) -> None:
    with pytest.raises(InvalidIdentifier, match="plate"):
        parse_plate(typed)


def test_plates_print_as_people_read_them() -> None:
    assert format_plate("QBX1234") == "QBX-1234"
    assert format_plate("QBX1C34") == "QBX1C34"


def test_renavam_check_digit_and_old_nine_digit_numbers() -> None:
    assert parse_renavam("86769597308") == "86769597308"
    with pytest.raises(InvalidIdentifier, match="check digit"):
        parse_renavam("86769597309")
    nine = parse_renavam("00639884962")[2:]
    assert parse_renavam(nine) == "00639884962"


@pytest.mark.parametrize(
    "typed",
    [
        "(65) 99911-0001",
        "+55 65 99911-0001",
        "5565999110001",
        "065 99911 0001",
        "(65) 9911-0001",  # written before the ninth digit
        "99911-0001",  # no area code: Mato Grosso's 65
    ],
)
def test_brazilian_mobile_numbers_normalise_to_one_form(typed: str) -> None:
    assert parse_phone(typed) == "+5565999110001"


def test_landlines_keep_eight_digits_and_foreign_numbers_are_refused() -> None:
    assert parse_phone("(65) 3383-4500") == "+556533834500"
    with pytest.raises(InvalidIdentifier, match="Brazilian"):
        parse_phone("+1 202 555 0100")
    with pytest.raises(InvalidIdentifier):
        parse_phone("12345")
