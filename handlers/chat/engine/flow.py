"""Running a declared form: ask, take an answer, save, move on, review, change a field, submit once.

Every update of a form goes through here: buttons here, what is typed or sent in ``inputs`` (text, contacts,
locations, files), edits of earlier answers in ``edits``. The draft is saved after every accepted answer, so a
restart resumes at the same question. Buttons carry ``<prefix>:<action>[:<arg>]``; their argument is checked by the
step's parser, like typed input, and anything no parser accepts is answered "This button is no longer valid" and
logged once (never a crash).
"""

from __future__ import annotations

import copy
import logging
import secrets

from telegram import Update

from handlers.chat.context import BalcaoContext
from handlers.chat.engine.back import PENDING, PRESET
from handlers.chat.engine.drafts import cancel_form, cancel_row, current_draft, offer_to_resume, question_asked, save
from handlers.chat.engine.guard import allowed, close_idle, idle, passes
from handlers.chat.engine.review import REVIEW, ask_what_to_change, editable, show_review
from handlers.chat.engine.spec import Answer, Forged, Form, Question, Step, Turn, Values, parsed
from handlers.chat.engine.submission import KEY, gone, submit
from handlers.chat.replies import keyboard, menu_row, respond
from models.invalid_input import InvalidInput

logger = logging.getLogger("balcao.forms")

ANSWERS = "answers"
"""Message id of each typed answer → its step, so an edit of that message changes that answer."""
EDITING = "editing"
"""Set while an answer is changed from the review: the next accepted answer goes back to the review."""
FULL_ALBUM = "full_album"
"""The album whose photos beyond the limit were refused (said once, not once per photo)."""
UNIVERSAL = frozenset({"cancel", "restart", "resume", "send", "edit", "files"})


# --- starting and asking ----------------------------------------------------------------------------------------


async def start(form: Form, update: Update, context: BalcaoContext) -> None:
    """The form's command: offer to resume the draft in progress, or begin a new one."""
    if not await allowed(form, update, context):
        return
    draft = await current_draft(context, form.name)
    if draft is not None and idle(form, draft, context.settings):
        await close_idle(form, update, context)
    if not await offer_to_resume(update, context, form=form.name, prefix=form.prefix,
                                 question=context.tr._(form.resume)):
        await begin(form, update, context)


async def begin(
    form: Form, update: Update, context: BalcaoContext, *, prefill: Values | None = None,
    pending: tuple[str, ...] | None = None, at: str | None = None, note: str | None = None,
) -> None:
    """Start the form afresh (within its precondition, e.g. the daily limit) and ask the first question.

    Args:
        form: the form.
        update: the update that starts it.
        context: the chat context.
        prefill: answers known already (issue from a case, decide from a filing, the notice a defence is about),
            merged over what ``form.start`` returns (which may read them).
        pending: with ``prefill``, the steps still to answer, asked in order, then the review (empty: the review
            at once). None: the flow from its first step.
        at: the step to ask first, the flow going on from it (a sentence typed at the menu answered the one
            before; default: the first of the flow).
        note: a translated line said with the form's intro (what was kept of ``prefill``).
    """
    if form.before_start is not None and not await form.before_start(update, context):
        return
    turn = Turn(update, context, dict(prefill or {}))
    try:
        data = form.start(turn)
    except InvalidInput as refused:
        await respond(update, context, refused.render(context.tr), markup=keyboard([menu_row(context)]))
        return
    prepared = await form.prepare(turn) if form.prepare is not None else {}
    turn.data = {**data, **prepared, **(prefill or {}), KEY: secrets.token_hex(8)}
    if not await passes(form, turn):  # Form.check: refused before anything is saved (another form's draft stays)
        return
    if pending is None:
        first = at or form.flow(turn.data)[0]
    else:
        first = pending[0] if pending else REVIEW
        turn.data[PENDING] = list(pending[1:])
        turn.data[PRESET] = list(pending)
    await save_turn(form, turn, first, asked=False)
    if pending is None:
        await respond(update, context, context.tr._(form.intro) + (f"\n\n{note}" if note else ""))
    await ask(form, turn, first)
    await question_asked(context, first)


async def save_turn(form: Form, turn: Turn, step: str, *, asked: bool = True) -> None:
    """Save the turn's answers at ``step``, merged into the draft as stored now; the turn then holds the result."""
    draft = await save(turn.context, form.name, step, turn.data, base=turn.base, asked=asked)
    turn.data, turn.base = draft.data, copy.deepcopy(draft.data)


async def ask(form: Form, turn: Turn, name: str) -> None:
    """Ask the question of step ``name`` (the review for ``review``), with its buttons and Cancel."""
    step = form.step(name)
    if step is None:
        await show_review(form, turn)
        return
    await _show(form, turn, step.ask(turn))


async def _show(form: Form, turn: Turn, question: Question) -> None:
    markup = question.markup or keyboard([*question.rows, cancel_row(turn.context, f"{form.prefix}:cancel")])
    await respond(turn.update, turn.context, question.text, markup=markup)


async def keyed(form: Form, update: Update, context: BalcaoContext, step: str, data: Values) -> Turn:
    """The turn of an update, with the form's key; a draft saved before the engine had none, so it gets one (saved)."""
    if KEY not in data:
        base = copy.deepcopy(data)
        data[KEY] = secrets.token_hex(8)
        data = (await save(context, form.name, step, data, base=base)).data
    return Turn(update, context, data, base=copy.deepcopy(data))


# --- taking answers ---------------------------------------------------------------------------------------------


def _following(form: Form, data: Values, name: str) -> str:
    if data.get(EDITING):
        return REVIEW
    if PENDING in data:  # a prefilled start: the steps it left, then the review
        pending = [each for each in data[PENDING] if each in form.flow(data)]
        data[PENDING] = pending[1:]
        return pending[0] if pending else REVIEW
    step = form.step(name)
    position = step.parent if step is not None and step.parent else name
    flow = form.flow(data)
    if position not in flow:
        return flow[0]
    index = flow.index(position) + 1
    return flow[index] if index < len(flow) else REVIEW


async def take(form: Form, turn: Turn, name: str, answer: Answer) -> None:
    """Store an accepted answer to step ``name``, save, and ask what comes next (or stay, or go to a sub-step).

    The answer is saved before anything is said (its note, "Address noted", included), and the next step is saved
    as not yet asked until its question is delivered: a refused reply or a crash in between makes the form ask that
    question again, never take the next thing typed as its answer.
    """
    turn.data.update(answer.values)
    if answer.stay is not None:
        await save_turn(form, turn, name)
        await _note(turn, answer)
        await _show(form, turn, answer.stay)
        return
    following = answer.goto or _following(form, turn.data, name)
    if following == REVIEW:
        turn.data.pop(EDITING, None)
        turn.data.pop(PENDING, None)
        turn.data.pop(PRESET, None)
    now = following == REVIEW and not form.confirm  # no review: the last answer files the form (claimed once)
    await save_turn(form, turn, name if now else following, asked=now)
    await _note(turn, answer)
    if now:
        await submit(form, turn)
        return
    await ask(form, turn, following)
    await question_asked(turn.context, following)


async def _note(turn: Turn, answer: Answer) -> None:
    if answer.note is not None:
        await respond(turn.update, turn.context, answer.note, markup=answer.note_markup)


# --- buttons ----------------------------------------------------------------------------------------------------


async def on_button(form: Form, update: Update, context: BalcaoContext) -> None:
    """Every ``<prefix>:`` button of the form."""
    query = update.callback_query
    assert query is not None and query.data is not None
    _, action, arg = [*query.data.split(":", 2), "", ""][:3]
    if action in form.entries:  # opened from another screen (issue from a case): a new instance, prefilled
        try:
            await form.entries[action](arg, update, context)
        except (Forged, LookupError, ValueError):
            logger.warning("entry refused form=%s length=%d", form.name, len(query.data))
            await respond(update, context, context.tr._("This button is no longer valid."))
        return
    if action == "restart":
        await begin(form, update, context)
        return
    draft = await current_draft(context, form.name)
    if draft is None:  # a button of a form sent, cancelled or closed: it edits nothing (issue 19 §4.2)
        await gone(form, update, context, action)
        return
    if action == "cancel":
        await cancel_form(update, context)
        if form.back is not None:
            await form.back(Turn(update, context, dict(draft.data)))
        return
    turn = await keyed(form, update, context, draft.step, copy.deepcopy(draft.data))
    step = form.step(draft.step)
    try:
        await _button(form, turn, draft.step, step, action, arg)
    except (Forged, InvalidInput, LookupError, ValueError):
        # the data itself is not logged: a client may put anything in it
        logger.warning("button refused form=%s step=%s length=%d", form.name, draft.step, len(query.data))
        await respond(update, context, context.tr._("This button is no longer valid."))
        await ask(form, turn, draft.step)


async def _button(form: Form, turn: Turn, name: str, step: Step | None, action: str, arg: str) -> None:
    if action == "resume" and not arg:
        await ask(form, turn, name)
        return
    known = UNIVERSAL | set(form.review_buttons) | {action for each in form.steps for action in each.buttons}
    if action not in known or not _universal_arg(form, action, arg):
        raise Forged(action)
    if not _belongs(form, name, step, action):
        owner = next((each for each in form.steps if action in each.buttons), None)
        if owner is not None:
            await parsed(owner.buttons[action](arg, turn))  # data no parser accepts is forged, not just stale
        await respond(turn.update, turn.context,
                      turn.tr._("That button belongs to an earlier question. Here is where we are:"))
        await ask(form, turn, name)
        return
    await _pressed(form, turn, name, step, action, arg)


def _belongs(form: Form, name: str, step: Step | None, action: str) -> bool:
    """Whether the button is one of the question (or review) the form is at now."""
    return (
        (action in ("send", "edit", *form.review_buttons) and name == REVIEW)
        or (action == "files" and step is not None and step.files)
        or (step is not None and action in step.buttons)
    )


async def _pressed(form: Form, turn: Turn, name: str, step: Step | None, action: str, arg: str) -> None:
    """A button of the current question or review: send, a review button, change an answer, files done, a choice."""
    if action == "send":
        await submit(form, turn)
    elif action in form.review_buttons:
        turn.data.update((await parsed(form.review_buttons[action](arg, turn))).values)
        await save_turn(form, turn, REVIEW)
        await show_review(form, turn)
    elif action == "edit":
        await _edit(form, turn, arg)
    elif action == "files" and step is not None:
        if step.files_required and not turn.data.get("files"):
            await respond(turn.update, turn.context, turn.tr._("Please send a file, or type where the evidence can "
                                                             "be found."))
            await ask(form, turn, name)
            return
        await take(form, turn, name, Answer())
    elif step is not None and action in step.buttons:
        await take(form, turn, name, await parsed(step.buttons[action](arg, turn)))
    else:
        raise Forged(action)


def _universal_arg(form: Form, action: str, arg: str) -> bool:
    """Whether the argument of an engine button is one the engine gives (any argument of a step's own button)."""
    if action == "edit":
        return arg in ("", REVIEW) or form.step(arg) is not None
    if action == "files":
        return arg == "done"
    return action not in UNIVERSAL or arg == ""


async def _edit(form: Form, turn: Turn, name: str) -> None:
    if name == REVIEW:
        await show_review(form, turn)
        return
    if not name:
        await ask_what_to_change(form, turn)
        return
    if name not in {step.name for step in editable(form, turn.data)}:
        raise Forged(name)
    turn.data[EDITING] = True
    await save_turn(form, turn, name)
    await ask(form, turn, name)
