"""Where a staff member may act on notices: the roles of each command, and the municipalities they reach.

A notice is its municipality's act (CF Art. 30 I): a staff member sees and acts only on those of the
municipalities where they hold the role (``models.notices.access``, as the API and the console check it).
Shared by /emitir (``notice_issue``), /entregas (``notice_deliveries`` and its sub-forms) and /defesas
(``notice_filings``).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from telegram import Update

from core.i18n import N_
from core.settings import Settings
from handlers.chat.context import BalcaoContext
from handlers.chat.engine import Form, Step
from handlers.chat.replies import keyboard, menu_row, reply
from models.notices.access import NoticeOutOfReach, check_notice_reach, notices_reach
from models.notices.tables import Notice
from models.people import PermissionDenied, Role, require_role

ISSUERS = frozenset({Role.INSPECTOR, Role.CLERK})
DECIDERS = frozenset({Role.CLERK})
LIST_LIMIT = 20
STAFF_TIMED_OUT = N_("This waited more than {hours} hours without an answer, so it was closed: nothing was issued "
                     "or recorded. What was issued or recorded before is kept.")
"""What a staff form says when it was closed for idleness (``Form.timed_out``)."""


def staff_idle(settings: Settings) -> dt.timedelta | None:
    """How long a staff form may stay idle (``Form.timeout``): ``BALCAO_STAFF_FORM_IDLE_HOURS``, 0 for ever."""
    return dt.timedelta(hours=settings.staff_form_idle_hours) if settings.staff_form_idle_hours else None


def staff_sub_form(*, step: Step, **declared: Any) -> Form:
    """A staff sub-form: one question, a confirmation, then back to the screen it was opened from.

    The shape every sub-form of /entregas and /defesas shares (like a nested conversation of python-telegram-bot
    that returns to its parent): one step, its ``review`` saying what will be recorded, "✅ Confirm", the staff idle
    timeout. ``declared`` holds the rest of the :class:`~handlers.chat.engine.Form` (and may override these).
    """
    shape: dict[str, Any] = {
        "flow": lambda _data: (step.name,), "start": lambda _turn: {}, "review_intro": "",
        "summary": lambda _turn: "", "send_label": N_("✅ Confirm"),
        "already_sent": N_("This was already recorded ({result})."), "timeout": staff_idle,
        "timed_out": STAFF_TIMED_OUT,
    }
    return Form(steps=(step,), **{**shape, **declared})


async def has_role(update: Update, context: BalcaoContext, allowed: frozenset[Role]) -> bool:
    """Check the role now, for a screen that is not a form (forms declare ``Form.roles``); say so when not."""
    try:
        async with context.sessions() as session:
            await require_role(session=session, telegram_user_id=context.person.telegram_user_id, allowed=allowed,
                               municipality=context.person.municipality)
    except PermissionDenied:
        await reply(update, context, context.tr._("Only staff with the right role can do this."),
                    markup=keyboard([menu_row(context)]))
        return False
    return True


async def reach(context: BalcaoContext, session: Any, roles: frozenset[Role]) -> frozenset[str] | None:
    """Where the staff member holds one of ``roles`` (``None``: everywhere); a notice is its municipality's act."""
    return await notices_reach(session=session, telegram_user_id=context.person.telegram_user_id, roles=roles)


async def outside(context: BalcaoContext, session: Any, notice_id: int | None, roles: frozenset[Role]) -> bool:
    """Whether a notice belongs to a municipality where the staff member holds none of ``roles`` (CF Art. 30 I).

    The check is the domain's (``models.notices.access``), the one the API, the console and the acts make.
    """
    notice = await session.get(Notice, notice_id) if notice_id is not None else None
    if notice is None:
        return False
    try:
        await check_notice_reach(session=session, notice=notice, telegram_user_id=context.person.telegram_user_id,
                                 roles=roles)
    except NoticeOutOfReach:
        return True
    return False


async def refuse_other_municipality(update: Update, context: BalcaoContext) -> None:
    """Another municipality's notice: as if the staff member had no role (never what it holds)."""
    await reply(update, context, context.tr._("Only staff with the right role can do this."),
                markup=keyboard([menu_row(context)]), edit=update.callback_query is not None)
