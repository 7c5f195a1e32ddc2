"""The static PIX BR Code of a fine: the EMV® QR Code MPM payload of the Banco Central's *Manual do BR Code*.

Each field is ID (2 digits), length (2 digits) and value; the payload ends with the CRC16-CCITT-FALSE (polynomial
0x1021, initial 0xFFFF) of everything before it, ``6304`` included, in 4 upper-case hex digits. The same text is
printed under the QR code as "PIX copia e cola".
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal
from typing import Final

PAYLOAD_FORMAT: Final = "00"  # Payload Format Indicator, value "01"
MERCHANT_ACCOUNT: Final = "26"  # Merchant Account Information – PIX
PIX_GUI: Final = "br.gov.bcb.pix"
MERCHANT_CATEGORY: Final = "52"  # MCC; "0000" when not informed
CURRENCY: Final = "53"  # ISO 4217: 986 = BRL
AMOUNT: Final = "54"
COUNTRY: Final = "58"
MERCHANT_NAME: Final = "59"
MERCHANT_CITY: Final = "60"
ADDITIONAL_DATA: Final = "62"
TXID: Final = "05"  # inside 62: Reference Label
CRC: Final = "63"

TXID_MAX: Final = 25  # Manual do BR Code: txid of a static code, up to 25 characters [A-Za-z0-9]
NAME_MAX: Final = 25
CITY_MAX: Final = 15


def crc16_ccitt_false(data: bytes) -> int:
    """CRC16-CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def _field(field_id: str, value: str) -> str:
    if len(value) > 99:
        raise ValueError(f"BR Code field {field_id} longer than 99 characters")
    return f"{field_id}{len(value):02d}{value}"


def plain(text: str, limit: int) -> str:
    """ASCII without accents (readers of every bank), at most ``limit`` characters."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"\s+", " ", ascii_text).strip()[:limit].strip()


def txid_of(number: str) -> str:
    """The txid of a notice's code: its number in the allowed characters ``[A-Za-z0-9]``, at most 25.

    ``***`` when nothing is left, as the manual says for a code without txid.
    """
    return re.sub(r"[^A-Za-z0-9]", "", number)[:TXID_MAX] or "***"


def br_code(*, key: str, amount: Decimal | None, merchant_name: str, merchant_city: str, txid: str) -> str:
    """The "PIX copia e cola" payload of a static code.

    Args:
        key: the municipality's PIX key (CNPJ digits, e-mail, +55 phone or random key).
        amount: the amount in reais (ID 54, two decimals); None leaves it to the payer.
        merchant_name: the receiver (ID 59), made ASCII and cut to 25 characters.
        merchant_city: the receiver's city (ID 60), made ASCII and cut to 15 characters.
        txid: the reference (ID 62-05), see :func:`txid_of`.
    """
    account = _field("00", PIX_GUI) + _field("01", key)
    parts = [
        _field(PAYLOAD_FORMAT, "01"),
        _field(MERCHANT_ACCOUNT, account),
        _field(MERCHANT_CATEGORY, "0000"),
        _field(CURRENCY, "986"),
    ]
    if amount is not None:
        parts.append(_field(AMOUNT, f"{amount.quantize(Decimal('0.01'))}"))
    parts += [
        _field(COUNTRY, "BR"),
        _field(MERCHANT_NAME, plain(merchant_name, NAME_MAX)),
        _field(MERCHANT_CITY, plain(merchant_city, CITY_MAX)),
        _field(ADDITIONAL_DATA, _field(TXID, txid)),
    ]
    body = "".join(parts) + CRC + "04"
    return body + f"{crc16_ccitt_false(body.encode('utf-8')):04X}"
