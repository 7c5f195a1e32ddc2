"""Who answers for personal data at a city hall: the encarregado, named on what carries personal data.

LGPD Art. 41 §1: the encarregado's identity and contact are published, clearly; Art. 23 III: a public body names
one. Each municipality names theirs in the municipalities file (``[municipality.encarregado]``); the line below is
printed at the foot of every PDF that carries personal data (the notice, the filing receipt, the data export).
"""

from __future__ import annotations

from core.i18n import Translator
from core.municipalities import MunicipalityConfig


def encarregado_line(*, municipality: MunicipalityConfig, tr: Translator) -> str:
    """Who answers for the personal data on a document (LGPD Art. 41 §1), or an empty string when none is named."""
    encarregado = municipality.encarregado
    if not encarregado.named:
        return ""
    return tr._("Personal data: the city hall's data protection officer (encarregado, LGPD Art. 41) is {name}, "
                "{contact}.").format(name=encarregado.name, contact=encarregado.contact)
