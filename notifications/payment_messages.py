"""How a fine notice's chat message says how to pay (CP Art. 34 IV): the DAM's office and "PIX copia e cola"."""

from __future__ import annotations

import html
from typing import Any

from core.i18n import Translator


def payment_lines(payload: dict[str, Any], tr: Translator) -> list[str]:
    """The lines about paying, from the delivery payload's ``payment`` entry (none without it)."""
    payment = payload.get("payment")
    if not payment:
        return []
    lines = ["", tr._("<b>How to pay</b>: ask for the DAM at {office}.").format(
        office=html.escape(str(payment["dam_office"]), quote=False))]
    if payment.get("pix"):
        lines.append(tr._("Or pay by PIX with the QR code in the PDF, or copy this code (PIX copia e cola):"))
        lines.append(f"<code>{html.escape(str(payment['pix']), quote=False)}</code>")
    return lines
