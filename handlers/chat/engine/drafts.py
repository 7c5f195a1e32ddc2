"""The engine's drafts: the one place of the chat that reads or writes a form in progress (``models.drafts``).

A conversation is a form: its step and answers live in the ``draft`` table, so a restart loses nothing, and a
person fills in one form at a time. Here are the registry of the forms (``register_form`` fills it), saving a
step, the Cancel button, resuming, "you are in the middle of …", ``/cancelar``, and the routing of free input and
of edits to the form in progress. No handler outside ``handlers.chat.engine`` imports ``models.drafts`` or this
module (the import contract "Only the form engine reads or writes drafts" in pyproject.toml): an area asks the
engine (``begin``, ``busy_elsewhere``, ``cancel_in_progress``, ``take_input``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from telegram import Update

from core.i18n import N_
from handlers.chat.context import BalcaoContext
from handlers.chat.replies import esc, keyboard, menu_row, reply, respond
from models.cases.attachments import discard_unfiled
from models.drafts import Draft, discard_draft, get_draft, mark_asked, save_draft

InputHandler = Callable[[Update, BalcaoContext, Draft], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class RegisteredForm:
    """A form's input handler, its name for /cancelar (an English msgid), and its handler of edits."""

    handler: InputHandler
    title: str
    on_edit: InputHandler


FORMS: dict[str, RegisteredForm] = {}


def form_titles() -> dict[str, str]:
    """Each registered form's name (``Draft.form``) → its title, an English msgid ("your report")."""
    return {name: form.title for name, form in FORMS.items()}


def _title(form: str) -> str:
    """The title of form ``form`` (an English msgid); "the form" for a draft of no registered form."""
    return FORMS[form].title if form in FORMS else N_("the form")


async def active_draft(context: BalcaoContext) -> Draft | None:
    """The form the person behind this update is filling in, if any."""
    async with context.sessions() as session:
        return await get_draft(session=session, person_id=context.person.id)


def cancel_row(context: BalcaoContext, data: str) -> list[tuple[str, str]]:
    """The Cancel button every step of a form shows."""
    return [(context.tr._("✖ Cancel"), data)]


async def save(
    context: BalcaoContext, form: str, step: str, data: dict[str, Any], *, base: dict[str, Any] | None = None,
    asked: bool = True,
) -> Draft:
    """Save the form's step and answers now, so a restart resumes here (``models.drafts.save_draft``).

    With ``base`` (the answers as read), only what changed since is merged into the draft as stored now;
    ``asked`` False while the step's question is still to be delivered.
    """
    async with context.sessions() as session:
        return await save_draft(session=session, person_id=context.person.id, form=form, step=step, data=data,
                                base=base, asked=asked)


async def question_asked(context: BalcaoContext, step: str) -> None:
    """The question of ``step`` was delivered: a crash from now on does not make the form ask it again."""
    async with context.sessions() as session:
        await mark_asked(session=session, person_id=context.person.id, step=step)


async def current_draft(context: BalcaoContext, form: str) -> Draft | None:
    """The person's draft if it is of ``form``."""
    draft = await active_draft(context)
    return draft if draft is not None and draft.form == form else None


async def discard(context: BalcaoContext) -> None:
    """Discard the person's form in progress and the files sent into it that no case took."""
    async with context.sessions() as session:
        await discard_draft(session=session, person_id=context.person.id)
        await discard_unfiled(session=session, person_id=context.person.id)
        await session.commit()


async def busy_elsewhere(update: Update, context: BalcaoContext, form: str) -> bool:
    """Whether the person is filling in another form; if so, say so (starting this one would discard it)."""
    draft = await active_draft(context)
    if draft is None or draft.form == form:
        return False
    await respond(
        update,
        context,
        context.tr._("You are in the middle of {form}. Finish it, or send /cancelar to discard it, then try "
                     "again.").format(form=esc(context.tr._(_title(draft.form)))),
    )
    return True


async def cancel_form(update: Update, context: BalcaoContext) -> None:
    """The Cancel button: discard the draft and its files; say that nothing was sent."""
    await discard(context)
    await respond(
        update,
        context,
        context.tr._("Cancelled: nothing was sent. Everything you had sent before is kept."),
        markup=keyboard([menu_row(context)]),
        edit=True,
    )


async def cancel_in_progress(update: Update, context: BalcaoContext) -> None:
    """``/cancelar``: discard whatever form is in progress and its unfiled files; name it, and say what was kept."""
    tr = context.tr
    draft = await active_draft(context)
    await discard(context)
    if draft is None:
        text = tr._("There was nothing in progress. Everything you sent before is kept.")
    else:
        title = draft.data.get("title")  # a form that is several things names itself (an appeal, a defence)
        text = tr._(
            "Cancelled: {form} was discarded and nothing was sent. "
            "Everything you had sent before (cases, registration, notices) is kept."
        ).format(form=esc(tr._(title if isinstance(title, str) else _title(draft.form))))
    await reply(update, context, text, markup=keyboard([menu_row(context)]))


async def offer_to_resume(update: Update, context: BalcaoContext, *, form: str, prefix: str, question: str) -> bool:
    """Whether starting ``form`` must wait: another form is in progress (said), or this one is (continue or restart).

    Args:
        update: the update that asked to start.
        context: the chat context.
        form: the form to start.
        prefix: the buttons' prefix (``rep``, ``ouv``): ``<prefix>:resume``, ``:restart`` and ``:cancel``.
        question: the translated question offering to continue or start again.
    """
    if await busy_elsewhere(update, context, form):
        return True
    if await current_draft(context, form) is None:
        return False
    tr = context.tr
    await respond(update, context, question, markup=keyboard([
        [(tr._("Continue"), f"{prefix}:resume")], [(tr._("Start again"), f"{prefix}:restart")],
        cancel_row(context, f"{prefix}:cancel"),
    ]))
    return True


async def take_input(update: Update, context: BalcaoContext) -> bool:
    """Free input (text, a contact, a location, files) to the form in progress; whether a form took it."""
    draft = await active_draft(context)
    if draft is None or draft.form not in FORMS:
        return False
    await FORMS[draft.form].handler(update, context, draft)
    return True


async def edited_message(update: Update, context: BalcaoContext) -> None:
    """An edit of an earlier message: the form in progress decides; it is never taken as a new answer.

    Outside a form an edit is ignored; with a draft of no registered form it is explained and ignored.
    """
    draft = await active_draft(context)
    if draft is None:
        return
    registered = FORMS.get(draft.form)
    if registered is not None:
        await registered.on_edit(update, context, draft)
        return
    await respond(update, context, context.tr._("Editing an earlier message changes nothing here. Please send the "
                                              "answer as a new message."))
