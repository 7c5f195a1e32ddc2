"""What the engine checks on every update of a form before its step sees it: the staff role, and idleness.

``Form.roles``: the role is checked again on every button, message and edit, not only at the start (a role
withdrawn mid-form stops it at once), so no handler catches ``PermissionDenied`` itself.
``Form.check``: the domain's own check of the answers on every update but Cancel (the case is still open and
the member may still act on it); a refusal has said why, and the draft is closed.
``Form.timeout``: a draft idle longer than that is closed at its next update, with ``Form.timed_out`` saying so
and what was kept (nothing half-written is filed later by surprise).
"""

from __future__ import annotations

import datetime as dt

from telegram import Update

from core.settings import Settings
from handlers.chat.context import BalcaoContext
from handlers.chat.engine.drafts import discard
from handlers.chat.engine.spec import Form, Turn
from handlers.chat.replies import keyboard, menu_row, respond
from models.columns import utcnow
from models.drafts import Draft
from models.people import PermissionDenied, require_role


async def allowed(form: Form, update: Update, context: BalcaoContext, *, draft: Draft | None = None) -> bool:
    """Whether the person may use the form now (``Form.roles``); if not, close ``draft`` and then say so."""
    if form.roles is None:
        return True
    try:
        async with context.sessions() as session:
            await require_role(session=session, telegram_user_id=context.person.telegram_user_id,
                               allowed=form.roles, municipality=context.person.municipality)
    except PermissionDenied:
        if draft is not None:  # the role was withdrawn mid-form: nothing half-done waits for a role to come back
            await discard(context)  # before the answer, so whoever reads the answer finds the draft closed
        await respond(update, context, context.tr._("Only staff with the right role can do this."),
                      markup=keyboard([menu_row(context)]))
        return False
    return True


def _limit(form: Form, settings: Settings) -> dt.timedelta | None:
    return form.timeout(settings) if form.timeout is not None else None


def idle(form: Form, draft: Draft, settings: Settings) -> bool:
    """Whether the draft waited longer than the form's timeout since its last saved answer."""
    limit = _limit(form, settings)
    return limit is not None and utcnow() - draft.updated_at > limit


async def close_idle(form: Form, update: Update, context: BalcaoContext) -> None:
    """Close the idle draft of ``form`` and say so, with what was kept."""
    await discard(context)
    limit = _limit(form, context.settings)
    hours = int(limit.total_seconds() // 3600) if limit is not None else 0
    await respond(update, context, context.tr._(form.timed_out).format(hours=hours),
                  markup=keyboard([menu_row(context)]))


async def passes(form: Form, turn: Turn) -> bool:
    """The form's domain check (``Form.check``) of ``turn``'s answers; refused, it has said why."""
    return form.check is None or await form.check(turn)


async def checked(
    form: Form, update: Update, context: BalcaoContext, draft: Draft | None, *, cancelling: bool = False,
) -> bool:
    """The checks for an update of the form; False: it was answered here and stops (a refused draft is closed)."""
    if not await allowed(form, update, context, draft=draft):
        return False
    if draft is not None and idle(form, draft, context.settings):
        await close_idle(form, update, context)
        return False
    if draft is not None and not cancelling and not await passes(form, Turn(update, context, dict(draft.data))):
        await discard(context)
        return False
    return True

