"""Issue 10 item 2: metadata inside photos (EXIF position, camera owner, comments) is removed before any staff
member sees the file; the picture itself is unchanged (LGPD Art. 6 III; L13460 Art. 10 §7)."""

from __future__ import annotations

import io

import pytest
from PIL import Image, PngImagePlugin
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import cities_of
from core.settings import Settings
from models.cases.attachments import store_attachment
from models.cases.file_metadata import UnreadableFile, clean_file, strip_metadata
from models.cases.limits import CaseLimits
from models.notices.filings import store_filing_attachment
from tests.auxil.case_files import pdf
from tests.auxil.case_people import Cast

LIMITS = CaseLimits(cases_per_day=5, max_attachments=5, max_attachment_bytes=10 * 1024 * 1024)
OWNER = "Joaquim Sigiloso Ferreira"


def _jpeg_with_exif() -> bytes:
    image = Image.new("RGB", (16, 12), (200, 30, 40))
    exif = Image.Exif()
    exif[0x013B] = OWNER  # Artist
    exif[0x010F] = "PhoneMaker"  # Make
    gps = exif.get_ifd(0x8825)
    gps[1], gps[2], gps[3], gps[4] = "S", (13.0, 32.0, 33.7), "W", (58.0, 48.0, 52.2)
    out = io.BytesIO()
    image.save(out, format="JPEG", exif=exif, comment=f"foto de {OWNER}".encode(), quality=90)
    return out.getvalue()


def _png_with_text() -> bytes:
    info = PngImagePlugin.PngInfo()
    info.add_text("Author", OWNER)
    info.add_itxt("Comment", "Rua das Acácias, 45", zip=True)
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (1, 2, 3)).save(out, format="PNG", pnginfo=info)
    return out.getvalue()


def _pixels(content: bytes) -> bytes:
    with Image.open(io.BytesIO(content)) as image:
        return image.convert("RGB").tobytes()


def test_a_jpeg_loses_exif_gps_and_comments_but_not_its_picture() -> None:
    original = _jpeg_with_exif()
    with Image.open(io.BytesIO(original)) as before:
        assert before.getexif().get(0x013B) == OWNER and before.getexif().get_ifd(0x8825)
    cleaned = strip_metadata(original, "image/jpeg")
    assert OWNER.encode() not in cleaned and b"Exif" not in cleaned and b"PhoneMaker" not in cleaned
    with Image.open(io.BytesIO(cleaned)) as after:
        assert not after.getexif() and "comment" not in after.info
    assert _pixels(cleaned) == _pixels(original)  # lossless: the evidence is the same picture


def test_a_png_loses_its_text_chunks_but_not_its_picture() -> None:
    original = _png_with_text()
    cleaned = strip_metadata(original, "image/png")
    assert OWNER.encode() not in cleaned and "Acácias".encode() not in cleaned and b"iTXt" not in cleaned
    assert _pixels(cleaned) == _pixels(original)


def test_a_clean_pdf_is_written_anew_and_a_truncated_jpeg_is_not_a_picture() -> None:
    cleaned = clean_file(pdf(), "application/pdf")
    assert b"/Info" not in cleaned and b"/Metadata" not in cleaned and clean_file(cleaned, "application/pdf")
    broken = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 64
    with pytest.raises(UnreadableFile):  # issue 23: judged by its first bytes only, it was accepted
        clean_file(broken, "image/jpeg")


async def test_a_photo_sent_with_a_defence_loses_its_metadata_too(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    stored = await store_filing_attachment(session=session, city=cities_of(settings).default, person_id=cast.maria.id,
                                           content=_jpeg_with_exif(), file_name="terreno.jpg", already=[])
    assert OWNER.encode() not in stored.content and b"Exif" not in stored.content
    assert _pixels(stored.content) == _pixels(_jpeg_with_exif())


async def test_the_stored_photo_has_no_metadata_and_its_hash_is_of_what_staff_get(
    session: AsyncSession, cast: Cast
) -> None:
    import hashlib

    stored = await store_attachment(session=session, person_id=cast.joao.id, content=_jpeg_with_exif(),
                                    file_name=f"{OWNER}.jpg", limits=LIMITS, already=[])
    assert OWNER.encode() not in stored.content and OWNER not in stored.file_name
    assert stored.sha256 == hashlib.sha256(stored.content).hexdigest() and stored.size == len(stored.content)
