"""Small real files for the cases tests: a PNG photo, a JPEG, a PDF, and things that are not accepted."""

from __future__ import annotations

import struct
import zlib


def png(width: int = 2, height: int = 2, seed: int = 0) -> bytes:
    """A valid PNG image (grey pixels; ``seed`` changes the bytes)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + bytes([seed % 256] * width) for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def pdf(text: str = "prova") -> bytes:
    """A tiny PDF document."""
    return (
        b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
        b"2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n% "
        + text.encode()
        + b"\ntrailer << /Root 1 0 R >>\n%%EOF\n"
    )


def jpeg_header() -> bytes:
    """The first bytes of a JPEG (enough for type sniffing)."""
    return b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 64


ZIP = b"PK\x03\x04" + b"\x00" * 60
"""A ZIP archive: not accepted."""


def ogg(seconds: float) -> bytes:
    """An Ogg stream (as a voice note) whose last page says it lasts ``seconds`` (Opus: 48 kHz granules)."""

    def page(granule: int, flags: int) -> bytes:
        return b"OggS" + bytes([0, flags]) + struct.pack("<q", granule) + b"\x00" * 14 + b"OpusHead" + b"\x00" * 32

    return page(0, 2) + page(round(seconds * 48_000), 4)


def mp4(seconds: float, timescale: int = 1000) -> bytes:
    """An MP4 file (as a short video) whose ``mvhd`` box says it lasts ``seconds``."""
    ftyp = struct.pack(">I", 20) + b"ftypisom" + b"\x00\x00\x02\x00" + b"isom"
    mvhd_body = b"\x00" + b"\x00\x00\x00" + struct.pack(">IIII", 0, 0, timescale, round(seconds * timescale))
    mvhd = struct.pack(">I", 8 + len(mvhd_body) + 80) + b"mvhd" + mvhd_body + b"\x00" * 80
    moov = struct.pack(">I", 8 + len(mvhd)) + b"moov" + mvhd
    return ftyp + moov
