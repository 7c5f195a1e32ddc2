"""The notice's PDF signed in the name of its Prefeitura, and the signature's check for ``/verificar``.

Lei 14.063/2020 Art. 4: the PAdES signature of :mod:`models.signatures` with the certificate of the municipality
that issues the act (CF Art. 30 I); the level it reaches is in docs/LEGAL-CHOICES.md.
"""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_, translator
from core.settings import Settings
from models.notices.tables import Notice
from models.signatures.pades import sign_pdf, signing_of
from models.signatures.validation import UNSIGNED, SignatureReport, check_pdf_signature, read_roots

DOCUMENT_LOCALE = "pt_BR"
REASON = N_("Administrative act {number} issued by the {prefeitura}")


async def sign_notice_pdf(pdf: bytes, *, notice: Notice, settings: Settings) -> bytes:
    """The rendered notice signed with its municipality's certificate (unchanged when it has none)."""
    scoped = settings.for_municipality(notice.municipality)
    tr = translator(DOCUMENT_LOCALE, scoped.timezone)
    reason = tr._(REASON).format(number=notice.number, prefeitura=scoped.municipality.prefeitura)
    return await sign_pdf(pdf, signing=signing_of(scoped), reason=reason, location=scoped.municipality_name)


async def notice_signature(*, session: AsyncSession, notice_id: int, settings: Settings) -> SignatureReport:
    """The check of a notice's stored PDF, trusting the roots of the municipality that issued it."""
    notice = await session.get(Notice, notice_id)
    if notice is None:
        return UNSIGNED
    served = notice.municipality in settings.municipalities
    certificate = settings.municipalities[notice.municipality].signing if served else None
    roots = read_roots(certificate.trust_roots) if certificate is not None else []
    return await check_pdf_signature(notice.pdf, trust_roots=roots)
