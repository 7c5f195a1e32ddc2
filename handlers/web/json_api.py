"""The JSON shape every staff API answer shares: errors as ``{"error": code, "message": …}`` and JSON object bodies.

``error`` is returned by a handler; ``error_exception`` is raised from a helper deep in a handler (aiohttp turns
it into the same answer); ``json_object`` reads the request's body, which must be a JSON object.
"""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

NOT_AN_OBJECT = "Send a JSON object."


def error(status: int, code: str, message: str, **extra: Any) -> web.Response:
    """An error answer: ``{"error": code, "message": message, **extra}`` with the HTTP ``status``."""
    return web.json_response({"error": code, "message": message, **extra}, status=status)


def error_exception(exc_type: type[web.HTTPError], code: str, message: str) -> web.HTTPError:
    """The same error as :func:`error`, as an aiohttp HTTP exception to raise (``exc_type`` sets the status)."""
    return exc_type(text=json.dumps({"error": code, "message": message}), content_type="application/json")


async def json_object(request: web.Request, *, code: str = "bad_json", not_json: str = NOT_AN_OBJECT) -> dict[str, Any]:
    """The request's body, a JSON object; otherwise raise a 400 with ``code``.

    Args:
        request: the request.
        code: the error code of the 400 answer.
        not_json: its message when the body is not JSON at all (when it is JSON but not an object:
            "Send a JSON object.").
    """
    try:
        body = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):  # RecursionError: nested too deep
        raise error_exception(web.HTTPBadRequest, code, not_json) from None
    if not isinstance(body, dict):
        raise error_exception(web.HTTPBadRequest, code, NOT_AN_OBJECT)
    return body
