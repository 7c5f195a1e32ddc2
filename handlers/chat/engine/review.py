"""The review of a form: the summary (or an asynchronous review that may refuse), Send, and changing an answer.

A form with ``Form.review`` has it computed when the review is shown (``/emitir`` runs ``prepare``: the person,
recidivism, the fine): Send is offered only when the act can be filed, and the steps the review names come first
among the answers to change. A refusal at Send (``InvalidInput``) likewise names its fields.
"""

from __future__ import annotations

from handlers.chat.engine.drafts import cancel_row
from handlers.chat.engine.spec import Form, Rows, Step, Turn, Values
from handlers.chat.replies import keyboard, respond
from models.invalid_input import InvalidInput

REVIEW = "review"


def editable(form: Form, data: Values) -> list[Step]:
    """The steps of the flow whose answer can be changed from the review."""
    return [step for name in form.flow(data) if (step := form.step(name)) is not None and step.label is not None]


def label(step: Step, turn: Turn) -> str:
    """The translated name of a step's answer (its name when it has no label)."""
    return turn.tr._(step.label) if step.label else step.name


def _change_rows(form: Form, turn: Turn, names: tuple[str, ...]) -> Rows:
    """A button per named step that can be changed, in the order named (what the refusal names first)."""
    steps = {step.name: step for step in editable(form, turn.data)}
    named = [steps[name] for name in dict.fromkeys(names) if name in steps]
    return [[(f"✏️ {label(step, turn)}", f"{form.prefix}:edit:{step.name}")] for step in named]


async def show_review(form: Form, turn: Turn) -> None:
    """The summary, and the buttons to send (when it can be sent), change something or cancel."""
    tr = turn.tr
    rows: Rows = []
    if form.review is not None:
        found = await form.review(turn)
        text = _intro(form, turn) + found.text
        if found.ready:
            rows.append([(tr._(form.send_label), f"{form.prefix}:send")])
        rows += found.rows
        rows += _change_rows(form, turn, found.fields)
    else:
        text = _intro(form, turn) + form.summary(turn)
        rows.append([(tr._(form.send_label), f"{form.prefix}:send")])
    if form.review_note is not None:
        text += "\n\n" + tr._(form.review_note)
    await respond(turn.update, turn.context, text, markup=keyboard([
        *rows,
        [(tr._("✏️ Change something"), f"{form.prefix}:edit")],
        cancel_row(turn.context, f"{form.prefix}:cancel"),
    ]))


def _intro(form: Form, turn: Turn) -> str:
    """The line above the summary ("" for none: a sub-form's one-line confirmation)."""
    return turn.tr._(form.review_intro) + "\n\n" if form.review_intro else ""


async def ask_what_to_change(form: Form, turn: Turn) -> None:
    """Every answer that can be changed, two buttons a row (``<prefix>:edit:<step>``), and back to the summary."""
    tr = turn.tr
    buttons = [(label(step, turn), f"{form.prefix}:edit:{step.name}") for step in editable(form, turn.data)]
    pairs = [buttons[i : i + 2] for i in range(0, len(buttons), 2)]
    await respond(turn.update, turn.context, tr._("What do you want to change?"),
                  markup=keyboard([*pairs, [(tr._("◀ Back to the summary"), f"{form.prefix}:edit:{REVIEW}")]]))


async def refuse(form: Form, turn: Turn, refused: InvalidInput) -> None:
    """Not filed: say why, with a button for each answer the refusal names, and one to change anything."""
    tr = turn.tr
    await respond(turn.update, turn.context, refused.render(tr), markup=keyboard([
        *_change_rows(form, turn, form.refusal_fields(refused)), [(tr._("✏️ Change something"), f"{form.prefix}:edit")],
        cancel_row(turn.context, f"{form.prefix}:cancel"),
    ]))
