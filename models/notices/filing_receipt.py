"""The PDF receipt (*comprovante de protocolo*) of a defence, reclamação or appeal, signed like a case's receipt.

One A4 page: the Prefeitura of the notice's municipality, the filing's protocol number, the moment it was
received, its kind, the notice it answers, the files attached and the text as filed. Written in the reader's
language, signed as PAdES with the municipality's certificate (L14063 Art. 4; unsigned without one), so
the person holds proof of what was filed and when (L9784 Art. 6 par. único: the filing is received and numbered;
CF Art. 5 LV: the defence on record).
"""

from __future__ import annotations

from dataclasses import dataclass

from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import Paragraph, Spacer
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_, Translator
from core.municipality import Cities
from models.cases.receipt_pdf import REASON, pdf_text, receipt_head
from models.encarregado import encarregado_line
from models.notices.filings import attachments_of
from models.notices.tables import FilingKind, Notice, NoticeFiling
from models.pdf_layout import a4_pdf
from models.rulebooks.catalogue import LAW_TITLES
from models.signatures.pades import sign_pdf, signing_of

KIND_LABELS = {
    FilingKind.DEFESA: N_("Defence (defesa)"),
    FilingKind.RECLAMACAO: N_("Complaint (reclamação)"),
    FilingKind.RECURSO: N_("Appeal (recurso)"),
}


@dataclass(frozen=True, slots=True)
class FilingReceipt:
    """A filing's signed receipt: the filing, its protocol number and the PDF bytes."""

    filing: NoticeFiling
    protocol: str
    pdf: bytes


def build_filing_receipt(filing: NoticeFiling, notice: Notice, *, files: int, tr: Translator, municipality: str,
                         encarregado: str = "") -> bytes:
    """The receipt of a filing as (unsigned) PDF bytes.

    Args:
        filing: the filing, with its protocol number.
        notice: the notice it answers.
        files: how many files were attached to it.
        tr: the reader's translator (language and time zone).
        municipality: the municipality's name.
        encarregado: who answers for the personal data on it (LGPD Art. 41 §1; :mod:`models.encarregado`).
    """
    styles = getSampleStyleSheet()
    small = ParagraphStyle("small", parent=styles["Normal"], fontSize=8, leading=10)
    rows = [
        (tr._("Protocol"), filing.protocol or ""),
        (tr._("Received on"), tr.moment(filing.filed_at)),
        (tr._("Kind"), tr._(KIND_LABELS[filing.kind])),
        (tr._("Notice"), notice.number),
        (tr._("Files"), tr.ngettext("{n} file attached.", "{n} files attached.", files).format(n=files)),
    ]
    story = [
        *receipt_head(tr, municipality=municipality, rows=rows, heading=tr._("What you filed"), text=filing.text),
        Paragraph(pdf_text(LAW_TITLES.get(notice.rulebook, notice.rulebook)), small),
        Paragraph(pdf_text(tr._("The decision will be sent to you like the notice, with its own confirmation "
                                "of receipt.")), small),
    ]
    if encarregado:
        story += [Spacer(1, 4 * mm), Paragraph(pdf_text(encarregado), small)]
    return a4_pdf(story, title=filing.protocol or notice.number, author=municipality)


async def signed_filing_receipt(*, session: AsyncSession, filing_id: int, tr: Translator,
                                cities: Cities, tsa_url: str | None) -> FilingReceipt:
    """The receipt of a filed defence, reclamação or appeal, headed and signed by the notice's Prefeitura.

    Args:
        session: database session.
        filing_id: the filing (it has its protocol number).
        tr: the reader's translator (language and time zone).
        cities: the deployment's municipalities (the notice's heads and signs it; CF Art. 30 I).
        tsa_url: the timestamp authority of the signature (``BALCAO_TSA_URL``), if any.

    Raises:
        LookupError: no such filing, or one filed before filings were numbered.
    """
    filing = await session.get(NoticeFiling, filing_id)
    if filing is None or filing.protocol is None:
        raise LookupError(f"no numbered filing {filing_id}")
    notice = await session.get(Notice, filing.notice_id)
    assert notice is not None
    files = len(await attachments_of(session=session, filing_id=filing_id))
    scoped = cities.of(notice.municipality)
    pdf = build_filing_receipt(filing, notice, files=files, tr=tr, municipality=scoped.name,
                               encarregado=encarregado_line(municipality=scoped.config, tr=tr))
    reason = tr._(REASON).format(protocol=filing.protocol, prefeitura=scoped.config.prefeitura)
    signed = await sign_pdf(pdf, signing=signing_of(scoped, tsa_url=tsa_url), reason=reason, location=scoped.name)
    return FilingReceipt(filing=filing, protocol=filing.protocol, pdf=signed)
