"""Balcão talks only in private chats: cases, registrations, notices and exports carry personal data.

Commands and buttons also reach a bot in group chats. One guard, registered before every area's handlers,
stops any update from a group, supergroup or channel: a command or a button gets a short answer saying why,
anything else is ignored. Nothing personal is ever shown there (LGPD Art. 6 III and VII: necessity, security).
"""

from __future__ import annotations

from telegram import Update
from telegram.constants import ChatType
from telegram.ext import ApplicationHandlerStop

from handlers.chat.context import BalcaoContext
from handlers.chat.replies import reply


def _asks_something(update: Update) -> bool:
    if update.callback_query is not None:
        return True
    message = update.effective_message
    return bool(message is not None and message.text and message.text.startswith("/"))


async def only_private_chats(update: Update, context: BalcaoContext) -> None:
    """Let private-chat updates through; answer a command or button from a group with why, and stop there."""
    chat = update.effective_chat
    if chat is None or chat.type == ChatType.PRIVATE:
        return
    if _asks_something(update):
        await reply(update, context, context.tr._("For your privacy, I answer only in a private chat with me."))
    raise ApplicationHandlerStop
