"""Every accepted file is checked to be what it claims, and stripped of every metadata block, before anyone sees it.

A citizen's photo of a dumped pile of rubble must not tell the staff (or the accused, if it is ever shown)
where the author lives or whose phone took it (LGPD Art. 6 III, necessity; L13460 Art. 10 §7 for a
restricted author). The first bytes only say what a file claims to be: :func:`clean_file` parses it as that
type (a ``%PDF-`` followed by an HTML page is refused), removes every metadata block the format has, and
checks the result again; where the removal cannot be proven the picture is re-encoded, and a file that cannot be
cleaned is refused (:class:`UnreadableFile`). The SHA-256 the case keeps is that of the cleaned file.

- JPEG: kept are the segments the picture needs (quantisation and Huffman tables, frame, scans, restart
  interval), JFIF (APP0) and Adobe (APP14, the colour transform); left out are APP1 (EXIF with GPS and owner,
  XMP), APP2 (ICC profile, whose description is free text; FlashPix; MPF), APP13 (IPTC), every other APPn, COM
  and whatever follows the end of the image (phone trailers). The picture's bytes are not re-encoded; the EXIF
  orientation goes with EXIF, so a photo may show rotated. A file whose segments cannot be followed, or that
  still shows metadata to Pillow after this, is re-encoded from its pixels (JPEG quality 95).
- PNG: kept are the chunks the picture needs (IHDR, PLTE, IDAT, IEND, tRNS, gAMA, cHRM, sRGB, sBIT, bKGD,
  pHYs and the APNG frames), each with a valid CRC; left out are text (tEXt, zTXt, iTXt), eXIf, tIME, iCCP
  (its profile name is free text), every other chunk and whatever follows IEND. Otherwise re-encoded.
- PDF, Ogg and MP4: see :mod:`models.cases.document_metadata` and :mod:`models.cases.media_metadata`.
"""

from __future__ import annotations

import io
import struct
import warnings
import zlib

from PIL import Image

from models.cases.document_metadata import clean_pdf
from models.cases.media import MP4, OGG
from models.cases.media_metadata import clean_mp4, clean_ogg
from models.cases.unreadable import UnreadableFile

__all__ = ["UnreadableFile", "clean_file", "strip_metadata"]

_JPEG_KEEP = frozenset({0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF,  # frames
                        0xC4, 0xCC, 0xDB, 0xDD, 0xDA, 0xDC, 0xDE, 0xDF})  # tables, restart, scan, lines, hierarchy
_NO_LENGTH = frozenset({0x01, *range(0xD0, 0xD8)})
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_KEEP = frozenset({b"IHDR", b"PLTE", b"IDAT", b"IEND", b"tRNS", b"gAMA", b"cHRM", b"sRGB", b"sBIT", b"bKGD",
                       b"pHYs", b"acTL", b"fcTL", b"fdAT"})
_IMAGE_METADATA = frozenset({"exif", "xmp", "XML:com.adobe.xmp", "comment", "icc_profile", "photoshop", "iptc",
                             "adobe_transform_text", "mp", "mpinfo"})
_FORMATS = {"image/jpeg": "JPEG", "image/png": "PNG"}


def clean_file(content: bytes, mime: str) -> bytes:
    """The file, checked to be a ``mime`` file, without any metadata (re-encoded where that cannot be proven).

    Raises:
        UnreadableFile: the file does not parse as ``mime``, or cannot be cleaned.
    """
    if mime in _FORMATS:
        return _clean_image(content, mime)
    if mime == "application/pdf":
        return clean_pdf(content)
    if mime == OGG:
        return clean_ogg(content)
    if mime == MP4:
        return clean_mp4(content)
    raise UnreadableFile(mime)


def strip_metadata(content: bytes, mime: str) -> bytes:
    """The file without its metadata; a file that cannot be read is returned as it is (use :func:`clean_file`)."""
    try:
        return clean_file(content, mime)
    except UnreadableFile:
        return content


def _open(content: bytes, mime: str) -> Image.Image:
    """The decoded picture; raises UnreadableFile when it is not a whole picture of that format."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(content), formats=[_FORMATS[mime]])
            image.load()
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError, Image.DecompressionBombWarning,
            struct.error, EOFError) as exc:
        raise UnreadableFile(mime) from exc
    return image


def _shows_metadata(image: Image.Image) -> bool:
    if _IMAGE_METADATA & set(image.info) or image.getexif():
        return True
    return bool(getattr(image, "text", None))


def _clean_image(content: bytes, mime: str) -> bytes:
    original = _open(content, mime)  # a whole picture, or refused
    try:
        stripped = _strip_jpeg(content) if mime == "image/jpeg" else _strip_png(content)
        if not _shows_metadata(_open(stripped, mime)):
            return stripped
    except UnreadableFile:
        pass
    return _reencode(original, mime)


def _reencode(image: Image.Image, mime: str) -> bytes:
    """The picture from its pixels alone: nothing of the original file but what it shows."""
    mode = image.mode if image.mode in ("RGB", "L", "RGBA", "LA", "P") else "RGB"
    if mime == "image/jpeg" and mode not in ("RGB", "L"):
        mode = "RGB"
    pixels = image.convert(mode)
    fresh = Image.new(mode, pixels.size)
    if mode == "P":
        fresh.putpalette(pixels.getpalette() or [])
    fresh.paste(pixels)
    out = io.BytesIO()
    fresh.save(out, format=_FORMATS[mime], **({"quality": 95} if mime == "image/jpeg" else {}))
    return out.getvalue()


def _scan_end(content: bytes, at: int) -> int:
    """Where the entropy-coded data after a SOS header ends: the next marker that is not stuffing or RSTn."""
    while True:
        at = content.find(b"\xff", at)
        if at < 0 or at + 1 >= len(content):
            raise UnreadableFile("image/jpeg")
        following = content[at + 1]
        if following == 0x00 or 0xD0 <= following <= 0xD7 or following == 0xFF:
            at += 1
            continue
        return at


def _keep_jpeg_segment(marker: int, segment: bytes) -> bool:
    if marker == 0xE0:
        return segment[4:9] == b"JFIF\x00"
    if marker == 0xEE:
        return segment[4:9] == b"Adobe"
    return marker in _JPEG_KEEP


def _jpeg_segment_end(content: bytes, at: int) -> int:
    """Where the segment at ``at`` ends, from its two-byte length (which counts itself)."""
    if at + 4 > len(content):
        raise UnreadableFile("image/jpeg")
    (length,) = struct.unpack(">H", content[at + 2 : at + 4])
    end = at + 2 + length
    if length < 2 or end > len(content):
        raise UnreadableFile("image/jpeg")
    return end


def _strip_jpeg(content: bytes) -> bytes:
    if not content.startswith(b"\xff\xd8"):
        raise UnreadableFile("image/jpeg")
    out = bytearray(b"\xff\xd8")
    at = 2
    while True:
        if at + 2 > len(content) or content[at] != 0xFF:
            raise UnreadableFile("image/jpeg")
        marker = content[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker == 0xD9:  # end of image: what follows (a phone's trailer, anything) is left out
            return bytes(out + b"\xff\xd9")
        if marker in _NO_LENGTH:
            out += content[at : at + 2]
            at += 2
            continue
        end = _jpeg_segment_end(content, at)
        if _keep_jpeg_segment(marker, content[at:end]):
            out += content[at:end]
        at = end
        if marker == 0xDA:  # start of scan: the entropy-coded picture follows, up to the next marker
            scan_end = _scan_end(content, at)
            out += content[at:scan_end]
            at = scan_end


def _strip_png(content: bytes) -> bytes:
    if not content.startswith(_PNG_SIGNATURE):
        raise UnreadableFile("image/png")
    out = bytearray(_PNG_SIGNATURE)
    at = len(_PNG_SIGNATURE)
    while at + 12 <= len(content):
        (length,) = struct.unpack(">I", content[at : at + 4])
        kind = content[at + 4 : at + 8]
        end = at + 12 + length
        if end > len(content):
            break
        (crc,) = struct.unpack(">I", content[end - 4 : end])
        if zlib.crc32(content[at + 4 : end - 4]) & 0xFFFFFFFF != crc:
            raise UnreadableFile("image/png")
        if kind in _PNG_KEEP:
            out += content[at:end]
        at = end
        if kind == b"IEND":
            return bytes(out)  # what follows IEND is left out
    raise UnreadableFile("image/png")
