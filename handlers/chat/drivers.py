"""Drivers (Lei 1.533/2020): /situacao, /vincular, /desvincular and the ``link-`` deep link. Buttons: ``drivers:…``.

- ``/situacao`` (``/status``): one short message (state, validity and days left, whether the driver may work
  today, the most urgent thing to do); the facts behind a button (authorization, vehicle age limit, inspections,
  where to go: one short line each); and every step with its deadline and article behind one more.
- ``/vincular`` (``/link``): share your own contact with the button (a contact that is not yours is refused) and
  type the first three digits of your CPF; or type the code staff gave you ("I have a code"). The step is
  kept in the person's draft, so a restart resumes it.
- ``/start link-<code>``: the one-time link staff generate (``python -m bot driver link-code CPF``).
- ``/desvincular`` (``/unlink``), or the button under /situacao, after a confirmation.
"""

from __future__ import annotations

from typing import Any

from telegram import KeyboardButton, ReplyKeyboardMarkup, ReplyKeyboardRemove, Update
from telegram.ext import Application, CallbackQueryHandler

from core.i18n import N_, Translator
from handlers.chat.commands import chat_command
from handlers.chat.context import BalcaoContext
from handlers.chat.deep_links import deep_link
from handlers.chat.forms import form_input
from handlers.chat.replies import esc, keyboard, menu_row, reply
from models.columns import utcnow
from models.days_left import days_words as days_left_text  # the one wording (issue 19 §2)
from models.drafts import Draft, discard_draft, save_draft
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
from models.drivers.periods import civil_today
from models.drivers.registry import DriverSituation, situation_for_person
from models.drivers.status import (
    ARTICLES,
    LAW,
    RULE_ANNUAL_INSPECTION,
    RULE_REPORT_CHANGES,
    RULE_VALIDITY,
    RULE_VEHICLE_AGE,
    STATE_MESSAGES,
    STATUS_LABELS,
    AuthorizationStatus,
    StatusKind,
    Step,
    StepCode,
)
from models.drivers.tables import InspectionResult
from models.rulebooks.catalogue import L1533

FORM = "driver_link"
STATUS = "drivers:status"
DETAILS = "drivers:details"
STEPS = "drivers:steps"
LINK = "drivers:link"
BY_CONTACT = "drivers:contact"
BY_CODE = "drivers:code"
UNLINK = "drivers:unlink"
UNLINK_CONFIRMED = "drivers:unlink:yes"

KIND_LABELS = STATUS_LABELS  # models.drivers.status decides the state, its label and its rule


def _legal(article: str) -> str:
    return f"<i>{LAW}, {esc(article)}</i>"


def _state_line(tr: Translator, status: AuthorizationStatus) -> str:
    """What the state means, with its date and days left."""
    kind, until = status.kind, status.until
    if kind in STATE_MESSAGES and until is not None:
        return tr._(STATE_MESSAGES[kind]).format(date=tr.date(until), left=days_left_text(tr, status.days_left or 0))
    if kind in (StatusKind.ACTIVE, StatusKind.EXPIRING_SOON) and until is not None:
        return tr._("Valid until {date} ({left}).").format(
            date=tr.date(until), left=days_left_text(tr, status.validity_days_left)
        )
    if kind is StatusKind.EXPIRED and until is not None:
        return tr._("It ended on {date}.").format(date=tr.date(until))
    if kind is StatusKind.AWAITING_INSPECTION and until is not None and status.days_left is not None:
        return tr._("The vehicle has not passed an inspection yet: present it by {date} ({left}).").format(
            date=tr.date(until), left=days_left_text(tr, status.days_left)
        )
    if kind is StatusKind.SUSPENDED and until is not None and status.days_left is not None:
        return tr._("Suspended until {date} ({left}).").format(
            date=tr.date(until), left=days_left_text(tr, status.days_left)
        )
    if kind is StatusKind.REVOKED:
        return tr._("The city hall revoked this authorization.")
    return tr._("The city hall cancelled this authorization (cassação).")


def step_text(tr: Translator, step: Step, status: AuthorizationStatus) -> str:
    """One thing to do, in plain words, with its deadline."""
    code, deadline = step.code, step.deadline
    date = tr.date(deadline) if deadline is not None else ""
    left = days_left_text(tr, step.days_left) if step.days_left is not None else ""
    if code is StepCode.CONTACT_OFFICE:
        return tr._("Talk to the city hall to know what you can do.")
    if code is StepCode.WAIT_SUSPENSION:
        return tr._("Wait for the suspension to end: it lasts until {date} ({left}).").format(date=date, left=left)
    if code is StepCode.REPORT_CHANGES:
        return tr._("If your phone, address, CNH or vehicle changes, tell the city hall within 7 days.")
    if step.overdue:
        overdue = {
            StepCode.PRESENT_VEHICLE: N_("Present your vehicle for inspection: the deadline ended on {date}."),
            StepCode.FIX_INSPECTION: N_("Fix your vehicle and present it again: the deadline ended on {date}. "
                                        "It may not serve until it passes."),
            StepCode.ANNUAL_INSPECTION: N_("Do the yearly inspection: it was due on {date}."),
            StepCode.RENEW: N_("Renew your authorization: it ended on {date}."),
            StepCode.REPLACE_VEHICLE: N_("Replace your vehicle: it passed the age limit on {date}."),
        }
        return tr._(overdue[code]).format(date=date)
    upcoming = {
        StepCode.PRESENT_VEHICLE: N_("Present your vehicle for inspection by {date} ({left})."),
        StepCode.FIX_INSPECTION: N_("Fix what failed the inspection and present the vehicle again by {date} ({left})."),
        StepCode.ANNUAL_INSPECTION: N_("Do the yearly inspection by {date} ({left})."),
        StepCode.RENEW: N_("Renew your authorization (pay the fees) by {date} ({left})."),
        StepCode.REPLACE_VEHICLE: N_("Replace your vehicle by {date}: it reaches the age limit ({left})."),
    }
    text = tr._(upcoming[code]).format(date=date, left=left)
    office_day = status.renew_by if code is StepCode.RENEW else status.inspection.inspect_by
    if code in (StepCode.RENEW, StepCode.ANNUAL_INSPECTION) and office_day is not None and office_day != deadline:
        text += " " + tr._("The office is closed that day: go by {date}.").format(date=tr.date(office_day))
    return text


HEADLINE_STEPS = {StatusKind.EXPIRED: StepCode.RENEW, StatusKind.SUSPENDED: StepCode.WAIT_SUSPENSION}
"""The step that answers the state itself, shown first whatever the dates of the others."""


def _headline_step(status: AuthorizationStatus) -> Step:
    wanted = HEADLINE_STEPS.get(status.kind)
    return next((step for step in status.next_steps if step.code is wanted), status.next_steps[0])


def summary_text(tr: Translator, situation: DriverSituation) -> str:
    """The short answer to "is my authorization valid?": state, validity, may I work today, what next."""
    status = situation.status
    lines = [
        tr._("<b>Authorization nº {number}</b> — {state}").format(
            number=esc(situation.authorization_number), state=esc(tr._(KIND_LABELS[status.kind]))
        ),
        esc(_state_line(tr, status)),
        tr._("✅ You may drive for the apps today.") if status.may_serve
        else tr._("⛔ You may not drive for the apps today."),
    ]
    first = _headline_step(status)
    if first.code is not StepCode.REPORT_CHANGES:
        lines.append(tr._("<b>Next:</b> {step}").format(step=esc(step_text(tr, first, status))))
    lines.append(_legal(status.article))
    return "\n".join(lines)


def details_text(tr: Translator, situation: DriverSituation, office: str) -> str:
    """The facts behind /situacao, one short line each, the articles in one small line at the end.

    What to do, step by step with each article, is one button further (:func:`steps_text`).
    """
    status = situation.status
    lines = [
        tr._("<b>Driver:</b> {name} (CPF {cpf})").format(name=esc(situation.name), cpf=esc(situation.cpf_masked)),
        tr._("<b>Authorization nº {number}</b> — {state}").format(
            number=esc(situation.authorization_number), state=esc(tr._(KIND_LABELS[status.kind]))
        ),
    ]
    articles = [ARTICLES[RULE_VALIDITY]]
    if status.kind in (StatusKind.ACTIVE, StatusKind.EXPIRING_SOON):  # the validity, said once
        lines.append(esc(tr._("Valid for 12 months from the payment of the fees, until {date} ({left}).").format(
            date=tr.date(status.valid_until), left=days_left_text(tr, status.validity_days_left)
        )))
    else:
        lines.append(esc(_state_line(tr, status)))
        articles.append(status.article)
    lines += [
        tr._("<b>Vehicle</b> {plate}, model {year}").format(plate=esc(situation.plate), year=situation.model_year),
        esc(tr._("It may serve until {date} (5 years of use, counted to 31 December).").format(
            date=tr.date(status.vehicle_last_day)
        )),
    ]
    articles.append(ARTICLES[RULE_VEHICLE_AGE])
    inspection = status.inspection
    if inspection.last_on is None:
        lines.append(esc(tr._("No inspection yet.")))
    else:
        result = tr._("approved") if inspection.last_result is InspectionResult.APPROVED else tr._("not approved")
        lines.append(esc(tr._("Last inspection: {date}, {result}.").format(date=tr.date(inspection.last_on),
                                                                             result=result)))
    if inspection.due_on is not None and inspection.days_left is not None:
        lines.append(esc(tr._("Next yearly inspection by {date} ({left}).").format(
            date=tr.date(inspection.due_on), left=days_left_text(tr, inspection.days_left)
        )))
    articles.append(ARTICLES[RULE_ANNUAL_INSPECTION])
    lines.append(tr._("<b>Where:</b> {office}").format(office=esc(office)))
    lines.append(_legal("; ".join(dict.fromkeys(articles))))
    return "\n".join(lines)


def steps_text(tr: Translator, situation: DriverSituation, office: str) -> str:
    """What to do, one step per line with its deadline, each followed by its article."""
    status = situation.status
    lines = [tr._("<b>What to do</b>")]
    for step in status.next_steps:
        lines.append(f"• {esc(step_text(tr, step, status))}")
        lines.append(f"  {_legal(step.article)}")
    lines.append(tr._("<b>Where:</b> {office}").format(office=esc(office)))
    return "\n".join(lines)


async def _situation(context: BalcaoContext) -> DriverSituation | None:
    today = civil_today(utcnow(), context.settings.tz)
    async with context.sessions() as session:
        return await situation_for_person(
            session=session, person_id=context.person.id, on=today, settings=context.settings
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


async def _save_step(context: BalcaoContext, step: str, data: dict[str, Any] | None = None) -> None:
    async with context.sessions() as session:
        await save_draft(session=session, person_id=context.person.id, form=FORM, step=step, data=data or {})


async def _discard(context: BalcaoContext) -> None:
    async with context.sessions() as session:
        await discard_draft(session=session, person_id=context.person.id)


async def by_contact_button(update: Update, context: BalcaoContext) -> None:
    """``drivers:contact``: the reply keyboard with Telegram's "share my contact" button."""
    await _save_step(context, "contact")
    text = context.tr._("Press the button below to share your phone number with me. "
                        "Send /cancelar if you change your mind.")
    await reply(update, context, text, markup=_contact_keyboard(context.tr))


async def by_code_button(update: Update, context: BalcaoContext) -> None:
    """``drivers:code``: ask for the code staff gave the driver."""
    await _save_step(context, "code")
    await reply(update, context, context.tr._("Type the code the city hall gave you (for example K7QM-2XHD-9P)."),
                edit=True)


@form_input(FORM, title=N_("linking your driver registration"))
async def link_input(update: Update, context: BalcaoContext, draft: Draft) -> None:
    """What the person sends while linking: their contact, the CPF digits, or a code."""
    message = update.effective_message
    if message is None:
        return
    if message.contact is not None:
        await _contact_received(update, context)
    elif draft.step == "cpf" and message.text:
        await _cpf_digits_received(update, context, draft, message.text)
    elif draft.step == "code" and message.text:
        await _redeem(update, context, message.text)
    else:
        await _repeat_step(update, context, draft.step)


async def _repeat_step(update: Update, context: BalcaoContext, step: str) -> None:
    """Answer input that does not fit the step by asking its question again (nothing entered is lost)."""
    tr = context.tr
    if step == "cpf":
        await reply(update, context, tr._("Type only the first 3 digits of your CPF, for example 123."))
    elif step == "code":
        await reply(update, context, tr._("Type the code the city hall gave you (for example K7QM-2XHD-9P)."))
    else:
        await reply(update, context, tr._("Please use the button below to share your phone number, or send "
                                          "/cancelar."), markup=_contact_keyboard(tr))


async def _contact_received(update: Update, context: BalcaoContext) -> None:
    tr = context.tr
    message, user = update.effective_message, update.effective_user
    assert message is not None and message.contact is not None and user is not None
    if message.contact.user_id != user.id:
        await reply(update, context, tr._("That is not your own contact. Press the button below to share your "
                                          "own phone number."), markup=_contact_keyboard(tr))
        return
    try:
        phone = parse_phone(message.contact.phone_number)
    except InvalidIdentifier:
        phone = ""
    async with context.sessions() as session:
        candidates = await drivers_with_phone(session=session, phone=phone) if phone else []
    if not candidates:
        await _discard(context)
        await reply(update, context, tr._("I found no driver registration with this phone number."),
                    markup=ReplyKeyboardRemove())
        text = tr._("If your number changed, you must tell the city hall within 7 days. You can also ask the city "
                    "hall for a link code.") + "\n" + _legal(ARTICLES[RULE_REPORT_CHANGES])
        await reply(update, context, text, markup=keyboard([[(tr._("🔑 I have a code"), BY_CODE)], menu_row(context)]))
        return
    await _save_step(context, "cpf", {"candidates": candidates})
    await reply(update, context, tr._("I found your registration. To confirm it is you, type the first 3 digits "
                                      "of your CPF."), markup=ReplyKeyboardRemove())


async def _cpf_digits_received(update: Update, context: BalcaoContext, draft: Draft, text: str) -> None:
    digits = "".join(char for char in text if char.isdigit())
    if len(digits) != 3:
        await reply(update, context, context.tr._("Type only the first 3 digits of your CPF, for example 123."))
        return
    async with context.sessions() as session:
        result = await confirm_cpf_digits(
            session=session,
            person_id=context.person.id,
            candidates=[int(candidate) for candidate in draft.data.get("candidates", [])],
            digits=digits,
            now=utcnow(),
        )
    await _outcome(update, context, result)


async def _redeem(update: Update, context: BalcaoContext, code: str) -> None:
    async with context.sessions() as session:
        result = await redeem_link_code(session=session, person_id=context.person.id, code=code, now=utcnow())
    await _outcome(update, context, result)


async def _outcome(update: Update, context: BalcaoContext, result: LinkResult) -> None:
    """Tell the person what happened to their attempt; keep the draft only when they may try again."""
    tr = context.tr
    if result.outcome in (LinkOutcome.LINKED, LinkOutcome.ALREADY_YOURS):
        await _discard(context)
        await reply(update, context, tr._("Done: your Telegram is linked to your driver registration. "
                                          "You will get reminders of its deadlines."))
        await show_status(update, context)
        return
    if result.outcome is LinkOutcome.WRONG:
        text = tr.ngettext("That does not match. You can try {n} more time today.",
                           "That does not match. You can try {n} more times today.",
                           result.attempts_left).format(n=result.attempts_left)
        await reply(update, context, text)
        return
    await _discard(context)
    messages = {
        LinkOutcome.OTHER_DRIVER: N_("This Telegram is already linked to another driver registration. "
                                    "Unlink it first."),
        LinkOutcome.EXPIRED: N_("This code has expired. Ask the city hall for a new one."),
        LinkOutcome.USED: N_("This code was already used. Ask the city hall for a new one."),
        LinkOutcome.TOO_MANY: N_("Too many wrong attempts. Try again tomorrow, or ask the city hall for a link code."),
    }
    rows = [[(tr._("Unlink"), UNLINK)]] if result.outcome is LinkOutcome.OTHER_DRIVER else []
    await reply(update, context, tr._(messages[result.outcome]), markup=keyboard([*rows, menu_row(context)]))


@deep_link(DEEP_LINK_PREFIX)
async def link_deep_link(update: Update, context: BalcaoContext, rest: str) -> None:
    """``/start link-<code>``: the one-time link staff generate."""
    await _redeem(update, context, rest)


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
    """Add the drivers' buttons (the commands, the form and the deep link register themselves)."""
    for pattern, callback in (
        (STATUS, status_button),
        (DETAILS, details_button),
        (STEPS, steps_button),
        (LINK, link_button),
        (BY_CONTACT, by_contact_button),
        (BY_CODE, by_code_button),
        (UNLINK, unlink_button),
        (UNLINK_CONFIRMED, unlink_confirmed),
    ):
        application.add_handler(CallbackQueryHandler(callback, pattern=f"^{pattern}$"))
