"""The registry of chat commands: names (Portuguese first, English aliases), menu labels and audiences.

Each area module declares its commands with :func:`chat_command`; the application factory turns them into
PTB handlers, main-menu buttons (``cmd:<name>``) and the per-language command menus (setMyCommands).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from telegram import Update

from handlers.chat.context import BalcaoContext
from models.people import Role
from models.rulebooks.catalogue import RulebookId

Callback = Callable[[Update, BalcaoContext], Coroutine[Any, Any, None]]


@dataclass(frozen=True, slots=True)
class ChatCommand:
    """A slash command and the menu button that does the same."""

    name: str
    aliases: tuple[str, ...]
    description: str  # English msgid, translated when the menu is set
    callback: Callback
    menu_label: str | None  # msgid of the main-menu button; None: not in the main menu
    staff_roles: frozenset[Role] | None  # None: everyone; else staff with one of these roles
    order: int
    rulebook: RulebookId | None = None  # the law the journey serves: in the menu only where it is in force


COMMANDS: dict[str, ChatCommand] = {}


def chat_command(
    name: str,
    *,
    description: str,
    aliases: tuple[str, ...] = (),
    menu_label: str | None = None,
    staff_roles: frozenset[Role] | None = None,
    order: int = 100,
    rulebook: RulebookId | None = None,
) -> Callable[[Callback], Callback]:
    """Register a handler as ``/name`` (and aliases) and, with ``menu_label``, as a main-menu button.

    Args:
        name: the Portuguese command, without the slash (``"situacao"``).
        description: English msgid (mark it with ``N_``) shown in Telegram's command menu.
        aliases: other names (``("status",)``).
        menu_label: English msgid of the main-menu button, if the command is a journey of its own.
        staff_roles: roles allowed (the handler must still check the role with ``require_role``).
        order: position in menus (smaller first).
        rulebook: the law the journey serves (``"sapezal-1533"`` for the driver's); its menu button is shown
            only to people whose municipality has that law in force (CF Art. 30 I: each city its own laws).
    """

    def decorate(callback: Callback) -> Callback:
        if name in COMMANDS:
            raise ValueError(f"command /{name} registered twice")
        COMMANDS[name] = ChatCommand(
            name=name,
            aliases=aliases,
            description=description,
            callback=callback,
            menu_label=menu_label,
            staff_roles=staff_roles,
            order=order,
            rulebook=rulebook,
        )
        return callback

    return decorate


def public_commands() -> list[ChatCommand]:
    """Commands for everyone, in menu order."""
    return sorted((c for c in COMMANDS.values() if c.staff_roles is None), key=lambda c: c.order)


def staff_commands() -> list[ChatCommand]:
    """Staff-only commands, in menu order."""
    return sorted((c for c in COMMANDS.values() if c.staff_roles is not None), key=lambda c: c.order)
