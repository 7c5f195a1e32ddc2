"""``/cidade`` ("Minha cidade"): the person's municipality, when the deployment serves several.

A linked driver's municipality is that of the registration (Lei 1.533/2020 is Sapezal's); anyone else chooses once
with a button and may change it here later. The choice decides the name, Ouvidoria, calendar and laws of what the
person files without a law of its own (an ombudsman case) and how the bot greets them; a representação or a
ride-hailing report goes to the municipality whose law it rests on, whatever the choice (CF Art. 30 I).
"""

from __future__ import annotations

from dataclasses import replace

from telegram import Update
from telegram.ext import Application, CallbackQueryHandler

from core.i18n import N_
from handlers.chat.commands import COMMANDS, chat_command
from handlers.chat.context import BalcaoContext
from handlers.chat.replies import esc, keyboard, menu_row, reply, respond
from models.people import choose_municipality

PREFIX = "city:"


def needs_choice(context: BalcaoContext) -> bool:
    """Whether the person must choose a city first: several are served and none is known for them."""
    served = context.deployment_settings.municipalities
    return served.several and context.person.municipality is None and context.bot_key not in served


def city_buttons(context: BalcaoContext, *, then: str = "") -> list[list[tuple[str, str]]]:
    """One button per municipality; ``then`` is the command to run after the choice (e.g. ``ouvidoria``)."""
    served = context.deployment_settings.municipalities
    return [[(f"{item.name} ({item.state})", f"{PREFIX}{slug}:{then}")] for slug, item in served.items()]


async def ask_city(update: Update, context: BalcaoContext, *, then: str = "", edit: bool = False) -> None:
    """Ask which city the person's request is for (one button each)."""
    tr = context.tr
    text = tr._("Which city hall is this for? Choose your city.")
    await reply(update, context, text, markup=keyboard([*city_buttons(context, then=then), menu_row(context)]),
                edit=edit)


@chat_command("cidade", aliases=("city",), description=N_("Choose your city"), menu_label=N_("My city"), order=93)
async def city_command(update: Update, context: BalcaoContext) -> None:
    """``/cidade``: show the person's city and let them change it (a driver's comes from the registration)."""
    tr = context.tr
    served = context.deployment_settings.municipalities
    current = context.settings.municipality_name
    if not served.several:
        await reply(update, context, tr._("Balcão here serves the city hall of {city}.").format(city=esc(current)),
                    markup=keyboard([menu_row(context)]))
        return
    if context.person.municipality_registered:  # Lei 1.533/2020: the registration is that municipality's
        await reply(update, context, tr._("Your city: <b>{city}</b>, from your driver registration.").format(
            city=esc(current)), markup=keyboard([menu_row(context)]), edit=True)
        return
    lines = [tr._("Your city: <b>{city}</b>.").format(city=esc(current)) if context.person.municipality
             else tr._("You have not chosen your city yet.")]
    lines.append(tr._("Choose the city whose city hall you want to talk to:"))
    await reply(update, context, "\n".join(lines),
                markup=keyboard([*city_buttons(context), menu_row(context)]), edit=True)


async def city_chosen(update: Update, context: BalcaoContext) -> None:
    """A city button: store the choice, say so, then go on with what the person was starting (if anything)."""
    query = update.callback_query
    assert query is not None and query.data is not None
    slug, _, then = query.data.removeprefix(PREFIX).partition(":")
    served = context.deployment_settings.municipalities
    if slug not in served:  # a button from an old configuration, or forged data
        await query.answer()
        await ask_city(update, context, then=then if then in COMMANDS else "", edit=True)
        return
    async with context.sessions() as session:
        await choose_municipality(session=session, person_id=context.person.id, municipality=slug)
    context.person = replace(context.person, municipality=slug, municipality_chosen=True)
    tr = context.tr
    text = tr._("Done: your city is {city}.").format(city=esc(served[slug].name))
    command = COMMANDS.get(then)
    if command is None:
        await reply(update, context, text, markup=keyboard([menu_row(context)]), edit=True)
        return
    await respond(update, context, text, edit=True)  # answers the button once; the command's screens follow
    context.args = []
    await command.callback(update, context)


def register(application: Application) -> None:
    """Add the city buttons."""
    application.add_handler(CallbackQueryHandler(city_chosen, pattern=f"^{PREFIX}"))
