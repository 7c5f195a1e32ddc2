"""Civil periods of the driver rules: months as the law counts them, the civil today, the office calendar.

Periods of months end on the day with the same number; when the last month lacks it, on the next day
(Código Civil Art. 132 §3; Lei 810/1949 Art. 3) or, with ``BALCAO_MONTH_END_RULE=clamp``, on the month's last
day — the same choice :mod:`models.deadlines` applies. So 12 months from 29 February 2024 end on 1 March 2025.
Days are calendar days (Lei 1.533/2020 never says *dias úteis*); the office calendar
(:class:`models.calendar.BusinessCalendar`) only says when the SMFO is open.
"""

from __future__ import annotations

import calendar as gregorian
import datetime as dt
from functools import lru_cache

from bot.settings import Settings
from models.calendar import BusinessCalendar


def add_months(start: dt.date, months: int, *, month_end_rule: str = "next_day") -> dt.date:
    """The day a period of ``months`` months from ``start`` ends (negative ``months`` count backwards).

    Args:
        start: first day of the count (the period ends on the same day number).
        months: length of the period.
        month_end_rule: ``next_day`` (CC Art. 132 §3) or ``clamp`` when the last month lacks the day number.
    """
    index = start.year * 12 + (start.month - 1) + months
    year, month = divmod(index, 12)
    last = gregorian.monthrange(year, month + 1)[1]
    if start.day <= last:
        return dt.date(year, month + 1, start.day)
    if month_end_rule == "clamp":
        return dt.date(year, month + 1, last)
    return dt.date(year, month + 1, last) + dt.timedelta(days=1)


def civil_today(now: dt.datetime, tz: dt.tzinfo) -> dt.date:
    """The civil date of an aware moment in the deployment's time zone (America/Cuiaba by default)."""
    if now.tzinfo is None:
        raise ValueError("naive datetime")
    return now.astimezone(tz).date()


@lru_cache(maxsize=8)
def _calendar(municipal: tuple[dt.date, ...], state: str, optional_days_off: bool) -> BusinessCalendar:
    return BusinessCalendar(municipal, subdivision=state, optional_days_off=optional_days_off)


def office_calendar(settings: Settings) -> BusinessCalendar:
    """The deployment's business-day calendar (built once per configuration)."""
    return _calendar(
        tuple(settings.municipal_holidays), settings.municipality_state, settings.calendar_optional_days_off
    )


def last_business_day(on_or_before: dt.date, calendar: BusinessCalendar) -> dt.date:
    """The last day the office is open on or before a date (to renew before a validity that ends on a Sunday)."""
    day = on_or_before
    while not calendar.is_business_day(day):
        day -= dt.timedelta(days=1)
    return day
