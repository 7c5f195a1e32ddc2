"""Sign a PDF as PAdES (ETSI EN 319 142, ``ETSI.CAdES.detached``) with the municipality's certificate (pyHanko).

L14063 Art. 4 II: a signature with a certificate the signer alone controls, bound to the document so that
any later change is detectable, is an *assinatura eletrônica avançada*; with an ICP-Brasil certificate it is
*qualificada* (Art. 4 III). Which one a deployment reaches depends on the certificate it configures
(docs/LEGAL-CHOICES.md). Without a certificate the PDF stays unsigned and every place that shows it says so.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass

from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.sign import fields, signers, timestamps
from pyhanko.sign.general import SigningError as PyHankoSigningError

from core.municipalities import SigningCertificate
from core.municipality import Cities, Municipality

logger = logging.getLogger("balcao.signatures")

FIELD_NAME = "AssinaturaPrefeitura"
TSA_TIMEOUT_SECONDS = 10


class SigningError(Exception):
    """The configured certificate cannot be used (missing file, wrong password, not a key and certificate)."""


@dataclass(frozen=True, slots=True)
class SigningConfig:
    """What signs one municipality's PDFs: its certificate, the key's password, the timestamp authority."""

    certificate: SigningCertificate
    password: bytes | None
    tsa_url: str | None


def signing_of(city: Municipality, *, tsa_url: str | None) -> SigningConfig | None:
    """The signing configuration of ``city``, timestamped by ``tsa_url``; None when it has no certificate."""
    certificate = city.signing
    if certificate is None:
        return None
    return SigningConfig(certificate=certificate, password=city.signing_password, tsa_url=tsa_url)


def load_signer(config: SigningConfig) -> signers.SimpleSigner:
    """The key and certificate chain of a signing configuration.

    Raises:
        SigningError: a file is missing or unreadable, or the password is wrong.
    """
    certificate = config.certificate
    files = [certificate.pkcs12_file, certificate.key_file, certificate.cert_file, *certificate.chain_files]
    if missing := [str(path) for path in files if path is not None and not path.is_file()]:
        raise SigningError(f"signing certificate: no such file: {', '.join(missing)}")
    chain = [str(path) for path in certificate.chain_files]
    if certificate.pkcs12_file is not None:
        signer = signers.SimpleSigner.load_pkcs12(str(certificate.pkcs12_file), ca_chain_files=chain,
                                                  passphrase=config.password)
    else:
        signer = signers.SimpleSigner.load(str(certificate.key_file), str(certificate.cert_file),
                                           ca_chain_files=chain, key_passphrase=config.password)
    if signer is None:
        raise SigningError("signing certificate: cannot read the key and certificate (wrong password "
                           f"in {certificate.password_env or 'no password variable'}, or not a key and certificate)")
    return signer


def check_certificates(cities: Cities) -> list[str]:
    """Load every municipality's certificate once, at start; return the slugs of those without one.

    A municipality without a certificate issues unsigned PDFs, and ``/verificar`` says "não assinada"
    (docs/LEGAL-CHOICES.md); a configured certificate that cannot be used stops the start instead.

    Raises:
        SigningError: naming the municipality whose certificate cannot be used.
    """
    unsigned = []
    for slug, city in cities.items():
        config = signing_of(city, tsa_url=None)
        if config is None:
            unsigned.append(slug)
            continue
        try:
            load_signer(config)
        except SigningError as exc:
            raise SigningError(f"{slug}: {exc}") from exc
    return unsigned


async def sign_pdf(pdf: bytes, *, signing: SigningConfig | None, reason: str, location: str) -> bytes:
    """``pdf`` signed as PAdES with the municipality's certificate (and a timestamp when a TSA is configured).

    The signature covers the whole file: any byte changed or appended afterwards shows in validation. A TSA
    that does not answer leaves the signature without a timestamp (logged); the signing time is then the one
    the signer states.

    Args:
        pdf: the document as rendered.
        signing: the municipality's configuration (:func:`signing_of`); None returns ``pdf`` unchanged.
        reason: why it is signed, in the document's language (shown by PDF readers).
        location: where: the municipality.

    Raises:
        SigningError: the certificate cannot be used.
    """
    if signing is None:
        return pdf
    signer = load_signer(signing)
    metadata = signers.PdfSignatureMetadata(
        field_name=FIELD_NAME, md_algorithm="sha256", subfilter=fields.SigSeedSubFilter.PADES,
        reason=reason, location=location,
    )
    stamper = timestamps.HTTPTimeStamper(signing.tsa_url, timeout=TSA_TIMEOUT_SECONDS) if signing.tsa_url else None
    try:
        return await _sign(pdf, metadata, signer, stamper)
    except (PyHankoSigningError, timestamps.TimestampRequestError, OSError) as exc:
        if stamper is None:
            raise SigningError(f"cannot sign the PDF: {exc}") from exc
        logger.warning("the timestamp authority gave no token; signing without a timestamp: %s", exc)
        return await _sign(pdf, metadata, signer, None)


async def _sign(pdf: bytes, metadata: signers.PdfSignatureMetadata, signer: signers.Signer,
                stamper: timestamps.TimeStamper | None) -> bytes:
    writer = IncrementalPdfFileWriter(io.BytesIO(pdf))
    output = await signers.async_sign_pdf(writer, metadata, signer=signer, timestamper=stamper)
    return bytes(output.getvalue())
