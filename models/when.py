"""The one reader of dates and hours as people type them, and the one "today" of a municipality.

Every entry point reads dates and hours here: the chat, the console, the CLI, the staff API, Open311 and the
imports, so the same text is accepted (or refused with the same words) everywhere:

- a day: ``01/12/2026``, ``1/12``, ``1/12/26``, ``1.12.2026``, ``2026-12-01``, ``hoje``, ``amanhã``, ``ontem``,
  ``anteontem``, ``depois de amanhã``, a weekday (``sábado``, ``segunda-feira``), in pt, en and es;
- an hour: ``9h``, ``9h30``, ``9.30``, ``9:30``, ``09:30``, ``14h30min``, ``8am``, ``meio-dia``;
- a moment: a day and an hour (``amanhã 8h``, ``25/12 às 08:00``, ``sábado 14h30``), an hour alone (today), or
  ISO 8601 with or without an offset.

A day written without a year, or by its weekday, is read towards where the field looks: the past for the day a
fact happened, the future for a send date (LEGAL-CHOICES 68). A small hand-written grammar rather than a new
dependency such as ``dateparser``: the inputs are few and fixed, and the ambiguous readings (a day without a
year, a weekday) are a legal choice made explicitly, not a library's default.

A leaf of the models (it imports only :mod:`core.i18n` and :mod:`models.invalid_input`), so every layer uses it.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from typing import Literal
from zoneinfo import ZoneInfo

from core.i18n import N_
from models.invalid_input import InvalidInput

Towards = Literal["past", "future"]

NOT_A_DATE = N_("I could not read that date. Type it like 4/1 or 04/01/2026, or press a button.")
NOT_AN_HOUR = N_("Type the hour like 9:30.")
NOT_A_MOMENT = N_("I could not read the date and hour. Type them like 25/12 08:00 or amanhã 8h.")
FUTURE_DAY = N_("That date is in the future. Please type the day it happened.")

_OFFSETS = {
    "hoje": 0, "today": 0, "hoy": 0,
    "amanha": 1, "tomorrow": 1, "manana": 1,
    "depois de amanha": 2, "the day after tomorrow": 2, "day after tomorrow": 2, "pasado manana": 2,
    "ontem": -1, "yesterday": -1, "ayer": -1,
    "anteontem": -2, "antes de ontem": -2, "the day before yesterday": -2, "day before yesterday": -2,
    "anteayer": -2, "antes de ayer": -2,
}
_WEEKDAYS = {  # Monday is 0, as in datetime
    "segunda": 0, "terca": 1, "quarta": 2, "quinta": 3, "sexta": 4, "sabado": 5, "domingo": 6,
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6,
    "mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6,
    "lunes": 0, "martes": 1, "miercoles": 2, "jueves": 3, "viernes": 4,
    "seg": 0, "ter": 1, "qua": 2, "qui": 3, "sex": 4, "sab": 5, "dom": 6,
}
_NAMED_HOURS = {"meio-dia": 12, "meio dia": 12, "meia-noite": 0, "meia noite": 0, "noon": 12, "midday": 12,
                "midnight": 0, "mediodia": 12, "medianoche": 0}
_ISO_DAY = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_LOCAL_DAY = re.compile(r"(\d{1,2})[/.\-](\d{1,2})(?:[/.\-](\d{2}|\d{4}))?")
_ISO_START = re.compile(r"\d{4}-\d{2}-\d{2}")
_HOUR = re.compile(r"(\d{1,2})(?:\s*(?:h|:|\.)\s*(\d{2})?\s*(?:min)?|\s*(am|pm)|\s*(?:horas?|hs))?")
_WEEKDAY_TAIL = re.compile(r"(?:[- ]feira)?")
_JOINER = re.compile(r"(?:\s*,|\s+(?:as|at|a las|a la|on))\s*$")  # "amanhã às 8h", "sábado, 14h"


def plain(text: str) -> str:
    """Lower case, accents removed, spaces squeezed: how the grammar compares words."""
    decomposed = unicodedata.normalize("NFKD", text.strip().lower())
    return " ".join("".join(char for char in decomposed if not unicodedata.combining(char)).split())


def municipal_today(tz: ZoneInfo, *, now: dt.datetime) -> dt.date:
    """The civil date of a municipality at ``now`` (aware): the one "today" every deadline and form counts from.

    Raises:
        ValueError: ``now`` is naive (it would be read in the server's zone).
    """
    if now.tzinfo is None:
        raise ValueError("naive datetime")
    return now.astimezone(tz).date()


def _weekday(text: str) -> int | None:
    for name, number in _WEEKDAYS.items():
        if text.startswith(name) and _WEEKDAY_TAIL.fullmatch(text[len(name):]):
            return number
    return None


def _day_or_none(text: str, *, today: dt.date, towards: Towards) -> dt.date | None:
    if text in _OFFSETS:
        return today + dt.timedelta(days=_OFFSETS[text])
    weekday = _weekday(text)
    if weekday is not None:  # the latest such weekday up to today, or the next one from today
        shift = (today.weekday() - weekday) % 7
        return today - dt.timedelta(days=shift) if towards == "past" else today + dt.timedelta(days=(-shift) % 7)
    try:
        if iso := _ISO_DAY.fullmatch(text):
            return dt.date(int(iso.group(1)), int(iso.group(2)), int(iso.group(3)))
        if local := _LOCAL_DAY.fullmatch(text):
            year_text = local.group(3)
            if year_text is not None:
                year = int(year_text) + (2000 if len(year_text) == 2 else 0)
                return dt.date(year, int(local.group(2)), int(local.group(1)))
            return _yearless(int(local.group(1)), int(local.group(2)), today=today, towards=towards)
    except ValueError:
        return None
    return None


def _yearless(day: int, month: int, *, today: dt.date, towards: Towards) -> dt.date:
    """A day and month without a year: the latest one not after today, or the first one not before it.

    A 29 February with none in the year it would fall in stays in this year (a send date then "has passed").
    """
    this_year = dt.date(today.year, month, day) if (month, day) != (2, 29) or _leap(today.year) else None
    if this_year is not None and ((towards == "past") == (this_year <= today) or this_year == today):
        return this_year
    other = today.year + (-1 if towards == "past" else 1)
    if (month, day) == (2, 29) and not _leap(other):
        if this_year is None:
            raise ValueError("29/02")
        return this_year
    return dt.date(other, month, day)


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def parse_day(text: str, *, today: dt.date, towards: Towards = "past") -> dt.date:
    """A day as people type it, counted from the municipality's ``today``.

    Args:
        text: ``01/12/2026``, ``1/12``, ``2026-12-01``, ``hoje``, ``amanhã``, ``ontem``, ``sábado``…
        today: the municipality's civil today (:func:`municipal_today`).
        towards: where a day without a year, or a weekday, is looked for from today.

    Raises:
        InvalidInput: not a day of the calendar.
    """
    day = _day_or_none(plain(text), today=today, towards=towards)
    if day is None or day.year < 1900:
        raise InvalidInput(NOT_A_DATE)
    return day


def past_day(text: str, *, today: dt.date) -> dt.date:
    """A day that has already come (a fact, a delivery, a payment): :func:`parse_day` towards the past.

    Raises:
        InvalidInput: not a date, or a date after today.
    """
    day = parse_day(text, today=today, towards="past")
    if day > today:
        raise InvalidInput(FUTURE_DAY)
    return day


def _time_or_none(text: str) -> dt.time | None:
    if text in _NAMED_HOURS:
        return dt.time(_NAMED_HOURS[text])
    match = _HOUR.fullmatch(text)
    if match is None:
        return None
    hour, minute, meridiem = int(match.group(1)), int(match.group(2) or 0), match.group(3)
    if meridiem is not None:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if meridiem == "pm" else 0)
    if hour > 23 or minute > 59:
        return None
    return dt.time(hour, minute)


def parse_time(text: str) -> dt.time:
    """An hour as people type it: ``9h``, ``9h30``, ``9.30``, ``9:30``, ``09:30``, ``8am``, ``meio-dia``.

    Raises:
        InvalidInput: not an hour of the day.
    """
    moment = _time_or_none(plain(text))
    if moment is None:
        raise InvalidInput(NOT_AN_HOUR)
    return moment


def _split(text: str) -> tuple[str, str] | None:
    """The day part and the hour part of ``amanhã às 8h``, ``25/12 08:00``, ``sábado, 14h30``."""
    for cut in range(len(text) - 1, 0, -1):
        if text[cut] != " ":
            continue
        day_part, hour_part = _JOINER.sub("", text[:cut]).strip(), text[cut:].strip()
        if day_part and _time_or_none(hour_part) is not None:
            return day_part, hour_part
    return None


def parse_moment(text: str, *, now: dt.datetime, tz: ZoneInfo, towards: Towards = "future") -> dt.datetime:
    """A day and an hour in the municipality's time zone, as people type them; an hour alone is today's.

    Args:
        text: ``amanhã 8h``, ``25/12 08:00``, ``25/12/2027 às 8h``, ``sábado 14h30``, ``2027-12-25T08:00-04:00``.
        now: the present moment (aware); today is the municipality's civil day at it.
        tz: the municipality's time zone (America/Cuiaba).
        towards: where a day without a year, or a weekday, is looked for.

    Returns:
        The moment, aware, in UTC.

    Raises:
        InvalidInput: not a day and an hour.
    """
    raw = text.strip()
    try:
        moment = dt.datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        moment = None
    if moment is not None and _ISO_START.match(raw):
        local = moment if moment.tzinfo is not None else moment.replace(tzinfo=tz)
    else:
        written = plain(raw)
        today = municipal_today(tz, now=now)
        hour = _time_or_none(written)
        parts = _split(written) if hour is None else ("hoje", written)
        if parts is None:
            raise InvalidInput(NOT_A_MOMENT)
        day = _day_or_none(parts[0], today=today, towards=towards)
        hour = _time_or_none(parts[1])
        if day is None or hour is None or day.year < 1900:
            raise InvalidInput(NOT_A_MOMENT)
        local = dt.datetime.combine(day, hour, tzinfo=tz)
    try:
        return local.astimezone(dt.UTC)
    except OverflowError:  # 9999-12-31T23:59 in a zone behind UTC is past datetime.max
        raise InvalidInput(NOT_A_MOMENT) from None
