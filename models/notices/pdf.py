"""The notice as a PDF: the elements the law requires, the verification code and a QR code to check it.

The document is written in the municipality's language (``pt_BR``) through the catalogs, laid out with
reportlab and stamped with a QR code (segno) pointing to ``{BALCAO_PUBLIC_URL}/verificar/<code>``. It is
produced once, at issue, stored with the notice and never regenerated (its SHA-256 is in the notice's entry of
the transparency log, whose inclusion proof the document points to: ``/verificar/<code>/prova.json``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from xml.sax.saxutils import escape

import segno
from reportlab.lib import colors
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Paragraph, Spacer, Table, TableStyle

from core.i18n import N_, Translator
from models.notices.act_elements import ELEMENTS_CITATION
from models.notices.tables import Notice, NoticeType
from models.pdf_layout import a4_pdf

TITLES = {
    NoticeType.PRELIMINAR: N_("PRELIMINARY NOTICE (NOTIFICAÇÃO PRELIMINAR)"),
    NoticeType.AUTO: N_("INFRACTION REPORT (AUTO DE INFRAÇÃO)"),
}


@dataclass(frozen=True, slots=True)
class PdfContext:
    """What the document needs besides the notice's own fields."""

    municipality: str
    law_title: str
    code: str  # the verification code, grouped
    verify_url: str  # the page the QR code opens
    fine_detail: str  # e.g. "9 UPF-NX × R$ 42,00 = R$ 378,00, em dobro por reincidência (Art. 8º)"
    deadline_lines: Sequence[str]  # the deadline element (CP Art. 25 VI) or the intimação (CP Art. 34 IV)
    signed_line: str  # who signed it and when, apart from the lavratura (issue 18 §2; CP Art. 25 IV, 34 V)
    payment: Sequence[Flowable] = ()  # how to pay a fine (CP Art. 34 IV): models.payments.pdf_block
    provision_lines: Sequence[str] = ()  # provision infringed, table item, penalty article (CP Art. 25 III, 34 III)
    authority: str = ""  # the issuing Prefeitura, as the act records it
    appear_line: str = ""  # the preliminar's setor competente (CP Art. 24)
    where_to_act: Sequence[str] = ()  # L9784 Art. 26 §1 III
    goes_on: str = ""  # L9784 Art. 26 §1 V
    encarregado: str = ""  # LGPD Art. 41 §1
    receipt_lines: Sequence[str] = ()  # CP Art. 36 I: the dated receipt for delivery in person


class QrCode(Flowable):
    """A QR code drawn as vector squares (sharp at any zoom, no image library needed)."""

    def __init__(self, data: str, size: float) -> None:
        super().__init__()
        self.matrix = [list(row) for row in segno.make(data, error="m", micro=False).matrix_iter(border=2)]
        self.size = size
        self.width = self.height = size

    def draw(self) -> None:
        """Draw the dark modules."""
        count = len(self.matrix)
        module = self.size / count
        canvas = self.canv
        canvas.setFillColor(colors.black)
        for row_index, row in enumerate(self.matrix):
            for col_index, dark in enumerate(row):
                if dark:
                    x = col_index * module
                    y = self.size - (row_index + 1) * module
                    canvas.rect(x, y, module, module, stroke=0, fill=1)


def format_document(digits: str | None) -> str:
    """A CPF (``123.456.789-09``) or CNPJ (``12.345.678/0001-95``) as printed on paper."""
    if not digits:
        return ""
    if len(digits) == 11:
        return f"{digits[:3]}.{digits[3:6]}.{digits[6:9]}-{digits[9:]}"
    if len(digits) == 14:
        return f"{digits[:2]}.{digits[2:5]}.{digits[5:8]}/{digits[8:12]}-{digits[12:]}"
    return digits


def money_of(cents: int) -> Decimal:
    """Cents as a Decimal amount in reais."""
    return (Decimal(cents) / 100).quantize(Decimal("0.01"))


@dataclass(frozen=True, slots=True)
class _Styles:
    body: ParagraphStyle
    small: ParagraphStyle
    label: ParagraphStyle
    title: ParagraphStyle
    header: ParagraphStyle


def _styles() -> _Styles:
    sheet = getSampleStyleSheet()
    body = ParagraphStyle("body", parent=sheet["BodyText"], fontSize=9.5, leading=12)
    return _Styles(
        body=body,
        small=ParagraphStyle("small", parent=body, fontSize=8, leading=10, textColor=colors.HexColor("#444444")),
        label=ParagraphStyle("label", parent=body, fontName="Helvetica-Bold"),
        title=ParagraphStyle("title", parent=sheet["Title"], fontSize=14, leading=17, spaceAfter=2),
        header=ParagraphStyle("header", parent=body, alignment=1, fontName="Helvetica-Bold", fontSize=11),
    )


def _para(text: str, style: ParagraphStyle) -> Paragraph:
    return Paragraph(escape(text).replace("\n", "<br/>"), style)


def _element_rows(notice: Notice, context: PdfContext, tr: Translator) -> list[tuple[str, str]]:
    """The elements of CP Art. 25 / 34 (and L1533 Art. 22), label and value."""
    rows: list[tuple[str, str]] = [
        (tr._("Notified person") if notice.type is NoticeType.PRELIMINAR else tr._("Offender"), notice.offender_name),
    ]
    if notice.offender_document:
        rows.append((tr._("CPF/CNPJ"), format_document(notice.offender_document)))
    if notice.offender_address:
        rows.append((tr._("Address"), notice.offender_address))
    if notice.platform_name:  # L1533 Art. 22: the platform is notified too
        rows.append((tr._("Technology platform"), notice.platform_name))
    rows += [
        (tr._("Drawn up on"), tr._("{date} at {time}").format(
            date=tr.date(notice.drawn_up_at), time=tr.time(notice.drawn_up_at))),
        (tr._("Place"), notice.place),
    ]
    if notice.infraction_on is not None:  # the year of the infraction sets the unit value (models.fines)
        rows.append((tr._("Date of the infraction"), tr.date(notice.infraction_on)))
    provision = "\n".join(context.provision_lines) or (
        f"{context.law_title}, {notice.infraction_article} — {notice.infraction_description}")
    rows += [
        (tr._("Facts"), notice.facts),
        (tr._("Provision infringed"), provision),
    ]
    if notice.witnesses:
        rows.append((tr._("Witnesses"), notice.witnesses))
    if notice.inspection_term:
        rows.append((tr._("Inspection record (termo de fiscalização)"), notice.inspection_term))
    rows.append((tr._("Fine"), context.fine_detail))
    rows.append((tr._("Deadlines") if notice.type is NoticeType.AUTO else tr._("Deadline"),
                 "\n".join(context.deadline_lines)))
    if context.appear_line:
        rows.append((tr._("Where to appear"), context.appear_line))
    rows.append((tr._("Signature"), context.signed_line))  # issue 18 §2: who signed, when (apart from lavratura)
    return rows


def _table(rows: Sequence[tuple[str, str]], styles: _Styles) -> Table:
    return Table(
        [[_para(name, styles.label), _para(value, styles.body)] for name, value in rows],
        colWidths=[42 * mm, 128 * mm],
        style=TableStyle([
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("LINEBELOW", (0, 0), (-1, -1), 0.25, colors.HexColor("#BBBBBB")),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 4),
        ]),
    )


def _how_to_act_block(context: PdfContext, styles: _Styles, tr: Translator) -> list[Flowable]:
    """L9784 Art. 26 §1 III (where, when and how to act) and V (the process goes on).

    Without them the intimação is null (§5).
    """
    if not context.where_to_act and not context.goes_on:
        return []
    story: list[Flowable] = [Spacer(1, 3 * mm), _para(tr._("Where, when and how to act"), styles.label)]
    story += [_para("• " + line, styles.small) for line in context.where_to_act]
    if context.goes_on:
        story.append(_para(context.goes_on, styles.label))
    story.append(_para(ELEMENTS_CITATION, styles.small))
    return story


def _receipt_block(context: PdfContext, styles: _Styles, tr: Translator) -> list[Flowable]:
    """CP Art. 36 I: the dated receipt for delivery in person, with the refusals the code provides."""
    if not context.receipt_lines:
        return []
    story: list[Flowable] = [Spacer(1, 3 * mm), _para(tr._("Receipt (delivery in person)"), styles.label)]
    story += [_para(line, styles.small) for line in context.receipt_lines]
    return story


def _verification_block(context: PdfContext, styles: _Styles, tr: Translator) -> list[Flowable]:
    """The verification code, the QR code and the log's inclusion proof."""
    table = Table(
        [[QrCode(context.verify_url, 30 * mm), [
            _para(tr._("Verification code"), styles.label),
            Paragraph(f'<font name="Courier-Bold" size="14">{escape(context.code)}</font>', styles.body),
            Spacer(1, 3 * mm),
            _para(tr._("Check that this document is authentic at {url} or by scanning the QR code.").format(
                url=context.verify_url), styles.small),
            _para(tr._("Its entry in the city hall's public log, with the proof of inclusion anyone can check: "
                       "{url}").format(url=f"{context.verify_url}/prova.json"), styles.small),
        ]]],
        colWidths=[34 * mm, 136 * mm],
        style=TableStyle([("VALIGN", (0, 0), (-1, -1), "MIDDLE")]),
    )
    return [Spacer(1, 4 * mm), table]


def _privacy_block(context: PdfContext, styles: _Styles) -> list[Flowable]:
    """LGPD Art. 41 §1: the encarregado, on a document that carries personal data."""
    return [Spacer(1, 3 * mm), _para(context.encarregado, styles.small)] if context.encarregado else []


def render_notice_pdf(*, notice: Notice, context: PdfContext, tr: Translator) -> bytes:
    """The notice's PDF.

    Args:
        notice: the issued notice (number set).
        context: municipality, verification code and URL, fine and deadline wording, signature line.
        tr: the document's translator (the municipality's language, ``pt_BR``).

    Returns:
        The PDF bytes (deterministic for the same input).
    """
    styles = _styles()
    heading = context.authority or tr._("City hall of {city}").format(city=context.municipality)
    story: list[Flowable] = [
        _para(heading, styles.header),
        _para(context.law_title, ParagraphStyle("law", parent=styles.small, alignment=1)),
        Spacer(1, 4 * mm),
        _para(tr._(TITLES[notice.type]), styles.title),
        _para(tr._("No. {number}").format(number=notice.number), ParagraphStyle("number", parent=styles.header)),
        Spacer(1, 5 * mm),
        _table(_element_rows(notice, context, tr), styles),
        *context.payment,  # how to pay (CP Art. 34 IV), after the amount and before where to act
        *_how_to_act_block(context, styles, tr),
        *_receipt_block(context, styles, tr),
        *_verification_block(context, styles, tr),
        *_privacy_block(context, styles),
    ]
    return a4_pdf(story, title=f"{tr._(TITLES[notice.type])} {notice.number}", author=context.municipality,
                  vertical_margin=18 * mm)
