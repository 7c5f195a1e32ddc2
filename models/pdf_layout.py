"""The A4 page every PDF of Balcão is laid out on: the citizen's receipt and the penalty notice.

Both are built the same way: a story of reportlab flowables on an A4 page with 20 mm side margins, drawn
reproducibly (``invariant``: the same input gives the same bytes, which the notice's SHA-256 relies on).
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, SimpleDocTemplate


def a4_pdf(story: Sequence[Flowable], *, title: str, author: str, vertical_margin: float = 20 * mm) -> bytes:
    """Lay ``story`` out on A4 pages and return the PDF bytes (deterministic for the same input).

    Args:
        story: the flowables, in reading order.
        title: the document's title (PDF metadata).
        author: the document's author (PDF metadata): the municipality.
        vertical_margin: the top and bottom margins (the side margins are 20 mm).
    """
    buffer = io.BytesIO()
    document = SimpleDocTemplate(
        buffer,
        pagesize=A4,
        leftMargin=20 * mm,
        rightMargin=20 * mm,
        topMargin=vertical_margin,
        bottomMargin=vertical_margin,
        title=title,
        author=author,
        invariant=True,
    )
    document.build(list(story))
    return buffer.getvalue()
