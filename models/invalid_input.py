"""Input that cannot be accepted, with the message that says why: an English msgid and its format parameters.

A leaf of the models (it imports only :mod:`core.i18n`), so any area raises it: the citizens' fields, the driver
registry's identifiers and import. The reader's side translates first, then formats (:meth:`InvalidInput.render`).

``fields`` names what the refusal is about, in the vocabulary of the thing refused (a form's fields, a notice's
elements as ``models.notices.elements.Problem.element``): a form offers "change this answer" from it, never from the
wording of the message, so a reworded msgid keeps its button.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from core.i18n import Translator


class InvalidInput(ValueError):
    """Input that cannot be accepted, with the message that says why (English msgid + format parameters).

    A parameter that is a date is written as people say it; one that is an ``InvalidInput`` itself (a reason inside
    a reason, e.g. ``"{column}: {reason}"``) is rendered in the same language.
    """

    def __init__(self, message: str, *, fields: tuple[str, ...] = (), **params: Any) -> None:
        super().__init__(message)
        self.message = message
        self.params = params
        self.fields = fields
        """What the refusal is about (e.g. ``("occurred_on",)``): the answers to offer to change."""

    def render(self, tr: Translator) -> str:
        """The explanation in the reader's language (dates as people say them)."""
        return tr._(self.message).format(**{key: _shown(value, tr) for key, value in self.params.items()})


def _shown(value: Any, tr: Translator) -> Any:
    if isinstance(value, InvalidInput):
        return value.render(tr)
    if isinstance(value, dt.date):
        return tr.date(value)
    return value
