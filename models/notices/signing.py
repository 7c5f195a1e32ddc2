"""The notice's PDF signed in the name of its Prefeitura, and the signature's check for ``/verificar``.

L14063 Art. 4: the PAdES signature of :mod:`models.signatures` with the certificate of the municipality
that issues the act (CF Art. 30 I); the level it reaches is in docs/LEGAL-CHOICES.md.
"""

from __future__ import annotations

from asn1crypto import x509
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_, translator
from core.municipality import Cities, Municipality
from models.notices.tables import Notice, NoticeFiling
from models.signatures.pades import sign_pdf, signing_of
from models.signatures.validation import UNSIGNED, SignatureReport, check_pdf_signature, read_roots

DOCUMENT_LOCALE = "pt_BR"
REASON = N_("Administrative act {number} issued by the {prefeitura}")
DECISION_REASON = N_("Decision on notice {number} given by the {prefeitura}")


async def sign_notice_pdf(pdf: bytes, *, notice: Notice, city: Municipality, tsa_url: str | None) -> bytes:
    """The rendered notice signed with the certificate of ``city``, its municipality (unchanged without one)."""
    tr = translator(DOCUMENT_LOCALE, city.tz.key)
    reason = tr._(REASON).format(number=notice.number, prefeitura=city.prefeitura)
    return await sign_pdf(pdf, signing=signing_of(city, tsa_url=tsa_url), reason=reason, location=city.name)


async def sign_decision_pdf(pdf: bytes, *, notice: Notice, city: Municipality, tsa_url: str | None) -> bytes:
    """A decision's PDF signed with the certificate of the municipality that issued the notice (issue 18).

    The decision is that Prefeitura's act as the notice is (CF Art. 30 I), so the same certificate (``city``'s, the
    notice's municipality) signs it, with a timestamp when ``tsa_url`` (``BALCAO_TSA_URL``) is set; unchanged when
    the municipality has no certificate.
    """
    tr = translator(DOCUMENT_LOCALE, city.tz.key)
    reason = tr._(DECISION_REASON).format(number=notice.number, prefeitura=city.prefeitura)
    return await sign_pdf(pdf, signing=signing_of(city, tsa_url=tsa_url), reason=reason, location=city.name)


def _roots(notice: Notice, cities: Cities) -> list[x509.Certificate]:
    served = notice.municipality in cities
    certificate = cities[notice.municipality].signing if served else None
    return read_roots(certificate.trust_roots) if certificate is not None else []


async def decision_signature(*, session: AsyncSession, filing_id: int, cities: Cities) -> SignatureReport:
    """The check of a decision's stored PDF (:data:`UNSIGNED` when it has none: decided before this version)."""
    filing = await session.get(NoticeFiling, filing_id)
    notice = await session.get(Notice, filing.notice_id) if filing is not None else None
    if filing is None or notice is None or not filing.decision_pdf:
        return UNSIGNED
    return await check_pdf_signature(filing.decision_pdf, trust_roots=_roots(notice, cities))


async def notice_signature(*, session: AsyncSession, notice_id: int, cities: Cities) -> SignatureReport:
    """The check of a notice's stored PDF, trusting the roots of the municipality that issued it."""
    notice = await session.get(Notice, notice_id)
    if notice is None:
        return UNSIGNED
    return await check_pdf_signature(notice.pdf, trust_roots=_roots(notice, cities))
