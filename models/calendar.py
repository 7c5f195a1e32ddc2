"""Business days (*dias úteis*) of the deployment: weekends, national and Mato Grosso holidays, municipal ones.

National and state holidays come from the ``holidays`` library (``country_holidays("BR", subdiv="MT")``, names in
Portuguese). In 2026 that is: 1 Jan, Good Friday, Tiradentes (21 Apr), 1 May, 7 Sep, 12 Oct, 2 Nov, 15 Nov,
20 Nov (national since Lei 14.759/2023) and 25 Dec; Mato Grosso adds none of its own.

*Pontos facultativos* (Carnaval Monday and Tuesday, Ash Wednesday, Corpus Christi, 28 Oct, 24 and 31 Dec) are
**business days** by default: they are not holidays, and whether the city hall closes is decided by decree each
year. Add the days it closes to ``BALCAO_MUNICIPAL_HOLIDAYS``, or set ``BALCAO_CALENDAR_OPTIONAL_DAYS_OFF=true`` to
treat them all as days off.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Final

import holidays

from core.i18n import N_, Translator, translator

if TYPE_CHECKING:
    from core.municipalities import ShortDay
    from core.municipality import Municipality


class DayOffKind(StrEnum):
    """Why a day is not a business day."""

    SATURDAY = "saturday"
    SUNDAY = "sunday"
    HOLIDAY = "holiday"
    OPTIONAL = "optional"
    MUNICIPAL = "municipal"
    CLOSES_EARLY = "closes_early"
    OPENS_LATE = "opens_late"


_KIND_LABELS: Final[dict[DayOffKind, str]] = {
    DayOffKind.SATURDAY: N_("Saturday"),
    DayOffKind.SUNDAY: N_("Sunday"),
    DayOffKind.HOLIDAY: N_("holiday: {name}"),
    DayOffKind.OPTIONAL: N_("optional day off (ponto facultativo): {name}"),
    DayOffKind.MUNICIPAL: N_("municipal holiday"),
    DayOffKind.CLOSES_EARLY: N_("the office closes early that day ({name}): a deadline cannot end on it"),
    DayOffKind.OPENS_LATE: N_("the office opens late that day ({name}): a deadline cannot end on it"),
}


@dataclass(frozen=True, slots=True)
class DayOff:
    """A day that is not a business day, and why.

    Attributes:
        day: the date.
        kind: weekend, holiday, optional day off, or municipal holiday.
        name: the holiday's name in Portuguese (``Tiradentes``), for holidays.
        name_en: the holiday's name in English, for holidays.
    """

    day: dt.date
    kind: DayOffKind
    name: str | None = None
    name_en: str | None = None

    def describe(self, tr: Translator) -> str:
        """The reason in the reader's language, e.g. ``sábado`` or ``feriado: Tiradentes``."""
        name = self.name_en if tr.locale == "en" and self.name_en else self.name
        return tr._(_KIND_LABELS[self.kind]).format(name=name or "")


class BusinessCalendar:
    """Which days count as business days for a deployment.

    Args:
        municipal_holidays: the municipality's own holidays (``BALCAO_MUNICIPAL_HOLIDAYS``).
        subdivision: the state (``MT``).
        optional_days_off: also treat the federal *pontos facultativos* as days off.
    """

    def __init__(
        self,
        municipal_holidays: Iterable[dt.date] = (),
        subdivision: str = "MT",
        *,
        optional_days_off: bool = False,
        short_days: Iterable[ShortDay] = (),
        late_opening_moves: bool = False,
    ) -> None:
        self.subdivision = subdivision
        self.short_days = {short.date: short for short in short_days}
        self.late_opening_moves = late_opening_moves
        self.municipal_holidays = frozenset(municipal_holidays)
        self.optional_days_off = optional_days_off
        self._public = holidays.country_holidays("BR", subdiv=subdivision, language="pt_BR")
        self._public_en = holidays.country_holidays("BR", subdiv=subdivision, language="en_US")
        self._optional = holidays.country_holidays(
            "BR", subdiv=subdivision, language="pt_BR", categories=(holidays.OPTIONAL,)
        )
        self._optional_en = holidays.country_holidays(
            "BR", subdiv=subdivision, language="en_US", categories=(holidays.OPTIONAL,)
        )

    @classmethod
    def of(cls, city: Municipality) -> BusinessCalendar:
        """The calendar of a municipality: its state, municipal holidays, short days and the deployment's readings."""
        return cls(
            list(city.holidays),
            subdivision=city.state,
            optional_days_off=city.readings.calendar_optional_days_off,
            short_days=list(city.short_days),
            late_opening_moves=city.readings.short_day_rule == "cpc_224",
        )

    def day_off(self, day: dt.date) -> DayOff | None:
        """Why ``day`` is not a business day, or ``None`` when it is one.

        A holiday wins over the weekend (Christmas on a Saturday is reported as Christmas).
        """
        if day in self._public:
            return DayOff(day, DayOffKind.HOLIDAY, self._public.get(day), self._public_en.get(day))
        if day in self.municipal_holidays:
            return DayOff(day, DayOffKind.MUNICIPAL)
        if self.optional_days_off and day in self._optional:
            return DayOff(day, DayOffKind.OPTIONAL, self._optional.get(day), self._optional_en.get(day))
        if day.weekday() == 5:
            return DayOff(day, DayOffKind.SATURDAY)
        if day.weekday() == 6:
            return DayOff(day, DayOffKind.SUNDAY)
        return None

    def short_day(self, day: dt.date) -> DayOff | None:
        """Why a deadline may not end on ``day``, a business day with short office hours, or ``None``.

        L9784 Art. 66 §1: a deadline ending on a day the office "for encerrado antes da hora normal" moves
        to the next business day. A day that only opens late (Ash Wednesday until 14h) moves it only under CPC
        Art. 224 §1 ("expediente forense for iniciado depois da hora normal"), ``BALCAO_SHORT_DAY_RULE=cpc_224``.
        The short day still counts as a business day inside a count.
        """
        short = self.short_days.get(day)
        if short is None or not self.is_business_day(day):
            return None
        act = f", {short.act}" if short.act else ""
        if short.closes is not None:
            return DayOff(day, DayOffKind.CLOSES_EARLY, f"{short.closes:%H:%M}{act}")
        if self.late_opening_moves and short.opens is not None:
            return DayOff(day, DayOffKind.OPENS_LATE, f"{short.opens:%H:%M}{act}")
        return None

    @property
    def start_moves_on_short_days(self) -> bool:
        """CPC Art. 224 §1 (``BALCAO_SHORT_DAY_RULE=cpc_224``): the *dia do começo* moves off a short day too."""
        return self.late_opening_moves

    def optional_day(self, day: dt.date) -> DayOff | None:
        """The *ponto facultativo* on ``day`` when it counts as a business day here (so a count can say so)."""
        if self.optional_days_off or day not in self._optional or self.day_off(day) is not None:
            return None
        return DayOff(day, DayOffKind.OPTIONAL, self._optional.get(day), self._optional_en.get(day))

    def is_business_day(self, day: dt.date) -> bool:
        """Whether the city hall works on ``day`` (not a weekend nor a holiday)."""
        return self.day_off(day) is None

    def why_not(self, day: dt.date, tr: Translator | None = None) -> str | None:
        """Why ``day`` is not a business day, in words (``sábado``, ``feriado: Natal``), or ``None``.

        Args:
            day: the date.
            tr: the reader's translator; Portuguese (``pt_BR``) by default.
        """
        off = self.day_off(day)
        if off is None:
            return None
        return off.describe(tr or translator("pt_BR"))

    def next_business_day(self, day: dt.date) -> dt.date:
        """The first business day strictly after ``day``."""
        candidate = day + dt.timedelta(days=1)
        while not self.is_business_day(candidate):
            candidate += dt.timedelta(days=1)
        return candidate

    def roll_forward(self, day: dt.date) -> dt.date:
        """``day`` itself when it is a business day, otherwise the next business day."""
        return day if self.is_business_day(day) else self.next_business_day(day)
