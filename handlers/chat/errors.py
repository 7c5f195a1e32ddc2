"""The last resort: log the error with a reference the person can quote, and tell them kindly."""

from __future__ import annotations

import logging
import secrets

from telegram import Update
from telegram.constants import ParseMode

from bot import metrics
from bot.i18n import DEFAULT_LOCALE, translator
from handlers.chat.context import BalcaoContext

logger = logging.getLogger("balcao.errors")


def new_reference() -> str:
    """A short reference like ``E-7F3A9C`` that ties the person's report to the log line."""
    return "E-" + secrets.token_hex(3).upper()


async def on_error(update: object, context: BalcaoContext) -> None:
    """Log the exception (no personal data: only ids) and answer in the person's language."""
    reference = new_reference()
    metrics.mark_update_failed()
    user_id = update.effective_user.id if isinstance(update, Update) and update.effective_user else None
    logger.error(
        "unhandled error ref=%s update_id=%s user_id=%s",
        reference,
        update.update_id if isinstance(update, Update) else None,
        user_id,
        exc_info=context.error,
    )
    if not isinstance(update, Update) or update.effective_chat is None:
        return
    tr = getattr(context, "tr", None) or translator(DEFAULT_LOCALE)
    text = tr._(
        "Sorry, something went wrong on our side. Nothing you entered was lost: "
        "try again, or send /cancelar to start over.\nIf it happens again, quote this reference: {reference}"
    ).format(reference=reference)
    if update.callback_query is not None:
        try:  # the handler may have answered it already (Telegram refuses a second answer): the apology still goes
            await update.callback_query.answer()
        except Exception:
            logger.debug("callback query of ref=%s already answered", reference)
    try:
        await context.bot.send_message(chat_id=update.effective_chat.id, text=text, parse_mode=ParseMode.HTML)
    except Exception:  # the error may be that Telegram is unreachable; it is logged above
        logger.warning("could not tell the user about error ref=%s", reference)

