"""Civil periods of the driver rules: the office calendar and the deadline choices of a municipality.

The civil today is :func:`models.when.municipal_today`.

Periods of months are counted by :func:`models.deadlines.add_months` (Código Civil Art. 132 §3; Lei 810/1949
Art. 3; ``BALCAO_MONTH_END_RULE``): 12 months from 29 February 2024 end on 1 March 2025.
Days are calendar days (Lei 1.533/2020 never says *dias úteis*); the office calendar
(:class:`models.calendar.BusinessCalendar`) only says when the SMFO is open.
"""

from __future__ import annotations

import datetime as dt
from functools import lru_cache

from core.municipalities import ShortDay
from core.municipality import Municipality
from models.calendar import BusinessCalendar


@lru_cache(maxsize=8)
def _calendar(municipal: tuple[dt.date, ...], state: str, optional_days_off: bool, short_days: tuple[ShortDay, ...],
              late_opening_moves: bool) -> BusinessCalendar:
    return BusinessCalendar(municipal, subdivision=state, optional_days_off=optional_days_off, short_days=short_days,
                            late_opening_moves=late_opening_moves)


def office_calendar(city: Municipality) -> BusinessCalendar:
    """The municipality's business-day calendar, with its short office days (built once per configuration)."""
    return _calendar(
        tuple(city.holidays), city.state, city.readings.calendar_optional_days_off,
        tuple(city.short_days), city.readings.short_day_rule == "cpc_224",
    )


def last_business_day(on_or_before: dt.date, calendar: BusinessCalendar) -> dt.date:
    """The last day the office is open on or before a date (to renew before a validity that ends on a Sunday)."""
    day = on_or_before
    while not calendar.is_business_day(day):
        day -= dt.timedelta(days=1)
    return day
