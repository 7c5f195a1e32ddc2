"""Metadata removed from photos before anyone else sees them.

EXIF (GPS position, camera owner, serial number, time), XMP, IPTC and comments are left out.

A citizen's photo of a dumped pile of rubble must not tell the staff (or the accused, if it is ever shown)
where the author lives or whose phone took it (LGPD Art. 6 III, necessity; Lei 13.460/2017 Art. 10 §7 for a
restricted author). The removal is lossless: the picture's bytes are not re-encoded, only the metadata
segments (JPEG) or chunks (PNG) are left out, so the evidence itself is unchanged. The SHA-256 the case keeps
is that of the cleaned file. A file whose structure cannot be followed keeps the rest of its bytes from that
point (phones write well-formed files; the author is the only one who could craft one).

JPEG: kept are the JFIF (APP0), ICC colour profile (APP2) and Adobe colour (APP14) segments and every
segment the picture needs; left out are APP1 (EXIF, XMP), the other APPn and COM. The EXIF orientation goes
with EXIF, so a photo may show rotated. PNG: the text chunks (tEXt, zTXt, iTXt), eXIf and tIME are left out.
"""

from __future__ import annotations

import struct

_JPEG_KEEP_APP = frozenset({0xE0, 0xE2, 0xEE})
_NO_LENGTH = frozenset({0x01, *range(0xD0, 0xD8)})
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_DROP = frozenset({b"tEXt", b"zTXt", b"iTXt", b"eXIf", b"tIME"})


def strip_metadata(content: bytes, mime: str) -> bytes:
    """The file without its metadata (JPEG and PNG); any other type is returned as it is."""
    if mime == "image/jpeg":
        return _strip_jpeg(content)
    if mime == "image/png":
        return _strip_png(content)
    return content


def _strip_jpeg(content: bytes) -> bytes:
    if not content.startswith(b"\xff\xd8"):
        return content
    out = bytearray(b"\xff\xd8")
    at = 2
    while at + 4 <= len(content):
        if content[at] != 0xFF:
            break
        marker = content[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in _NO_LENGTH:
            out += content[at : at + 2]
            at += 2
            continue
        if marker in (0xD9, 0xDA):  # end of image, or start of scan: the rest is the picture itself
            break
        (length,) = struct.unpack(">H", content[at + 2 : at + 4])
        end = at + 2 + length
        if length < 2 or end > len(content):
            break
        is_metadata = marker == 0xFE or (0xE0 <= marker <= 0xEF and marker not in _JPEG_KEEP_APP)
        if not is_metadata:
            out += content[at:end]
        at = end
    out += content[at:]
    return bytes(out)


def _strip_png(content: bytes) -> bytes:
    if not content.startswith(_PNG_SIGNATURE):
        return content
    out = bytearray(_PNG_SIGNATURE)
    at = len(_PNG_SIGNATURE)
    while at + 12 <= len(content):
        (length,) = struct.unpack(">I", content[at : at + 4])
        kind = content[at + 4 : at + 8]
        end = at + 12 + length
        if end > len(content):
            break
        if kind not in _PNG_DROP:
            out += content[at:end]
        at = end
        if kind == b"IEND":
            return bytes(out)
    out += content[at:]
    return bytes(out)
