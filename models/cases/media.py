"""Voice notes and videos as evidence: their type and length read from the content, not from what the phone says.

A voice note is Ogg (Opus, as Telegram records it); a video is MP4/QuickTime. The length comes from the file
itself: the last Ogg page's granule position (48 kHz for Opus), or the ``mvhd`` box of an MP4 (duration over
timescale). A file whose length cannot be read is refused like a file of another type.
"""

from __future__ import annotations

import struct

OGG = "audio/ogg"
MP4 = "video/mp4"
EXTENSIONS = {OGG: "ogg", MP4: "mp4"}
OPUS_RATE = 48_000
"""Opus granule positions count 48 kHz samples whatever the input rate (RFC 7845 §4)."""


def sniff_media(content: bytes) -> str | None:
    """``audio/ogg`` or ``video/mp4`` judged by the first bytes, or None."""
    if content.startswith(b"OggS"):
        return OGG
    if content[4:8] == b"ftyp":
        return MP4
    return None


def media_seconds(content: bytes, mime: str) -> float | None:
    """The length in seconds of an Ogg or MP4 file, read from its content; None when it cannot be read."""
    if mime == OGG:
        return _ogg_seconds(content)
    if mime == MP4:
        return _mp4_seconds(content)
    return None


def _ogg_seconds(content: bytes) -> float | None:
    last = content.rfind(b"OggS")
    if last < 0 or len(content) < last + 14:
        return None
    (granule,) = struct.unpack_from("<q", content, last + 6)
    return granule / OPUS_RATE if granule >= 0 else None


def _mp4_seconds(content: bytes) -> float | None:
    at = content.find(b"mvhd")
    if at < 4:
        return None
    version = content[at + 4] if len(content) > at + 4 else None
    try:
        if version == 1:
            timescale, duration = struct.unpack_from(">IQ", content, at + 4 + 4 + 16)
        elif version == 0:
            timescale, duration = struct.unpack_from(">II", content, at + 4 + 4 + 8)
        else:
            return None
    except struct.error:
        return None
    return duration / timescale if timescale else None
