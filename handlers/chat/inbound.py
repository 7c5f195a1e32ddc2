"""The per-person inbound limit at the update entry point (before the person is loaded, after the private-chat guard).

:class:`core.inbound_limit.InboundLimiter` decides; this handler answers the first update over the limit once, in the
person's language, and stops every update over it (nothing is read from or written to the database for them).
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import ApplicationHandlerStop

from core.i18n import negotiate_locale, translator
from core.inbound_limit import InboundLimiter, Verdict
from handlers.chat.context import BalcaoContext

logger = logging.getLogger("balcao.chat.inbound")


class InboundGate:
    """A ``TypeHandler`` callback holding one limiter per application (created on the first update)."""

    def __init__(self) -> None:
        self.limiter: InboundLimiter | None = None

    async def __call__(self, update: Update, context: BalcaoContext) -> None:
        """Let an update through, or answer once and stop it when its person is over the limit.

        Raises:
            ApplicationHandlerStop: the update is over the limit.
        """
        who = update.effective_user or update.effective_chat
        if who is None:
            return
        person = who.id
        if self.limiter is None:
            self.limiter = InboundLimiter(context.settings.inbound_updates_per_minute)
        verdict = self.limiter.check(person)
        if verdict is Verdict.ALLOW:
            return
        if verdict is Verdict.WARN:
            logger.info("inbound limit reached; dropping the excess for a minute")  # no id: nobody is named
            await _answer_once(update, context)
        raise ApplicationHandlerStop


async def _answer_once(update: Update, context: BalcaoContext) -> None:
    user = update.effective_user
    tr = translator(negotiate_locale(user.language_code if user else None), context.settings.timezone)
    text = tr._("You are sending messages faster than I can read. Wait a minute and go on: what you already "
                "entered is kept.")
    try:
        if update.callback_query is not None:
            await update.callback_query.answer(text, show_alert=True)
        elif update.effective_chat is not None:
            await context.bot.send_message(chat_id=update.effective_chat.id, text=text)
    except TelegramError as exc:
        logger.warning("could not answer a flood: %s", type(exc).__name__)
