"""/painel: a staff member asks for a one-time link to the web console (private chat only, staff only).

The link is valid ``BALCAO_CONSOLE_LINK_MINUTES`` and works once (:mod:`models.console.signin`); the message has no
link preview, so no server opens it on the person's behalf. A person who is not staff is told so and gets nothing.
"""

from __future__ import annotations

from typing import Any

from telegram import LinkPreviewOptions, Update
from telegram.constants import ParseMode
from telegram.ext import Application

from core.i18n import N_
from core.municipality import ConsoleTimes
from handlers.chat.commands import chat_command
from handlers.chat.context import BalcaoContext
from handlers.chat.replies import esc, keyboard, menu_row, reply
from handlers.chat.staff_scope import has_role
from models.columns import utcnow
from models.console.signin import CONSOLE_ROLES, TooManyLinks, issue_link

SIGN_IN_PATH = "/painel/entrar/"


@chat_command(
    "painel",
    aliases=("console",),
    description=N_("A link to open the staff console in the browser"),
    staff_roles=CONSOLE_ROLES,
    order=300,
)
async def console_command(update: Update, context: BalcaoContext) -> None:
    """``/painel``: send a one-time sign-in link to the staff console."""
    tr = context.tr
    if not await has_role(update, context, CONSOLE_ROLES):  # the staff check of a screen (issue 19 §1)
        return
    try:
        async with context.sessions() as session:
            link = await issue_link(session=session, telegram_user_id=context.person.telegram_user_id, now=utcnow(),
                                    times=ConsoleTimes.of(context.deployment_settings))
    except TooManyLinks:
        await reply(update, context, tr._("You asked for many links in the last hour. Wait a little and try again."),
                    markup=keyboard([menu_row(context)]))
        return
    url = f"{context.settings.http_root}{SIGN_IN_PATH}{link.token}"
    minutes = context.settings.console_link_minutes
    text = "\n\n".join([
        tr._("<b>Staff console</b>"),
        tr.ngettext("Open this link in your browser within {n} minute. It works only once:",
                    "Open this link in your browser within {n} minutes. It works only once:",
                    minutes).format(n=minutes),
        esc(url),
        tr._("Do not forward it: whoever opens it signs in as you."),
    ])
    chat = update.effective_chat
    assert chat is not None
    await context.bot.send_message(chat_id=chat.id, text=text, parse_mode=ParseMode.HTML,
                                   link_preview_options=LinkPreviewOptions(is_disabled=True))


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Nothing beyond the command (registered through its decorator)."""
    del application
