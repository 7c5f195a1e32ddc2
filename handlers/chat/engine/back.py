"""Typed "voltar": the step before this one, in every form (issue 19 §4.3: it was stored as an answer).

The words are those people type in each language the bot speaks; a step is asked again, never answered with them.
"""

from __future__ import annotations

import unicodedata

from handlers.chat.engine.review import REVIEW
from handlers.chat.engine.spec import Form, Values

PENDING = "pending"
"""A prefilled start (``begin(…, pending=)``): the steps it still asks, then the review."""
PRESET = "pending_all"
"""A prefilled start's steps to ask, in order: "voltar" walks back along them, not along the whole flow."""

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


def step_before(form: Form, data: Values, name: str) -> str | None:
    """The step "voltar" at ``name`` asks again (None at the first), for a prefilled start too.

    A start prefilled at a chosen step asks only some steps (:data:`PRESET`): back goes along those, and ``name``
    is asked again after the one before (``data``'s :data:`PENDING` is set so), never skipped.
    """
    preset = data.get(PRESET)
    if not (isinstance(preset, list) and name in preset):
        return previous_step(form, data, name)
    index = preset.index(name)
    if index == 0:
        return None
    data[PENDING] = preset[index:]
    return str(preset[index - 1])
