"""Translations and locale-aware formatting (a leaf module: any layer may import it).

Catalogs live in ``locales/<locale>/LC_MESSAGES/<area>.po`` (one file per area of the product, so teams
do not edit the same file). In a source checkout ``make`` compiles them to ``.mo`` beside them
(``python -m bot.catalogs compile``); a wheel carries them compiled under ``core/locales/`` (``setup.py``).
At run time all the ``.mo`` files of a locale are merged into one catalog, and start refuses
(:func:`check_catalogs`) when one is missing, rather than answering Brazilians in English.

Source strings (msgids) are English. Translate first, format after::

    tr = translator(person.locale)
    tr._("Your authorization expires in {days} days.")  # wrong: plural
    tr.ngettext("{n} day left", "{n} days left", n).format(n=n)

Dates and money are formatted with Babel in the reader's locale and the deployment's time zone.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from decimal import Decimal
from functools import cache
from pathlib import Path
from zoneinfo import ZoneInfo

from babel import Locale
from babel.dates import format_date, format_datetime, format_time
from babel.lists import format_list
from babel.numbers import format_currency, format_decimal
from babel.support import NullTranslations, Translations

SOURCE_LOCALES_DIR = Path(__file__).resolve().parent.parent / "locales"  # a source checkout: .po (+ .mo by make)
PACKAGED_LOCALES_DIR = Path(__file__).resolve().parent / "locales"  # an installed wheel: .mo compiled by setup.py
LOCALES_DIR = PACKAGED_LOCALES_DIR if PACKAGED_LOCALES_DIR.is_dir() else SOURCE_LOCALES_DIR
SUPPORTED_LOCALES: tuple[str, ...] = ("pt_BR", "en", "es")
DEFAULT_LOCALE = "pt_BR"
CIVIL_TZ = ZoneInfo("America/Cuiaba")


def N_(message: str) -> str:
    """Mark a string for extraction without translating it now (translate it later with ``tr._``)."""
    return message


def negotiate_locale(language_code: str | None) -> str:
    """Map Telegram's ``language_code`` (IETF tag like ``pt-br``, ``en-US``, ``es``) to a supported locale.

    Portuguese of any country maps to ``pt_BR``; anything unknown falls back to ``pt_BR``.
    """
    if not language_code:
        return DEFAULT_LOCALE
    tag = language_code.replace("-", "_")
    if tag in SUPPORTED_LOCALES:
        return tag
    language = tag.split("_", 1)[0].lower()
    return {"pt": "pt_BR", "en": "en", "es": "es"}.get(language, DEFAULT_LOCALE)


@cache
def _catalog(locale: str) -> NullTranslations:
    directory = LOCALES_DIR / locale / "LC_MESSAGES"
    merged: NullTranslations | None = None
    for mo_file in sorted(directory.glob("*.mo")):
        with mo_file.open("rb") as handle:
            catalog = Translations(handle, domain=mo_file.stem)
        if merged is None:
            merged = catalog
        elif isinstance(merged, Translations):
            merged.merge(catalog)
    return merged or NullTranslations()


def catalogs_loaded() -> dict[str, bool]:
    """For each supported locale, whether a compiled catalog was found (readiness reports the missing ones)."""
    return {locale: isinstance(_catalog(locale), Translations) for locale in SUPPORTED_LOCALES}


class CatalogsMissing(RuntimeError):
    """A compiled catalog is missing or unreadable: Balcão would speak English to everyone."""


def check_catalogs(directory: Path | None = None) -> None:
    """Refuse to start without every locale's compiled catalog of every area.

    The areas expected are those with a ``.po`` (source checkout) or a ``.mo`` (installed wheel) in any locale.

    Args:
        directory: the catalogs' root (default :data:`LOCALES_DIR`).

    Raises:
        CatalogsMissing: naming each missing or unreadable file and how to get it.
    """
    root = directory or LOCALES_DIR
    areas = {path.stem for path in root.glob("*/LC_MESSAGES/*.po")} | {
        path.stem for path in root.glob("*/LC_MESSAGES/*.mo")
    }
    problems: list[str] = [] if areas else [f"no catalog at all in {root}"]
    for locale in SUPPORTED_LOCALES:
        for area in sorted(areas):
            mo_file = root / locale / "LC_MESSAGES" / f"{area}.mo"
            try:
                with mo_file.open("rb") as handle:
                    Translations(handle, domain=area)
            except FileNotFoundError:
                problems.append(f"{locale}/LC_MESSAGES/{area}.mo is missing")
            except (OSError, ValueError) as exc:  # gettext raises OSError on a corrupt file
                problems.append(f"{locale}/LC_MESSAGES/{area}.mo cannot be read ({exc})")
    if problems:
        raise CatalogsMissing(
            f"Cannot start: the compiled translations in {root} are incomplete, so the bot would answer in "
            "English:\n  " + "\n  ".join(problems) + "\nIn a source checkout run `python -m bot.catalogs compile` "
            "(make does it); an installed package must be rebuilt from the source (pip install .)."
        )


def reload_catalogs() -> None:
    """Forget the loaded catalogs (after compiling new ones)."""
    _catalog.cache_clear()


class Translator:
    """Everything a message needs to be written in one reader's language."""

    def __init__(self, locale: str, tz: ZoneInfo = CIVIL_TZ) -> None:
        self.locale = negotiate_locale(locale)
        self.tz = tz
        self._babel_locale = Locale.parse(self.locale)
        self._catalog = _catalog(self.locale)

    def _(self, message: str) -> str:
        """Translate a message."""
        return self._catalog.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        """Translate a message whose form depends on a count."""
        return self._catalog.ngettext(singular, plural, n)

    def pgettext(self, context: str, message: str) -> str:
        """Translate a message in a context (for short words with several meanings)."""
        return str(self._catalog.pgettext(context, message))

    def npgettext(self, context: str, singular: str, plural: str, n: int) -> str:
        """Translate a message in a context whose form depends on a count."""
        return str(self._catalog.npgettext(context, singular, plural, n))

    def date(self, value: dt.date, format: str = "full") -> str:
        """A date as people say it, e.g. ``segunda-feira, 4 de janeiro de 2027``."""
        if isinstance(value, dt.datetime):
            value = value.astimezone(self.tz).date()
        return format_date(value, format=format, locale=self._babel_locale)

    def short_date(self, value: dt.date) -> str:
        """A compact date, e.g. ``04/01/2027``."""
        return self.date(value, format="short" if self.locale != "pt_BR" else "dd/MM/yyyy")

    def datetime(self, value: dt.datetime, format: str = "medium") -> str:
        """A moment in the civil time zone, e.g. ``4 de jan. de 2027 14:30:00``."""
        if value.tzinfo is None:
            raise ValueError("naive datetime")
        return format_datetime(value, format=format, tzinfo=self.tz, locale=self._babel_locale)

    def moment(self, value: dt.datetime) -> str:
        """A moment as people say it, in the civil time zone: ``terça-feira, 1 de dezembro de 2026 às 16:36``.

        No seconds and no zone abbreviation ("AMT"): the receipt's reader is in the municipality's zone.
        """
        return self._("{date} at {time}").format(date=self.date(value), time=self.time(value))

    def time(self, value: dt.datetime) -> str:
        """A time of day in the civil time zone."""
        return format_time(value, format="short", tzinfo=self.tz, locale=self._babel_locale)

    def money(self, amount: Decimal) -> str:
        """An amount in reais, e.g. ``R$ 1.234,50`` in pt_BR."""
        return format_currency(amount, "BRL", locale=self._babel_locale)

    def amount(self, value: Decimal) -> str:
        """An amount with two decimals and no currency sign, as a spreadsheet cell: ``1.234,50`` in pt_BR."""
        return format_decimal(value, format="#,##0.00", locale=self._babel_locale)

    def number(self, value: int | float | Decimal) -> str:
        """A number with the locale's separators."""
        return format_decimal(value, locale=self._babel_locale)

    def names(self, items: Iterable[str]) -> str:
        """Names joined with the locale's conjunction: "Sapezal e Nova Xavantina", "A, B and C"."""
        return format_list(list(items), locale=self._babel_locale)

    def language_name(self, locale: str) -> str:
        """The name of a locale in its own language, capitalised as a label: "Português (Brasil)", "Español"."""
        name = str(Locale.parse(locale).get_display_name(locale) or locale)
        return name[:1].upper() + name[1:]

    def language_called(self, locale: str) -> str:
        """The name of a locale in the reader's language, capitalised: "Inglês" for a pt_BR reader of "en"."""
        name = str(Locale.parse(locale).get_display_name(self._babel_locale) or locale)
        return name[:1].upper() + name[1:]


@cache
def translator(locale: str, tz_name: str = "America/Cuiaba") -> Translator:
    """The (cached) translator for a locale."""
    return Translator(locale, ZoneInfo(tz_name))
