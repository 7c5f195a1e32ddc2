"""How a citizen's file leaves the server: as a download that runs nothing with the rights of the page's origin.

A citizen's PDF or a file posing as one may carry a script; opened inline on the console's origin it would run with
the clerk's session. Every citizen's file (console and staff API) is therefore served with
``Content-Disposition: attachment`` (the browser saves it, never renders it on our origin),
``Content-Security-Policy: sandbox`` (should anything render it anyway, it runs in an opaque origin with no script),
and ``X-Content-Type-Options: nosniff`` (it is never read as another type). Photos are shown in the page only as
previews drawn again from their pixels (:mod:`models.cases.previews`).
"""

from __future__ import annotations

from aiohttp import web

from models.cases.limits import ALLOWED_TYPES
from models.cases.media import EXTENSIONS

SANDBOX = "sandbox; default-src 'none'; img-src 'self' data:; media-src 'self'"
"""The CSP of every citizen's file: an opaque origin, no script, no form, no frame, no plugin."""


def citizen_file(content: bytes, *, mime_type: str, file_name: str, sha256: str | None = None,
                 inline: bool = False) -> web.Response:
    """A citizen's file as a sandboxed response (a download unless ``inline``, which previews and media use).

    Args:
        content: the bytes.
        mime_type: the stored type (anything Balcão does not accept is sent as ``application/octet-stream``).
        file_name: the neutral download name (``<protocol>-anexo-<n>.<ext>``, never the sender's).
        sha256: the stored digest, sent as ``X-Content-SHA256``.
        inline: a preview drawn by Balcão itself, or audio played by the page's player.
    """
    known = mime_type in ALLOWED_TYPES or mime_type in EXTENSIONS
    headers = {
        "Content-Disposition": f'{"inline" if inline else "attachment"}; filename="{file_name}"',
        "Content-Security-Policy": SANDBOX,
        "X-Content-Type-Options": "nosniff",
        "Cross-Origin-Resource-Policy": "same-origin",
    }
    if sha256 is not None:
        headers["X-Content-SHA256"] = sha256
    return web.Response(body=content, content_type=mime_type if known else "application/octet-stream",
                        headers=headers)
