"""Translations and locale-aware formatting (a leaf module: any layer may import it).

Catalogs live in ``locales/<locale>/LC_MESSAGES/<area>.po`` (one file per area of the product, so teams
do not edit the same file) and are compiled to ``.mo`` by ``make`` (``pybabel compile``). At run time
all the ``.mo`` files of a locale are merged into one catalog.

Source strings (msgids) are English. Translate first, format after::

    tr = translator(person.locale)
    tr._("Your authorization expires in {days} days.")  # wrong: plural
    tr.ngettext("{n} day left", "{n} days left", n).format(n=n)

Dates and money are formatted with Babel in the reader's locale and the deployment's time zone.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from functools import cache
from pathlib import Path
from zoneinfo import ZoneInfo

from babel import Locale
from babel.dates import format_date, format_datetime, format_time
from babel.numbers import format_currency, format_decimal
from babel.support import NullTranslations, Translations

LOCALES_DIR = Path(__file__).resolve().parent.parent / "locales"
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

    def time(self, value: dt.datetime) -> str:
        """A time of day in the civil time zone."""
        return format_time(value, format="short", tzinfo=self.tz, locale=self._babel_locale)

    def money(self, amount: Decimal) -> str:
        """An amount in reais, e.g. ``R$ 1.234,50`` in pt_BR."""
        return format_currency(amount, "BRL", locale=self._babel_locale)

    def number(self, value: int | float | Decimal) -> str:
        """A number with the locale's separators."""
        return format_decimal(value, locale=self._babel_locale)

    def language_name(self, locale: str) -> str:
        """The name of a locale in that locale's own language (for the language picker)."""
        return str(Locale.parse(locale).get_display_name(locale) or locale)


@cache
def translator(locale: str, tz_name: str = "America/Cuiaba") -> Translator:
    """The (cached) translator for a locale."""
    return Translator(locale, ZoneInfo(tz_name))
