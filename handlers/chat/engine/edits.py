"""Edits of earlier messages inside a form: the answer the edited message gave is changed, or the edit is explained.

Telegram sends an edit as an ``edited_message`` update. Each typed answer's message id is kept in the draft
(``answers``), so an edit of it is parsed by that step's parser and, when valid, replaces that answer — never the
answer to the question being asked now.
"""

from __future__ import annotations

import copy

from telegram import Update

from handlers.chat.context import BalcaoContext
from handlers.chat.engine.flow import ANSWERS, ask, save_turn
from handlers.chat.engine.review import label
from handlers.chat.engine.spec import Form, Turn, Values, parsed
from handlers.chat.replies import esc, respond
from models.invalid_input import InvalidInput


async def on_edit(form: Form, update: Update, context: BalcaoContext, step_name: str, data: Values) -> None:
    """An edited message while the form is open: change the answer it gave (and say so), or explain and ignore it.

    An edit is never taken as the answer to the current question.
    """
    message = update.edited_message
    assert message is not None
    tr = context.tr
    turn = Turn(update, context, data, base=copy.deepcopy(data))
    answered_step = data.get(ANSWERS, {}).get(str(message.message_id))
    step = form.step(answered_step) if answered_step else None
    if step is None or step.text is None or message.text is None or answered_step not in form.flow(data):
        await respond(update, context, tr._("Editing an earlier message changes nothing here. To change an answer, "
                                          "use ✏️ Change something at the summary."))
        await ask(form, turn, step_name)
        return
    try:
        answer = await parsed(step.text(message.text, turn))
    except InvalidInput as refused:
        await respond(update, context, tr._("Your edit was not taken: {reason}").format(reason=refused.render(tr)))
        await ask(form, turn, step_name)
        return
    if answer.goto is not None or answer.stay is not None:
        await respond(update, context, tr._("Editing an earlier message changes nothing here. To change an answer, "
                                          "use ✏️ Change something at the summary."))
        await ask(form, turn, step_name)
        return
    turn.data.update(answer.values)
    await save_turn(form, turn, step_name)
    await respond(update, context, tr._("Changed: {field}.").format(field=esc(label(step, turn))))
    await ask(form, turn, step_name)
