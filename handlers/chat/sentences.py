"""A sentence typed at the menu is answered with the form it most likely means (issue 19 §4.4).

"quero denunciar queimada de lixo" → a button that starts /representacao with that sentence as the description;
"quero reclamar do posto de saúde" → /ouvidoria, a reclamação with that sentence as the message. The guess is the
domain's (:func:`models.cases.sentence_forms.guess_form`, a keyword list per form and language). The offer quotes
the sentence on its last line, and the button reads it back from there: nothing is stored until the person
accepts, and an offer still works after a restart. Buttons: ``say:rep:<kind>``, ``say:ouv:<type or ->``.
"""

from __future__ import annotations

from telegram import Update
from telegram.ext import Application, CallbackQueryHandler

from core.i18n import N_
from handlers.chat import ombudsman, representation
from handlers.chat.context import BalcaoContext
from handlers.chat.human_contact import menu_and_human_row
from handlers.chat.replies import answer_query, esc, keyboard, menu_row, reply
from models.cases.sentence_forms import Guess, guess_form
from models.cases.tables import OmbudsmanType

OPEN, CLOSE = "«", "»"
LABELS = {
    "rep:cp": N_("📝 Report a breach of the city rules"),
    "rep:app": N_("🚗 Report a ride-hailing driver"),
    "ouv": N_("📣 Write to the Ombudsman"),
}


def _data(guess: Guess) -> tuple[str, str]:
    """The button's label msgid and data for a guess."""
    if guess.form == "ouvidoria":
        return LABELS["ouv"], f"say:ouv:{guess.ombudsman_type.value if guess.ombudsman_type else '-'}"
    return LABELS[f"rep:{guess.kind}"], f"say:rep:{guess.kind}"


async def offer_form(update: Update, context: BalcaoContext, typed: str) -> bool:
    """Offer the form a sentence typed at the menu most likely means; False when there is no guess.

    Args:
        update: the message's update.
        context: the chat's context.
        typed: what the person typed outside any form.
    """
    kinds = tuple(representation.kinds_offered(context))
    guess = guess_form(typed, kinds=kinds)
    if guess is None:
        return False
    tr = context.tr
    label, data = _data(guess)
    sentence = " ".join(typed.split())
    text = tr._("I think this is what you want. Press the button to start: what you wrote will be its first "
                "answer.") + f"\n\n{OPEN}{esc(sentence)}{CLOSE}"
    await reply(update, context, text, markup=keyboard([[(tr._(label), data)], menu_row(context)]))
    return True


def _quoted(update: Update) -> str | None:
    """The sentence the offer quoted (its last line), as the person typed it."""
    query = update.callback_query
    message = query.message if query is not None else None
    text = getattr(message, "text", None)
    if not text:
        return None
    last = text.rsplit("\n", 1)[-1]
    if not (last.startswith(OPEN) and last.endswith(CLOSE)) or len(last) < 3:
        return None
    return last[len(OPEN) : -len(CLOSE)]


async def on_accept(update: Update, context: BalcaoContext) -> None:
    """``say:…`` pressed: begin that form with the quoted sentence as its first answer."""
    query = update.callback_query
    assert query is not None and query.data is not None
    _say, form, arg = [*query.data.split(":"), "", ""][:3]
    sentence = _quoted(update)
    await answer_query(update, context)
    if sentence is None or form not in ("rep", "ouv"):
        await reply(update, context,
                    context.tr._("I did not understand. Choose an option below, or talk to a person at the city hall."),
                    markup=keyboard([menu_and_human_row(context)]))
        return
    if form == "rep":
        await representation.start_from_sentence(update, context, sentence, arg)
        return
    kind = next((item for item in OmbudsmanType if item.value == arg), None)
    await ombudsman.start_from_sentence(update, context, sentence, kind)


def register(application: Application) -> None:
    """Add the offer's button (the offer itself is made by the front door's free input)."""
    application.add_handler(CallbackQueryHandler(on_accept, pattern=r"^say:"))
