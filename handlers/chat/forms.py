"""Routing free input (text, contact, location, photo, document) to the form the person is filling in.

A conversation is a form: its step and answers live in the ``draft`` table (``models.drafts``), so a
restart loses nothing. An area registers the function that handles input for its form with
:func:`form_input`; buttons use callback data ``<area>:<action>[:<arg>]`` with the area's own
``CallbackQueryHandler``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from telegram import Update

from handlers.chat.context import BalcaoContext
from models.drafts import Draft, get_draft

InputHandler = Callable[[Update, BalcaoContext, Draft], Awaitable[None]]



@dataclass(frozen=True, slots=True)
class RegisteredForm:
    """A form's input handler and its name as /cancelar says it (English msgid, e.g. "your report")."""

    handler: InputHandler
    title: str


FORMS: dict[str, RegisteredForm] = {}


def form_input(form: str, *, title: str) -> Callable[[InputHandler], InputHandler]:
    """Register the handler of free input for a form (one per form name).

    Args:
        form: the ``Draft.form`` value.
        title: English msgid marked with ``N_`` naming the form for /cancelar ("your report").
    """

    def decorate(handler: InputHandler) -> InputHandler:
        if form in FORMS:
            raise ValueError(f"form {form!r} registered twice")
        FORMS[form] = RegisteredForm(handler=handler, title=title)
        return handler

    return decorate


async def active_draft(context: BalcaoContext) -> Draft | None:
    """The form the person behind this update is filling in, if any."""
    async with context.sessions() as session:
        return await get_draft(session=session, person_id=context.person.id)
