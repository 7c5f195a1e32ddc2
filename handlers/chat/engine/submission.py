"""Filing a form once, and the buttons of a form no longer in progress.

The submission is claimed once per form key (``form_submission``), so a burst of presses of Send files it once and
the later ones are told its result; any other button of a form already sent answers that it was sent, with its
protocol, and edits nothing (issue 19 §4.2).
"""

from __future__ import annotations

import datetime as dt

from telegram import Update

from handlers.chat.context import BalcaoContext
from handlers.chat.engine.review import refuse
from handlers.chat.engine.spec import Form, Turn
from handlers.chat.replies import esc, keyboard, menu_row, respond
from models.drafts import claim_submission, find_submission, finish_submission, release_submission
from models.invalid_input import InvalidInput
from models.people import PermissionDenied

KEY = "key"
"""The form instance's random token in its data: the submission is claimed once per key."""



async def submit(form: Form, turn: Turn) -> None:
    """File the form once: claim its key, call the domain, record the result; a second claim is told the result."""
    context, key = turn.context, str(turn.data[KEY])
    async with context.sessions() as session:
        claimed = await claim_submission(session=session, person_id=context.person.id, form=form.name, key=key)
    if not claimed:
        await gone(form, turn.update, context, "send")
        return
    try:
        filed = await form.submit(turn)
    except InvalidInput as refused:
        async with context.sessions() as session:
            await release_submission(session=session, key=key)
        await refuse(form, turn, refused)
        return
    except PermissionDenied:  # e.g. no role in the municipality whose law the act applies (CF Art. 30 I)
        async with context.sessions() as session:
            await release_submission(session=session, key=key)
        await respond(turn.update, context, turn.tr._("Only staff with the right role can do this."),
                      markup=keyboard([menu_row(context)]))
        return
    except BaseException:
        async with context.sessions() as session:
            await release_submission(session=session, key=key)
        raise
    async with context.sessions() as session:
        await finish_submission(session=session, person_id=context.person.id, key=key, result=filed.result)
    await filed.announce()
    if form.back is not None:
        await form.back(turn)


async def gone(form: Form, update: Update, context: BalcaoContext, action: str) -> None:
    """A button of a form no longer in progress, answered as a new message: the pressed one is left as it is.

    After the form was sent, any of its buttons shown before (Send, Cancel, a change) answers that it was sent,
    with its result (issue 19 §4.2); otherwise the form is no longer in progress.
    """
    tr = context.tr
    async with context.sessions() as session:
        filed = await find_submission(session=session, person_id=context.person.id, form=form.name)
    if filed is not None and (action == "send" or _shown_before(update, filed.created_at)):
        text = (tr._(form.already_sent).format(result=esc(filed.result)) if filed.result
                else tr._("It is being sent. Look in /acompanhar in a moment."))
        await respond(update, context, text, markup=keyboard([menu_row(context)]))
        return
    await respond(update, context, tr._(form.gone), markup=keyboard([menu_row(context)]))


def _shown_before(update: Update, moment: dt.datetime) -> bool:
    """Whether the pressed message was shown before ``moment`` (so it may be a button of what was sent then)."""
    query = update.callback_query
    message = query.message if query is not None else None
    return message is not None and message.date <= moment
