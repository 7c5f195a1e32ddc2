"""The first handler of every update: who is this person, and in which language do we answer."""

from __future__ import annotations

from telegram import Update
from telegram.constants import ChatType

from core.i18n import translator
from handlers import log_context
from handlers.chat.context import PEOPLE_KEY, BalcaoContext
from models.people_cache import person_for_update


async def load_person(update: Update, context: BalcaoContext) -> None:
    """Find or create the person behind the update and attach them and their translator to the context."""
    user = update.effective_user
    chat = update.effective_chat
    log_context.clear()
    log_context.bind(update_id=update.update_id)
    if user is None or user.is_bot:
        return
    token = context.deployment_settings.telegram_token  # the deployment's, not a municipality's copy
    log_context.bind(person=log_context.pseudonym(user.id, key=token.get_secret_value() if token else ""))
    chat_id = chat.id if chat is not None and chat.type == ChatType.PRIVATE else user.id
    context.person = await person_for_update(
        sessions=context.sessions,
        cache=context.application.bot_data[PEOPLE_KEY],
        telegram_user_id=user.id,
        chat_id=chat_id,
        first_name=user.first_name or "",
        language_code=user.language_code,
        bot_key=context.bot_key,
    )
    context.tr = translator(context.person.locale, context.deployment_settings.timezone)
