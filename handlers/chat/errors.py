"""The last resort: log the error with a reference the person can quote, and tell them kindly, in their language."""

from __future__ import annotations

import logging
import secrets

from sqlmodel import select
from telegram import Update
from telegram.constants import ParseMode

from bot import metrics
from bot.i18n import DEFAULT_LOCALE, Translator, negotiate_locale, translator
from handlers import log_context
from handlers.chat.context import BalcaoContext
from models.people import Person
from notifications.chat_replies import ReplyDeferred

logger = logging.getLogger("balcao.errors")


def new_reference() -> str:
    """A short reference like ``E-7F3A9C`` that ties the person's report to the log line."""
    return "E-" + secrets.token_hex(3).upper()


async def _their_translator(update: Update, context: BalcaoContext) -> Translator:
    """The person's translator: python-telegram-bot gives the error handler a new context without ``tr``."""
    tr = getattr(context, "tr", None)
    if tr is not None:
        return tr
    user = update.effective_user
    locale = negotiate_locale(user.language_code) if user is not None else DEFAULT_LOCALE
    if user is not None:
        try:
            async with context.sessions() as session:
                stored = (await session.exec(select(Person.locale).where(Person.telegram_user_id == user.id))).first()
            locale = stored or locale
        except Exception:  # the database may be what failed; the language Telegram gives will do
            logger.warning("could not read the person's language for an error message")
    return translator(locale, context.settings.timezone)


async def on_error(update: object, context: BalcaoContext) -> None:
    """Log the exception (no personal data: only the update id and the pseudonym) and answer the person."""
    if isinstance(context.error, ReplyDeferred):
        logger.info("the reply is queued in the outbox and will be retried")
        return
    reference = new_reference()
    metrics.mark_update_failed()
    log_context.bind(error_ref=reference)
    logger.error(
        "unhandled error ref=%s update_id=%s",
        reference,
        update.update_id if isinstance(update, Update) else None,
        exc_info=context.error,
    )
    if not isinstance(update, Update) or update.effective_chat is None:
        return
    tr = await _their_translator(update, context)
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
    except ReplyDeferred:
        logger.info("the apology for ref=%s is queued in the outbox", reference)
    except Exception:  # the error may be that Telegram is unreachable; it is logged above
        logger.warning("could not tell the user about error ref=%s", reference)

