"""Sending answers: escaping, keyboards, long messages split, edits in place, several answers to one press."""

from __future__ import annotations

import html
from collections.abc import Sequence

from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    ReplyKeyboardMarkup,
    ReplyKeyboardRemove,
    Update,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest

from handlers.chat.context import BalcaoContext
from notifications.telegram_text import split_html

Markup = InlineKeyboardMarkup | ReplyKeyboardMarkup | ReplyKeyboardRemove
MENU_DATA = "menu:main"


def esc(value: object) -> str:
    """Escape a user-provided value for a Telegram HTML message."""
    return html.escape(str(value), quote=False)


def keyboard(rows: Sequence[Sequence[tuple[str, str]]]) -> InlineKeyboardMarkup:
    """An inline keyboard from rows of ``(label, callback_data)``; callback data is at most 64 bytes."""
    for row in rows:
        for _label, data in row:
            if len(data.encode()) > 64:
                raise ValueError(f"callback data over 64 bytes: {data!r}")
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(label, callback_data=data) for label, data in row] for row in rows]
    )


async def answer_query(
    update: Update, context: BalcaoContext, text: str | None = None, *, show_alert: bool = False
) -> None:
    """Answer the pressed button's callback query, once per query, so the phone stops its spinner.

    Telegram accepts one ``answerCallbackQuery`` per query and refuses the next with "Query is too old"; a
    handler that shows two screens (an edit, then the menu) goes through here and answers only the first time.
    Without a callback query (a typed message) it does nothing.

    Args:
        update: the incoming update.
        context: the handler's context (it remembers the answer for this update).
        text: a short notice shown on top of the chat (None: just stop the spinner).
        show_alert: show ``text`` as an alert the person must close.
    """
    query = update.callback_query
    if query is None or context.answered_query_id == query.id:
        return
    context.answered_query_id = query.id
    await query.answer(text, show_alert=show_alert)


def menu_row(context: BalcaoContext) -> list[tuple[str, str]]:
    """The row that takes the person back to the main menu (every screen has one)."""
    return [(context.tr._("☰ Main menu"), MENU_DATA)]


async def reply(
    update: Update,
    context: BalcaoContext,
    text: str,
    *,
    markup: Markup | None = None,
    edit: bool = False,
) -> Message:
    """Answer the person: a new message, or an edit of the message whose button was pressed.

    Long texts are split into several messages; the keyboard goes on the last one. A pressed button's
    callback query is always answered, so the phone stops showing the spinner.

    Args:
        update: the incoming update.
        context: the handler's context.
        text: Telegram HTML (escape user values with :func:`esc`).
        markup: keyboard for the (last) message.
        edit: replace the message whose button was pressed instead of sending a new one.

    Returns:
        The (last) message sent or edited.
    """
    query = update.callback_query
    await answer_query(update, context)
    parts = split_html(text)
    if edit and query is not None and isinstance(query.message, Message) and len(parts) == 1:
        inline = markup if isinstance(markup, InlineKeyboardMarkup) or markup is None else None
        if markup is None or inline is not None:
            try:
                edited = await query.message.edit_text(parts[0], parse_mode=ParseMode.HTML, reply_markup=inline)
            except BadRequest as exc:
                if "not modified" not in str(exc).lower():
                    raise
                return query.message
            if isinstance(edited, Message):
                return edited
    chat = update.effective_chat
    assert chat is not None, "reply() needs a chat"
    message: Message | None = None
    for index, part in enumerate(parts):
        message = await context.bot.send_message(
            chat_id=chat.id,
            text=part,
            parse_mode=ParseMode.HTML,
            reply_markup=markup if index == len(parts) - 1 else None,
            link_preview_options=None,
        )
    assert message is not None
    return message


def answered(context: BalcaoContext) -> bool:
    """Whether this update's button press was already answered."""
    return bool(getattr(context, "_case_answered", False))


async def acknowledge(update: Update, context: BalcaoContext) -> None:
    """Answer this update's button press now (once), so the messages that follow are new ones."""
    if update.callback_query is not None and not answered(context):
        await answer_query(update, context)
        context._case_answered = True  # type: ignore[attr-defined]


async def respond(
    update: Update, context: BalcaoContext, text: str, *, markup: Markup | None = None, edit: bool = False
) -> None:
    """Answer like :func:`handlers.chat.replies.reply`, any number of times for one update.

    Telegram accepts one answer per button press; the first message of a handler answers it (and may edit the
    pressed message), the next ones are plain new messages.
    """
    if update.callback_query is None or not answered(context):
        await reply(update, context, text, markup=markup, edit=edit)
        context._case_answered = True  # type: ignore[attr-defined]
        return
    chat = update.effective_chat
    assert chat is not None
    parts = split_html(text)
    for index, part in enumerate(parts):
        await context.bot.send_message(chat_id=chat.id, text=part, parse_mode=ParseMode.HTML,
                                       reply_markup=markup if index == len(parts) - 1 else None)
