"""Previews of citizens' photos for the console: the picture drawn again from its pixels, nothing else of the file.

A citizen's file is never shown as sent in a staff page: the console serves it only as a download, sandboxed
(``handlers.web.console.cases``). A photo is also shown in the case page, and that image is this preview: Pillow
decodes it and writes a new PNG from the pixels alone (no metadata, no trailing bytes, no second format hidden
behind the first), at most :data:`MAX_SIDE` pixels on a side.
"""

from __future__ import annotations

import io

from PIL import Image, ImageOps, UnidentifiedImageError

MAX_SIDE = 1600
"""Longest side of a preview, in pixels (enough to read a plate or a sign on a laptop screen)."""
PREVIEW_TYPES = frozenset({"image/jpeg", "image/png"})
"""The stored types that get a preview."""
Image.MAX_IMAGE_PIXELS = 40_000_000  # a decompression bomb is refused, not drawn


class NoPreview(ValueError):
    """The file is not an image Pillow can draw (or too large to): no preview, the download only."""


def image_preview(content: bytes) -> bytes:
    """A PNG drawn again from the photo's pixels, the EXIF orientation applied, at most :data:`MAX_SIDE` a side.

    Raises:
        NoPreview: the bytes are not a picture Pillow can decode.
    """
    try:
        with Image.open(io.BytesIO(content)) as source:
            source.load()
            picture = ImageOps.exif_transpose(source)
            picture = picture.convert("RGBA" if "A" in picture.getbands() else "RGB")
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError) as refused:
        raise NoPreview(str(refused)) from refused
    picture.thumbnail((MAX_SIDE, MAX_SIDE))
    out = io.BytesIO()
    picture.save(out, format="PNG", optimize=False)
    return out.getvalue()
