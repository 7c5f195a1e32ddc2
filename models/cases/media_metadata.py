"""Voice notes (Ogg) and videos (MP4): parsed as what they claim, and their metadata removed.

Ogg (Opus or Vorbis, read with mutagen): one logical stream, pages whose structure mutagen follows, and a
codec header mutagen recognises. The comment header (``TITLE``, ``ARTIST``, a ``METADATA_BLOCK_PICTURE``, a
location, and the encoder's vendor string) is replaced by an empty one, any data after the comments with it;
the audio packets are not touched.

MP4 (ISO BMFF): the top-level boxes must tile the file, with one ``moov`` holding ``mvhd`` and at least one
track, and mutagen must read it. Every metadata box — ``udta`` (``©xyz``, the GPS position phones write;
``©nam``, ``©ART``), ``meta`` (iTunes ``ilst``, QuickTime ``keys`` such as ``com.apple.quicktime.location``),
``uuid`` (XMP) — at any depth of ``moov`` and at the top level, and every ``free``/``skip`` box (left-over bytes
of earlier versions), becomes a ``free`` box of the same size filled with zeros, so no sample offset moves; each
track's handler name (free text) is zeroed too. The samples of every track that is neither video nor sound (a
timed metadata track: an iPhone's ``mebx`` location, a camera's GPS track; subtitles) are zeroed in ``mdat``;
the picture and the sound are not touched.
"""

from __future__ import annotations

import io
import struct

from mutagen import MutagenError
from mutagen.mp4 import MP4 as MutagenMP4
from mutagen.ogg import OggPage
from mutagen.oggopus import OggOpus
from mutagen.oggvorbis import OggVorbis

from models.cases.media import MP4, OGG
from models.cases.unreadable import UnreadableFile

_CONTAINERS = frozenset({b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts", b"dinf", b"mvex", b"moof",
                         b"traf", b"mfra"})
_METADATA = frozenset({b"udta", b"meta", b"uuid", b"free", b"skip", b"wide", b"ilst", b"Xtra"})
_MEDIA_HANDLERS = frozenset({b"vide", b"soun"})  # any other track (timed metadata, text) has its samples zeroed
_OPUS_TAGS = b"OpusTags"
_VORBIS_TAGS = b"\x03vorbis"


def _pages(content: bytes) -> list[OggPage]:
    handle = io.BytesIO(content)
    pages: list[OggPage] = []
    try:
        while handle.tell() < len(content):
            pages.append(OggPage(handle))
    except (MutagenError, EOFError, OSError, ValueError, struct.error) as exc:
        raise UnreadableFile(OGG) from exc
    if len(pages) < 3 or not pages[0].first or any(page.first for page in pages[1:]):
        raise UnreadableFile(OGG)  # a second logical stream (a chained or multiplexed file)
    if len({page.serial for page in pages}) != 1:
        raise UnreadableFile(OGG)
    return pages


def _comment_pages(pages: list[OggPage]) -> tuple[list[OggPage], list[bytes]]:
    """The pages holding the comment header (with the setup header for Vorbis), and their packets."""
    for end in range(2, len(pages)):
        chosen = pages[1:end]
        if not chosen[-1].complete:
            continue
        packets = OggPage.to_packets(chosen, strict=True)
        if packets and packets[0].startswith((_OPUS_TAGS, _VORBIS_TAGS)):
            return chosen, packets
        raise UnreadableFile(OGG)
    raise UnreadableFile(OGG)


def clean_ogg(content: bytes) -> bytes:
    """The Ogg voice note with an empty comment header.

    Raises:
        UnreadableFile: not a single-stream Ogg Opus or Vorbis file.
    """
    pages = _pages(content)
    identification = OggPage.to_packets(pages[:1], strict=True)
    if not identification or not identification[0].startswith((b"OpusHead", b"\x01vorbis")):
        raise UnreadableFile(OGG)
    old, packets = _comment_pages(pages)
    empty = struct.pack("<II", 0, 0)  # no vendor string, no comments
    packets[0] = _OPUS_TAGS + empty if packets[0].startswith(_OPUS_TAGS) else _VORBIS_TAGS + empty + b"\x01"
    new = OggPage.from_packets(packets, sequence=old[0].sequence)
    for page in new:
        page.position = 0  # header pages carry no audio
    handle = io.BytesIO(content)
    try:
        OggPage.replace(handle, old, new)
    except (MutagenError, ValueError, OSError) as exc:
        raise UnreadableFile(OGG) from exc
    cleaned = handle.getvalue()
    _check_clean_ogg(cleaned)
    return cleaned


def _check_clean_ogg(cleaned: bytes) -> None:
    _old, packets = _comment_pages(_pages(cleaned))
    if packets[0] not in (_OPUS_TAGS + b"\x00" * 8, _VORBIS_TAGS + b"\x00" * 8 + b"\x01"):
        raise UnreadableFile(OGG)
    kind = OggOpus if packets[0].startswith(_OPUS_TAGS) else OggVorbis
    try:
        audio = kind(io.BytesIO(cleaned))
    except (MutagenError, ValueError, struct.error) as exc:
        raise UnreadableFile(OGG) from exc
    if audio.tags is None or len(audio.tags) or audio.tags.vendor:
        raise UnreadableFile(OGG)


def _boxes(data: bytearray, start: int, end: int) -> list[tuple[int, int, int, bytes]]:
    """The boxes tiling ``data[start:end]``: (offset, header size, total size, type)."""
    boxes = []
    at = start
    while at < end:
        if at + 8 > end:
            raise UnreadableFile(MP4)
        size, kind = struct.unpack_from(">I4s", data, at)
        header = 8
        if size == 1:
            if at + 16 > end:
                raise UnreadableFile(MP4)
            (size,) = struct.unpack_from(">Q", data, at + 8)
            header = 16
        elif size == 0:
            size = end - at  # to the end of the file (the last top-level box)
        if size < header or at + size > end:
            raise UnreadableFile(MP4)
        boxes.append((at, header, size, kind))
        at += size
    return boxes


def _blank(data: bytearray, at: int, size: int) -> None:
    """Turn a box into a ``free`` box of the same size, its content zeros."""
    if size >= 1 << 32:
        data[at : at + 16] = struct.pack(">I4sQ", 1, b"free", size)
        data[at + 16 : at + size] = bytes(size - 16)
    else:
        data[at : at + 8] = struct.pack(">I4s", size, b"free")
        data[at + 8 : at + size] = bytes(size - 8)


def _find(data: bytearray, start: int, end: int, path: tuple[bytes, ...]) -> tuple[int, int] | None:
    """The content (start, end) of the box at ``path`` under ``data[start:end]``, or None."""
    for at, header, size, kind in _boxes(data, start, end):
        if kind == path[0]:
            return (at + header, at + size) if len(path) == 1 else _find(data, at + header, at + size, path[1:])
    return None


def _table(data: bytearray, box: tuple[int, int] | None, width: int, skip: int = 4) -> list[tuple[int, ...]]:
    """The entries of a full box's table (after version/flags, ``skip`` bytes, and a 32-bit count)."""
    if box is None:
        raise UnreadableFile(MP4)
    start, end = box
    (count,) = struct.unpack_from(">I", data, start + skip)
    fmt = {4: ">I", 8: ">Q", 12: ">III"}[width]
    if start + skip + 4 + count * width > end:
        raise UnreadableFile(MP4)
    return [struct.unpack_from(fmt, data, start + skip + 4 + n * width) for n in range(count)]


def _blank_samples(data: bytearray, track: tuple[int, int]) -> None:
    """Zero a timed metadata track's samples in ``mdat`` (an iPhone's ``mebx`` location, a GPS track)."""
    table = _find(data, track[0], track[1], (b"mdia", b"minf", b"stbl"))
    if table is None:
        raise UnreadableFile(MP4)
    sizes_box = _find(data, *table, (b"stsz",))
    if sizes_box is None:
        raise UnreadableFile(MP4)
    (fixed,) = struct.unpack_from(">I", data, sizes_box[0] + 4)
    sizes = [s[0] for s in _table(data, sizes_box, 4, skip=8)] if fixed == 0 else \
        [fixed] * struct.unpack_from(">I", data, sizes_box[0] + 8)[0]
    chunks_box = _find(data, *table, (b"stco",))
    offsets = [o[0] for o in (_table(data, chunks_box, 4) if chunks_box else _table(data, _find(
        data, *table, (b"co64",)), 8))]
    runs = _table(data, _find(data, *table, (b"stsc",)), 12)
    sample = 0
    for number, offset in enumerate(offsets, start=1):
        per_chunk = next((run[1] for run in reversed(runs) if run[0] <= number), 0)
        for _ in range(per_chunk):
            if sample >= len(sizes):
                return
            if offset + sizes[sample] > len(data):
                raise UnreadableFile(MP4)
            data[offset : offset + sizes[sample]] = bytes(sizes[sample])
            offset += sizes[sample]
            sample += 1


def _clean_boxes(data: bytearray, start: int, end: int) -> int:
    """Blank the metadata boxes under ``data[start:end]``; returns how many tracks it holds."""
    tracks = 0
    for at, header, size, kind in _boxes(data, start, end):
        if kind in _METADATA:
            _blank(data, at, size)
        elif kind == b"hdlr" and size >= header + 24:
            data[at + header + 24 : at + size] = bytes(size - header - 24)  # the handler's name, free text
        elif kind == b"trak":
            tracks += 1
            handler = _find(data, at + header, at + size, (b"mdia", b"hdlr"))
            if handler is None:
                raise UnreadableFile(MP4)
            if bytes(data[handler[0] + 8 : handler[0] + 12]) not in _MEDIA_HANDLERS:
                _blank_samples(data, (at + header, at + size))
            _clean_boxes(data, at + header, at + size)
        elif kind in _CONTAINERS:
            tracks += _clean_boxes(data, at + header, at + size)
    return tracks


def clean_mp4(content: bytes) -> bytes:
    """The MP4 video with every metadata box blanked in place.

    Raises:
        UnreadableFile: the boxes do not tile the file, no ``moov`` with ``mvhd`` and a track, or mutagen cannot
            read it.
    """
    data = bytearray(content)
    top = _boxes(data, 0, len(data))
    kinds = [kind for *_rest, kind in top]
    if not kinds or kinds[0] != b"ftyp" or kinds.count(b"moov") != 1 or b"mdat" not in kinds:
        raise UnreadableFile(MP4)
    tracks = 0
    for at, header, size, kind in top:
        if kind in _METADATA:
            _blank(data, at, size)
        elif kind == b"moov":
            children = [child for *_rest, child in _boxes(data, at + header, at + size)]
            if b"mvhd" not in children:
                raise UnreadableFile(MP4)
            tracks += _clean_boxes(data, at + header, at + size)
    if tracks == 0:
        raise UnreadableFile(MP4)
    cleaned = bytes(data)
    try:
        MutagenMP4(io.BytesIO(cleaned))
    except (MutagenError, ValueError, struct.error) as exc:
        raise UnreadableFile(MP4) from exc
    return cleaned
