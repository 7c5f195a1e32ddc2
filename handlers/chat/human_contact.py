"""A person to reach (issue 20 §3): the city hall's phone, WhatsApp, address and hours, from the municipalities file.

``/ajuda`` ends with it, and every "Não entendi" offers it on a button beside the main menu's (L13460 Art. 5 I:
urbanidade e atendimento por meios acessíveis; Art. 13: the ouvidoria's telephone is the fallback). It names the
person's own city (each city served, until they choose theirs); nothing is sent anywhere.
"""

from __future__ import annotations

from telegram import Update
from telegram.ext import Application, CallbackQueryHandler

from core.i18n import Translator
from core.municipalities import MunicipalityConfig
from handlers.chat.city import needs_choice
from handlers.chat.context import BalcaoContext
from handlers.chat.replies import esc, keyboard, menu_row, reply

HUMAN_DATA = "help:human"
"""The button that shows the contact card."""


def contact_lines(tr: Translator, city: MunicipalityConfig) -> list[str]:
    """The contact card of the city hall: a heading, then phone, WhatsApp, address and hours as configured."""
    lines = [tr._("<b>Talk to a person at the city hall of {city}</b>").format(city=esc(city.name))]
    phone = city.contact.phone or city.ouvidoria.phone
    if phone:
        lines.append(tr._("📞 Phone: {phone}").format(phone=esc(phone)))
    if city.contact.whatsapp:
        lines.append(tr._("💬 WhatsApp: https://wa.me/{number}").format(number=city.contact.whatsapp.lstrip("+")))
    office = city.contact_office()
    if office is not None:
        lines.append(tr._("📍 {office}: {address}").format(office=esc(office.name), address=esc(office.address)))
        if office.hours:
            lines.append(tr._("🕘 Opening hours: {hours}").format(hours=esc(office.hours)))
    if len(lines) == 1:
        lines.append(tr._("The city hall has not given a contact yet: ask at its front desk."))
    return lines


def menu_and_human_row(context: BalcaoContext) -> list[tuple[str, str]]:
    """The main menu's button with "Talk to a person" beside it (every "Não entendi")."""
    return [*menu_row(context), (context.tr._("📞 Talk to a person"), HUMAN_DATA)]


def person_contact_lines(context: BalcaoContext) -> list[str]:
    """The card of the person's city; one per city served while they have not chosen theirs."""
    if needs_choice(context):
        cities = list(context.deployment_settings.municipalities.values())
        return [line for index, city in enumerate(cities)
                for line in (([""] if index else []) + contact_lines(context.tr, city))]
    return contact_lines(context.tr, context.settings.municipality)


async def show_contact(update: Update, context: BalcaoContext) -> None:
    """The contact card, with the menu."""
    lines = person_contact_lines(context)
    await reply(update, context, "\n".join(lines), markup=keyboard([menu_row(context)]),
                edit=update.callback_query is not None)


def register(application: Application) -> None:
    """Add the contact card's button."""
    application.add_handler(CallbackQueryHandler(show_contact, pattern=f"^{HUMAN_DATA}$"))
