"""The notice's PDF signed in the name of its Prefeitura, and the signature's check for ``/verificar``.

L14063 Art. 4: the PAdES signature of :mod:`models.signatures` with the certificate of the municipality
that issues the act (CF Art. 30 I); the level it reaches is in docs/LEGAL-CHOICES.md.
"""

from __future__ import annotations

from asn1crypto import x509
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_, translator
from core.settings import Settings
from models.notices.tables import Notice, NoticeFiling
from models.signatures.pades import sign_pdf, signing_of
from models.signatures.validation import UNSIGNED, SignatureReport, check_pdf_signature, read_roots

DOCUMENT_LOCALE = "pt_BR"
REASON = N_("Administrative act {number} issued by the {prefeitura}")
DECISION_REASON = N_("Decision on notice {number} given by the {prefeitura}")


async def sign_notice_pdf(pdf: bytes, *, notice: Notice, settings: Settings) -> bytes:
    """The rendered notice signed with its municipality's certificate (unchanged when it has none)."""
    scoped = settings.for_municipality(notice.municipality)
    tr = translator(DOCUMENT_LOCALE, scoped.timezone)
    reason = tr._(REASON).format(number=notice.number, prefeitura=scoped.municipality.prefeitura)
    return await sign_pdf(pdf, signing=signing_of(scoped), reason=reason, location=scoped.municipality_name)


async def sign_decision_pdf(pdf: bytes, *, notice: Notice, settings: Settings) -> bytes:
    """A decision's PDF signed with the certificate of the municipality that issued the notice (issue 18).

    The decision is that Prefeitura's act as the notice is (CF Art. 30 I), so the same certificate signs it, with a
    timestamp when ``BALCAO_TSA_URL`` is set; unchanged when the municipality has no certificate.
    """
    scoped = settings.for_municipality(notice.municipality)
    tr = translator(DOCUMENT_LOCALE, scoped.timezone)
    reason = tr._(DECISION_REASON).format(number=notice.number, prefeitura=scoped.municipality.prefeitura)
    return await sign_pdf(pdf, signing=signing_of(scoped), reason=reason, location=scoped.municipality_name)


def _roots(notice: Notice, settings: Settings) -> list[x509.Certificate]:
    served = notice.municipality in settings.municipalities
    certificate = settings.municipalities[notice.municipality].signing if served else None
    return read_roots(certificate.trust_roots) if certificate is not None else []


async def decision_signature(*, session: AsyncSession, filing_id: int, settings: Settings) -> SignatureReport:
    """The check of a decision's stored PDF (:data:`UNSIGNED` when it has none: decided before this version)."""
    filing = await session.get(NoticeFiling, filing_id)
    notice = await session.get(Notice, filing.notice_id) if filing is not None else None
    if filing is None or notice is None or not filing.decision_pdf:
        return UNSIGNED
    return await check_pdf_signature(filing.decision_pdf, trust_roots=_roots(notice, settings))


async def notice_signature(*, session: AsyncSession, notice_id: int, settings: Settings) -> SignatureReport:
    """The check of a notice's stored PDF, trusting the roots of the municipality that issued it."""
    notice = await session.get(Notice, notice_id)
    if notice is None:
        return UNSIGNED
    return await check_pdf_signature(notice.pdf, trust_roots=_roots(notice, settings))
