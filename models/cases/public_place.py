"""How much of a case's place is published: the one rounding of coordinates that Open311 and the open data share.

The place of a reported problem is often a person's house or shop, so published exactly it can identify the accused
(LGPD Art. 5 I, Art. 6 III). The open data always round it; Open311 publishes it as the spec has it unless the city
chooses ``BALCAO_OPEN311_PLACE=rounded`` (docs/LEGAL-CHOICES.md, item 32).
"""

from __future__ import annotations

from typing import Literal

PlacePrecision = Literal["exact", "rounded"]

LOCATION_DECIMALS = 2
"""Rounded coordinates keep two decimals: 0.01° is about 1.1 km."""


def rounded_coordinate(value: float | None) -> float | None:
    """A latitude or longitude rounded to :data:`LOCATION_DECIMALS` (None stays None)."""
    return None if value is None else round(value, LOCATION_DECIMALS)
