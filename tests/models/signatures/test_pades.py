"""Every notice and receipt is a PAdES-signed PDF of its Prefeitura (L14063 Art. 4; issue 18 §2).

Each PDF is checked twice: with pyHanko's validator and with an independent one, poppler's ``pdfsig``; a PDF altered
after signing (one byte flipped, or an incremental update appended) is caught by both.
"""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import async_validate_pdf_signature
from pyhanko_certvalidator import ValidationContext
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.sandbox.signing_ca import issue_signing_certificate
from core.i18n import translator
from core.municipality import Timestamping, cities_of
from core.settings import Settings, load_settings
from models.cases.filing import FiledCase
from models.cases.receipt_pdf import signed_receipt
from models.cases.tables import CaseKind
from models.signatures.pades import SigningError, sign_pdf, signing_of
from models.signatures.validation import check_pdf_signature, read_roots
from tests.auxil.municipalities import write_municipalities
from tests.auxil.notices import cp_auto, issue, l1533_auto
from tests.auxil.signing import appended_update, flipped_byte, pdfsig
from tests.auxil.tsa import GEN_TIME, local_tsa

NOW = dt.datetime(2026, 3, 2, 14, 0, tzinfo=dt.UTC)


def roots_of(settings: Settings, slug: str) -> list:
    signing = settings.municipalities[slug].signing
    assert signing is not None
    return read_roots(signing.trust_roots)


async def test_a_notice_is_signed_by_its_prefeitura_and_validates_with_pyhanko_and_pdfsig(
    session: AsyncSession, signed_settings: Settings, tmp_path: Path
) -> None:
    # L14063 Art. 4 II: bound to the signer's certificate, any later change detectable.
    issued = await issue(session, signed_settings, cp_auto(), now=NOW)
    assert issued.notice.pdf == issued.pdf
    roots = roots_of(signed_settings, "nova-xavantina")
    status = await async_validate_pdf_signature(
        PdfFileReader(io.BytesIO(issued.pdf)).embedded_signatures[0],
        signer_validation_context=ValidationContext(trust_roots=roots, allow_fetching=False))
    assert status.bottom_line and status.trusted
    assert status.signing_cert.subject.native["common_name"] == "Prefeitura Municipal de Nova Xavantina"
    report = await check_pdf_signature(issued.pdf, trust_roots=roots)
    assert report.intact and report.trusted and report.signer == "Prefeitura Municipal de Nova Xavantina"
    checked = pdfsig(issued.pdf, tmp_path)
    assert "Signature is Valid" in checked and "Total document signed" in checked
    assert "ETSI.CAdES.detached" in checked  # PAdES, not the older adbe.pkcs7.detached


async def test_each_municipality_signs_its_own_acts(session: AsyncSession, signed_settings: Settings) -> None:
    # CF Art. 30 I: Lei 1.533 is Sapezal's; its auto is signed with Sapezal's certificate, not Nova Xavantina's.
    issued = await issue(session, signed_settings, l1533_auto(), now=NOW)
    report = await check_pdf_signature(issued.pdf, trust_roots=roots_of(signed_settings, "sapezal"))
    assert report.intact and report.signer == "Prefeitura Municipal de Sapezal"


@pytest.mark.parametrize(("alter", "pdfsig_says"), [
    (flipped_byte, "Digest Mismatch"),  # a signed byte changed
    (appended_update, "Not total document signed"),  # a revision appended after the signature (shadow attack)
], ids=["byte-flip", "incremental-update"])
async def test_a_pdf_altered_after_signing_is_caught(
    session: AsyncSession, signed_settings: Settings, tmp_path: Path, alter: object, pdfsig_says: str
) -> None:
    issued = await issue(session, signed_settings, cp_auto(), now=NOW)
    altered = alter(issued.pdf)  # type: ignore[operator]
    assert altered != issued.pdf
    report = await check_pdf_signature(altered, trust_roots=roots_of(signed_settings, "nova-xavantina"))
    assert report.signed and not report.intact
    assert pdfsig_says in pdfsig(altered, tmp_path)


async def test_the_signature_carries_the_tsa_timestamp_when_one_is_configured(
    session: AsyncSession, signed_settings: Settings
) -> None:
    async with local_tsa() as (url, received):
        stamped = signed_settings.model_copy(update={"tsa_url": url})
        issued = await issue(session, stamped, cp_auto(), now=NOW)
    assert received  # pyHanko asks once to size the token, then for the signature's own
    report = await check_pdf_signature(issued.pdf, trust_roots=roots_of(signed_settings, "nova-xavantina"))
    assert report.intact and report.timestamped_at == GEN_TIME


async def test_without_a_certificate_the_pdf_is_unsigned_and_says_so(
    session: AsyncSession, settings: Settings
) -> None:
    # docs/LEGAL-CHOICES.md: no certificate configured → issued unsigned, and /verificar says "não assinada".
    issued = await issue(session, settings, cp_auto(), now=NOW)
    assert not (await check_pdf_signature(issued.pdf)).signed


async def test_the_filing_receipt_is_signed_by_the_case_s_prefeitura(
    signed_settings: Settings, tmp_path: Path
) -> None:
    filed = FiledCase(
        case_id=1, protocol="REP-2026-000123", kind=CaseKind.REPRESENTATION,
        received_at=NOW, due_on=dt.date(2026, 3, 12), summary="Entulho na calçada.",
        legal_refs=("Lei nº 1.101/2004, Art. 30 a 32",), municipality="nova-xavantina",
    )
    pdf = await signed_receipt(filed, tr=translator("pt_BR"), cities=cities_of(signed_settings),
                               timestamping=Timestamping.of(signed_settings))
    report = await check_pdf_signature(pdf, trust_roots=roots_of(signed_settings, "nova-xavantina"))
    assert report.intact and report.trusted and report.signer == "Prefeitura Municipal de Nova Xavantina"
    assert "Signature is Valid" in pdfsig(pdf, tmp_path)


async def test_a_pkcs12_certificate_with_its_password_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, db_url: str
) -> None:
    # An ICP-Brasil e-CNPJ A1 comes as a PKCS#12 file; its password is read from the variable the file names.
    pem = issue_signing_certificate(tmp_path / "ca", slug="nova-xavantina", holder="Prefeitura Municipal de NX")
    assert pem.key_file is not None and pem.cert_file is not None
    key = serialization.load_pem_private_key(pem.key_file.read_bytes(), password=None)
    from cryptography import x509

    bundle = pkcs12.serialize_key_and_certificates(
        b"nx", key, x509.load_pem_x509_certificate(pem.cert_file.read_bytes()), None,  # type: ignore[arg-type]
        serialization.BestAvailableEncryption(b"s3nha"))
    (tmp_path / "nx.p12").write_bytes(bundle)
    extra = (f'[municipality.signing]\npkcs12_file = "{tmp_path / "nx.p12"}"\n'
             f'password_env = "NX_CERT_PASSWORD"\ntrust_roots = ["{tmp_path / "ca" / "ca.pem"}"]\n')
    settings = load_settings(database_url=db_url, municipalities_file=write_municipalities(tmp_path, nx_extra=extra))
    monkeypatch.setenv("NX_CERT_PASSWORD", "errada")
    nx = cities_of(settings)["nova-xavantina"]  # the password is read when the value is built
    assert nx.signing is not None
    with pytest.raises(SigningError, match="NX_CERT_PASSWORD"):
        await sign_pdf(b"%PDF-", signing=signing_of(nx, tsa_url=None), reason="r", location="l")
    monkeypatch.setenv("NX_CERT_PASSWORD", "s3nha")
    filed = FiledCase(case_id=1, protocol="REP-2026-000124", kind=CaseKind.REPRESENTATION, received_at=NOW,
                      due_on=dt.date(2026, 3, 12), summary="x", legal_refs=(), municipality="nova-xavantina")
    pdf = await signed_receipt(filed, tr=translator("pt_BR"), cities=cities_of(settings),
                               timestamping=Timestamping.of(settings))
    report = await check_pdf_signature(pdf, trust_roots=read_roots(nx.signing.trust_roots))
    assert report.intact and report.trusted


def test_the_single_municipality_variables_configure_the_certificate(tmp_path: Path, db_url: str) -> None:
    settings = load_settings(database_url=db_url, municipality_name="Nova Xavantina",
                             signing_key_file=tmp_path / "k.pem", signing_cert_file=tmp_path / "c.pem",
                             signing_password="x")
    signing = settings.municipality.signing
    assert signing is not None and signing.key_file == tmp_path / "k.pem"
    assert settings.password_of(signing) == b"x"
