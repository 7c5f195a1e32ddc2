"""PDF documents: parsed by qpdf (pikepdf) and written anew without their metadata.

A PDF must parse as one, with at least one page, without qpdf having to rebuild it (``%PDF-`` followed by an
HTML page, or a file that only starts like a PDF, is refused). The document is then written anew, which drops
every earlier revision (an incremental update keeps the old metadata in the file), without the document
information dictionary (``/Info``: author, title, producer), any XMP stream (``/Metadata``, on the catalogue or
any object), application data (``/PieceInfo``), embedded files, JavaScript and automatic actions (``/OpenAction``,
``/AA``), and with a fixed file identifier. The result is checked again before it is kept.
"""

from __future__ import annotations

import io

import pikepdf

from models.cases.unreadable import UnreadableFile

MIME = "application/pdf"
_OBJECT_KEYS = ("/Metadata", "/PieceInfo", "/AA")
_CATALOGUE_KEYS = ("/Metadata", "/PieceInfo", "/OpenAction", "/AA", "/Names", "/AcroForm")


def _open(content: bytes) -> pikepdf.Pdf:
    try:
        pdf = pikepdf.open(io.BytesIO(content))
        if len(pdf.pages) == 0:
            raise UnreadableFile(MIME)
    except (pikepdf.PdfError, pikepdf.PasswordError, ValueError, RecursionError) as exc:
        raise UnreadableFile(MIME) from exc
    if pdf.get_warnings():  # qpdf repaired it: a file that is not a PDF, or a damaged one
        raise UnreadableFile(MIME)
    return pdf


def _has_metadata(pdf: pikepdf.Pdf) -> bool:
    if "/Info" in pdf.trailer or any(key in pdf.Root for key in _CATALOGUE_KEYS):
        return True
    return any(isinstance(obj, pikepdf.Dictionary | pikepdf.Stream) and any(key in obj for key in _OBJECT_KEYS)
               for obj in pdf.objects)


def clean_pdf(content: bytes) -> bytes:
    """The PDF written anew without metadata, embedded files or scripts.

    Raises:
        UnreadableFile: not a PDF, damaged, encrypted, without pages, or metadata still found after cleaning.
    """
    pdf = _open(content)
    try:
        if "/Info" in pdf.trailer:
            del pdf.trailer["/Info"]
        for key in _CATALOGUE_KEYS:
            if key in pdf.Root:
                del pdf.Root[key]
        for obj in pdf.objects:
            if isinstance(obj, pikepdf.Dictionary | pikepdf.Stream):
                for key in _OBJECT_KEYS:
                    if key in obj:
                        del obj[key]
        out = io.BytesIO()
        pdf.save(out, static_id=True, fix_metadata_version=False)
    except (pikepdf.PdfError, ValueError) as exc:
        raise UnreadableFile(MIME) from exc
    cleaned = out.getvalue()
    if _has_metadata(_open(cleaned)):
        raise UnreadableFile(MIME)
    return cleaned
