"""Attachment limits: at most N files of at most M MB each, only JPEG, PNG or PDF (judged by content)."""

import pytest
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import translator
from models.cases.attachments import AttachmentRefused, discard_unfiled, sniff_type, store_attachment
from models.cases.limits import CaseLimits
from models.cases.tables import CaseAttachment
from tests.auxil.case_files import ZIP, jpeg_header, pdf, png
from tests.auxil.case_people import Cast

LIMITS = CaseLimits(cases_per_day=5, max_attachments=2, max_attachment_bytes=1024)


def test_types_are_judged_by_content_not_by_name() -> None:
    assert sniff_type(png()) == "image/png"
    assert sniff_type(jpeg_header()) == "image/jpeg"
    assert sniff_type(pdf()) == "application/pdf"
    assert sniff_type(ZIP) is None
    assert sniff_type(b"MZ\x90\x00 an .exe renamed to photo.jpg") is None


async def test_a_file_is_stored_with_size_type_and_hash(session: AsyncSession, cast: Cast) -> None:
    stored = await store_attachment(
        session=session, person_id=cast.joao.id, content=png(), file_name="../../etc/foto.PNG", limits=LIMITS,
        already=[],
    )
    assert (stored.mime_type, stored.size, len(stored.sha256), stored.case_id) == ("image/png", len(png()), 64, None)
    assert stored.file_name == "anexo.png"  # neither the sender's name nor path tricks are kept
    assert stored.content == png()


async def test_wrong_type_too_big_too_many_and_twice_are_refused(session: AsyncSession, cast: Cast) -> None:
    first = await store_attachment(session=session, person_id=cast.joao.id, content=png(seed=1), file_name="a.png",
                                   limits=LIMITS, already=[])
    with pytest.raises(AttachmentRefused, match="only accept"):
        await store_attachment(session=session, person_id=cast.joao.id, content=ZIP, file_name="a.zip",
                               limits=LIMITS, already=[first.id])
    with pytest.raises(AttachmentRefused, match="too big"):
        await store_attachment(session=session, person_id=cast.joao.id, content=pdf("x" * 2000), file_name="b.pdf",
                               limits=LIMITS, already=[first.id])
    with pytest.raises(AttachmentRefused, match="already sent"):
        await store_attachment(session=session, person_id=cast.joao.id, content=png(seed=1), file_name="c.png",
                               limits=LIMITS, already=[first.id])
    second = await store_attachment(session=session, person_id=cast.joao.id, content=pdf(), file_name="d.pdf",
                                    limits=LIMITS, already=[first.id])
    with pytest.raises(AttachmentRefused) as caught:
        await store_attachment(session=session, person_id=cast.joao.id, content=png(seed=3), file_name="e.png",
                               limits=LIMITS, already=[first.id, second.id])
    assert "at most 2 files" in caught.value.render(translator("en"))
    kept = (await session.exec(select(CaseAttachment))).all()
    assert len(kept) == 2  # refusals kept nothing, and lost nothing


async def test_files_of_a_cancelled_form_are_discarded(session: AsyncSession, cast: Cast) -> None:
    await store_attachment(session=session, person_id=cast.joao.id, content=png(), file_name=None, limits=LIMITS,
                           already=[])
    await store_attachment(session=session, person_id=cast.maria.id, content=png(), file_name=None, limits=LIMITS,
                           already=[])
    assert await discard_unfiled(session=session, person_id=cast.joao.id) == 1
    await session.commit()
    assert [a.person_id for a in (await session.exec(select(CaseAttachment))).all()] == [cast.maria.id]


async def test_a_file_is_cleaned_while_the_event_loop_serves_others(
    session: AsyncSession, cast: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Re-encoding a PNG of 130 KB and 40 million pixels took 2 s of CPU and 230 MB inside the event loop that
    serves every chat and page: the cleaning runs in a worker thread, so another request is answered meanwhile."""
    import asyncio
    import threading

    from models.cases import attachments

    answered = threading.Event()

    def slow_clean(content: bytes, mime: str) -> bytes:
        # On the event loop (the old code), the other request cannot run until this returns: it waits in vain.
        assert answered.wait(timeout=5), "no other request was served while the file was cleaned"
        return content

    async def other_request() -> None:
        answered.set()

    monkeypatch.setattr(attachments, "clean_file", slow_clean)
    other = asyncio.get_running_loop().create_task(other_request())
    stored = await store_attachment(session=session, person_id=cast.joao.id, content=png(), file_name=None,
                                    limits=LIMITS, already=[])
    await other
    assert stored.content == png()
