"""Open311's ``jurisdiction_id`` is the municipality: the one place where it is resolved.

Each municipality the deployment serves (:class:`core.municipality.Cities`: the municipalities file, else the
single-municipality variables, else Sapezal and Nova Xavantina) is a jurisdiction whose id is its municipality key
(``sapezal``, ``nova-xavantina``); the key with the state (``sapezal-mt``) is accepted too, in any case.
``jurisdiction_id`` may be left out while the deployment serves one municipality, as GeoReport v2 allows a server
with one jurisdiction; when it serves several it is required. A jurisdiction offers the services of its own
municipality's rulebooks only, and sees only its own cases (CF Art. 30 I and V: each municipality enforces its own
laws). The public panel (``/transparencia/<municipio>``) names a municipality the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.municipality import Cities
from models.rulebooks.catalogue import RulebookId


class UnknownJurisdiction(LookupError):
    """``jurisdiction_id`` names no municipality of this deployment, or is missing where several are served.

    Attributes:
        given: what the request sent (``None`` when it sent nothing).
        served: the ids of the jurisdictions the deployment serves, to name them in the answer.
    """

    def __init__(self, given: str | None, served: tuple[str, ...]) -> None:
        what = f"unknown jurisdiction_id {given!r}" if given else "jurisdiction_id is required"
        super().__init__(f"{what}; this server serves {', '.join(served)}")
        self.given = given
        self.served = served

    @property
    def missing(self) -> bool:
        """Whether the request named no jurisdiction (GeoReport v2: a 400, where an unknown one is a 404)."""
        return not self.given


@dataclass(frozen=True, slots=True)
class Jurisdiction:
    """A municipality as Open311 and the public panel name it.

    Attributes:
        id: the municipality's key (``nova-xavantina``), which is its ``jurisdiction_id``.
        name: its name (``Nova Xavantina``).
        state: its state (``MT``).
        rulebooks: the laws in force there (its services come from these only).
    """

    id: str
    name: str
    state: str
    rulebooks: tuple[RulebookId, ...]


def jurisdictions(cities: Cities) -> tuple[Jurisdiction, ...]:
    """Every municipality the deployment serves, as a jurisdiction, the default one first."""
    return tuple(
        Jurisdiction(id=item.slug, name=item.name, state=item.state, rulebooks=tuple(item.rulebooks))
        for item in cities.values()
    )


def resolve_jurisdiction(jurisdiction_id: str | None, *, cities: Cities) -> Jurisdiction:
    """The municipality a request names (or the only one, when none is named and only one is served).

    Args:
        jurisdiction_id: the municipality's key (``sapezal``) or key and state (``sapezal-mt``), any case.
        cities: the municipalities the deployment serves.

    Raises:
        UnknownJurisdiction: an unknown id, or none given where the deployment serves several.
    """
    served = jurisdictions(cities)
    wanted = (jurisdiction_id or "").strip().lower()
    if not wanted:
        if len(served) == 1:
            return served[0]
        raise UnknownJurisdiction(None, tuple(item.id for item in served))
    for jurisdiction in served:
        if wanted in {jurisdiction.id, f"{jurisdiction.id}-{jurisdiction.state.lower()}"}:
            return jurisdiction
    raise UnknownJurisdiction(jurisdiction_id, tuple(item.id for item in served))
