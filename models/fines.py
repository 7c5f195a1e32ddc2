"""Fines in R$: the catalogue value in fiscal units times the unit's value in the year, and repeat offences.

- Código de Posturas (Nova Xavantina): the table value in UPF-NX (Art. 12), **doubled on specific recidivism**
  (Art. 8: the person was already cited — *autuada* — or punished for an infraction of the same nature; no time
  limit). Art. 8 is the general rule, so it applies to every table, including Art. 247's (which repeats no
  clause) and the chapters that write "*reincidência*" without "*específica*".
- Lei 1.533/2020 (Sapezal): the class value in URS (Art. 25); **no doubling**. A repeat has other consequences
  (:func:`recidivism_consequences`): Art. 26 §1 suspension (30 days, or 12 months under Art. 24 par. único,
  ``BALCAO_L1533_REPEAT_SUSPENSION``), Art. 26 §2 *cassação*, Art. 27 par. único fine plus seizure of the vehicle.

Rows the catalogue does not compute as a plain value:

- CP Art. 57 §§1–3 (Tabela II item 3, "comprometer a limpeza da água potável"): the first offence *of that
  provision* is a warning (*advertência*, §1), with no fine; on a repeat after the warning the offender is fined
  and reported to the authorities (§3). The caller says whether that first step was taken (``warned``: an earlier
  notice under Art. 57, a notificação preliminar included; an auto under another article is not it). That first
  fine is the table value: the repeat is what makes it due, so it is not also doubled (Art. 8) — the fine
  doubles only when an earlier notice of the same nature already carried a fine (``docs/LEGAL-CHOICES.md``).
- Tabela III items 2–4 are charged "por m²" of public road occupied: the notice takes the quantity and the fine
  is the units per m² times the area (then doubled on recidivism).

The unit value is that of the year of the infraction (``on``: the day it was committed, which a notice records
apart from the day it is drawn up), from ``BALCAO_UNIT_VALUES``; the amount is rounded to cents, half up.
Whether the person is a repeat offender is decided by the caller (:mod:`models.notices.recidivism`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from enum import StrEnum
from typing import Final

from core.i18n import N_, Translator
from models.rulebooks.catalogue import CP, L1533, Infraction
from models.rulebooks.deadline_rules import DeadlineChoices, DeadlineRule, get_rule

CENT: Final = Decimal("0.01")
CP_DOUBLING_ARTICLE: Final = "Art. 8º"
WARNING_FIRST: Final = frozenset({"CP-II-3"})
"""CP Art. 57 §§1–3: rows whose first offence is a warning, fined only on a repeat."""
WARNING_ARTICLE: Final = "Art. 57, §§1º–3º"


def per_square_metre(infraction: Infraction) -> bool:
    """Whether the row is charged per m² (Tabela III items 2–4: "por m² de espaço em via pública")."""
    return infraction.rulebook == CP and "por m²" in infraction.description


class FineError(ValueError):
    """A fine cannot be computed; the message says what to configure or supply.

    Attributes:
        message: English msgid with ``{placeholders}`` (translate with ``tr._`` and format with ``params``).
        params: the values of the placeholders.
    """

    def __init__(self, message: str, **params: object) -> None:
        super().__init__(message.format(**params))
        self.message = message
        self.params = params


class MissingUnitValue(FineError):
    """``BALCAO_UNIT_VALUES`` has no value for the unit in the year of the infraction."""

    def __init__(self, unit: str, year: int) -> None:
        super().__init__(N_("No R$ value for the fiscal unit {unit} in {year}: add it to BALCAO_UNIT_VALUES, "
                            "e.g. {example}"), unit=unit, year=year, example=f'{{"{unit}": {{"{year}": "0.00"}}}}')
        self.unit = unit
        self.year = year


class MissingCatalogueValue(FineError):
    """The published table lost this row's value (OCR gap): the units must be given explicitly."""

    def __init__(self, infraction: Infraction) -> None:
        super().__init__(N_("{code} ({article}) has no value in the published table: give the units"),
                         code=infraction.code, article=infraction.article)


@dataclass(frozen=True, slots=True)
class Fine:
    """A computed fine.

    Attributes:
        infraction: the catalogue row.
        base_units: the catalogue value (or the value given for a row without one).
        units: the units charged (doubled on CP specific recidivism).
        unit: ``URS`` or ``UPF-NX``.
        year: the year whose unit value applies (the year of ``on``).
        unit_value: R$ per unit that year.
        amount: R$, rounded to cents half up.
        doubled: whether the fine was doubled.
        article: the article that sets the value.
        doubling_article: ``Art. 8º`` when doubled, else ``None``.
        quantity: the m² the units were multiplied by (Tabela III "por m²"), else ``None``.
        warning: CP Art. 57 §1: a first offence, warned and not fined (``amount`` is 0).
    """

    infraction: Infraction
    base_units: Decimal
    units: Decimal
    unit: str
    year: int
    unit_value: Decimal
    amount: Decimal
    doubled: bool
    article: str
    doubling_article: str | None = None
    quantity: Decimal | None = None
    warning: bool = False

    def money(self, tr: Translator) -> str:
        """The amount in the reader's locale, e.g. ``R$ 1.234,50``."""
        return tr.money(self.amount)


def unit_value(*, unit: str, year: int, unit_values: Mapping[str, Mapping[int, Decimal]]) -> Decimal:
    """R$ per fiscal unit in a year (``settings.unit_values``).

    Raises:
        MissingUnitValue: the setting has no value for that unit and year.
    """
    value = unit_values.get(unit, {}).get(year)
    if value is None:
        raise MissingUnitValue(unit, year)
    return Decimal(value)


def compute_fine(
    *,
    infraction: Infraction,
    on: dt.date,
    unit_values: Mapping[str, Mapping[int, Decimal]],
    recidivist: bool,
    units: Decimal | None = None,
    quantity: Decimal | None = None,
    prior_fine: bool | None = None,
    warned: bool = False,
) -> Fine:
    """The fine for an infraction committed (or cited) on a date.

    Args:
        infraction: the catalogue row.
        on: the date whose year's unit value applies (the date of the infraction).
        unit_values: ``settings.unit_values`` (unit → year → R$).
        recidivist: CP: a *reincidente específico* (Art. 8 par. único: same nature, already cited or punished);
            Lei 1.533: a repeat of the same infraction. Only the CP doubles the fine.
        units: the value in units for a row whose value the table lost (``infraction.units is None``).
        quantity: the m² for a row charged per m² (Tabela III), required there and refused elsewhere.
        prior_fine: for the rows of CP Art. 57, whether an earlier notice of the same nature carried a fine (the
            doubling of Art. 8 then applies); ``None`` means it did not.
        warned: for the rows of CP Art. 57, whether the first step of §1 was already taken before this offence
            (an earlier warning or fine under Art. 57, on an auto or a notificação preliminar). Without it the
            offence is warned, whatever other autos the person has (Art. 8 doubles fines, it does not skip §1).

    Raises:
        MissingUnitValue: no unit value for that year.
        MissingCatalogueValue: the row has no value and ``units`` was not given.
        FineError: ``units`` given for a row that has a value, or not positive; ``quantity`` missing, not
            positive, or given for a row not charged per m².
    """
    if infraction.units is None:
        if units is None:
            raise MissingCatalogueValue(infraction)
        if units <= 0:
            raise FineError(N_("The units of a fine must be more than zero"))
        base = units
    else:
        if units is not None and units != infraction.units:
            raise FineError(N_("{code} is {units} {unit} in the table: do not give its units"),
                            code=infraction.code, units=infraction.units, unit=infraction.unit)
        base = infraction.units
    if per_square_metre(infraction):
        if quantity is None or quantity <= 0:
            raise FineError(N_("{code} is charged per m²: give the area (m²)"), code=infraction.code)
    elif quantity is not None:
        raise FineError(N_("{code} is not charged per m²: leave the area empty"), code=infraction.code)
    value = unit_value(unit=infraction.unit, year=on.year, unit_values=unit_values)
    if infraction.code in WARNING_FIRST and not warned:  # CP Art. 57 §1: warned, not fined
        return Fine(infraction=infraction, base_units=base, units=Decimal(0), unit=infraction.unit, year=on.year,
                    unit_value=value, amount=Decimal("0.00"), doubled=False, article=WARNING_ARTICLE,
                    warning=True)
    if infraction.code in WARNING_FIRST:  # §3: the repeat is fined; it doubles (Art. 8) only over an earlier fine
        recidivist = recidivist and bool(prior_fine)
    doubled = recidivist and infraction.rulebook == CP
    charged = base * (quantity or 1) * (2 if doubled else 1)
    return Fine(
        infraction=infraction,
        base_units=base,
        units=charged,
        unit=infraction.unit,
        year=on.year,
        unit_value=value,
        amount=(charged * value).quantize(CENT, rounding=ROUND_HALF_UP),
        doubled=doubled,
        article=infraction.article,
        doubling_article=CP_DOUBLING_ARTICLE if doubled else None,
        quantity=quantity,
    )


class ConsequenceKind(StrEnum):
    """A sanction that goes with (or follows) a fine."""

    SUSPENSION = "suspension"
    CASSATION = "cassation"
    VEHICLE_SEIZURE = "vehicle_seizure"
    IMMEDIATE_BAN = "immediate_ban"


CONSEQUENCE_LABELS: Final[dict[ConsequenceKind, str]] = {
    ConsequenceKind.SUSPENSION: N_("Suspension of the authorisation"),
    ConsequenceKind.CASSATION: N_("Cancellation (cassação) of the authorisation"),
    ConsequenceKind.VEHICLE_SEIZURE: N_("Seizure of the vehicle until it is regularised with the traffic authority"),
    ConsequenceKind.IMMEDIATE_BAN: N_("Immediately barred from providing the service"),
}


@dataclass(frozen=True, slots=True)
class Consequence:
    """A sanction besides the fine.

    Attributes:
        kind: suspension, cassation, vehicle seizure or immediate ban.
        article: the article that imposes it.
        duration: for a suspension, the deadline rule giving its length (``compute_deadline`` from the day the
            penalty is applied); ``None`` when it has no fixed length.
        reading: for an ambiguous duration, the reading the settings chose (``art26`` or ``art24``).
        recidivism: whether it follows from a repeat offence.
    """

    kind: ConsequenceKind
    article: str
    duration: DeadlineRule | None = None
    reading: str | None = None
    recidivism: bool = False

    @property
    def label(self) -> str:
        """English msgid for the UI (translate with ``tr._``)."""
        return CONSEQUENCE_LABELS[self.kind]


_REPEAT: Final[dict[str, tuple[ConsequenceKind, str]]] = {
    "L1533-26-IV": (ConsequenceKind.SUSPENSION, "Art. 26, §1º"),
    "L1533-26-V": (ConsequenceKind.CASSATION, "Art. 26, §2º"),
    "L1533-27": (ConsequenceKind.VEHICLE_SEIZURE, "Art. 27, par. único"),
}


def recidivism_consequences(
    *, infraction: Infraction, recidivist: bool, choices: DeadlineChoices | None = None
) -> tuple[Consequence, ...]:
    """Lei 1.533 sanctions besides the fine, for a first offence or a repeat.

    - Art. 26 II: immediately barred from the service (a measure, always);
    - Art. 26 VI: suspension for 12 months (always; Art. 24 par. único);
    - repeat of Art. 26 IV: suspension (Art. 26 §1: 30 days; or 12 months, ``BALCAO_L1533_REPEAT_SUSPENSION``);
    - repeat of Art. 26 V: *cassação* of the authorisation (Art. 26 §2);
    - repeat of Art. 27: fine plus seizure of the vehicle until regularised (Art. 27 par. único).

    The Código de Posturas's repeat consequence is the doubled fine (:func:`compute_fine`); its *interdição* and
    *cassação* (Art. 13, 19) need a separate process and are not automatic, so none is returned for it.
    """
    if infraction.rulebook != L1533:
        return ()
    choices = choices or DeadlineChoices()
    found: list[Consequence] = []
    if infraction.code == "L1533-26-II":
        found.append(Consequence(ConsequenceKind.IMMEDIATE_BAN, "Art. 26, II"))
    if infraction.code == "L1533-26-VI":
        found.append(Consequence(ConsequenceKind.SUSPENSION, "Art. 26, VI", duration=get_rule("l1533-26vi-suspensao")))
    if recidivist and infraction.code in _REPEAT:
        kind, article = _REPEAT[infraction.code]
        if kind is ConsequenceKind.SUSPENSION:
            rule = get_rule("l1533-26-1-suspensao")
            found.append(Consequence(kind, article, duration=rule, reading=choices.selected(rule).key, recidivism=True))
        else:
            found.append(Consequence(kind, article, recidivism=True))
    return tuple(found)
