"""The staff's notice commands, and the ``nstf:`` buttons already sent before they were split.

/emitir, /entregas and /defesas were one module under one prefix (``nstf:``), which kept them off the form engine.
Each is now a module with its own prefix, on ``handlers.chat.engine`` where it is a form:

- /emitir — ``handlers.chat.notice_issue`` (``emit:``), its review ``notice_issue_review``;
- /entregas — ``handlers.chat.notice_deliveries`` (``ent:``), with the sub-forms ``notice_delivery_date``
  (``dday:``) and ``notice_link`` (``lnk:``);
- /defesas — ``handlers.chat.notice_filings`` (``dfs:``), with the sub-form ``notice_decision`` (``dcs:``) and
  the vista and diligência of ``handlers.chat.staff_review``.

Messages already in people's chats carry the old buttons (a notification's "Notices to deliver" and "Open it",
/pendencias' "Issue the notice now", a delivery's "◀ Back"): those still open their screen here; any other old
button says it is no longer valid and edits nothing.
"""

from __future__ import annotations

from typing import Any

from telegram import Update
from telegram.ext import Application, CallbackQueryHandler

from handlers.chat.context import BalcaoContext
from handlers.chat.notice_deliveries import show_deliveries, show_delivery
from handlers.chat.notice_filings import show_filing
from handlers.chat.notice_issue import FORM as ISSUE
from handlers.chat.replies import keyboard, menu_row, respond
from handlers.chat.staff_scope import DECIDERS, ISSUERS, has_role


async def on_old_button(update: Update, context: BalcaoContext) -> None:
    """An ``nstf:`` button of a message sent before the split: its screen, or "no longer valid"."""
    query = update.callback_query
    assert query is not None and query.data is not None
    _, action, arg = [*query.data.split(":", 2), "", ""][:3]
    if action == "list" and await has_role(update, context, ISSUERS):
        await show_deliveries(update, context)
    elif action == "dlv" and arg.isdigit() and await has_role(update, context, ISSUERS):
        await show_delivery(update, context, int(arg))
    elif action == "fil" and arg.isdigit() and await has_role(update, context, DECIDERS):
        await show_filing(update, context, int(arg))
    elif action == "case" and arg.isdigit() and await has_role(update, context, ISSUERS):
        await ISSUE.entries["case"](arg, update, context)
    elif action not in ("list", "dlv", "fil", "case"):
        await respond(update, context, context.tr._("This button is no longer valid."),
                      markup=keyboard([menu_row(context)]))


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Add the old ``nstf:`` buttons."""
    application.add_handler(CallbackQueryHandler(on_old_button, pattern=r"^nstf:"))
