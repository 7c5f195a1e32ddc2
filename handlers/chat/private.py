"""Balcão talks only in private chats: cases, registrations, notices and exports carry personal data.

Commands and buttons also reach a bot in group chats, channels and through anonymous group admins (sent as
``GroupAnonymousBot`` on behalf of the group). One guard, registered before every other handler (even the
one that loads the person), stops every update that is not provably from a private chat, whatever its
shape: a command or a button gets one short answer saying why, anything else is ignored. Nothing personal
is ever shown there (LGPD Art. 6 III and VII: necessity, security).
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.constants import ChatType
from telegram.error import TelegramError
from telegram.ext import ApplicationHandlerStop

from core.i18n import negotiate_locale, translator
from handlers.chat.context import BalcaoContext

logger = logging.getLogger("balcao.chat.private")


def from_private_chat(update: Update) -> bool:
    """Whether the update comes from a person in their private chat with the bot (and from nowhere else)."""
    chat = update.effective_chat
    if chat is None or chat.type != ChatType.PRIVATE:
        return False
    message = update.effective_message
    if message is not None and message.sender_chat is not None:
        return False
    user = update.effective_user
    return user is not None and not user.is_bot and user.id == chat.id


def _asks_something(update: Update) -> bool:
    if update.callback_query is not None:
        return True
    message = update.effective_message
    return bool(message is not None and message.text and message.text.startswith("/"))


async def only_private_chats(update: Update, context: BalcaoContext) -> None:
    """Let private-chat updates through; answer a command or button from anywhere else with why, and stop there.

    Raises:
        ApplicationHandlerStop: always, for an update that is not from a private chat.
    """
    if from_private_chat(update):
        return
    try:
        chat = update.effective_chat
        if chat is not None and chat.type != ChatType.CHANNEL and _asks_something(update):
            user = update.effective_user
            tr = translator(negotiate_locale(user.language_code if user else None), context.settings.timezone)
            text = tr._("For your privacy, I answer only in a private chat with me.")
            if update.callback_query is not None:
                await update.callback_query.answer(text, show_alert=True)
            else:
                await context.bot.send_message(chat_id=chat.id, text=text)
    except TelegramError as exc:
        logger.warning("could not answer an update from a %s chat: %s", getattr(update.effective_chat, "type", None),
                       type(exc).__name__)
    raise ApplicationHandlerStop
