"""Typed "voltar": the step before this one, in every form (issue 19 §4.3: it was stored as an answer).

The words are those people type in each language the bot speaks; a step is asked again, never answered with them.
"""

from __future__ import annotations

import unicodedata

from handlers.chat.engine.review import REVIEW
from handlers.chat.engine.spec import Form, Values

BACK_WORDS = frozenset({
    "voltar", "volta", "anterior", "retornar",  # pt_BR
    "back", "go back", "previous",  # en
    "volver", "atras",  # es ("atrás")
})


def goes_back(text: str) -> bool:
    """Whether typed text asks to go back one step ("voltar", "Anterior!", "atrás")."""
    folded = unicodedata.normalize("NFKD", text.strip().lower().rstrip("!.")).encode("ascii", "ignore").decode()
    return folded in BACK_WORDS


def previous_step(form: Form, data: Values, name: str) -> str | None:
    """The step asked before ``name`` in the flow for these answers (None at the first one).

    A sub-step goes back to its parent step; the review, to the last step of the flow.
    """
    flow = form.flow(data)
    if name == REVIEW:
        return flow[-1] if flow else None
    step = form.step(name)
    if step is not None and step.parent:
        return step.parent
    if name not in flow:
        return None
    index = flow.index(name)
    return flow[index - 1] if index > 0 else None
