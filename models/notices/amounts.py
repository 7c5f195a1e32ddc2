"""Numbers staff type on a notice.

The m² of a row charged per area (CP Tabela III items 2-4, Art. 68) and the fine in units for a row whose value
the published table lost.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from core.i18n import N_
from models.invalid_input import InvalidInput

LIMIT = Decimal(100_000)


def positive_amount(text: str, *, limit: Decimal = LIMIT) -> Decimal:
    """An area in m² or a number of units as typed (``12,5``, ``12.5``, ``3``).

    Args:
        text: what was typed.
        limit: the value must stay below it.

    Returns:
        The number.

    Raises:
        InvalidInput: not a number above zero and below ``limit``.
    """
    try:
        value = Decimal(text.strip().replace(" ", "").replace(",", "."))
    except InvalidOperation:
        raise InvalidInput(N_("Type a number, like 12,5.")) from None
    if not value.is_finite() or value <= 0 or value >= limit:
        raise InvalidInput(N_("Type a number, like 12,5."))
    return value
