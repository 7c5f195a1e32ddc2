"""/pendencias: staff work the queue of citizens' cases in the bot.

The command and the ``pend:`` buttons: the queue page by page and a case (``handlers.chat.queue_screens``),
taking a case, its files, and the actions that need a text — ask the author, answer, extend, archive, decide —
which run as one form on the engine (``handlers.chat.staff_actions``, buttons ``pact:``). Every action checks
the role on the call (the domain functions do). A button carries the queue page it was shown on
(``pend:<action>:<case>[:<page>]``, pages from 1), so the person returns to it.
"""

from __future__ import annotations

from typing import Any

from telegram import Update
from telegram.ext import Application, CallbackQueryHandler

from core.i18n import N_
from handlers.chat import staff_actions
from handlers.chat.buttons import button_id, unknown_button
from handlers.chat.commands import chat_command
from handlers.chat.context import BalcaoContext
from handlers.chat.queue_screens import back_row, refuse_not_staff, send_files, show_case, show_queue
from handlers.chat.replies import keyboard, respond
from models.cases.handling import assign
from models.cases.timeline import CaseNotFound
from models.columns import utcnow
from models.invalid_input import InvalidInput
from models.people import PermissionDenied, Role

QUEUE_ROLES = frozenset({Role.CLERK, Role.INSPECTOR, Role.OMBUDSMAN})


@chat_command(
    "pendencias",
    aliases=("queue",),
    description=N_("Cases waiting for you, nearest deadline first"),
    menu_label=N_("Pending cases"),
    staff_roles=QUEUE_ROLES,
    order=60,
)
async def queue_command(update: Update, context: BalcaoContext) -> None:
    """``/pendencias``: the queue."""
    await show_queue(update, context, edit=True)


async def _take(update: Update, context: BalcaoContext, case_id: int, page: int) -> None:
    async with context.sessions() as session:
        await assign(session=session, telegram_user_id=context.person.telegram_user_id, case_id=case_id,
                     now=utcnow())
    await respond(update, context, context.tr._("The case is yours now."))
    await show_case(update, context, case_id, page=page)


def _ids(parts: list[str]) -> tuple[int, int] | None:
    """The case id and the queue page (1 when absent) of ``pend:<action>:<case>[:<page>]``, or None if forged."""
    if len(parts) not in (3, 4) or (case_id := button_id(parts[2])) is None:
        return None
    page = button_id(parts[3]) if len(parts) == 4 else 1
    return None if page is None else (case_id, page)


async def _route(update: Update, context: BalcaoContext, *, action: str, paged: bool, case_id: int,
                 page: int) -> None:
    """Run the screen or action a ``pend:`` button names (``page`` buttons carry the page in the case's place)."""
    if action == "page" and paged:
        await show_queue(update, context, edit=True, page=case_id - 1)
    elif action == "case":
        await show_case(update, context, case_id, page=page)
    elif action == "take":
        await _take(update, context, case_id, page)
    elif action == "files":
        await send_files(update, context, case_id, page=page)
    elif action in staff_actions.ACTIONS:
        await staff_actions.start_action(update, context, action, case_id, page)
    else:
        await unknown_button(update, context)


async def on_button(update: Update, context: BalcaoContext) -> None:
    """Every ``pend:`` button; each action checks the staff member's role again (in the domain)."""
    query = update.callback_query
    assert query is not None and query.data is not None
    parts = query.data.split(":")
    action = parts[1]
    if action == "list":  # the button of screens sent before pages were carried
        await show_queue(update, context, edit=True)
        return
    ids = _ids(parts)
    if ids is None:
        await unknown_button(update, context)
        return
    case_id, page = ids
    try:
        await _route(update, context, action=action, paged=len(parts) == 3, case_id=case_id, page=page)
    except PermissionDenied:
        await refuse_not_staff(update, context)
    except InvalidInput as refused:  # the case is closed (CaseActionRefused)
        await respond(update, context, refused.render(context.tr), markup=keyboard([back_row(context, page)]))
    except CaseNotFound:  # a forged or stale id, or a restricted case opened by someone but the Ombudsman
        await respond(update, context, context.tr._("That case does not exist."),
                      markup=keyboard([back_row(context, page)]))


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Add the queue buttons and the actions' form (the command is registered through its decorator)."""
    application.add_handler(CallbackQueryHandler(on_button, pattern=r"^pend:"))
    staff_actions.register(application)
