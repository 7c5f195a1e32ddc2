"""Deep links: ``https://t.me/<bot>?start=<payload>`` opens the bot with ``/start <payload>``.

Areas register a payload prefix (``link-`` for a driver's one-time link, ``case-`` to follow a case, …).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from telegram import Update

from handlers.chat.context import BalcaoContext

DeepLinkHandler = Callable[[Update, BalcaoContext, str], Awaitable[None]]

DEEP_LINKS: dict[str, DeepLinkHandler] = {}


def deep_link(prefix: str) -> Callable[[DeepLinkHandler], DeepLinkHandler]:
    """Register the handler of ``/start <prefix><rest>``; it receives ``rest``."""

    def decorate(handler: DeepLinkHandler) -> DeepLinkHandler:
        if prefix in DEEP_LINKS:
            raise ValueError(f"deep link prefix {prefix!r} registered twice")
        DEEP_LINKS[prefix] = handler
        return handler

    return decorate


def find_deep_link(payload: str) -> tuple[DeepLinkHandler, str] | None:
    """The handler for a payload and the rest of the payload after its prefix."""
    for prefix, handler in DEEP_LINKS.items():
        if payload.startswith(prefix):
            return handler, payload[len(prefix) :]
    return None
