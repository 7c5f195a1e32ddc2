"""The form engine: a conversation is declared as data (``spec``) and run by one engine (``flow``).

A form lists its steps — each with its question, the inputs it accepts (text, buttons, location, contact, files),
the parser from ``models/`` that turns an input into a value or a refusal, its buttons and the article it cites —
and the engine does the rest once for every form: saving after each step (``draft`` table), resuming after a
restart, Cancel and /cancelar, the review with a button for every answer, refusals that offer to change the answer
they name, the submission filed once however many presses of Send arrive (``form_submission``), stale and forged
buttons, typed "sim"/"não", typed "voltar" (``back``), and edits of earlier answers. A form may also declare an
asynchronous review that refuses before Send (``review``) or none at all (``confirm=False``), the staff roles
checked on every update and a timeout for idle drafts (``guard``), the Send button's label, and the screen it
returns to when done (``Form.back``); ``begin(form, …, prefill=, pending=)`` starts it prefilled at the steps left
to answer. Updates of one person arrive in order (``bot.ordering``), so an album's photos and a double tap are
handled one after the other.

Only the engine reads or writes drafts and claims submissions (``drafts``, ``submission``; the import contract
"Only the form engine reads or writes drafts"): an area starts its form (``start``, ``begin``) and asks whether
another is in progress (``busy_elsewhere``); the front door routes free input and edits to the form in progress
(``take_input``, ``edited_message``) and cancels it (``cancel_in_progress``, ``/cancelar``).

Use::

    FORM = Form(name="ouvidoria", prefix="ouv", steps=(...), ...)
    register = register_form(FORM)          # the area's register(application)

    @chat_command("ouvidoria", ...)
    async def start_ombudsman(update, context):
        await start(FORM, update, context)
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from telegram import Update
from telegram.ext import Application, CallbackQueryHandler

from handlers.chat.context import BalcaoContext
from handlers.chat.engine.drafts import (
    FORMS,
    RegisteredForm,
    busy_elsewhere,
    cancel_in_progress,
    current_draft,
    edited_message,
    form_titles,
    take_input,
)
from handlers.chat.engine.edits import on_edit
from handlers.chat.engine.flow import begin, on_button, start
from handlers.chat.engine.guard import checked
from handlers.chat.engine.inputs import on_input
from handlers.chat.engine.spec import Answer, Filed, Forged, Form, Question, Review, Step, Turn
from models.drafts import Draft

__all__ = ["Answer", "Filed", "Forged", "Form", "Question", "Review", "Step", "Turn", "begin", "busy_elsewhere",
           "cancel_in_progress", "edited_message", "form_titles", "register_form", "start", "take_input"]


def register_form(form: Form) -> Callable[[Application[Any, Any, Any, Any, Any, Any]], None]:
    """Route the form's free input and edits to the engine; return the ``register`` adding its buttons."""

    async def typed(update: Update, context: BalcaoContext, draft: Draft) -> None:
        if await checked(form, update, context, draft):
            await on_input(form, update, context, draft.step, copy.deepcopy(draft.data), was_asked=draft.asked)

    async def edited(update: Update, context: BalcaoContext, draft: Draft) -> None:
        if await checked(form, update, context, draft):
            await on_edit(form, update, context, draft.step, copy.deepcopy(draft.data))

    async def pressed(update: Update, context: BalcaoContext) -> None:
        parts = (update.callback_query.data or "").split(":") if update.callback_query is not None else []
        opens = len(parts) > 1 and parts[1] in form.entries  # an entry starts afresh: no idle draft to close
        draft = None if opens else await current_draft(context, form.name)
        if await checked(form, update, context, draft, cancelling=len(parts) > 1 and parts[1] == "cancel"):
            await on_button(form, update, context)

    if form.name in FORMS:
        raise ValueError(f"form {form.name!r} registered twice")
    FORMS[form.name] = RegisteredForm(handler=typed, title=form.title, on_edit=edited)

    def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
        application.add_handler(CallbackQueryHandler(pressed, pattern=f"^{form.prefix}:"))

    return register
