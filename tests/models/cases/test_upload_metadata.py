"""Issue 23, item 4: metadata naming and placing the author survived in five ordinary formats, and a file was judged
by its first bytes only. Each format gets metadata written by a real tool (exiftool; mutagen for Ogg), goes through
the intake (:func:`store_attachment`), and must come out with none of it — name, "Sigiloso", GPS — and still parse
as what it is; files that only start like an accepted type are refused."""

from __future__ import annotations

import io
import re
from typing import Any

import pikepdf
import pytest
from mutagen.mp4 import MP4
from mutagen.oggopus import OggOpus
from PIL import Image
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import translator
from models.cases.attachments import AttachmentRefused, store_attachment
from models.cases.file_metadata import clean_file
from models.cases.limits import CaseLimits
from tests.auxil import exiftool
from tests.auxil.case_files import VIDEO_SAMPLE, mp4, ogg, pdf
from tests.auxil.case_people import Cast

LIMITS = CaseLimits(cases_per_day=5, max_attachments=5, max_attachment_bytes=10 * 1024 * 1024, max_voice_seconds=60,
                    max_video_seconds=60)
NAME = "Joaquim Sigiloso Ferreira"
AUTHOR = [f"-Artist={NAME}", f"-Author={NAME}", f"-Creator={NAME}", "-Title=Sigiloso", f"-XMP-dc:Creator={NAME}",
          "-Comment=Sigiloso", "-GPSLatitude=13.5400", "-GPSLatitudeRef=S", "-GPSLongitude=58.8100",
          "-GPSLongitudeRef=W"]
PERSONAL = re.compile(r"Joaquim|Sigiloso|13 deg 32|58 deg 48|13\.54|58\.81", re.IGNORECASE)


def _picture(kind: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (32, 24), (200, 30, 40)).save(out, format=kind)
    return out.getvalue()


def _pixels(content: bytes) -> bytes:
    with Image.open(io.BytesIO(content)) as image:
        return image.convert("RGB").tobytes()


def _jpeg() -> bytes:
    return exiftool.written(_picture("JPEG"), "jpg", *AUTHOR, f"-IPTC:By-line={NAME}", "-IPTC:City=Sapezal",
                            "-Photoshop:CopyrightFlag=True", f"-ICC_Profile:ProfileDescription={NAME}")


def _png() -> bytes:
    return exiftool.written(_picture("PNG"), "png", *AUTHOR, f"-PNG:Author={NAME}", "-PNG:Comment=Sigiloso")


def _pdf() -> bytes:  # exiftool writes an incremental update: the old revision stays in the file
    return exiftool.written(pdf(), "pdf", f"-PDF:Author={NAME}", "-PDF:Title=Sigiloso", f"-XMP-dc:Creator={NAME}",
                            "-XMP-exif:GPSLatitude=13.54", "-XMP-exif:GPSLongitude=58.81")


def _mp4() -> bytes:
    return exiftool.written(mp4(12), "mp4", "-Title=Sigiloso", f"-XMP-dc:Creator={NAME}", f"-Keys:Author={NAME}",
                            f"-UserData:Author={NAME}", "-Keys:GPSCoordinates=-13.54, -58.81, 0",
                            "-UserData:GPSCoordinates=-13.54, -58.81", f"-ItemList:Artist={NAME}")


def _ogg() -> bytes:
    audio = io.BytesIO(ogg(8))
    tagged = OggOpus(audio)
    tagged["ARTIST"], tagged["TITLE"], tagged["LOCATION"] = NAME, "Sigiloso", "-13.54, -58.81"
    tagged.save(audio)
    return audio.getvalue()


FORMATS: dict[str, tuple[Any, str, str]] = {
    "JPEG": (_jpeg, "jpg", "image/jpeg"), "PNG": (_png, "png", "image/png"), "PDF": (_pdf, "pdf", "application/pdf"),
    "MP4": (_mp4, "mp4", "video/mp4"), "Ogg": (_ogg, "ogg", "audio/ogg"),
}


def _found(content: bytes, suffix: str) -> list[str]:
    tags = exiftool.read(content, suffix)
    return [f"{key}={value}" for key, value in tags.items()
            if not key.startswith(("System:", "SourceFile", "ExifTool:")) and PERSONAL.search(str(value))]


def _parses(content: bytes, mime: str) -> None:
    if mime.startswith("image/"):
        with Image.open(io.BytesIO(content)) as image:
            image.load()
    elif mime == "application/pdf":
        assert len(pikepdf.open(io.BytesIO(content)).pages) == 1
    elif mime == "video/mp4":
        assert MP4(io.BytesIO(content)).info.length == pytest.approx(12)
    else:
        assert OggOpus(io.BytesIO(content)).tags is not None


@pytest.mark.parametrize("kind", list(FORMATS))
async def test_metadata_written_by_a_real_tool_is_gone_after_intake(session: AsyncSession, cast: Cast,
                                                                    kind: str) -> None:
    make, suffix, mime = FORMATS[kind]
    original = make()
    assert _found(original, suffix) or PERSONAL.search(original.decode("latin-1")), "the tool wrote nothing"
    stored = await store_attachment(session=session, person_id=cast.joao.id, content=original,
                                    file_name=f"{NAME}.{suffix}", limits=LIMITS, already=[])
    assert stored.mime_type == mime
    assert not PERSONAL.search(stored.content.decode("latin-1")), kind  # not a byte of it, in any block or revision
    assert not _found(stored.content, suffix), kind
    _parses(stored.content, mime)
    if mime.startswith("image/"):
        assert _pixels(stored.content) == _pixels(original)  # lossless: the evidence is the same picture


def test_a_jpeg_whose_segments_cannot_be_followed_is_re_encoded_without_its_exif() -> None:
    """The old code kept every byte after a segment it could not follow: a bad length before the EXIF kept it."""
    good = _jpeg()
    broken = good[:2] + b"\xff\xe3\x00\x01" + good[2:]  # an APP3 whose length (1) is impossible
    cleaned = clean_file(broken, "image/jpeg")
    assert not PERSONAL.search(cleaned.decode("latin-1")) and not _found(cleaned, "jpg")
    with Image.open(io.BytesIO(cleaned)) as image:
        assert image.size == (32, 24)


def test_a_videos_timed_metadata_track_is_zeroed_and_its_picture_kept() -> None:
    """An iPhone writes the place into a timed metadata track (``mebx``) inside ``mdat``, not into a box."""
    video = mp4(12, metadata_sample=b"com.apple.quicktime.location.ISO6709 -13.5400-058.8100/ Joaquim Sigiloso")
    cleaned = clean_file(video, "video/mp4")
    assert not PERSONAL.search(cleaned.decode("latin-1")) and len(cleaned) == len(video)
    assert VIDEO_SAMPLE in cleaned and MP4(io.BytesIO(cleaned)).info.length == pytest.approx(12)


def test_what_follows_the_end_of_a_picture_is_left_out() -> None:
    trailer = b"\x00SEFH Joaquim Sigiloso GPS -13.54,-58.81"
    for make, mime in ((_jpeg, "image/jpeg"), (_png, "image/png")):
        cleaned = clean_file(make() + trailer, mime)
        assert not PERSONAL.search(cleaned.decode("latin-1")), mime


HOSTILE = {
    "a PDF header followed by an HTML page": b"%PDF-1.7\n<html><body><script>alert(1)</script></body></html>\n",
    "a PNG signature followed by garbage": b"\x89PNG\r\n\x1a\n" + b"<html>" * 20,
    "a JPEG start followed by garbage": b"\xff\xd8\xff\xe0" + b"<script>alert(1)</script>" * 4,
    "an Ogg capture pattern followed by garbage": b"OggS" + b"\x00" * 40,
    "an ftyp box followed by garbage": b"\x00\x00\x00\x14ftypisom\x00\x00\x02\x00isom" + b"<html>" * 10,
    "a PDF with no page": pdf()[:9] + b"1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages "
                          b"/Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n",
}


@pytest.mark.parametrize("wording", list(HOSTILE))
async def test_a_file_that_only_starts_like_an_accepted_type_is_refused(session: AsyncSession, cast: Cast,
                                                                       wording: str) -> None:
    with pytest.raises(AttachmentRefused) as caught:
        await store_attachment(session=session, person_id=cast.joao.id, content=HOSTILE[wording], file_name="x",
                               limits=LIMITS, already=[])
    assert caught.value.render(translator("pt_BR")) != caught.value.render(translator("en"))  # translated
