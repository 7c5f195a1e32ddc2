"""Open311's ``jurisdiction_id`` is the municipality: the one place where it is resolved.

Today a deployment serves the single municipality of its settings (``BALCAO_MUNICIPALITY_NAME`` and
``_STATE``), whose id is its name as a slug (``sapezal``, ``nova-xavantina``: the key the municipality model gives
it; ``sapezal-mt`` is accepted too); ``jurisdiction_id`` may then be left out, as GeoReport v2 allows when a server
has one jurisdiction. When a deployment serves several, it is required.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from bot.settings import Settings
from models.rulebooks.catalogue import RulebookId


class UnknownJurisdiction(LookupError):
    """``jurisdiction_id`` names no municipality of this deployment, or is missing where several are served."""


@dataclass(frozen=True, slots=True)
class Jurisdiction:
    """A municipality as Open311 and the public panel name it."""

    id: str
    name: str
    state: str


def _slug(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", plain).strip("-")


def jurisdictions(settings: Settings) -> tuple[Jurisdiction, ...]:
    """The municipality this deployment's Open311 endpoint answers for: its default one.

    Choice (left open for the multi-municipality wave): the services offered are those of every law in force in
    the deployment (:func:`rulebooks_in_force`), and each case is filed under the municipality whose law it applies
    (``models.cases.filing``), so a Código de Posturas report is Nova Xavantina's whatever the jurisdiction says.
    """
    name, state = settings.municipality_name, settings.municipality_state
    return (Jurisdiction(id=_slug(name), name=name, state=state),)


def rulebooks_in_force(settings: Settings) -> tuple[RulebookId, ...]:
    """Every rulebook in force in one of the deployment's municipalities (each law under its own city)."""
    served = settings.municipalities
    return tuple(dict.fromkeys(rulebook for slug in served for rulebook in served[slug].rulebooks))


def resolve_jurisdiction(jurisdiction_id: str | None, *, settings: Settings) -> Jurisdiction:
    """The municipality a request names (or the only one, when none is named and only one is served).

    Raises:
        UnknownJurisdiction: an unknown id, or none given where the deployment serves several.
    """
    served = jurisdictions(settings)
    if not jurisdiction_id:
        if len(served) == 1:
            return served[0]
        raise UnknownJurisdiction("jurisdiction_id is required: this server serves several municipalities")
    wanted = jurisdiction_id.strip().lower()
    for jurisdiction in served:
        if wanted in {jurisdiction.id, _slug(f"{jurisdiction.name} {jurisdiction.state}")}:
            return jurisdiction
    raise UnknownJurisdiction(f"unknown jurisdiction_id {jurisdiction_id!r}")
