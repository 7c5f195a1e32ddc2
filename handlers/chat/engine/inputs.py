"""What a person sends into a form at a step: typed text (and "sim"/"não", "voltar"), a contact, a location, files.

The step's parser decides (``handlers.chat.engine.spec``); anything it refuses is answered with the reason and the
question again, and nothing already entered is lost. Buttons are ``flow.on_button``'s.
"""

from __future__ import annotations

import logging

from telegram import Message, Update

from core.i18n import N_
from handlers.chat.context import BalcaoContext
from handlers.chat.engine.back import goes_back, step_before
from handlers.chat.engine.drafts import cancel_form, cancel_row, question_asked
from handlers.chat.engine.flow import ANSWERS, EDITING, FULL_ALBUM, ask, keyed, save_turn, take
from handlers.chat.engine.intake import files_received, is_file, receive_file
from handlers.chat.engine.review import REVIEW, ask_what_to_change, show_review
from handlers.chat.engine.spec import Form, Step, Turn, Values, parsed
from handlers.chat.engine.submission import submit
from handlers.chat.replies import keyboard, respond
from models.cases.fields import yes_or_no
from models.cases.limits import CaseLimits
from models.invalid_input import InvalidInput

logger = logging.getLogger("balcao.forms")


async def on_input(
    form: Form, update: Update, context: BalcaoContext, step_name: str, data: Values, *, was_asked: bool = True
) -> None:
    """Typed text, a location or a file while the form is at ``step_name``.

    ``was_asked`` False: the step's question may never have reached the person (a crash or a refused reply right
    after its save), so it is asked again and what they sent is not taken as its answer; a message already taken
    as an answer (delivered again after its handling could not be recorded) likewise.
    """
    message = update.effective_message
    assert message is not None
    turn = await keyed(form, update, context, step_name, data)
    if message.text == context.tr._("✖ Cancel"):
        await cancel_form(update, context)
        return
    if await _asked_again(form, turn, step_name, message, was_asked=was_asked):
        return
    if message.text is not None and goes_back(message.text):  # never stored as an answer (issue 19 §4.3)
        await _go_back(form, turn, step_name)
        return
    try:
        await _answer(form, turn, step_name, message)
    except InvalidInput as refused:
        await respond(update, context, refused.render(context.tr))
        await ask(form, turn, step_name)


async def _asked_again(form: Form, turn: Turn, step_name: str, message: Message, *, was_asked: bool) -> bool:
    """Ask the step again, not taking what was sent, if its question may not have arrived or this was taken."""
    taken = str(message.message_id) in turn.data.get(ANSWERS, {})  # handled before, and Telegram sent it again
    if was_asked and not taken:
        return False
    logger.info("form=%s step=%s: asked again (its question may not have been delivered)", form.name, step_name)
    await respond(turn.update, turn.context, turn.tr._("Let's continue from where we stopped:"))
    await ask(form, turn, step_name)
    await question_asked(turn.context, step_name)
    return True


async def _answer(form: Form, turn: Turn, step_name: str, message: Message) -> None:
    """What was sent, as the answer to ``step_name``: a file, a contact, a location or text (InvalidInput: no)."""
    if step_name == REVIEW:
        await _typed_at_review(form, turn, message.text)
        return
    step = form.step(step_name)
    if step is None:
        raise InvalidInput(N_("Please press one of the buttons."))
    if step.files and is_file(message):
        await _take_file(form, turn, step)
    elif message.contact is not None and step.contact is not None:
        await take(form, turn, step.name, await parsed(step.contact(message.contact, turn)))
    elif message.location is not None and step.location is not None:
        answer = await parsed(step.location(message.location.latitude, message.location.longitude, turn))
        await take(form, turn, step.name, answer)
    elif message.text is None:
        raise InvalidInput(N_("Please answer with text or press a button."))
    else:
        await _typed(form, turn, step, message.text, message.message_id)


async def _typed(form: Form, turn: Turn, step: Step, text: str, message_id: int) -> None:
    """Typed text: the step's parser, or a typed "sim"/"não" for its yes/no buttons."""
    if step.text is not None:
        answer = await parsed(step.text(text, turn))
        if answer.stay is None and answer.goto is None:
            turn.data.setdefault(ANSWERS, {})[str(message_id)] = step.name
        await take(form, turn, step.name, answer)
        return
    said = yes_or_no(text)
    typed_button = step.yes if said is True else step.no if said is False else None
    if typed_button is None:
        raise InvalidInput(N_("Please press one of the buttons."))
    action, _, arg = typed_button.partition(":")
    await take(form, turn, step.name, await parsed(step.buttons[action](arg, turn)))


async def _go_back(form: Form, turn: Turn, name: str) -> None:
    """Typed "voltar": ask the step before this one again (its answer is kept until a new one replaces it)."""
    before = step_before(form, turn.data, name)
    if before is None:
        await respond(turn.update, turn.context, turn.tr._("This is the first question."))
        await ask(form, turn, name)
        return
    turn.data.pop(EDITING, None)
    await save_turn(form, turn, before, asked=False)
    await ask(form, turn, before)
    await question_asked(turn.context, before)


async def _typed_at_review(form: Form, turn: Turn, text: str | None) -> None:
    said = yes_or_no(text) if text is not None else None
    if said is True:
        await submit(form, turn)
    elif said is False:
        await ask_what_to_change(form, turn)
    else:
        await respond(turn.update, turn.context, turn.tr._("Nothing was changed. To send it, press ✅ Send or "
                                                         "type “sim”."))
        await show_review(form, turn)


async def _take_file(form: Form, turn: Turn, step: Step) -> None:
    files = list(turn.data.get("files", []))
    message = turn.update.effective_message
    album = message.media_group_id if message is not None else None
    limit = CaseLimits.of(turn.city.readings).max_attachments
    if album is not None and len(files) >= limit:  # the rest of an album: said once for all of them
        if turn.data.get(FULL_ALBUM) != album:
            turn.data[FULL_ALBUM] = album
            await save_turn(form, turn, step.name)
            await respond(turn.update, turn.context, turn.tr.ngettext(
                "You can send at most {n} file per case: the other photos of this album were not kept. "
                "Everything else is safe.",
                "You can send at most {n} files per case: the other photos of this album were not kept. "
                "Everything else is safe.", limit).format(n=limit))
        return
    stored = await receive_file(turn.update, turn.context, files, keep=form.keep_file)
    if stored is None:
        return
    turn.data["files"] = [*files, stored]
    await save_turn(form, turn, step.name)
    await respond(turn.update, turn.context, files_received(turn.context, len(turn.data["files"])),
                  markup=keyboard([[(turn.tr._("Done"), f"{form.prefix}:files:done")],
                                   cancel_row(turn.context, f"{form.prefix}:cancel")]))
