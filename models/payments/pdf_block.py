"""The "how to pay" block of a fine notice's PDF (CP Art. 34 IV): the DAM's office, the PIX QR code and its text."""

from __future__ import annotations

from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Paragraph, Spacer, Table, TableStyle

from core.i18n import Translator
from models.notices.pdf import QrCode
from models.payments.instructions import PaymentInstructions, office_line

CHUNK = 52  # characters of the "copia e cola" text per printed line (Courier 7 pt in the column)


def payment_flowables(instructions: PaymentInstructions | None, *, tr: Translator, amount: str) -> list[Flowable]:
    """The block, or nothing without instructions.

    Args:
        instructions: how to pay (:func:`models.payments.instructions.payment_instructions`).
        tr: the document's translator.
        amount: the fine, written as money.
    """
    if instructions is None:
        return []
    styles = getSampleStyleSheet()
    body = ParagraphStyle("pay", parent=styles["BodyText"], fontSize=9.5, leading=12)
    label = ParagraphStyle("pay-label", parent=body, fontName="Helvetica-Bold")
    code = ParagraphStyle("pay-code", parent=body, fontName="Courier", fontSize=7, leading=8.5)
    small = ParagraphStyle("pay-small", parent=body, fontSize=8, leading=10, textColor=colors.HexColor("#444444"))
    dam = tr._("Pay {amount} with the DAM (Documento de Arrecadação Municipal) issued by: {office}.").format(
        amount=amount, office=office_line(instructions.dam_office))
    story: list[Flowable] = [Spacer(1, 5 * mm), Paragraph(escape(tr._("How to pay (CP Art. 34 IV)")), label),
                             Paragraph(escape(dam), body)]
    if instructions.pix_code is not None:
        lines = [instructions.pix_code[i:i + CHUNK] for i in range(0, len(instructions.pix_code), CHUNK)]
        story.append(Spacer(1, 2 * mm))
        story.append(Table(
            [[QrCode(instructions.pix_code, 34 * mm), [
                Paragraph(escape(tr._("Or pay by PIX: scan the QR code in your bank's app, or paste this code "
                                      "(PIX copia e cola):")), body),
                Paragraph("<br/>".join(escape(line) for line in lines), code),
                Spacer(1, 2 * mm),
                Paragraph(escape(tr._("The notice's number goes with the payment, so the city hall finds it.")),
                          small),
            ]]],
            colWidths=[38 * mm, 132 * mm],
            style=TableStyle([("VALIGN", (0, 0), (-1, -1), "MIDDLE")]),
        ))
    return story
