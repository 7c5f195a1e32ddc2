"""Attachments (photos, documents, voice notes, videos), stored in the database the moment they arrive.

A file received while a form is being filled in belongs to its sender and to no case yet
(``case_id`` empty); filing the case claims it. Limits: at most ``max_attachments`` per case, each at most
``max_attachment_bytes``, and only JPEG, PNG, PDF, Ogg voice notes and MP4 videos (each within its length
limit) — checked on the content itself (magic bytes, then the whole file parsed as that type, and the length
inside it), not on the name or the type the phone declares. Every metadata block is removed before the file is
stored (:mod:`models.cases.file_metadata`). The caption typed under a photo is kept with it.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib

from sqlalchemy import delete, or_, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_, Translator
from models.cases.file_metadata import UnreadableFile, clean_file
from models.cases.limits import ALLOWED_TYPES, CaseLimits
from models.cases.media import EXTENSIONS, MP4, OGG, media_seconds, sniff_media
from models.cases.tables import CaseAttachment
from models.drafts import Draft
from models.invalid_input import InvalidInput


class AttachmentRefused(InvalidInput):
    """A file that is not kept, with the reason. Everything else already entered stays."""


class TooManyAttachments(AttachmentRefused):
    """The case already has as many files as allowed."""

    def __init__(self, limit: int) -> None:
        super().__init__("too many attachments", n=limit)
        self.limit = limit

    def render(self, tr: Translator) -> str:
        """The explanation, with the limit."""
        return tr.ngettext(
            "You can send at most {n} file per case, so this one was not kept. Everything else is safe.",
            "You can send at most {n} files per case, so this one was not kept. Everything else is safe.",
            self.limit,
        ).format(n=self.limit)


def sniff_type(content: bytes) -> str | None:
    """The MIME type of an accepted file judged by its first bytes, or None for anything else."""
    for mime, (magic, _extension) in ALLOWED_TYPES.items():
        if content.startswith(magic):
            return mime
    return sniff_media(content)


def cleaned_or_refused(content: bytes, mime: str) -> bytes:
    """The file checked to be what its first bytes say, without metadata (:func:`clean_file`).

    Raises:
        AttachmentRefused: it does not parse as that type (a ``%PDF-`` followed by an HTML page), or cannot be
            cleaned.
    """
    try:
        return clean_file(content, mime)
    except UnreadableFile:
        raise AttachmentRefused(
            N_("This file is damaged or is not what it seems to be, so it was not kept. Everything else you entered "
               "is safe.")
        ) from None


def check_before_download(*, declared_size: int | None, count: int, limits: CaseLimits) -> None:
    """Refuse early, before downloading, a file that cannot be kept (too many, or declared too big).

    Raises:
        AttachmentRefused: with the reason.
    """
    if count >= limits.max_attachments:
        raise TooManyAttachments(limits.max_attachments)
    if declared_size is not None and declared_size > limits.max_attachment_bytes:
        raise AttachmentRefused(
            N_("This file is too big: the limit is {mb} MB per file. It was not kept; everything else is safe."),
            mb=limits.max_attachment_bytes // (1024 * 1024),
        )


def _check_length(content: bytes, mime: str, limits: CaseLimits) -> None:
    limit = {OGG: limits.max_voice_seconds, MP4: limits.max_video_seconds}.get(mime)
    if limit is None:
        return
    seconds = media_seconds(content, mime)
    if seconds is None or limit == 0:
        raise AttachmentRefused(
            N_("I could not read this recording, so it was not kept. Everything else you entered is safe.")
        )
    if seconds > limit:
        raise AttachmentRefused(
            N_("This recording is too long: the limit is {n} seconds. It was not kept; everything else is safe."),
            n=limit,
        )


def checked_file(content: bytes, limits: CaseLimits) -> tuple[str, bytes]:
    """The MIME type of a received file and its content without metadata, once it passed every content check.

    The one check of every file a citizen sends, for a case or for a defence, reclamação or appeal: the type by
    its first bytes (JPEG, PNG, PDF, an Ogg voice note or audio, an MP4 video), the whole file parsed as that type,
    and a recording's length within its limit.

    Raises:
        AttachmentRefused: not an accepted type, damaged, or a recording too long or unreadable.
    """
    mime = sniff_type(content)
    if mime is None:
        raise AttachmentRefused(
            N_(
                "I can only accept photos (JPEG or PNG) and PDF documents, so this file was not kept. "
                "Everything else you entered is safe."
            )
        )
    cleaned = cleaned_or_refused(content, mime)
    _check_length(cleaned, mime, limits)
    return mime, cleaned


def neutral_name(mime: str) -> str:
    """The stored name of every file: ``anexo.<ext>``.

    The name the phone gave is never kept: it can name the
    author (``Joaquim_Sigiloso_comprovante.pdf``) of a case whose identity is restricted (Lei 13.460/2017
    Art. 10 §7). Staff see ``<protocol>-anexo-<n>.<ext>`` (:func:`models.cases.views.attachment_name`).
    """
    return f"anexo.{ALLOWED_TYPES[mime][1] if mime in ALLOWED_TYPES else EXTENSIONS[mime]}"


async def store_attachment(
    *,
    session: AsyncSession,
    person_id: int | None,
    content: bytes,
    file_name: str | None,
    limits: CaseLimits,
    already: list[int],
    case_id: int | None = None,
    caption: str | None = None,
) -> CaseAttachment:
    """Check and keep a received file (committed).

    Args:
        session: database session.
        person_id: the sender (None for a file uploaded with an Open311 request).
        content: the downloaded bytes.
        file_name: the name the sender's phone gave, if any: not kept (see :func:`neutral_name`).
        limits: the limits in force.
        already: ids of the files already attached to this form or answer.
        case_id: the case, when the file answers a request for complementação; None in a draft.
        caption: the text the sender typed under the file, kept with it.

    Returns:
        The stored attachment.

    Raises:
        AttachmentRefused: too many, too big, not an accepted type, a recording too long or unreadable, or the
            same file sent twice.
    """
    check_before_download(declared_size=len(content), count=len(already), limits=limits)
    mime, content = await asyncio.to_thread(checked_file, content, limits)  # off the loop (large pictures)
    digest = hashlib.sha256(content).hexdigest()
    if already:
        twins = await session.exec(
            select(CaseAttachment.id).where(col(CaseAttachment.id).in_(already), CaseAttachment.sha256 == digest)
        )
        if twins.first() is not None:
            raise AttachmentRefused(N_("You already sent this file; it is kept only once."))
    attachment = CaseAttachment(
        case_id=case_id,
        person_id=person_id,
        file_name=neutral_name(mime),
        mime_type=mime,
        size=len(content),
        sha256=digest,
        content=content,
        caption=caption[:1024] if caption else None,
    )
    session.add(attachment)
    await session.commit()
    await session.refresh(attachment)
    return attachment


async def claim_attachments(
    *, session: AsyncSession, person_id: int | None, attachment_ids: list[int], case_id: int
) -> int:
    """Attach the sender's unfiled files to a case (the caller commits); return how many.

    ``person_id`` None claims files uploaded with an Open311 request (they belong to no person).
    """
    if not attachment_ids:
        return 0
    owner = col(CaseAttachment.person_id)
    result = await session.exec(
        update(CaseAttachment)
        .where(
            col(CaseAttachment.id).in_(attachment_ids),
            owner.is_(None) if person_id is None else owner == person_id,
            col(CaseAttachment.case_id).is_(None),
        )
        .values(case_id=case_id)
    )
    return int(result.rowcount)


async def discard_unfiled(*, session: AsyncSession, person_id: int) -> int:
    """Delete a person's files that never became part of a case (a cancelled form); the caller commits.

    Returns:
        How many were deleted.
    """
    result = await session.exec(
        delete(CaseAttachment).where(col(CaseAttachment.case_id).is_(None), col(CaseAttachment.person_id) == person_id)
    )
    return int(result.rowcount)


async def discard_abandoned(*, session: AsyncSession, older_than: dt.datetime) -> int:
    """Delete files of no case whose sender has no form in progress, received before ``older_than``.

    Returns:
        How many were deleted (the caller commits).
    """
    in_progress = select(Draft.person_id)
    result = await session.exec(
        delete(CaseAttachment).where(
            col(CaseAttachment.case_id).is_(None),
            col(CaseAttachment.created_at) < older_than,
            or_(col(CaseAttachment.person_id).is_(None), col(CaseAttachment.person_id).not_in(in_progress)),
        )
    )
    return int(result.rowcount)
