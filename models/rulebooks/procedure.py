"""Each act cites its own law: the articles that govern deciding on and delivering a notice, per rulebook.

A Lei 1.533 auto is Sapezal's act under Sapezal's law: its decision box, its delivery list and the chat's delivery
screen cite Lei 1.533/2020, never Nova Xavantina's Código de Posturas (CF Art. 30 I). Only the articles differ;
the ways to record a delivery by hand (in person, by post, by edital) exist in both laws.
"""

from __future__ import annotations

from typing import Final

from core.i18n import N_
from models.rulebooks.catalogue import CP, L1533

DECISION_ARTICLES: Final[dict[str, str]] = {
    CP: "Código de Posturas, Art. 40–41, 45",  # CP Art. 40 (first instance), 41 (reasons), 45 (second instance)
    L1533: "Lei nº 1.533/2020, Art. 17 e 22",  # L1533 Art. 17: the SMFO applies the penalties; Art. 22: defence
}
"""The articles under which a defence, reclamação or appeal is decided."""

DELIVERY_MEANS: Final[dict[str, str]] = {
    CP: N_("Código de Posturas, Art. 36: in person (I), by letter with AR (II), by edital when the address is "
           "unknown (III)."),
    L1533: N_("Lei 1.533/2020, Art. 22 §1: delivered directly by the city hall, by post with the Correio's "
              "receipt, electronically, or by edital in the municipality's official newspaper, within 90 days of "
              "the auto."),
}
"""The means of delivery each law provides (a msgid, read in the staff member's language)."""


MANUAL_MEANS: Final[dict[str, dict[str, str]]] = {
    CP: {"personal": N_("Delivered in person"), "postal": N_("AR received (post)"),  # CP Art. 36 I, II
         "edital": N_("Edital published")},  # CP Art. 36 III
    L1533: {"personal": N_("Delivered directly by the city hall"), "postal": N_("Correio's receipt (post)"),
            "edital": N_("Edital published")},  # L1533 Art. 22 §1
}
"""How staff record a delivery by hand, in each law's words (msgids), keyed by the delivery's ``how``."""


def manual_means(rulebook: str) -> dict[str, str]:
    """The ways to record a delivery by hand under this rulebook's law: ``how`` → msgid of its label."""
    return MANUAL_MEANS[rulebook]


def decision_articles(rulebook: str) -> str:
    """The articles a decision on a notice of this rulebook is given under, e.g. ``L1533 Art. 17 e 22``."""
    return DECISION_ARTICLES[rulebook]


def delivery_means(rulebook: str) -> str:
    """The msgid that lists the means of delivery of this rulebook's law, with its article."""
    return DELIVERY_MEANS[rulebook]
