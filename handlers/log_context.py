"""What the log lines of one update carry: its id, the person's pseudonym, the case or notice, the error reference.

The handlers' entry points bind these (``bind(update_id=…, pseudonym=…)``); the log formatter set up by
``bot.logs`` adds them to every line written while the update is handled. They are context variables, so
updates handled at the same time never see each other's values. Never bind a CPF, a name, an address, a
Telegram id or anything else that identifies a person: the pseudonym is there for that.
"""

from __future__ import annotations

import hashlib
import hmac
from contextvars import ContextVar

FIELDS = ("update_id", "person", "protocol", "notice", "error_ref")
"""The context fields, in the order a text line shows them."""

_VARS: dict[str, ContextVar[str | int | None]] = {
    name: ContextVar(f"balcao_log_{name}", default=None) for name in FIELDS
}


def bind(**values: str | int | None) -> None:
    """Set context fields for the rest of the current update (task); unknown names are refused.

    Raises:
        KeyError: a name that is not one of :data:`FIELDS`.
    """
    for name, value in values.items():
        _VARS[name].set(value)


def clear() -> None:
    """Forget every field (a new update starts)."""
    for var in _VARS.values():
        var.set(None)


def current() -> dict[str, str | int]:
    """The fields set now, without the empty ones."""
    values = {name: var.get() for name, var in _VARS.items()}
    return {name: value for name, value in values.items() if value is not None}


def pseudonym(telegram_user_id: int, *, key: str) -> str:
    """A stable pseudonym for log lines (``P-3F9A1C2B``): an HMAC of the Telegram id under a deployment secret.

    The same person always gets the same pseudonym in one deployment, so their lines can be followed, but the
    log alone does not tell who they are (LGPD Art. 13 §4: pseudonymisation).
    """
    digest = hmac.new(key.encode(), str(telegram_user_id).encode(), hashlib.sha256).hexdigest()
    return "P-" + digest[:8].upper()
