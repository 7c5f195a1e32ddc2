"""Rulebooks as data: the infraction catalogues and every deadline of the laws the deployment enforces.

- :mod:`models.rulebooks.catalogue`: the infraction tables (CSV copies of ``shared/law/``) as :class:`Infraction`.
- :mod:`models.rulebooks.deadline_rules`: every deadline (:class:`DeadlineRule`) with its length, kind of day,
  start event and article, the ambiguous ones with each reading and the setting that chooses.

Computation lives beside: :mod:`models.calendar`, :mod:`models.deadlines`, :mod:`models.fines`.
"""

from models.rulebooks.catalogue import (
    CP,
    L1533,
    RULEBOOK_IDS,
    CatalogueError,
    Infraction,
    get_infraction,
    infractions_in_force,
    load_infractions,
)
from models.rulebooks.deadline_rules import (
    OMBUDSMAN,
    RULES,
    START_EVENT_LABELS,
    DeadlineChoices,
    DeadlineRule,
    Obliged,
    Reading,
    StartEvent,
    Unit,
    UnknownRule,
    get_rule,
    rules_of,
    unit_phrase,
)

__all__ = [
    "CP",
    "L1533",
    "OMBUDSMAN",
    "RULEBOOK_IDS",
    "RULES",
    "START_EVENT_LABELS",
    "CatalogueError",
    "DeadlineChoices",
    "DeadlineRule",
    "Infraction",
    "Obliged",
    "Reading",
    "StartEvent",
    "Unit",
    "UnknownRule",
    "get_infraction",
    "get_rule",
    "infractions_in_force",
    "load_infractions",
    "rules_of",
    "unit_phrase",
]
