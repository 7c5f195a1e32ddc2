"""How each kind of outbox message reads, rendered at send time in the recipient's locale.

An area registers one renderer per message kind::

    @renderer("driver.renewal", topic="renewal")
    def render_renewal(payload: dict[str, Any], tr: Translator) -> Rendered:
        ...

``topic`` names the group of optional reminders a person can mute in /lembretes; a kind without a topic
cannot be muted (and rows enqueued with ``mandatory=True`` are never muted, whatever their topic).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.i18n import Translator


@dataclass(frozen=True, slots=True)
class Rendered:
    """A message ready to send: Telegram HTML text, inline buttons, and an optional document."""

    text: str
    buttons: list[list[tuple[str, str]]] = field(default_factory=list)  # rows of (label, callback_data)
    document: tuple[str, bytes] | None = None  # (file name, content), sent after the text


Renderer = Callable[[dict[str, Any], Translator], Rendered]


@dataclass(frozen=True, slots=True)
class MessageKind:
    """A registered kind of message."""

    name: str
    render: Renderer
    topic: str | None


KINDS: dict[str, MessageKind] = {}


def renderer(kind: str, *, topic: str | None = None) -> Callable[[Renderer], Renderer]:
    """Register the renderer of a message kind.

    Args:
        kind: the ``OutboxMessage.kind`` it renders (``"<area>.<what>"``).
        topic: the mutable reminder topic it belongs to (see ``notifications.topics``), or None.
    """

    def decorate(render: Renderer) -> Renderer:
        if kind in KINDS:
            raise ValueError(f"message kind {kind!r} registered twice")
        KINDS[kind] = MessageKind(name=kind, render=render, topic=topic)
        return render

    return decorate


def render(kind: str, payload: dict[str, Any], tr: Translator) -> Rendered:
    """Render a message of a registered kind.

    Raises:
        KeyError: no renderer for that kind.
    """
    return KINDS[kind].render(payload, tr)
