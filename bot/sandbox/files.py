"""Files kept by the emulator: uploaded by the bot or sent by a user, served by ``getFile`` and downloads."""

from __future__ import annotations

import hashlib
import itertools
import mimetypes
import secrets
from dataclasses import dataclass
from typing import Any, Literal

from bot.sandbox.image_size import image_mime_type

FileKind = Literal["photo", "document", "voice", "video", "audio"]

_FILE_ID_PREFIX = {"photo": "AgACAgEAAxkBAAI", "document": "BQACAgEAAxkBAAI", "voice": "AwACAgEAAxkBAAI",
                   "video": "BAACAgEAAxkBAAI", "audio": "CQACAgEAAxkBAAI"}
_FOLDER = {"photo": "photos", "document": "documents", "voice": "voice", "video": "videos", "audio": "music"}
THUMBNAIL_SIDE = 320
"""Longest side of the small size listed first in a photo's ``PhotoSize`` array."""


@dataclass(frozen=True)
class StoredFile:
    """One file as Telegram's servers keep it.

    Attributes:
        file_id: identifier to send the file again or to call ``getFile``.
        file_unique_id: the same for the same content, across bots.
        kind: ``"photo"`` or ``"document"``.
        data: the bytes.
        file_path: the path answered by ``getFile``, downloaded at ``/file/bot<token>/<file_path>``.
        file_name: the original name of a document.
        mime_type: the MIME type (of a document, or sniffed from a photo).
        width: photo width in pixels.
        height: photo height in pixels.
    """

    file_id: str
    file_unique_id: str
    kind: FileKind
    data: bytes
    file_path: str
    file_name: str | None = None
    mime_type: str | None = None
    width: int | None = None
    height: int | None = None

    @property
    def file_size(self) -> int:
        """Size in bytes."""
        return len(self.data)

    def as_document(self) -> dict[str, Any]:
        """The Bot API ``Document`` object."""
        document: dict[str, Any] = {
            "file_id": self.file_id,
            "file_unique_id": self.file_unique_id,
            "file_size": self.file_size,
        }
        if self.file_name is not None:
            document["file_name"] = self.file_name
        if self.mime_type is not None:
            document["mime_type"] = self.mime_type
        return document

    def as_photo_size(self) -> dict[str, Any]:
        """The Bot API ``PhotoSize`` object."""
        return {
            "file_id": self.file_id,
            "file_unique_id": self.file_unique_id,
            "file_size": self.file_size,
            "width": self.width or 0,
            "height": self.height or 0,
        }

    def as_file(self) -> dict[str, Any]:
        """The Bot API ``File`` object answered by ``getFile``."""
        return {
            "file_id": self.file_id,
            "file_unique_id": self.file_unique_id,
            "file_size": self.file_size,
            "file_path": self.file_path,
        }


class FileStore:
    """Every file in memory, by ``file_id`` and by download path."""

    def __init__(self) -> None:
        self._by_id: dict[str, StoredFile] = {}
        self._by_path: dict[str, StoredFile] = {}
        self._counter = itertools.count(1)

    def add(
        self,
        kind: FileKind,
        data: bytes,
        *,
        file_name: str | None = None,
        mime_type: str | None = None,
        width: int | None = None,
        height: int | None = None,
    ) -> StoredFile:
        """Store bytes and give them a new ``file_id``.

        Args:
            kind: ``"photo"`` or ``"document"``.
            data: the content.
            file_name: a document's name.
            mime_type: a document's MIME type.
            width: a photo's width.
            height: a photo's height.

        Returns:
            The stored file.
        """
        number = next(self._counter)
        digest = hashlib.sha256(f"{kind}:{width}x{height}:".encode() + data).hexdigest()
        extension = _extension(kind, file_name, mime_type)
        stored = StoredFile(
            file_id=f"{_FILE_ID_PREFIX[kind]}{number:06d}{secrets.token_urlsafe(18)}",
            file_unique_id=f"AQAD{digest[:16]}",
            kind=kind,
            data=data,
            file_path=f"{_FOLDER[kind]}/file_{number}{extension}",
            file_name=file_name,
            mime_type=mime_type,
            width=width,
            height=height,
        )
        self._by_id[stored.file_id] = stored
        self._by_path[stored.file_path] = stored
        return stored

    def add_photo(self, data: bytes, width: int, height: int) -> list[StoredFile]:
        """Store a photo as Telegram does: a small size first when the image is large, then the original.

        The small size carries scaled dimensions but the same bytes (the emulator does not resize).

        Args:
            data: the image bytes.
            width: width in pixels.
            height: height in pixels.

        Returns:
            The sizes, smallest first (``photo[-1]`` is the largest, as bots expect).
        """
        sizes: list[StoredFile] = []
        mime_type = image_mime_type(data)
        longest = max(width, height)
        if longest > THUMBNAIL_SIDE:
            scale = THUMBNAIL_SIDE / longest
            small = (max(1, round(width * scale)), max(1, round(height * scale)))
            sizes.append(self.add("photo", data, mime_type=mime_type, width=small[0], height=small[1]))
        sizes.append(self.add("photo", data, mime_type=mime_type, width=width, height=height))
        return sizes

    def get(self, file_id: str) -> StoredFile | None:
        """The file with this ``file_id``, if any."""
        return self._by_id.get(file_id)

    def by_path(self, file_path: str) -> StoredFile | None:
        """The file downloaded at this path, if any."""
        return self._by_path.get(file_path)


def _extension(kind: FileKind, file_name: str | None, mime_type: str | None) -> str:
    if kind == "photo":
        return ".jpg"
    if file_name and "." in file_name:
        suffix = "." + file_name.rsplit(".", 1)[1]
        if suffix[1:].isalnum() and len(suffix) <= 8:
            return suffix.lower()
    if mime_type:
        return mimetypes.guess_extension(mime_type) or ""
    return ""
