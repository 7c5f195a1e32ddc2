"""Business days: weekends, national and Mato Grosso holidays (the holidays library), municipal ones from settings."""

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from core.i18n import translator
from core.municipalities import MunicipalityConfig
from core.municipality import LegalReadings, Municipality
from models.calendar import BusinessCalendar, DayOffKind

D = dt.date


@pytest.fixture(scope="module")
def calendar() -> BusinessCalendar:
    return BusinessCalendar()


@pytest.mark.parametrize(
    ("day", "reason"),
    [
        (D(2027, 1, 2), "sábado"),
        (D(2027, 1, 3), "domingo"),
        (D(2026, 12, 25), "feriado: Natal"),
        (D(2027, 1, 1), "feriado: Confraternização Universal"),
        (D(2027, 4, 21), "feriado: Tiradentes"),
        (D(2027, 3, 26), "feriado: Sexta-feira Santa"),
        (D(2026, 11, 20), "feriado: Dia Nacional de Zumbi e da Consciência Negra"),  # Lei 14.759/2023
        (D(2027, 12, 25), "feriado: Natal"),  # a Saturday: the holiday is the reason given
    ],
)
def test_days_off_say_why_in_portuguese(calendar: BusinessCalendar, day: dt.date, reason: str) -> None:
    assert not calendar.is_business_day(day)
    assert calendar.why_not(day) == reason


def test_ordinary_weekdays_are_business_days(calendar: BusinessCalendar) -> None:
    for day in (D(2027, 1, 4), D(2027, 4, 20), D(2027, 4, 22), D(2026, 12, 24), D(2026, 12, 31)):
        assert calendar.is_business_day(day)
        assert calendar.why_not(day) is None


def test_carnaval_and_other_pontos_facultativos_are_business_days_unless_configured() -> None:
    carnaval = [D(2027, 2, 8), D(2027, 2, 9), D(2027, 2, 10)]  # Monday, Tuesday, Ash Wednesday
    assert all(BusinessCalendar().is_business_day(day) for day in carnaval)
    closed = BusinessCalendar(optional_days_off=True)
    assert [closed.why_not(day) for day in carnaval] == [
        "ponto facultativo: Carnaval",
        "ponto facultativo: Carnaval",
        "ponto facultativo: Quarta-feira de Cinzas",
    ]
    assert not closed.is_business_day(D(2027, 5, 27))  # Corpus Christi


def test_municipal_holidays_come_from_the_municipality() -> None:
    config = MunicipalityConfig(slug="sapezal", name="Sapezal", holidays={2027: (D(2027, 3, 10), D(2027, 7, 26))})
    city = Municipality(config=config, readings=LegalReadings(calendar_optional_days_off=False),
                        tz=ZoneInfo("America/Cuiaba"))
    calendar = BusinessCalendar.of(city)
    off = calendar.day_off(D(2027, 3, 10))
    assert off is not None and off.kind is DayOffKind.MUNICIPAL
    assert calendar.why_not(D(2027, 3, 10)) == "feriado municipal"
    assert calendar.why_not(D(2027, 7, 26)) == "feriado municipal"
    assert calendar.is_business_day(D(2027, 3, 11))


def test_reasons_follow_the_readers_language(calendar: BusinessCalendar) -> None:
    assert calendar.why_not(D(2027, 1, 2), translator("en")) == "Saturday"
    assert calendar.why_not(D(2027, 4, 21), translator("en")) == "holiday: Tiradentes' Day"
    assert calendar.why_not(D(2027, 1, 3), translator("es")) == "domingo"
    assert calendar.why_not(D(2027, 4, 21), translator("es")) == "feriado: Tiradentes"


def test_next_business_day_skips_a_long_weekend(calendar: BusinessCalendar) -> None:
    assert calendar.next_business_day(D(2026, 12, 31)) == D(2027, 1, 4)  # Fri 1 Jan, Sat, Sun
    assert calendar.roll_forward(D(2027, 1, 2)) == D(2027, 1, 4)
    assert calendar.roll_forward(D(2027, 1, 4)) == D(2027, 1, 4)
