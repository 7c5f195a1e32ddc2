"""LGPD: cases, the driver registration and the personal-data export never open in a group chat."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from telegram.constants import ChatType

from bot.i18n import translator
from handlers.chat import drivers, follow, my_data, representation
from handlers.chat.commands import COMMANDS


@pytest.mark.parametrize("name", ["situacao", "vincular", "desvincular", "representacao", "ouvidoria", "acompanhar",
                                  "meusdados", "pendencias"])
async def test_a_command_in_a_group_says_why_and_shows_nothing(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The context has no database: a screen built anyway would fail, and say something else."""
    said: list[str] = []

    async def fake_respond(_update: Any, _context: Any, text: str, **_kwargs: Any) -> None:
        said.append(text)

    monkeypatch.setattr(representation, "respond", fake_respond)
    context = SimpleNamespace(tr=translator("pt_BR"), args=[])
    group = SimpleNamespace(effective_chat=SimpleNamespace(type=ChatType.GROUP), callback_query=None)
    await COMMANDS[name].callback(group, context)  # type: ignore[arg-type]
    assert said == ["Por privacidade, só respondo isso numa conversa privada comigo."]


async def test_a_button_or_a_deep_link_in_a_group_shows_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    said: list[str] = []

    async def fake_respond(_update: Any, _context: Any, text: str, **_kwargs: Any) -> None:
        said.append(text)

    monkeypatch.setattr(representation, "respond", fake_respond)
    context = SimpleNamespace(tr=translator("en"), args=[])
    group = SimpleNamespace(effective_chat=SimpleNamespace(type=ChatType.SUPERGROUP),
                            callback_query=SimpleNamespace(data="dados:export"))
    guarded = representation.private_only(my_data.on_button)
    await guarded(group, context)  # type: ignore[arg-type]
    await follow.follow_link(group, context, "REP-2026-000001")  # type: ignore[arg-type]
    await drivers.link_deep_link(group, context, "ABCDEFGHJK")  # type: ignore[arg-type]
    assert said == ["For your privacy, I answer this only in a private chat with me."] * 3
