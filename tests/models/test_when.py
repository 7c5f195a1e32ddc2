"""The one grammar of days and hours (models/when.py): what people type, read the same by every entry point."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from models.invalid_input import InvalidInput
from models.when import municipal_today, parse_day, parse_moment, parse_time, past_day

CUIABA = ZoneInfo("America/Cuiaba")
TODAY = dt.date(2026, 12, 2)  # a Wednesday
NOW = dt.datetime(2026, 12, 2, 13, 0, tzinfo=dt.UTC)  # 09:00 in Cuiabá


@pytest.mark.parametrize(
    ("typed", "towards", "expected"),
    [
        ("01/12/2026", "past", dt.date(2026, 12, 1)),
        ("1/12", "past", dt.date(2026, 12, 1)),
        ("1/12/26", "past", dt.date(2026, 12, 1)),
        ("1.12.2026", "past", dt.date(2026, 12, 1)),
        ("2026-12-01", "past", dt.date(2026, 12, 1)),
        ("hoje", "past", TODAY),
        ("Hoy", "past", TODAY),
        ("amanhã", "future", dt.date(2026, 12, 3)),
        ("mañana", "future", dt.date(2026, 12, 3)),
        ("depois de amanhã", "future", dt.date(2026, 12, 4)),
        ("ontem", "past", dt.date(2026, 12, 1)),
        ("yesterday", "past", dt.date(2026, 12, 1)),
        ("anteontem", "past", dt.date(2026, 11, 30)),
        ("sábado", "past", dt.date(2026, 11, 28)),  # the last Saturday
        ("sabado", "future", dt.date(2026, 12, 5)),  # the next Saturday
        ("segunda-feira", "past", dt.date(2026, 11, 30)),
        ("quarta", "past", TODAY),  # today's weekday is today
        ("quarta", "future", TODAY),
        ("viernes", "future", dt.date(2026, 12, 4)),
        ("Sunday", "past", dt.date(2026, 11, 29)),
        ("5/12", "past", dt.date(2025, 12, 5)),  # no year: the latest such day not after today
        ("5/12", "future", dt.date(2026, 12, 5)),
        ("1/12", "future", dt.date(2027, 12, 1)),
    ],
)
def test_a_day_as_people_type_it(typed: str, towards: str, expected: dt.date) -> None:
    assert parse_day(typed, today=TODAY, towards=towards) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("typed", ["", "32/12/2026", "31/02", "amanha talvez", "12/25/2026", "0099-01-01", "sabadão"])
def test_what_is_not_a_day_is_refused_with_the_usual_words(typed: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        parse_day(typed, today=TODAY)
    assert refused.value.message.startswith("I could not read that date")


def test_a_past_day_refuses_tomorrow() -> None:
    with pytest.raises(InvalidInput, match="in the future"):
        past_day("amanhã", today=TODAY)
    assert past_day("sábado", today=TODAY) == dt.date(2026, 11, 28)


@pytest.mark.parametrize(
    ("typed", "expected"),
    [("9h", dt.time(9)), ("9H30", dt.time(9, 30)), ("9.30", dt.time(9, 30)), ("9:30", dt.time(9, 30)),
     ("09:30", dt.time(9, 30)), ("14h30min", dt.time(14, 30)), ("8 horas", dt.time(8)), ("8am", dt.time(8)),
     ("8 pm", dt.time(20)), ("meio-dia", dt.time(12)), ("23:59", dt.time(23, 59)), ("0h", dt.time(0))],
)
def test_an_hour_as_people_type_it(typed: str, expected: dt.time) -> None:
    assert parse_time(typed) == expected


@pytest.mark.parametrize("typed", ["24h", "9:60", "9h3", "13pm", "nove", ""])
def test_what_is_not_an_hour_is_refused(typed: str) -> None:
    with pytest.raises(InvalidInput, match="hour like 9:30"):
        parse_time(typed)


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("amanhã 8h", "2026-12-03T12:00:00+00:00"),
        ("amanhã às 8h", "2026-12-03T12:00:00+00:00"),
        ("tomorrow at 8am", "2026-12-03T12:00:00+00:00"),
        ("mañana a las 8:00", "2026-12-03T12:00:00+00:00"),
        ("depois de amanhã 9.30", "2026-12-04T13:30:00+00:00"),
        ("sábado, 14h30", "2026-12-05T18:30:00+00:00"),
        ("25/12 08:00", "2026-12-25T12:00:00+00:00"),
        ("25/12/2027 às 8h", "2027-12-25T12:00:00+00:00"),
        ("1/12 9h", "2027-12-01T13:00:00+00:00"),  # no year and already past: next year's
        ("18h", "2026-12-02T22:00:00+00:00"),  # an hour alone: today
        ("2027-02-01T08:00", "2027-02-01T12:00:00+00:00"),
        ("2027-02-01T08:00+00:00", "2027-02-01T08:00:00+00:00"),
    ],
)
def test_a_moment_as_people_type_it(typed: str, expected: str) -> None:
    assert parse_moment(typed, now=NOW, tz=CUIABA).isoformat() == expected


@pytest.mark.parametrize("typed", ["amanhã", "31/02 08:00", "amanhã 25h", "logo mais", "9999-12-31T23:59"])
def test_what_is_not_a_moment_is_refused(typed: str) -> None:
    with pytest.raises(InvalidInput):
        parse_moment(typed, now=NOW, tz=CUIABA)


def test_the_municipal_today_is_the_civil_day_in_cuiaba() -> None:
    late_evening = dt.datetime(2026, 12, 3, 2, 30, tzinfo=dt.UTC)  # 22:30 of the 2nd in Cuiabá
    assert municipal_today(CUIABA, now=late_evening) == TODAY
