"""The payment means of the test deployment, and an independent reader of PIX BR Codes (for the tests only).

The reader is written from the field table of the Banco Central's *Manual do BR Code* (EMV® QRCPS-MPM), not from
``models.payments.pix``: ID (2 digits), length (2 digits), value; templates 26 and 62 hold sub-fields the same way.
The CRC is checked with ``binascii.crc_hqx`` (CRC-16/CCITT, polynomial 0x1021) seeded with 0xFFFF.
"""

from __future__ import annotations

import binascii
import shutil
import subprocess
from pathlib import Path

import pytest

PAYMENT_TOML = """
[municipality.payment]
pix_key = "{key}"
[municipality.payment.dam_office]
name = "Setor de Tributos"
address = "Rua Goiás, 100, Centro"
hours = "segunda a sexta, 7h às 13h"
"""
NX_PIX_KEY = "12345678000195"  # a CNPJ-shaped key


def payment_toml(key: str = NX_PIX_KEY) -> str:
    """The ``[municipality.payment]`` table for a municipalities file."""
    return PAYMENT_TOML.replace("{key}", key)


def tlv(payload: str) -> dict[str, str]:
    """The top-level fields of an EMV MPM payload, refusing a malformed one."""
    fields: dict[str, str] = {}
    at = 0
    while at < len(payload):
        field_id, length = payload[at:at + 2], int(payload[at + 2:at + 4])
        value = payload[at + 4:at + 4 + length]
        assert len(value) == length, f"field {field_id} is cut short"
        assert field_id not in fields, f"field {field_id} twice"
        fields[field_id] = value
        at += 4 + length
    return fields


def crc_ok(payload: str) -> bool:
    """Whether ID 63 holds the CRC16-CCITT-FALSE of everything before its value."""
    body, crc = payload[:-4], payload[-4:]
    return body.endswith("6304") and f"{binascii.crc_hqx(body.encode('utf-8'), 0xFFFF):04X}" == crc


def qr_codes_in_pdf(pdf: bytes, directory: Path) -> list[str]:
    """Every QR code on the PDF's pages, read by ``zbarimg`` from the pages rendered by ``pdftoppm`` (poppler)."""
    for tool in ("pdftoppm", "zbarimg"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed: python tests/auxil/system_deps.py")
    directory.mkdir(parents=True, exist_ok=True)
    source = directory / "notice.pdf"
    source.write_bytes(pdf)
    subprocess.run(["pdftoppm", "-r", "200", "-png", str(source), str(directory / "page")], check=True, timeout=60)
    found = []
    for page in sorted(directory.glob("page*.png")):
        result = subprocess.run(["zbarimg", "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", str(page)],
                                capture_output=True, text=True, check=False, timeout=60)
        found += [line for line in result.stdout.splitlines() if line]
    return found
