"""A reply the Bot API refused for now (429, 5xx, network) is not lost: it goes to the outbox.

The person's answer was already saved; only the message telling them failed. The reply, already rendered in
their language, becomes an outbox row that the dispatcher sends with its own retry rules
(:mod:`notifications.retry_policy`), surviving a restart like every other queued message.
"""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession
from telegram import InlineKeyboardMarkup
from telegram.error import TelegramError

from core.i18n import Translator
from models.outbox import enqueue
from models.people import Person
from notifications.rendering import Rendered, renderer

CHAT_REPLY = "chat.reply"


class ReplyDeferred(TelegramError):
    """Raised instead of the Bot API error once the reply is queued in the outbox (the handler stops there)."""


def callback_buttons(markup: object) -> list[list[tuple[str, str]]]:
    """The callback buttons of an inline keyboard (others, like URL buttons, cannot be queued)."""
    if not isinstance(markup, InlineKeyboardMarkup):
        return []
    rows = []
    for row in markup.inline_keyboard:
        buttons = [(b.text, b.callback_data) for b in row if isinstance(b.callback_data, str)]
        if buttons:
            rows.append(buttons)
    return rows


async def defer_reply(
    *, session: AsyncSession, chat_id: int, text: str, buttons: list[list[tuple[str, str]]], not_before: dt.datetime
) -> bool:
    """Queue a reply for the person whose private chat is ``chat_id`` (committed).

    Returns:
        True when queued; False when the chat is nobody's private chat with the bot.
    """
    person = (await session.exec(select(Person).where(Person.chat_id == chat_id))).first()
    if person is None or person.id is None:
        return False
    await enqueue(
        session=session,
        person_id=person.id,
        kind=CHAT_REPLY,
        dedupe_key=f"{CHAT_REPLY}:{chat_id}:{secrets.token_hex(8)}",
        payload={"text": text, "buttons": [[list(button) for button in row] for row in buttons]},
        not_before=not_before,
        mandatory=True,
    )
    await session.commit()
    return True


@renderer(CHAT_REPLY)
def render_chat_reply(payload: dict[str, Any], tr: Translator) -> Rendered:
    """The queued reply as it was written (already in the person's language)."""
    buttons = [[(str(label), str(data)) for label, data in row] for row in payload.get("buttons", [])]
    return Rendered(text=str(payload["text"]), buttons=buttons)
