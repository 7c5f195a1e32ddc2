"""Files sent into a form: photos (an album arrives as one update per photo), documents, voice notes, audio, videos.

Each file is checked (count and declared size before the download; type, size and a recording's length on the
content after it, in ``models.cases.attachments``) and kept with the caption typed under it. Per-person update
ordering (``bot.ordering``) makes the photos of an album arrive here one after another, so none is lost.

This is the engine's file intake, so it lives in the engine: a file is only ever taken by a form's ``files`` step
(``inputs``), which adds its id to the draft; this module downloads and keeps the file (or hands it to
``Form.keep_file``) and never touches the draft itself. Areas use only :func:`recordings_line`, in their questions.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from telegram import Message, Update

from handlers.chat.context import BalcaoContext
from handlers.chat.replies import respond
from models.cases.attachments import AttachmentRefused, check_before_download, store_attachment
from models.cases.limits import CaseLimits


def _sent_file(message: Message) -> tuple[int | None, str | None, str] | None:
    """``(declared size, file name, file id)`` of the file a message carries, or None."""
    if message.photo:
        photo = message.photo[-1]
        return photo.file_size, "foto.jpg", photo.file_id
    if message.document is not None:
        return message.document.file_size, message.document.file_name, message.document.file_id
    if message.voice is not None:
        return message.voice.file_size, "audio.ogg", message.voice.file_id
    if message.audio is not None:  # a recording sent as a file (the content decides whether it is taken)
        return message.audio.file_size, message.audio.file_name or "audio.ogg", message.audio.file_id
    if message.video is not None:
        return message.video.file_size, message.video.file_name or "video.mp4", message.video.file_id
    return None


Keeper = Callable[[BalcaoContext, bytes, "str | None", "str | None", list[int]], Awaitable[int]]
"""Keeps a downloaded file for a form that files elsewhere than a case (a defence's files):
``(context, content, file name, caption, ids already kept) → its id``; raises ``AttachmentRefused``."""


async def receive_file(
    update: Update, context: BalcaoContext, already: list[int], *, keep: Keeper | None = None
) -> int | None:
    """Download the file sent now and keep it with its caption (limits checked); its id, or None if refused.

    A refusal is explained to the person; nothing already entered is touched. ``keep``: where the file is kept
    (a case's attachments by default), after the same checks before the download.
    """
    message = update.effective_message
    assert message is not None
    limits = CaseLimits.of(context.city.readings)
    sent = _sent_file(message)
    if sent is None:
        return None
    declared, name, file_id = sent
    try:
        check_before_download(declared_size=declared, count=len(already), limits=limits)
        telegram_file = await context.bot.get_file(file_id)
        content = bytes(await telegram_file.download_as_bytearray())
        if keep is not None:
            return await keep(context, content, name, message.caption, already)
        async with context.sessions() as session:
            stored = await store_attachment(session=session, person_id=context.person.id, content=content,
                                            file_name=name, limits=limits, already=already, caption=message.caption)
    except AttachmentRefused as refused:
        await respond(update, context, refused.render(context.tr))
        return None
    assert stored.id is not None
    return stored.id


def files_received(context: BalcaoContext, count: int) -> str:
    """The answer to a file received: how many so far, out of the limit."""
    limit = CaseLimits.of(context.city.readings).max_attachments
    return context.tr._("File received ({n} of {limit}). Send more, or press Done.").format(n=count, limit=limit)


def is_file(message: Message | None) -> bool:
    """Whether the message carries a photo, a document, a voice note, an audio file or a video."""
    return message is not None and _sent_file(message) is not None


def recordings_line(context: BalcaoContext) -> str:
    """The line saying voice notes and videos are taken too, with their length limits ("" when neither is)."""
    limits = CaseLimits.of(context.city.readings)
    if not (limits.max_voice_seconds and limits.max_video_seconds):
        return ""
    text = context.tr._("You can also record a voice note (up to {voice} s) or a video (up to {video} s).")
    return "\n" + text.format(voice=limits.max_voice_seconds, video=limits.max_video_seconds)
