"""Bot API error answers, shaped exactly as Telegram sends them."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """An error answer of the Bot API: ``{"ok": false, "error_code": ..., "description": ...}``.

    Args:
        error_code: the HTTP status and ``error_code`` (400, 403, 404, 409, 429, ...).
        description: Telegram's text, e.g. ``"Bad Request: chat not found"``.
        retry_after: seconds to wait, sent as ``parameters.retry_after`` (flood control).
    """

    def __init__(self, error_code: int, description: str, *, retry_after: int | None = None) -> None:
        super().__init__(description)
        self.error_code = error_code
        self.description = description
        self.retry_after = retry_after

    def payload(self) -> dict[str, Any]:
        """The JSON body Telegram answers with."""
        body: dict[str, Any] = {"ok": False, "error_code": self.error_code, "description": self.description}
        if self.retry_after is not None:
            body["parameters"] = {"retry_after": self.retry_after}
        return body


def bad_request(reason: str) -> ApiError:
    """A 400 answer; ``reason`` is the text after ``"Bad Request: "``."""
    return ApiError(400, f"Bad Request: {reason}")


def forbidden(reason: str) -> ApiError:
    """A 403 answer; ``reason`` is the text after ``"Forbidden: "``."""
    return ApiError(403, f"Forbidden: {reason}")


def conflict(reason: str) -> ApiError:
    """A 409 answer; ``reason`` is the text after ``"Conflict: "``."""
    return ApiError(409, f"Conflict: {reason}")


def too_many_requests(retry_after: int) -> ApiError:
    """A 429 flood-control answer with ``parameters.retry_after``."""
    return ApiError(429, f"Too Many Requests: retry after {retry_after}", retry_after=retry_after)


def unauthorized() -> ApiError:
    """The 401 answer to a token Telegram does not know."""
    return ApiError(401, "Unauthorized")


def not_found() -> ApiError:
    """The 404 answer to an unknown method or file."""
    return ApiError(404, "Not Found")


CHAT_NOT_FOUND = "chat not found"
BLOCKED_BY_USER = "bot was blocked by the user"
