"""PDF signature helpers: the independent checker (poppler's ``pdfsig``) and two ways to alter a signed PDF."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest
from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter


def pdfsig(pdf: bytes, directory: Path) -> str:
    """``pdfsig``'s report on ``pdf`` (poppler-utils; skips the test where it is not installed)."""
    binary = shutil.which("pdfsig")
    if binary is None:
        pytest.skip("pdfsig (poppler-utils) is not installed: python tests/auxil/system_deps.py")
    path = directory / "checked.pdf"
    path.write_bytes(pdf)
    return subprocess.run([binary, str(path)], capture_output=True, text=True, check=False, timeout=60).stdout


def appended_update(pdf: bytes) -> bytes:
    """``pdf`` with an incremental update after the signature that changes its title (a classic shadow attack)."""
    writer = IncrementalPdfFileWriter(io.BytesIO(pdf), strict=False)
    info = writer.trailer["/Info"].get_object() if "/Info" in writer.trailer else generic.DictionaryObject()
    info[generic.NameObject("/Title")] = generic.TextStringObject("Auto cancelado")
    writer.set_info(info)
    output = io.BytesIO()
    writer.write(output)
    return output.getvalue()


def flipped_byte(pdf: bytes, marker: bytes = b"stream\n") -> bytes:
    """``pdf`` with one byte changed inside the first content stream (covered by the signature)."""
    at = pdf.index(marker) + len(marker) + 5
    return pdf[:at] + bytes([pdf[at] ^ 0x01]) + pdf[at + 1:]
