"""The PDF receipt (*comprovante de protocolo*) a citizen gets when a case is filed.

One A4 page: the municipality, the protocol number, date and time of receipt, the kind of case, the deadline,
a summary of what was reported, and the articles it rests on. It is written in the citizen's language and
never shows the author's CPF.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape

from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Paragraph, Spacer, Table, TableStyle

from core.i18n import N_, Translator
from core.municipality import Cities, Timestamping
from models.cases.filing import FiledCase
from models.cases.labels import KIND_LABELS
from models.encarregado import encarregado_line
from models.pdf_layout import a4_pdf
from models.signatures.pades import sign_pdf, signing_of

SUMMARY_LIMIT = 1500
REASON = N_("Filing receipt {protocol} issued by the {prefeitura}")


def pdf_text(value: str) -> str:
    """Escaped for a Paragraph, limited to what the standard PDF fonts can draw (Windows-1252)."""
    return escape(value.encode("cp1252", errors="replace").decode("cp1252")).replace("\n", "<br/>")


def build_receipt(filed: FiledCase, *, tr: Translator, municipality: str, follow: str | None = None,
                  encarregado: str = "") -> bytes:
    """The receipt of a filed case as PDF bytes.

    Args:
        filed: the filed case.
        tr: the reader's translator (language and time zone).
        municipality: the city hall's municipality name.
        follow: how to follow the case (translated); the chat's /acompanhar by default.
        encarregado: who answers for the personal data on it (LGPD Art. 41 §1; :mod:`models.encarregado`).
    """
    styles = getSampleStyleSheet()
    small = ParagraphStyle("small", parent=styles["Normal"], fontSize=8, leading=10)
    rows = [
        (tr._("Protocol"), filed.protocol),
        (tr._("Received on"), tr.moment(filed.received_at)),
        (tr._("Kind"), tr._(KIND_LABELS[filed.kind])),
        (tr._("Answer due by"), tr.date(filed.due_on)),
    ]
    story = [
        *receipt_head(tr, municipality=municipality, rows=rows, heading=tr._("What you reported"),
                      text=filed.summary),
        Paragraph(pdf_text(tr._("Legal basis")), styles["Heading3"]),
        *[Paragraph(pdf_text(ref), small) for ref in filed.legal_refs],
        Spacer(1, 8 * mm),
        Paragraph(
            pdf_text(follow or tr._("Follow this case in the Balcão chat with /acompanhar and the protocol number.")),
            small,
        ),
    ]
    if encarregado:  # LGPD Art. 41 §1: the receipt carries what the person reported
        story += [Spacer(1, 4 * mm), Paragraph(pdf_text(encarregado), small)]
    return a4_pdf(story, title=filed.protocol, author=municipality)


async def signed_receipt(filed: FiledCase, *, tr: Translator, cities: Cities, timestamping: Timestamping,
                         follow: str | None = None) -> bytes:
    """The receipt of :func:`build_receipt`, headed and signed by the Prefeitura the case belongs to (CF Art. 30 I).

    Signed as PAdES with that municipality's certificate (L14063 Art. 4; unsigned without one).

    Args:
        filed: the filed case.
        tr: the reader's translator (language and time zone).
        cities: the municipalities served (the case's heads and signs it).
        timestamping: the deployment's timestamp authority for the signature (RFC 3161; none: untimestamped).
        follow: how to follow the case (translated); the chat's /acompanhar by default.
    """
    city = cities.of(filed.municipality)
    pdf = build_receipt(filed, tr=tr, municipality=city.name, follow=follow,
                        encarregado=encarregado_line(municipality=city.config, tr=tr))  # LGPD Art. 41 §1
    reason = tr._(REASON).format(protocol=filed.protocol, prefeitura=city.prefeitura)
    return await sign_pdf(pdf, signing=signing_of(city, tsa_url=timestamping.tsa_url), reason=reason,
                          location=city.name)


def receipt_head(
    tr: Translator, *, municipality: str, rows: Sequence[tuple[str, str]], heading: str, text: str
) -> list[Flowable]:
    """The top of every filing receipt: the city hall, "Filing receipt", the facts as a table, and what was filed.

    Shared by a case's receipt and a defence's, reclamação's or appeal's (``models.notices.filing_receipt``), so a
    person reads the same receipt wherever they file. ``text`` is cut at :data:`SUMMARY_LIMIT` characters.
    """
    styles = getSampleStyleSheet()
    shown = text if len(text) <= SUMMARY_LIMIT else text[: SUMMARY_LIMIT - 1] + "…"
    table = Table(
        [[Paragraph(pdf_text(label), styles["Normal"]), Paragraph(f"<b>{pdf_text(value)}</b>", styles["Normal"])]
         for label, value in rows],
        colWidths=[45 * mm, 125 * mm],
    )
    table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("BOTTOMPADDING", (0, 0), (-1, -1), 4)]))
    return [
        Paragraph(pdf_text(tr._("City hall of {city}").format(city=municipality)), styles["Title"]),
        Paragraph(pdf_text(tr._("Filing receipt")), styles["Heading2"]),
        Spacer(1, 4 * mm),
        table,
        Spacer(1, 6 * mm),
        Paragraph(pdf_text(heading), styles["Heading3"]),
        Paragraph(pdf_text(shown), styles["Normal"]),
        Spacer(1, 6 * mm),
    ]
