"""What a fine notice says about paying it (CP Art. 34 IV): the office that issues the DAM, and the PIX code.

Configured per municipality (``[municipality.payment]``): a notice of a municipality without it names no means,
as before. With a PIX key the code carries the notice's amount and its number as txid, so the bank's file
(:mod:`models.payments.recording`) gives the notice back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.municipalities import Office
from core.municipality import Municipality
from models.notices.pdf import money_of
from models.notices.tables import Notice
from models.payments.pix import CITY_MAX, NAME_MAX, br_code, plain, txid_of
from models.payments.recording import is_fine


@dataclass(frozen=True, slots=True)
class PaymentInstructions:
    """How to pay one notice's fine."""

    amount_cents: int
    dam_office: Office
    pix_code: str | None  # the "PIX copia e cola" payload (also drawn as a QR code), None without a PIX key


def payment_instructions(*, notice: Notice, city: Municipality) -> PaymentInstructions | None:
    """How to pay ``notice`` in ``city`` (the notice's); None when it has no fine or the city configured no means."""
    if not is_fine(notice):
        return None
    means = city.payment
    if means is None:
        return None
    code = None
    if means.pix_key:
        code = br_code(
            key=means.pix_key, amount=money_of(notice.fine_cents),
            merchant_name=means.pix_merchant_name or plain(f"Prefeitura {city.name}", NAME_MAX),
            merchant_city=means.pix_merchant_city or plain(city.name, CITY_MAX),
            txid=txid_of(notice.number),
        )
    return PaymentInstructions(amount_cents=notice.fine_cents, dam_office=means.dam_office, pix_code=code)


def office_line(office: Office) -> str:
    """The office as one line: name, address and hours."""
    return ", ".join(part for part in (office.name, office.address, office.hours) if part)


def payment_payload(*, notice: Notice, city: Municipality) -> dict[str, Any]:
    """The ``payment`` entry of the chat message that delivers a fine notice (empty without instructions)."""
    instructions = payment_instructions(notice=notice, city=city)
    if instructions is None:
        return {}
    return {"payment": {"dam_office": office_line(instructions.dam_office), "pix": instructions.pix_code}}
