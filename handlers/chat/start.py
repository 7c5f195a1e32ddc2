"""The front door: /start (with deep links), the main menu, /ajuda, /idioma, /cancelar, /privacidade.

Also the fallback for free input: it goes to the form being filled in, or gets a gentle pointer to the menu.
"""

from __future__ import annotations

from telegram import Update
from telegram.ext import Application, CallbackQueryHandler, MessageHandler, filters

from core.i18n import N_, SUPPORTED_LOCALES, translator
from handlers.chat.city import city_buttons, needs_choice
from handlers.chat.commands import COMMANDS, ChatCommand, chat_command, public_commands, staff_commands
from handlers.chat.complement import typed_answer
from handlers.chat.context import BalcaoContext
from handlers.chat.deep_links import find_deep_link
from handlers.chat.engine import cancel_in_progress, edited_message, take_input
from handlers.chat.follow import show_case
from handlers.chat.greetings import is_greeting
from handlers.chat.human_contact import menu_and_human_row, person_contact_lines
from handlers.chat.menus import publish_person_menu, publish_staff_menu
from handlers.chat.replies import MENU_DATA, answer_query, esc, keyboard, menu_row, reply
from handlers.chat.sentences import offer_form
from models.cases.protocol import normalize_protocol
from models.people import acknowledge_privacy, set_locale

PRIVACY_ACK = "privacy:ack"


def _menu_commands(context: BalcaoContext) -> list[ChatCommand]:
    in_force = context.settings.rulebooks  # the person's municipality's laws (CF Art. 30 I)
    commands = [c for c in public_commands() if c.menu_label and (c.rulebook is None or c.rulebook in in_force)]
    if not context.deployment_settings.municipalities.several:  # "Minha cidade" only where there is a choice
        commands = [c for c in commands if c.name != "cidade"]
    role = context.person.staff_role
    if role is not None:
        commands += [c for c in staff_commands() if c.menu_label and c.staff_roles and (
            role.value == "admin" or role in c.staff_roles)]
    return commands


async def show_main_menu(update: Update, context: BalcaoContext, *, edit: bool = False) -> None:
    """The main menu: one button per journey (two per row), staff journeys for staff."""
    tr = context.tr
    buttons = [(tr._(str(c.menu_label)), f"cmd:{c.name}") for c in _menu_commands(context)]
    rows = [buttons[index : index + 2] for index in range(0, len(buttons), 2)]
    text = tr._("What would you like to do? Choose below.")
    await reply(update, context, text, markup=keyboard(rows), edit=edit)


@chat_command("start", description=N_("Start and show the main menu"), order=0)
async def start(update: Update, context: BalcaoContext) -> None:
    """``/start [payload]``: greet, follow a deep link, or show the menu."""
    payload = context.args[0] if context.args else ""
    if payload:
        found = find_deep_link(payload)
        if found is not None:
            handler, rest = found
            await handler(update, context, rest)
            return
    await greet(update, context)


async def greet(update: Update, context: BalcaoContext) -> None:
    """Say hello by name (pointing to /privacidade until it is read) and show the main menu."""
    tr = context.tr
    greeting = tr._(
        "Hello, {name}! I am Balcão, the service counter of the city hall of {city} on your phone."
    ).format(name=esc(context.person.first_name or ""), city=esc(context.settings.municipality_name))
    choose = needs_choice(context)
    if choose:
        names = [item.name for item in context.deployment_settings.municipalities.values()]
        greeting = tr._("Hello, {name}! I am Balcão, the service counter of the city halls of {cities} on your "
                        "phone.").format(name=esc(context.person.first_name or ""), cities=esc(tr.names(names)))
    if not context.person.privacy_acknowledged:
        greeting += "\n\n" + tr._("Before you start: see how the city hall uses your data in /privacidade.")
    if choose:
        greeting += "\n\n" + tr._("Which is your city? You can change it later in the menu (My city).")
    await reply(update, context, greeting, markup=keyboard(city_buttons(context)) if choose else None)
    if context.person.staff_role is not None:
        await publish_staff_menu(
            context.bot, chat_id=context.person.chat_id, role=context.person.staff_role, locale=context.person.locale
        )
    await show_main_menu(update, context)


@chat_command("ajuda", aliases=("help",), description=N_("How to use Balcão"), menu_label=N_("Help"), order=90)
async def help_command(update: Update, context: BalcaoContext) -> None:
    """``/ajuda``: short — how to move around, then whom to reach at the city hall (issue 20 §3)."""
    tr = context.tr
    lines = [tr._("<b>How to use Balcão</b>"),
             tr._("Press the buttons of the menu. The / button beside the text box lists every command."),
             tr._("/cancelar stops what you are doing at any time."), "",
             *person_contact_lines(context)]
    await reply(update, context, "\n".join(lines), markup=keyboard([menu_row(context)]))


@chat_command("idioma", aliases=("language", "lingua"), description=N_("Change the language"),
              menu_label=N_("Language"), order=95)
async def language_command(update: Update, context: BalcaoContext) -> None:
    """``/idioma``: pick Portuguese, English or Spanish."""
    rows = [[(translator(locale).language_name(locale), f"lang:{locale}")] for locale in SUPPORTED_LOCALES]
    await reply(update, context, context.tr._("Choose your language:"), markup=keyboard(rows), edit=True)


async def language_chosen(update: Update, context: BalcaoContext) -> None:
    """A language button was pressed: store it and answer in the new language."""
    query = update.callback_query
    assert query is not None and query.data is not None
    locale = query.data.split(":", 1)[1]
    async with context.sessions() as session:
        stored = await set_locale(session=session, person_id=context.person.id, locale=locale)
    context.tr = translator(stored, context.settings.timezone)
    await reply(update, context, context.tr._("Done: I will talk to you in English."), edit=True)
    await publish_person_menu(
        context.bot, chat_id=context.person.chat_id, locale=stored, role=context.person.staff_role
    )
    await show_main_menu(update, context)


@chat_command("cancelar", aliases=("cancel",), description=N_("Stop what you are doing"), order=98)
async def cancel(update: Update, context: BalcaoContext) -> None:
    """``/cancelar``: the engine discards the form in progress and says what was kept."""
    await cancel_in_progress(update, context)


@chat_command("privacidade", aliases=("privacy",), description=N_("How we use your data (LGPD)"),
              menu_label=N_("Privacy"), order=92)
async def privacy(update: Update, context: BalcaoContext) -> None:
    """``/privacidade``: what Balcão keeps, why, for how long, and the person's rights (LGPD)."""
    tr = context.tr
    text = tr._(
        "<b>Your data at Balcão</b>\n"
        "The city hall of {city} keeps only what each service needs: your Telegram id and language, "
        "and what you send in a case or registration.\n\n"
        "• Why: to provide public services (LGPD Art. 7 III and Art. 23).\n"
        "• Who sees it: only the staff in charge of your case. "
        "When you report someone, your name is never shown to them.\n"
        "• How long: while the case is open, then as long as the law on public records requires.\n"
        "• Your rights (LGPD Art. 18): see your data and ask for its deletion with /meusdados."
    ).format(city=esc(context.settings.municipality_name))
    text += "\n" + _encarregado(context) + "\n" + tr._(
        "• Telegram: your messages and the documents sent here pass through Telegram, a provider abroad. The city "
        "hall uses it to provide this public service (LGPD Art. 33 VII) and tells you so here (Art. 23 I).")
    rows = [] if context.person.privacy_acknowledged else [[(tr._("Got it"), PRIVACY_ACK)]]
    await reply(update, context, text, markup=keyboard([*rows, menu_row(context)]))


def _encarregado(context: BalcaoContext) -> str:
    """Who answers for personal data at the person's city hall (LGPD Art. 23 III, 41 §1), or how to ask."""
    tr, municipality = context.tr, context.settings.municipality
    if municipality.encarregado.named:
        return tr._("• Who answers for your data (encarregado, LGPD Art. 41): {name}, {contact}.").format(
            name=esc(municipality.encarregado.name), contact=esc(municipality.encarregado.contact))
    return tr._("• Who answers for your data (encarregado, LGPD Art. 41): the city hall has not named one here "
                "yet; ask the Ouvidoria.")


async def privacy_acknowledged(update: Update, context: BalcaoContext) -> None:
    """The "Got it" button under the privacy notice: record when the person was told."""
    async with context.sessions() as session:
        await acknowledge_privacy(session=session, person_id=context.person.id)
    text = context.tr._("Thank you. You can read this again at any time with /privacidade.")
    await reply(update, context, text, markup=keyboard([menu_row(context)]), edit=True)


async def menu_button(update: Update, context: BalcaoContext) -> None:
    """The ☰ button present on every screen."""
    await show_main_menu(update, context, edit=True)


async def command_button(update: Update, context: BalcaoContext) -> None:
    """A main-menu button: run the same function as the command it stands for."""
    query = update.callback_query
    assert query is not None and query.data is not None
    command = COMMANDS.get(query.data.split(":", 1)[1])
    if command is None:
        await answer_query(update, context)
        return
    context.args = []
    await command.callback(update, context)


async def free_input(update: Update, context: BalcaoContext) -> None:
    """Text, contact, location, photo or document outside a command."""
    if await take_input(update, context):  # the form in progress takes it
        return
    typed = update.effective_message.text if update.effective_message is not None else None
    protocol = normalize_protocol(typed) if typed else None
    if protocol is not None:  # "REP-2026-000123" alone: that case, if it is theirs (else "none of yours")
        await show_case(update, context, protocol=protocol)
        return
    if typed and is_greeting(typed):  # "oi", "bom dia": the greeting and the menu, as /start
        await greet(update, context)
        return
    if await typed_answer(update, context):  # the answer to staff's request for more information
        return
    if typed and await offer_form(update, context, typed):  # "quero denunciar queimada de lixo": that form
        return
    await reply(
        update,
        context,
        context.tr._("I did not understand. Choose an option below, or talk to a person at the city hall."),
        markup=keyboard([menu_and_human_row(context)]),
    )


async def unknown_command(update: Update, context: BalcaoContext) -> None:
    """``/xyz``, a command no handler took (added last of group 0 by ``register_all``): say so, offer the menu."""
    await reply(
        update,
        context,
        context.tr._("I do not know that command. Choose an option below, or send /ajuda."),
        markup=keyboard([menu_and_human_row(context)]),
    )


def register(application: Application) -> None:
    """Add the front-door handlers (the registered commands are added by the application factory)."""
    application.add_handler(CallbackQueryHandler(menu_button, pattern=f"^{MENU_DATA}$"))
    application.add_handler(CallbackQueryHandler(command_button, pattern=r"^cmd:"))
    application.add_handler(CallbackQueryHandler(language_chosen, pattern=r"^lang:"))
    application.add_handler(CallbackQueryHandler(privacy_acknowledged, pattern=f"^{PRIVACY_ACK}$"))
    application.add_handler(
        MessageHandler(filters.UpdateType.MESSAGE & filters.ChatType.PRIVATE & ~filters.COMMAND, free_input),
        group=50,
    )
    application.add_handler(MessageHandler(filters.UpdateType.EDITED_MESSAGE, edited_message), group=50)
