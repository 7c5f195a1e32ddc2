"""The static PIX BR Code of a fine notice (CP Art. 34 IV: the auto intimates the person to pay; issue 18 §8).

Decoded by the independent reader of ``tests/auxil/payments.py`` (the manual's field table, ``binascii`` CRC) and
read back from the PDF's pages by ``zbarimg``.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest
from sqlmodel.ext.asyncio.session import AsyncSession

from core.settings import Settings, SettingsError, load_settings
from models.payments.pix import br_code, txid_of
from tests.auxil.municipalities import write_municipalities
from tests.auxil.notices import cp_auto, cp_preliminar, issue, opted_in, outbox, person
from tests.auxil.payments import NX_PIX_KEY, crc_ok, payment_toml, qr_codes_in_pdf, tlv

NOW = dt.datetime(2026, 3, 2, 14, 0, tzinfo=dt.UTC)


def test_the_manual_s_own_example_is_reproduced_byte_for_byte() -> None:
    # Manual do BR Code (Banco Central), the static example: random key, no amount, txid "***", CRC 1D3D.
    assert br_code(key="123e4567-e12b-12d1-a456-426655440000", amount=None, merchant_name="Fulano de Tal",
                   merchant_city="BRASILIA", txid="***") == (
        "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR"
        "5913Fulano de Tal6008BRASILIA62070503***63041D3D")


def test_the_txid_keeps_only_the_allowed_characters_and_length() -> None:
    assert txid_of("AI-2026-000123") == "AI2026000123"
    assert txid_of("Nº AI/2026-ÇÃ-" + "9" * 40) == "NAI2026" + "9" * 18
    assert txid_of("--") == "***"


async def test_a_fine_notice_carries_a_pix_code_for_its_amount_in_the_pdf_and_the_chat(
    session: AsyncSession, paying_settings: Settings, tmp_path: Path
) -> None:
    # CP Tabela I item 1: 9 UPF-NX × R$ 42,00 = R$ 378,00, the amount of ID 54; the number is the txid (62-05).
    maria = await person(session, 9001, "Maria")
    await opted_in(session, maria.id, now=NOW - dt.timedelta(days=1))  # she receives notices in the chat
    issued = await issue(session, paying_settings, cp_auto(person_id=maria.id), now=NOW)
    codes = qr_codes_in_pdf(issued.pdf, tmp_path)
    [pix] = [code for code in codes if code.startswith("000201")]
    assert any("/verificar/" in code for code in codes)  # the verification QR is still there
    assert crc_ok(pix)
    fields = tlv(pix)
    account, extra = tlv(fields["26"]), tlv(fields["62"])
    assert fields["00"] == "01" and fields["52"] == "0000" and fields["53"] == "986" and fields["58"] == "BR"
    assert account == {"00": "br.gov.bcb.pix", "01": NX_PIX_KEY}
    assert fields["54"] == "378.00"
    assert fields["59"] == "Prefeitura Nova Xavantina" and fields["60"] == "Nova Xavantina"
    assert extra == {"05": issued.notice.number.replace("-", "")}
    assert list(fields) == ["00", "26", "52", "53", "54", "58", "59", "60", "62", "63"]
    # the same code, as "copia e cola", in the chat message that delivers the notice
    [delivery] = await outbox(session, "notice.delivery")
    assert delivery.payload["payment"]["pix"] == pix
    assert "Setor de Tributos" in delivery.payload["payment"]["dam_office"]


async def test_a_tampered_code_fails_the_independent_crc(session: AsyncSession, paying_settings: Settings) -> None:
    code = br_code(key=NX_PIX_KEY, amount=Decimal("378.00"), merchant_name="X", merchant_city="Y", txid="AI1")
    assert crc_ok(code)
    assert not crc_ok(code.replace("378.00", "378.01"))


async def test_no_pix_code_without_a_fine_or_without_payment_means(
    session: AsyncSession, paying_settings: Settings, settings: Settings, tmp_path: Path
) -> None:
    preliminar = await issue(session, paying_settings, cp_preliminar(), now=NOW)  # CP Art. 25: no fine yet
    assert not [c for c in qr_codes_in_pdf(preliminar.pdf, tmp_path / "a") if c.startswith("000201")]
    plain = await issue(session, settings, cp_auto(), now=NOW)  # the municipality configured no means
    assert not [c for c in qr_codes_in_pdf(plain.pdf, tmp_path / "b") if c.startswith("000201")]


def test_a_malformed_pix_key_stops_the_start_naming_its_place(tmp_path: Path, db_url: str) -> None:
    # Regulamento Pix: a key is a CPF/CNPJ (digits), an e-mail, a +55 phone or a random key; "12.345" is none.
    with pytest.raises(SettingsError, match=r"municipality\.1\.payment\.pix_key"):
        load_settings(database_url=db_url, municipalities_file=write_municipalities(
            tmp_path, nx_extra=payment_toml("12.345.678/0001-95")))
