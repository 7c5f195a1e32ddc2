"""Drivers (Lei 1.533/2020): /situacao, /vincular, /desvincular and the ``link-`` deep link. Buttons: ``drivers:…``.

- ``/situacao`` (``/status``): one short message (state, validity and days left, whether the driver may work
  today, the most urgent thing to do); the facts behind a button (authorization, vehicle age limit, inspections,
  where to go: one short line each); and every step with its deadline and article behind one more.
- ``/vincular`` (``/link``): share your own contact with the button (a contact that is not yours is refused) and
  type the first three digits of your CPF; or type the code staff gave you ("I have a code"). A form on
  ``handlers.chat.engine`` (``drivers:contact`` and ``drivers:code`` start it): the contact is a step input like a
  location, each attempt is checked by ``models.drivers.linking`` as it is typed (a wrong one stays at its step
  with the attempts left, counted there per day), and the outcome ends it with no review
  (``Form.confirm=False``); a restart resumes it, typed "voltar" goes back. The texts of /situacao are in
  :mod:`handlers.chat.driver_texts`.
- ``/start link-<code>``: the one-time link staff generate (``python -m bot driver link-code CPF``).
- ``/desvincular`` (``/unlink``), or the button under /situacao, after a confirmation.
"""

from __future__ import annotations

from typing import Any

from telegram import Contact, KeyboardButton, ReplyKeyboardMarkup, ReplyKeyboardRemove, Update
from telegram.ext import Application, CallbackQueryHandler

from core.i18n import N_, Translator
from handlers.chat.commands import chat_command
from handlers.chat.context import BalcaoContext
from handlers.chat.deep_links import deep_link
from handlers.chat.driver_texts import details_text, legal, steps_text, summary_text
from handlers.chat.engine import Answer, Filed, Forged, Form, Question, Step, Turn, begin, register_form
from handlers.chat.engine.review import REVIEW
from handlers.chat.replies import esc, keyboard, menu_row, reply, respond
from models.columns import utcnow
from models.drivers.identifiers import InvalidIdentifier, parse_phone
from models.drivers.linking import (
    DEEP_LINK_PREFIX,
    LinkOutcome,
    LinkResult,
    confirm_cpf_digits,
    drivers_with_phone,
    redeem_link_code,
    unlink,
)
from models.drivers.registry import DriverSituation, situation_for_person
from models.drivers.status import (
    ARTICLES,
    RULE_REPORT_CHANGES,
)
from models.invalid_input import InvalidInput
from models.rulebooks.catalogue import L1533
from models.when import municipal_today

FORM = "driver_link"
NO_PHONE = "no_phone"
"""The outcome of a shared phone no registration has."""
METHODS = {"contact": ("contact", "cpf"), "code": ("code",)}
"""The steps of each way to link."""
STATUS = "drivers:status"
DETAILS = "drivers:details"
STEPS = "drivers:steps"
LINK = "drivers:link"
BY_CONTACT = "drivers:contact"
BY_CODE = "drivers:code"
UNLINK = "drivers:unlink"
UNLINK_CONFIRMED = "drivers:unlink:yes"


async def _situation(context: BalcaoContext) -> DriverSituation | None:
    today = municipal_today(context.settings.tz, now=utcnow())
    async with context.sessions() as session:
        return await situation_for_person(
            session=session, person_id=context.person.id, on=today, city=context.city
        )


def _not_linked_markup(context: BalcaoContext) -> Any:
    return keyboard([[(context.tr._("Link my registration"), LINK)], menu_row(context)])


async def show_status(update: Update, context: BalcaoContext, *, edit: bool = False) -> None:
    """The short /situacao answer, or how to link when the person is not a linked driver."""
    tr = context.tr
    situation = await _situation(context)
    if situation is None:
        text = tr._("Your Telegram is not linked to a driver registration yet. Link it to see your authorization "
                    "and get reminders of its deadlines.")
        await reply(update, context, text, markup=_not_linked_markup(context), edit=edit)
        return
    markup = keyboard([
        [(tr._("Details"), DETAILS), (tr._("Unlink"), UNLINK)],
        menu_row(context),
    ])
    await reply(update, context, summary_text(tr, situation), markup=markup, edit=edit)


@chat_command(
    "situacao",
    aliases=("status",),
    description=N_("Your driver authorization: validity, inspection and deadlines"),
    menu_label=N_("Driver: my authorization"),
    order=20,
    rulebook=L1533,  # L1533 Art. 8: the authorization is Sapezal's, under its own law
)
async def status_command(update: Update, context: BalcaoContext) -> None:
    """``/situacao``: is my authorization valid, until when, and what must I do."""
    await show_status(update, context)


async def status_button(update: Update, context: BalcaoContext) -> None:
    """``drivers:status`` (also under every reminder)."""
    await show_status(update, context)


async def details_button(update: Update, context: BalcaoContext) -> None:
    """``drivers:details``: everything, each line with its article."""
    tr = context.tr
    situation = await _situation(context)
    if situation is None:
        await show_status(update, context, edit=True)
        return
    markup = keyboard([[(tr._("📋 What to do"), STEPS)], [(tr._("◀ Back"), STATUS), (tr._("Unlink"), UNLINK)],
                       menu_row(context)])
    await reply(update, context, details_text(tr, situation, context.settings.driver_office), markup=markup,
                edit=True)


async def steps_button(update: Update, context: BalcaoContext) -> None:
    """``drivers:steps``: each thing to do with its deadline and article."""
    tr = context.tr
    situation = await _situation(context)
    if situation is None:
        await show_status(update, context, edit=True)
        return
    markup = keyboard([[(tr._("◀ Back"), DETAILS)], menu_row(context)])
    await reply(update, context, steps_text(tr, situation, context.settings.driver_office), markup=markup,
                edit=True)


# --- linking ------------------------------------------------------------------------------------------------------


@chat_command("vincular", aliases=("link",), description=N_("Link your Telegram to your driver registration"),
              order=21)
async def link_command(update: Update, context: BalcaoContext) -> None:
    """``/vincular``: show the current link, or the two ways to link."""
    await offer_link(update, context)


async def offer_link(update: Update, context: BalcaoContext, *, edit: bool = False) -> None:
    """The two ways to link, or the current link if there is one."""
    tr = context.tr
    situation = await _situation(context)
    if situation is not None:
        text = tr._("Your Telegram is already linked to the registration of {name} (CPF {cpf}).").format(
            name=esc(situation.name), cpf=esc(situation.cpf_masked)
        )
        markup = keyboard([[(tr._("My authorization"), STATUS), (tr._("Unlink"), UNLINK)], menu_row(context)])
        await reply(update, context, text, markup=markup, edit=edit)
        return
    text = tr._("Let's link your Telegram to your driver registration at the city hall. How do you want to do it?")
    markup = keyboard([
        [(tr._("📱 Share my phone number"), BY_CONTACT)],
        [(tr._("🔑 I have a code"), BY_CODE)],
        menu_row(context),
    ])
    await reply(update, context, text, markup=markup, edit=edit)


async def link_button(update: Update, context: BalcaoContext) -> None:
    """``drivers:link``."""
    await offer_link(update, context, edit=True)


def _contact_keyboard(tr: Translator) -> ReplyKeyboardMarkup:
    return ReplyKeyboardMarkup(
        [[KeyboardButton(tr._("📱 Share my phone number"), request_contact=True)]],
        resize_keyboard=True,
        one_time_keyboard=True,
    )


def _ask_contact(turn: Turn) -> Question:
    return Question(turn.tr._("Press the button below to share your phone number with me. "
                              "Send /cancelar if you change your mind."), markup=_contact_keyboard(turn.tr))


def _ask_cpf(turn: Turn) -> Question:
    return Question(turn.tr._("I found your registration. To confirm it is you, type the first 3 digits of your "
                              "CPF."), markup=ReplyKeyboardRemove())


def _ask_code(turn: Turn) -> Question:
    return Question(turn.tr._("Type the code the city hall gave you (for example K7QM-2XHD-9P)."))


async def _contact(contact: Contact, turn: Turn) -> Answer:
    """The person's own contact: the registrations with that phone (none: the link by phone ends here)."""
    user = turn.update.effective_user
    if user is None or contact.user_id != user.id:
        raise InvalidInput(N_("That is not your own contact. Press the button below to share your own phone "
                              "number."))
    try:
        phone = parse_phone(contact.phone_number)
    except InvalidIdentifier:
        phone = ""
    async with turn.context.sessions() as session:
        candidates = await drivers_with_phone(session=session, phone=phone) if phone else []
    if not candidates:  # no registration has this phone: the link by phone ends here
        return Answer({"outcome": NO_PHONE}, goto=REVIEW)
    return Answer({"candidates": candidates}, goto="cpf")


def _wrong(tr: Translator, left: int) -> str:
    return tr.ngettext("That does not match. You can try {n} more time today.",
                       "That does not match. You can try {n} more times today.", left).format(n=left)


def _attempt(result: LinkResult, turn: Turn) -> Answer:
    """A wrong answer stays at its step with the attempts left; any other outcome ends the link."""
    if result.outcome is LinkOutcome.WRONG:
        return Answer(stay=Question(_wrong(turn.tr, result.attempts_left)))
    return Answer({"outcome": result.outcome.value}, goto=REVIEW)  # the link ends here, whatever the flow


async def _cpf_digits(text: str, turn: Turn) -> Answer:
    """The first 3 digits of the CPF of one of the registrations found (L1533: the driver's own registration)."""
    digits = "".join(char for char in text if char.isdigit())
    if len(digits) != 3:
        raise InvalidInput(N_("Type only the first 3 digits of your CPF, for example 123."))
    async with turn.context.sessions() as session:
        result = await confirm_cpf_digits(
            session=session, person_id=turn.context.person.id, digits=digits, now=utcnow(),
            candidates=[int(candidate) for candidate in turn.data.get("candidates", [])],
        )
    return _attempt(result, turn)


async def _code(text: str, turn: Turn) -> Answer:
    async with turn.context.sessions() as session:
        result = await redeem_link_code(session=session, person_id=turn.context.person.id, code=text, now=utcnow())
    return _attempt(result, turn)


async def _done(turn: Turn) -> Filed:
    """The link's outcome, said once (the attempt itself was the step's check)."""
    outcome = str(turn.data.get("outcome", ""))

    async def announce() -> None:
        await _outcome(turn.update, turn.context, outcome)

    return Filed(outcome, announce)


def _by(method: str) -> Any:
    async def entry(arg: str, update: Update, context: BalcaoContext) -> None:
        if arg:
            raise Forged(arg)
        await begin(LINK_FORM, update, context, prefill={"method": method})
    return entry


LINK_FORM = Form(
    name=FORM,
    prefix="drivers",
    title=N_("linking your driver registration"),
    steps=(
        Step("contact", _ask_contact, contact=_contact),
        Step("cpf", _ask_cpf, text=_cpf_digits),
        Step("code", _ask_code, text=_code),
    ),
    flow=lambda data: METHODS["contact" if data.get("method") == "contact" or "candidates" in data else "code"],
    start=lambda turn: {},
    intro=N_("Let's link your driver registration. You can stop at any time with /cancelar."),
    resume=N_("You were linking your driver registration. Continue where you stopped, or start again?"),
    gone=N_("This link is no longer in progress. Send /vincular to start again."),
    already_sent=N_("This was already answered: send /situacao to see your authorization."),
    review_intro="",
    summary=lambda turn: "",
    submit=_done,
    entries={"contact": _by("contact"), "code": _by("code")},
    confirm=False,
)
_register_form = register_form(LINK_FORM)


async def _outcome(update: Update, context: BalcaoContext, outcome: str) -> None:
    """Tell the person what happened to their attempt (its draft, if any, is closed by the engine)."""
    tr = context.tr
    if outcome == NO_PHONE:
        await respond(update, context, tr._("I found no driver registration with this phone number."),
                      markup=ReplyKeyboardRemove())
        text = tr._("If your number changed, you must tell the city hall within 7 days. You can also ask the city "
                    "hall for a link code.") + "\n" + legal(ARTICLES[RULE_REPORT_CHANGES])
        await respond(update, context, text, markup=keyboard([[(tr._("🔑 I have a code"), BY_CODE)],
                                                               menu_row(context)]))
        return
    if outcome in (LinkOutcome.LINKED, LinkOutcome.ALREADY_YOURS):
        await respond(update, context, tr._("Done: your Telegram is linked to your driver registration. "
                                            "You will get reminders of its deadlines."))
        await show_status(update, context)
        return
    messages = {
        LinkOutcome.OTHER_DRIVER: N_("This Telegram is already linked to another driver registration. "
                                    "Unlink it first."),
        LinkOutcome.EXPIRED: N_("This code has expired. Ask the city hall for a new one."),
        LinkOutcome.USED: N_("This code was already used. Ask the city hall for a new one."),
        LinkOutcome.TOO_MANY: N_("Too many wrong attempts. Try again tomorrow, or ask the city hall for a link code."),
    }
    rows = [[(tr._("Unlink"), UNLINK)]] if outcome == LinkOutcome.OTHER_DRIVER else []
    await respond(update, context, tr._(messages[LinkOutcome(outcome)]), markup=keyboard([*rows, menu_row(context)]))


@deep_link(DEEP_LINK_PREFIX)
async def link_deep_link(update: Update, context: BalcaoContext, rest: str) -> None:
    """``/start link-<code>``: the one-time link staff generate (no form: the link itself is the answer)."""
    async with context.sessions() as session:
        result = await redeem_link_code(session=session, person_id=context.person.id, code=rest, now=utcnow())
    if result.outcome is LinkOutcome.WRONG:
        await respond(update, context, _wrong(context.tr, result.attempts_left))
        return
    await _outcome(update, context, result.outcome.value)


# --- unlinking ----------------------------------------------------------------------------------------------------


@chat_command("desvincular", aliases=("unlink",), description=N_("Unlink your Telegram from your driver registration"),
              order=22)
async def unlink_command(update: Update, context: BalcaoContext) -> None:
    """``/desvincular``: ask for confirmation."""
    await ask_unlink(update, context)


async def ask_unlink(update: Update, context: BalcaoContext, *, edit: bool = False) -> None:
    """Confirm before unlinking (reminders stop)."""
    tr = context.tr
    situation = await _situation(context)
    if situation is None:
        await reply(update, context, tr._("Your Telegram is not linked to a driver registration."),
                    markup=_not_linked_markup(context), edit=edit)
        return
    text = tr._("Unlink your Telegram from the registration of {name}? You will stop getting its reminders. "
                "Your registration at the city hall does not change.").format(name=esc(situation.name))
    markup = keyboard([[(tr._("Yes, unlink"), UNLINK_CONFIRMED), (tr._("No, keep it"), STATUS)], menu_row(context)])
    await reply(update, context, text, markup=markup, edit=edit)


async def unlink_button(update: Update, context: BalcaoContext) -> None:
    """``drivers:unlink``."""
    await ask_unlink(update, context, edit=True)


async def unlink_confirmed(update: Update, context: BalcaoContext) -> None:
    """``drivers:unlink:yes``."""
    tr = context.tr
    async with context.sessions() as session:
        await unlink(session=session, person_id=context.person.id)
    await reply(update, context, tr._("Done: your Telegram is no longer linked to the driver registration. "
                                      "You can link it again with /vincular."),
                markup=keyboard([menu_row(context)]), edit=True)


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Add the drivers' screens' buttons, then the link form's (``drivers:contact``, ``drivers:code``...)."""
    for pattern, callback in (
        (STATUS, status_button),
        (DETAILS, details_button),
        (STEPS, steps_button),
        (LINK, link_button),
        (UNLINK, unlink_button),
        (UNLINK_CONFIRMED, unlink_confirmed),
    ):
        application.add_handler(CallbackQueryHandler(callback, pattern=f"^{pattern}$"))
    _register_form(application)
