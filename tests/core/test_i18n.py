"""Locales, plural forms (0, 1, 2 in every language) and formatting in the reader's locale."""

import datetime as dt
from decimal import Decimal

import pytest

from core.i18n import SUPPORTED_LOCALES, negotiate_locale, translator


@pytest.mark.parametrize(
    ("code", "locale"),
    [("pt-br", "pt_BR"), ("pt", "pt_BR"), ("pt-PT", "pt_BR"), ("en", "en"), ("en-GB", "en"), ("es-419", "es"),
     ("es", "es"), ("de", "pt_BR"), (None, "pt_BR"), ("", "pt_BR")],
)
def test_telegram_language_codes_map_to_a_supported_locale(code: str | None, locale: str) -> None:
    assert negotiate_locale(code) == locale


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_every_catalog_uses_two_plural_forms(locale: str) -> None:
    """Babel's pt_BR header has three forms; ours must say nplurals=2 (DESIGN.md) so ngettext picks right."""
    from bot.catalogs import catalogs

    for path, catalog in catalogs(locale):
        assert catalog.num_plurals == 2, path


@pytest.mark.parametrize(
    ("locale", "forms"),
    [
        # pt_BR: plural=(n > 1): zero is singular ("0 dia"), as Brazilian Portuguese says it.
        ("pt_BR", {0: "singular", 1: "singular", 2: "plural"}),
        ("en", {0: "plural", 1: "singular", 2: "plural"}),
        ("es", {0: "plural", 1: "singular", 2: "plural"}),
    ],
)
def test_plural_selection_for_zero_one_and_two(locale: str, forms: dict[int, str]) -> None:
    tr = translator(locale)
    catalog = tr._catalog
    for n, expected in forms.items():
        index = catalog.plural(n)  # type: ignore[attr-defined]
        assert ("singular" if index == 0 else "plural") == expected, (locale, n)


def test_dates_money_and_times_are_formatted_in_the_readers_locale() -> None:
    day = dt.date(2027, 1, 4)
    assert translator("pt_BR").date(day) == "segunda-feira, 4 de janeiro de 2027"
    assert translator("en").date(day) == "Monday, January 4, 2027"
    assert translator("es").date(day) == "lunes, 4 de enero de 2027"
    assert translator("pt_BR").money(Decimal("1234.5")).replace("\xa0", " ") == "R$ 1.234,50"
    assert translator("en").money(Decimal("1234.5")) == "R$1,234.50"
    # 18:30 UTC is 14:30 in Cuiabá (UTC-4, no daylight saving since 2019).
    moment = dt.datetime(2027, 1, 4, 18, 30, tzinfo=dt.UTC)
    assert translator("pt_BR").time(moment) == "14:30"


def test_naive_datetimes_are_refused_when_formatting() -> None:
    with pytest.raises(ValueError, match="naive"):
        translator("pt_BR").datetime(dt.datetime(2027, 1, 4, 12, 0))  # noqa: DTZ001  (the point of the test)


@pytest.mark.parametrize("locale", ["pt_BR", "es"])
def test_the_front_door_is_translated(locale: str) -> None:
    tr = translator(locale)
    assert tr._("What would you like to do? Choose below.") != "What would you like to do? Choose below."


@pytest.mark.parametrize(
    ("locale", "two", "three"),
    [("pt_BR", "Sapezal e Nova Xavantina", "Sapezal, Nova Xavantina e Sorriso"),
     ("en", "Sapezal and Nova Xavantina", "Sapezal, Nova Xavantina, and Sorriso"),
     ("es", "Sapezal y Nova Xavantina", "Sapezal, Nova Xavantina y Sorriso")],
)
def test_names_are_joined_with_the_locales_conjunction(locale: str, two: str, three: str) -> None:
    tr = translator(locale)
    assert tr.names(["Sapezal", "Nova Xavantina"]) == two
    assert tr.names(["Sapezal", "Nova Xavantina", "Sorriso"]) == three
    assert tr.names(["Sapezal"]) == "Sapezal"
