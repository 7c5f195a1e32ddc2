"""Typed input: names, CPF, dates as people type them."""

import datetime as dt

import pytest

from core.i18n import translator
from models.cases.fields import address, clean_text, coordinates, cpf, past_day, person_name, yes_or_no
from models.invalid_input import InvalidInput

TODAY = dt.date(2026, 3, 2)


def test_a_full_name_is_required_with_letters_only() -> None:
    assert person_name("  joão   batista ") == "joão batista"
    for bad in ("João", "J0ão Silva", "João <b>Silva</b>", "ab"):
        with pytest.raises(InvalidInput):
            person_name(bad)


def test_cpf_check_digits_are_verified() -> None:
    assert cpf("529.982.247-25") == "52998224725"
    for bad in ("529.982.247-24", "111.111.111-11", "1234", "abc.def.ghi-jk"):
        with pytest.raises(InvalidInput):
            cpf(bad)


def test_dates_as_people_type_them() -> None:
    assert past_day("hoje", today=TODAY) == TODAY
    assert past_day("Ontem", today=TODAY) == dt.date(2026, 3, 1)
    assert past_day("27/2", today=TODAY) == dt.date(2026, 2, 27)
    assert past_day("25/12", today=TODAY) == dt.date(2025, 12, 25)  # no year: the last such day
    assert past_day("04/01/26", today=TODAY) == dt.date(2026, 1, 4)
    assert past_day("2025-11-30", today=TODAY) == dt.date(2025, 11, 30)


@pytest.mark.parametrize("text", ["31/2/2026", "amanhã", "3/3/2026", "99/99"])
def test_impossible_or_future_dates_are_refused_with_a_clear_answer(text: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        past_day(text, today=TODAY)
    assert caught.value.render(translator("pt_BR"))


def test_text_limits_say_the_number() -> None:
    with pytest.raises(InvalidInput) as caught:
        clean_text("oi", min_length=10, max_length=100)
    assert "10" in caught.value.render(translator("en"))
    with pytest.raises(InvalidInput):
        address("12345")  # no letters
    assert clean_text("  a  b \n\n c ", min_length=1, max_length=20) == "a b\nc"


def test_yes_and_no_in_three_languages() -> None:
    assert yes_or_no("Sim") is True and yes_or_no("sí") is True and yes_or_no("yes!") is True
    assert yes_or_no("não") is False and yes_or_no("No") is False
    assert yes_or_no("talvez") is None


def test_control_characters_are_removed_but_tab_and_newline_kept() -> None:
    """XML 1.0 (Open311's requests.xml) cannot hold C0 controls but tab and newline: the one cleaning every typed
    text goes through (chat, console, Open311) removes them; a carriage return is a line break."""
    assert clean_text("Rua\x01 Goiás\x1b 250\x00\r\nCentro\rfundos", min_length=3, max_length=100) == \
        "Rua Goiás 250\nCentro\nfundos"
    assert address("Rua\x0b\x0c das Flores,\x7f 12") == "Rua das Flores,\x7f 12"  # DEL is no C0 control
    with pytest.raises(InvalidInput):
        clean_text("\x01\x02\x03\x04", min_length=3, max_length=100)


@pytest.mark.parametrize(("latitude", "longitude"), [(1000.0, 0.0), (-90.5, 0.0), (0.0, 180.01),
                                                     (float("nan"), 0.0), (0.0, float("inf"))])
def test_a_position_off_the_earth_is_refused(latitude: float, longitude: float) -> None:
    with pytest.raises(InvalidInput) as refused:
        coordinates(latitude, longitude)
    assert "latitude" in refused.value.render(translator("pt_BR"))
    assert coordinates(-14.6722, -52.3545) == (-14.6722, -52.3545)
