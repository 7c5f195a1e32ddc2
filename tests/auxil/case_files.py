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
    """A small one-page PDF document (a valid file, cross-reference table and all; ``text`` changes the bytes)."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def jpeg_header() -> bytes:
    """The first bytes of a JPEG (enough for type sniffing)."""
    return b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 64


ZIP = b"PK\x03\x04" + b"\x00" * 60
"""A ZIP archive: not accepted."""


def ogg(seconds: float, *, tags: dict[str, str] | None = None) -> bytes:
    """An Ogg Opus voice note whose last page says it lasts ``seconds`` (Opus: 48 kHz granules), with ``tags``."""
    from mutagen.ogg import OggPage

    def page(packets: list[bytes], sequence: int, position: int, *, first: bool = False, last: bool = False) -> bytes:
        written = OggPage()
        written.packets, written.sequence, written.position, written.serial = packets, sequence, position, 7
        written.first, written.last = first, last
        return bytes(OggPage.write(written))

    head = b"OpusHead" + struct.pack("<BBHIhB", 1, 1, 0, 48_000, 0, 0)
    comments = [f"{key}={value}".encode() for key, value in (tags or {}).items()]
    vendor = b"test encoder"
    opus_tags = (b"OpusTags" + struct.pack("<I", len(vendor)) + vendor + struct.pack("<I", len(comments))
                 + b"".join(struct.pack("<I", len(c)) + c for c in comments))
    audio = [b"\xf8\xff\xfe"] * 10  # Opus packets: a TOC byte (20 ms, SILK) and a frame
    return (page([head], 0, 0, first=True) + page([opus_tags], 1, 0)
            + page(audio, 2, round(seconds * 48_000), last=True))


VIDEO_SAMPLE = b"\x00\x00\x00\x0cvideo-frame!"
"""The one sample of :func:`mp4`'s video track (what cleaning must leave as it is)."""


def _box(kind: bytes, *children: bytes) -> bytes:
    body = b"".join(children)
    return struct.pack(">I", 8 + len(body)) + kind + body


def mp4(seconds: float, timescale: int = 1000, *, metadata_sample: bytes | None = None) -> bytes:
    """An MP4 video whose ``mvhd`` box says it lasts ``seconds``: ftyp, moov with one video track (and, given
    ``metadata_sample``, a timed metadata track, as an iPhone's location track, holding it), and mdat."""
    duration = round(seconds * timescale)
    matrix = struct.pack(">9I", 0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000)
    mvhd = _box(b"mvhd", b"\x00\x00\x00\x00", struct.pack(">IIII", 0, 0, timescale, duration),
                struct.pack(">IH", 0x00010000, 0x0100), bytes(10), matrix, bytes(24), struct.pack(">I", 3))
    video_entry = _box(b"mp4v", bytes(6), struct.pack(">H", 1), bytes(16),
                       struct.pack(">HHII", 16, 16, 0x480000, 0x480000), bytes(4), struct.pack(">H", 1), bytes(32),
                       struct.pack(">Hh", 0x18, -1))
    metadata_entry = _box(b"mebx", bytes(6), struct.pack(">H", 1))
    ftyp = _box(b"ftyp", b"isom", struct.pack(">I", 0x200), b"isommp41")
    samples = [VIDEO_SAMPLE] + ([metadata_sample] if metadata_sample is not None else [])

    def track(number: int, handler: bytes, entry: bytes, offset: int, size: int) -> bytes:
        tkhd = _box(b"tkhd", b"\x00\x00\x00\x03", struct.pack(">IIIII", 0, 0, number, 0, duration), bytes(8),
                    struct.pack(">HHHH", 0, 0, 0, 0), matrix, struct.pack(">II", 16 << 16, 16 << 16))
        mdhd = _box(b"mdhd", b"\x00\x00\x00\x00", struct.pack(">IIII", 0, 0, timescale, duration),
                    struct.pack(">HH", 0x55C4, 0))
        hdlr = _box(b"hdlr", b"\x00\x00\x00\x00", bytes(4), handler, bytes(12), b"Handler\x00")
        stbl = _box(b"stbl", _box(b"stsd", bytes(4), struct.pack(">I", 1), entry),
                    _box(b"stts", bytes(4), struct.pack(">III", 1, 1, duration)),
                    _box(b"stsc", bytes(4), struct.pack(">IIII", 1, 1, 1, 1)),
                    _box(b"stsz", bytes(4), struct.pack(">III", size, 1, 0)[:8]),
                    _box(b"stco", bytes(4), struct.pack(">II", 1, offset)))
        header = _box(b"vmhd", b"\x00\x00\x00\x01", bytes(8)) if handler == b"vide" else _box(b"nmhd", bytes(4))
        minf = _box(b"minf", header,
                    _box(b"dinf", _box(b"dref", bytes(4), struct.pack(">I", 1), _box(b"url ", b"\x00\x00\x00\x01"))),
                    stbl)
        return _box(b"trak", tkhd, _box(b"mdia", mdhd, hdlr, minf))

    def moov(base: int) -> bytes:
        tracks, offset = [], base
        for number, sample in enumerate(samples, start=1):
            handler, entry = (b"vide", video_entry) if number == 1 else (b"meta", metadata_entry)
            tracks.append(track(number, handler, entry, offset, len(sample)))
            offset += len(sample)
        return _box(b"moov", mvhd, *tracks)

    base = len(ftyp) + len(moov(0)) + 8  # the samples, one after the other, at the start of mdat's data
    return ftyp + moov(base) + _box(b"mdat", *samples)
