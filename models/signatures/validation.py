"""Check a PDF's PAdES signature (pyHanko's validator): intact, over the whole file, by whom, when, trusted.

``/verificar`` shows this beside the transparency log's inclusion proof. "Intact" means the signed bytes hash to
the signed digest and the signature verifies with the certificate's key; a byte changed or an update appended after
signing makes it false. "Trusted" means the certificate chains to one of the municipality's configured roots.
"""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from asn1crypto import pem, x509
from pyhanko.pdf_utils.misc import PdfReadError
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import async_validate_pdf_signature
from pyhanko.sign.validation.errors import SignatureValidationError
from pyhanko.sign.validation.status import SignatureCoverageLevel
from pyhanko_certvalidator import ValidationContext


@dataclass(frozen=True, slots=True)
class SignatureReport:
    """What the signature of a PDF says; ``signed`` False for an unsigned PDF (the rest is then empty)."""

    signed: bool
    intact: bool = False
    trusted: bool = False
    signer: str = ""
    signed_at: dt.datetime | None = None
    timestamped_at: dt.datetime | None = None


UNSIGNED = SignatureReport(signed=False)


def read_roots(paths: Sequence[Path]) -> list[x509.Certificate]:
    """The root certificates in PEM or DER files (missing files are skipped: nothing is then trusted by them)."""
    roots: list[x509.Certificate] = []
    for path in paths:
        if not path.is_file():
            continue
        data = path.read_bytes()
        blobs = [der for _name, _headers, der in pem.unarmor(data, multiple=True)] if pem.detect(data) else [data]
        roots.extend(x509.Certificate.load(der) for der in blobs)
    return roots


async def check_pdf_signature(pdf: bytes, *, trust_roots: Sequence[x509.Certificate] = ()) -> SignatureReport:
    """Validate the last signature of ``pdf`` without going to the network (no OCSP or CRL fetching).

    Args:
        pdf: the document.
        trust_roots: the roots the signer's certificate must chain to for ``trusted``.
    """
    try:
        reader = PdfFileReader(io.BytesIO(pdf), strict=False)
        embedded = reader.embedded_signatures
    except (PdfReadError, ValueError, KeyError):
        return SignatureReport(signed=True) if b"/ByteRange" in pdf else UNSIGNED
    if not embedded:
        return UNSIGNED
    signature = embedded[-1]
    context = ValidationContext(trust_roots=list(trust_roots), allow_fetching=False, revocation_mode="soft-fail")
    try:
        status = await async_validate_pdf_signature(signature, signer_validation_context=context,
                                                    ts_validation_context=context)
    except (SignatureValidationError, PdfReadError, ValueError):
        return SignatureReport(signed=True)
    whole = status.coverage == SignatureCoverageLevel.ENTIRE_FILE
    stamp = status.timestamp_validity
    return SignatureReport(
        signed=True,
        intact=bool(status.intact and status.valid and whole),
        trusted=bool(status.trusted),
        signer=status.signing_cert.subject.native.get("common_name", "") or status.signing_cert.subject.human_friendly,
        signed_at=status.signer_reported_dt,
        timestamped_at=stamp.timestamp if stamp is not None and stamp.intact and stamp.valid else None,
    )
