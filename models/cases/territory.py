"""The place is in the municipality (issue 20 §3): a location far outside it is refused, naming the municipality.

Each city hall acts on its own territory (CF Art. 30 I and VIII; CP Art. 1: the Código de Posturas rules the
municipality's territory; L1533 Art. 1: transport in Sapezal). A representação or a ride-hailing report is filed with
the municipality whose law it rests on, so its place must lie in that municipality: a pin 700 km away is a mistake
(the phone's location elsewhere, a typo in Open311's ``lat``/``long``), and the city hall could do nothing about it.
The territory is a circle of the municipalities file (``[municipality.area]``); a municipality without one takes any
place. The refusal is in the domain, so the chat, Open311 and the API refuse alike.
"""

from __future__ import annotations

import math

from core.i18n import N_
from core.municipalities import MunicipalityConfig
from models.invalid_input import InvalidInput

EARTH_RADIUS_KM = 6371.0088
"""The mean Earth radius (IUGG), for the great-circle distance."""


class PlaceOutside(InvalidInput):
    """The location given lies outside the municipality the case goes to."""

    field = "place"
    """The element it is about (Open311 names its ``lat`` and ``long``)."""


def distance_km(latitude: float, longitude: float, to_latitude: float, to_longitude: float) -> float:
    """The great-circle distance between two positions (haversine), in km."""
    phi1, phi2 = math.radians(latitude), math.radians(to_latitude)
    dphi, dlambda = phi2 - phi1, math.radians(to_longitude - longitude)
    a = math.sin(dphi / 2) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlambda / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(a)))


def check_within(city: MunicipalityConfig, latitude: float | None, longitude: float | None) -> None:
    """Refuse a position outside the municipality's territory (nothing to check without one, or without an area).

    Args:
        city: the municipality the case goes to (whose law it rests on).
        latitude: the place's latitude, if given by coordinates.
        longitude: its longitude.

    Raises:
        PlaceOutside: farther from the municipality's centre than its radius, naming the municipality.
    """
    if city.area is None or latitude is None or longitude is None:
        return
    away = distance_km(latitude, longitude, city.area.latitude, city.area.longitude)
    if away > city.area.radius_km:
        raise PlaceOutside(N_("That place is about {km} km from {city}: the city hall of {city} can act only in "
                              "its own municipality. Send the location of the place in {city}, or type its "
                              "address."), km=round(away), city=city.name)
