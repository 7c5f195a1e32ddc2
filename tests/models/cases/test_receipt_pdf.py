"""The PDF receipt: protocol, date, summary and articles, in the reader's language."""

import base64
import datetime as dt
import re
import zlib

from core.i18n import translator
from models.cases.filing import FiledCase
from models.cases.receipt_pdf import build_receipt
from models.cases.tables import CaseKind


def page_text(content: bytes) -> str:
    """The text drawn on the pages (ReportLab's ASCII85 + Flate content streams, decoded)."""
    texts = []
    for stream in re.findall(rb"stream\r?\n(.*?)\s*endstream", content, flags=re.DOTALL):
        raw = base64.a85decode(stream.strip().removesuffix(b"~>"))
        decoded = re.sub(rb"\\([0-7]{3})", lambda m: bytes([int(m.group(1), 8)]), zlib.decompress(raw))
        texts.append(decoded.replace(b"\\(", b"(").replace(b"\\)", b")").decode("cp1252", errors="replace"))
    return "\n".join(texts)


def test_the_receipt_is_a_pdf_with_the_protocol_and_the_articles() -> None:
    filed = FiledCase(
        case_id=1, protocol="REP-2026-000123", kind=CaseKind.REPRESENTATION,
        received_at=dt.datetime(2026, 3, 2, 14, 0, tzinfo=dt.UTC), due_on=dt.date(2026, 3, 12),
        summary="Entulho na calçada — toda sexta-feira. 🚛", legal_refs=("Lei nº 1.101/2004, Art. 30 a 32",),
        municipality="nova-xavantina",
    )
    content = build_receipt(filed, tr=translator("pt_BR"), municipality="Nova Xavantina")
    assert content.startswith(b"%PDF-")
    text = page_text(content)
    for expected in ("REP-2026-000123", "Comprovante de protocolo", "Lei nº 1.101/2004, Art. 30 a 32",
                     "quinta-feira, 12 de março de 2026", "Entulho na calçada"):
        assert expected in text, expected
    assert build_receipt(filed, tr=translator("pt_BR"), municipality="Nova Xavantina") == content  # reproducible


def test_the_receipt_says_the_moment_as_people_say_it_without_seconds_or_zone() -> None:
    # a newcomer's walk (issue 20 §3): "2 de março de 2026 10:00:00 AMT"
    filed = FiledCase(
        case_id=1, protocol="REP-2026-000123", kind=CaseKind.REPRESENTATION,
        received_at=dt.datetime(2026, 3, 2, 14, 0, tzinfo=dt.UTC), due_on=dt.date(2026, 3, 12),
        summary="Entulho na calçada", legal_refs=(), municipality="nova-xavantina",
    )
    text = page_text(build_receipt(filed, tr=translator("pt_BR"), municipality="Nova Xavantina"))
    assert "segunda-feira, 2 de março de 2026 às 10:00" in text  # 14:00 UTC is 10:00 in Cuiabá
    assert "AMT" not in text and "10:00:00" not in text
