"""The last resort: log the error with a reference the person can quote, and tell them kindly, in their language.

One failure, one apology, one reference: the error handler stops the update's later handler groups (they would
run without the person and fail again, with a second apology pointing at an ``AttributeError``), and an update
Telegram delivers again after a failure is apologised for once. A failure whose cause may pass (the database or
Telegram unreachable) is marked transient, so the webhook answers 503 and Telegram delivers the update again.
"""

from __future__ import annotations

import logging
from collections import OrderedDict

from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlmodel import select
from telegram import Update
from telegram.constants import ParseMode
from telegram.ext import ApplicationHandlerStop

from core import metrics
from core.i18n import DEFAULT_LOCALE, Translator, negotiate_locale, translator
from core.references import new_reference
from handlers import log_context
from handlers.chat.context import BalcaoContext
from models.people import Person
from notifications.chat_replies import ReplyDeferred
from notifications.retry_policy import is_transient

logger = logging.getLogger("balcao.errors")

APOLOGISED_KEPT = 4096
"""Update ids whose failure was already apologised for, remembered per process (a redelivery is not)."""
_apologised: OrderedDict[int, str] = OrderedDict()


def transient_failure(error: BaseException | None) -> bool:
    """Whether handling may succeed if the update comes again: the database or Telegram was unreachable."""
    while error is not None:
        if isinstance(error, PoolTimeout | OSError | TimeoutError) or is_transient(error):
            return True
        if isinstance(error, DBAPIError) and (error.connection_invalidated or _unreachable(error)):
            return True
        error = error.__cause__ or error.__context__
    return False


def _unreachable(error: DBAPIError) -> bool:
    name = type(error.orig).__name__.lower() if error.orig is not None else ""
    return any(word in name for word in ("operational", "interface", "connection", "cannotconnect"))


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
        raise ApplicationHandlerStop
    transient = transient_failure(context.error)
    metrics.mark_update_failed(transient=transient)
    update_id = update.update_id if isinstance(update, Update) else None
    earlier = _apologised.get(update_id) if update_id is not None else None
    reference = earlier or new_reference()
    log_context.bind(error_ref=reference)
    logger.error(
        "unhandled error ref=%s update_id=%s cause=%s%s",
        reference,
        update_id,
        type(context.error).__name__,
        " (transient: the update will be handled again when it comes back)" if transient else "",
        exc_info=context.error,
    )
    if not isinstance(update, Update) or update.effective_chat is None or earlier is not None:
        raise ApplicationHandlerStop  # the later handler groups would fail again without the person
    if update_id is not None:
        _apologised[update_id] = reference
        while len(_apologised) > APOLOGISED_KEPT:
            _apologised.popitem(last=False)
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
    raise ApplicationHandlerStop  # one apology: the later handler groups would fail again without the person

