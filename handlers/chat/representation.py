"""/representacao: report a breach of the Código de Posturas (Art. 30–32) or a ride-hailing driver (Lei 1.533/2020).

A guided conversation kept in the draft table after every step (a restart loses nothing), with /cancelar and a
Cancel button at every step, and a review screen before anything is sent. Representação (CP Art. 31): the
author (name, profession, address; CPF optional), what happened (picked from the Código de Posturas catalogue by
keyword, or in the author's words), who, where, when, evidence (files, or where it can be found), how the author
learned of it, and the Art. 31 sole-paragraph declaration. Ride-hailing report: the car (plate or authorization
number), what the driver did (Art. 7, 13, 14), where, when, evidence and the author's name.

Filing gives a protocol number and a PDF receipt, and puts the case in the staff queue. Buttons: ``rep:…``.
The module also holds what the ombudsman, follow-up, queue and notices conversations share: answering a
button press more than once, the start within the daily limit, the file intake, the review keyboard and the
confirmation with the receipt.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Coroutine
from typing import Any

from telegram import InputFile, KeyboardButton, Message, ReplyKeyboardMarkup, ReplyKeyboardRemove, Update
from telegram.constants import ParseMode
from telegram.ext import Application, CallbackQueryHandler

from bot.i18n import DEFAULT_LOCALE, N_, Translator, translator
from handlers.chat.commands import chat_command
from handlers.chat.context import BalcaoContext
from handlers.chat.forms import FORMS, active_draft, form_input
from handlers.chat.replies import Markup, esc, keyboard, menu_row, reply
from models.cases import fields
from models.cases.attachments import AttachmentRefused, check_before_download, discard_unfiled, store_attachment
from models.cases.catalogue_search import search_infractions
from models.cases.fields import InvalidInput
from models.cases.filing import (
    RIDE_HAILING_BY_KEY,
    RIDE_HAILING_REASONS,
    Author,
    FiledCase,
    NotAdmitted,
    Place,
    RepresentationForm,
    RideHailingForm,
    file_representation,
    file_ride_hailing_report,
)
from models.cases.limits import CaseLimits, check_daily_limit
from models.cases.receipt_pdf import build_receipt
from models.cases.ride_hailing import find_reported_vehicle
from models.cases.tables import Relation
from models.columns import utcnow
from models.drafts import Draft, discard_draft, save_draft
from models.drivers.identifiers import mask_cpf
from models.rulebooks.catalogue import CP, L1533, CatalogueError, get_infraction
from notifications.telegram_text import small, split_html

FORM = "representacao"
CP_STEPS = ("name", "profession", "address", "cpf", "what", "facts", "accused", "where", "when", "evidence",
            "learned", "relation", "review")
APP_STEPS = ("vehicle", "reason", "facts", "where", "when", "evidence", "name", "review")
SEARCH_RESULTS = 6

LEARNED = {
    "saw": N_("I saw it myself"),
    "told": N_("Someone told me"),
    "media": N_("News or social media"),
}
EDITABLE = {
    "name": N_("Name"),
    "profession": N_("Profession"),
    "address": N_("Address"),
    "cpf": N_("CPF"),
    "what": N_("Rule broken"),
    "facts": N_("What happened"),
    "accused": N_("Who is responsible"),
    "vehicle": N_("Car"),
    "reason": N_("What the driver did"),
    "where": N_("Where"),
    "when": N_("When"),
    "evidence": N_("Evidence"),
    "learned": N_("How you learned of it"),
    "relation": N_("Relation to the accused"),
}


# --- shared with the ombudsman and follow-up conversations ----------------------------------------------------


Handler = Callable[[Update, BalcaoContext], Coroutine[Any, Any, None]]


def answered(context: BalcaoContext) -> bool:
    """Whether this update's button press was already answered."""
    return bool(getattr(context, "_case_answered", False))


async def acknowledge(update: Update, context: BalcaoContext) -> None:
    """Answer this update's button press now (once), so the messages that follow are new ones."""
    if update.callback_query is not None and not answered(context):
        await update.callback_query.answer()
        context._case_answered = True  # type: ignore[attr-defined]


async def respond(
    update: Update, context: BalcaoContext, text: str, *, markup: Markup | None = None, edit: bool = False
) -> None:
    """Answer like :func:`handlers.chat.replies.reply`, any number of times for one update.

    Telegram accepts one answer per button press; the first message of a handler answers it (and may edit the
    pressed message), the next ones are plain new messages.
    """
    if update.callback_query is None or not answered(context):
        await reply(update, context, text, markup=markup, edit=edit)
        context._case_answered = True  # type: ignore[attr-defined]
        return
    chat = update.effective_chat
    assert chat is not None
    parts = split_html(text)
    for index, part in enumerate(parts):
        await context.bot.send_message(chat_id=chat.id, text=part, parse_mode=ParseMode.HTML,
                                       reply_markup=markup if index == len(parts) - 1 else None)


def city_today(context: BalcaoContext) -> dt.date:
    """Today's date in the deployment's time zone (America/Cuiaba), as people there say it."""
    return utcnow().astimezone(context.settings.tz).date()


def cancel_row(context: BalcaoContext, data: str) -> list[tuple[str, str]]:
    """The Cancel button every step of a form shows."""
    return [(context.tr._("✖ Cancel"), data)]


async def save(context: BalcaoContext, form: str, step: str, data: dict[str, Any]) -> None:
    """Save the form's step and answers now, so a restart resumes here."""
    async with context.sessions() as session:
        await save_draft(session=session, person_id=context.person.id, form=form, step=step, data=data)


async def current_draft(context: BalcaoContext, form: str) -> Draft | None:
    """The person's draft if it is of ``form``."""
    draft = await active_draft(context)
    return draft if draft is not None and draft.form == form else None


async def busy_elsewhere(update: Update, context: BalcaoContext, form: str) -> bool:
    """Whether the person is filling in another form; if so, say so (starting this one would discard it)."""
    draft = await active_draft(context)
    if draft is None or draft.form == form:
        return False
    title = FORMS[draft.form].title if draft.form in FORMS else N_("the form")
    await respond(
        update,
        context,
        context.tr._("You are in the middle of {form}. Finish it, or send /cancelar to discard it, then try "
                     "again.").format(form=esc(context.tr._(title))),
    )
    return True


async def cancel_form(update: Update, context: BalcaoContext) -> None:
    """The Cancel button: discard the draft and its files; say that nothing was sent."""
    async with context.sessions() as session:
        await discard_draft(session=session, person_id=context.person.id)
        await discard_unfiled(session=session, person_id=context.person.id)
        await session.commit()
    await respond(
        update,
        context,
        context.tr._("Cancelled: nothing was sent. Everything you had sent before is kept."),
        markup=keyboard([menu_row(context)]),
        edit=True,
    )


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


async def within_daily_limit(update: Update, context: BalcaoContext) -> bool:
    """Before a new case form: refuse, and say why, once today's limit is reached; drop an abandoned form's files."""
    async with context.sessions() as session:
        try:
            await check_daily_limit(session=session, person_id=context.person.id, now=utcnow(),
                                    settings=context.settings)
        except InvalidInput as refused:
            await respond(update, context, refused.render(context.tr), markup=keyboard([menu_row(context)]))
            return False
        await discard_unfiled(session=session, person_id=context.person.id)
        await session.commit()
    return True


async def take_file(
    update: Update, context: BalcaoContext, *, form: str, step: str, data: dict[str, Any], markup: Markup,
    received: str | None = None,
) -> None:
    """Keep the photo or document just sent (limits checked), save it in the form, and say how many so far.

    Args:
        update: the update carrying the file.
        context: the chat context.
        form: the form in progress.
        step: its current step (kept).
        data: its answers; the file's id is added to ``data["files"]``.
        markup: the buttons under the answer.
        received: the translated answer, with ``{n}`` files of ``{limit}`` (default: "Send more, or press Done").
    """
    files = list(data.get("files", []))
    stored = await receive_file(update, context, files)
    if stored is None:
        return
    data["files"] = [*files, stored]
    await save(context, form, step, data)
    if received is None:
        text = files_received(context, len(data["files"]))
    else:
        text = received.format(n=len(data["files"]), limit=CaseLimits.from_settings(context.settings).max_attachments)
    await respond(update, context, text, markup=markup)


async def receive_file(update: Update, context: BalcaoContext, already: list[int]) -> int | None:
    """Download a photo or document sent now and keep it (limits checked); return its id, or None if refused.

    A refusal is explained to the person; nothing already entered is touched.
    """
    message = update.effective_message
    assert message is not None
    limits = CaseLimits.from_settings(context.settings)
    name: str | None
    if message.photo:
        photo = message.photo[-1]
        declared, name, file_id = photo.file_size, "foto.jpg", photo.file_id
    elif message.document is not None:
        document = message.document
        declared, name, file_id = document.file_size, document.file_name, document.file_id
    else:
        return None
    try:
        check_before_download(declared_size=declared, count=len(already), limits=limits)
        telegram_file = await context.bot.get_file(file_id)
        content = bytes(await telegram_file.download_as_bytearray())
        async with context.sessions() as session:
            stored = await store_attachment(session=session, person_id=context.person.id, content=content,
                                            file_name=name, limits=limits, already=already)
    except AttachmentRefused as refused:
        await respond(update, context, refused.render(context.tr))
        return None
    assert stored.id is not None
    return stored.id


def files_received(context: BalcaoContext, count: int) -> str:
    """The answer to a file received: how many so far, out of the limit."""
    limit = CaseLimits.from_settings(context.settings).max_attachments
    return context.tr._("File received ({n} of {limit}). Send more, or press Done.").format(n=count, limit=limit)


def is_file(message: Message | None) -> bool:
    """Whether the message carries a photo or a document."""
    return message is not None and (bool(message.photo) or message.document is not None)



def review_markup(context: BalcaoContext, prefix: str) -> Markup:
    """The buttons under a review screen: ``<prefix>:send``, ``<prefix>:edit`` and ``<prefix>:cancel``."""
    tr = context.tr
    return keyboard([
        [(tr._("✅ Send"), f"{prefix}:send")],
        [(tr._("✏️ Change something"), f"{prefix}:edit")],
        cancel_row(context, f"{prefix}:cancel"),
    ])


async def refuse_filing(update: Update, context: BalcaoContext, refused: InvalidInput, prefix: str) -> None:
    """The form was not filed: say why, with ``<prefix>:edit`` to change something and ``<prefix>:cancel``."""
    await respond(update, context, refused.render(context.tr), markup=keyboard([
        [(context.tr._("✏️ Change something"), f"{prefix}:edit")], cancel_row(context, f"{prefix}:cancel"),
    ]))


async def ask_what_to_change(
    update: Update, context: BalcaoContext, prefix: str, fields_shown: list[tuple[str, str]]
) -> None:
    """The answers that can be changed from the review, two buttons a row (``<prefix>:edit:<name>``).

    Args:
        update: the update.
        context: the chat context.
        prefix: the buttons' prefix (``rep``, ``ouv``).
        fields_shown: ``(step name, label msgid)`` of each answer that can be changed.
    """
    tr = context.tr
    buttons = [(tr._(label), f"{prefix}:edit:{name}") for name, label in fields_shown]
    pairs = [buttons[i : i + 2] for i in range(0, len(buttons), 2)]
    await respond(update, context, tr._("What do you want to change?"),
                  markup=keyboard([*pairs, [(tr._("◀ Back to the summary"), f"{prefix}:edit:review")]]))


async def confirm_filing(update: Update, context: BalcaoContext, filed: FiledCase) -> None:
    """Close the form and confirm the filing: the protocol, the deadline, and the PDF receipt."""
    tr = context.tr
    async with context.sessions() as session:
        await discard_draft(session=session, person_id=context.person.id)
    today = city_today(context)
    left = (filed.due_on - today).days
    text = (
        tr._("Sent! Your protocol number is <b>{protocol}</b>.").format(protocol=esc(filed.protocol))
        + "\n"
        + tr.ngettext(
            "The answer is due by {date} ({n} day from today).",
            "The answer is due by {date} ({n} days from today).",
            left,
        ).format(date=tr.date(filed.due_on), n=left)
        + "\n"
        + tr._("Follow it with /acompanhar. The receipt is below.")
    )
    await respond(update, context, text, markup=keyboard([[(tr._("My cases"), "cmd:acompanhar")], menu_row(context)]))
    pdf = build_receipt(filed, tr=tr, municipality=context.settings.municipality_name)
    chat = update.effective_chat
    assert chat is not None
    await context.bot.send_document(
        chat_id=chat.id,
        document=InputFile(pdf, filename=f"{filed.protocol}.pdf"),
        caption=tr._("Receipt of {protocol}").format(protocol=filed.protocol),
    )


# --- questions ------------------------------------------------------------------------------------------------


def _steps(data: dict[str, Any]) -> tuple[str, ...]:
    return APP_STEPS if data.get("kind") == "app" else CP_STEPS


def _next(data: dict[str, Any], step: str) -> str:
    if data.get("editing"):
        return "review"
    steps = _steps(data)
    return steps[steps.index(step) + 1]


def _limits_line(context: BalcaoContext) -> str:
    limits = CaseLimits.from_settings(context.settings)
    return context.tr.ngettext(
        "Photos or documents: JPEG, PNG or PDF, up to {mb} MB each, at most {n} file.",
        "Photos or documents: JPEG, PNG or PDF, up to {mb} MB each, at most {n} files.",
        limits.max_attachments,
    ).format(mb=limits.max_attachment_bytes // (1024 * 1024), n=limits.max_attachments)


async def ask(update: Update, context: BalcaoContext, step: str, data: dict[str, Any]) -> None:
    """Ask the question of a step, with its buttons."""
    tr = context.tr
    cancel = cancel_row(context, "rep:cancel")
    rows: list[list[tuple[str, str]]] = []
    markup: Any = None
    if step == "kind":
        text = tr._("What would you like to report?")
        rows = [[(tr._("A breach of the city rules (Código de Posturas)"), "rep:kind:cp")],
                [(tr._("A ride-hailing driver"), "rep:kind:app")]]
    elif step == "name":
        text = tr._("What is your full name?")
        text += small(tr._("The law asks for it (Código de Posturas, Art. 31). It is never shown to the person "
                            "you report.") if data.get("kind") != "app" else
                       tr._("It is never shown to the driver."))
    elif step == "profession":
        text = tr._("What is your profession or occupation?") + small(tr._("Código de Posturas, Art. 31"))
    elif step == "address":
        text = tr._("What is your address (street, number, neighbourhood)?") + small(
            tr._("Código de Posturas, Art. 31")
        )
    elif step == "cpf":
        text = tr._("If you want, type your CPF. It is optional.")
        rows = [[(tr._("Skip"), "rep:skip:cpf")]]
    elif step == "what":
        text = tr._(
            "What happened? Type one or two words to find the rule in the Código de Posturas "
            "(for example: lixo, barulho, calçada)."
        )
        rows = [[(tr._("I'll describe it in my own words"), "rep:inf:none")]]
    elif step == "facts":
        text = tr._("Describe briefly what happened: what you saw, and how often.")
    elif step == "accused":
        text = tr._("Who is responsible? The name of the business or the person, if you know it.")
        rows = [[(tr._("I don't know"), "rep:skip:accused")]]
    elif step == "where":
        text = tr._("Where did it happen? Send the location, or type the address.")
        markup = ReplyKeyboardMarkup(
            [[KeyboardButton(tr._("📍 Send the location where I am"), request_location=True)],
             [KeyboardButton(tr._("✖ Cancel"))]],
            resize_keyboard=True,
            one_time_keyboard=True,
        )
    elif step == "when":
        text = tr._("When did it happen? Type the date (like 4/1) or press a button.")
        rows = [[(tr._("Today"), "rep:when:0"), (tr._("Yesterday"), "rep:when:1")]]
    elif step == "evidence":
        files = len(data.get("files", []))
        text = tr._("Send photos or documents that show it, or type where the evidence can be found "
                    "(for example: a neighbour filmed it).") + "\n" + _limits_line(context)
        if files:
            rows.append([(tr.ngettext("Done ({n} file)", "Done ({n} files)", files).format(n=files),
                          "rep:files:done")])
        elif data.get("kind") == "app":
            rows.append([(tr._("Skip"), "rep:skip:evidence")])
        if data.get("kind") != "app":
            text += small(tr._("Código de Posturas, Art. 31"))
    elif step == "learned":
        text = tr._("How did you learn of it? Press a button or type it.") + small(tr._("Código de Posturas, Art. 31"))
        rows = [[(tr._(label), f"rep:learn:{key}")] for key, label in LEARNED.items()]
    elif step == "relation":
        text = tr._("Have you ever been a partner, director, agent or employee of the person or business you "
                    "are reporting?") + small(tr._("Código de Posturas, Art. 31, sole paragraph"))
        rows = [[(tr._("No, never"), "rep:rel:none")], [(tr._("Yes, but I left"), "rep:rel:former")],
                [(tr._("Yes, I still am"), "rep:rel:current")]]
    elif step == "relation_end":
        text = tr._("On what date did you leave? Type it like 4/1/2025.")
    elif step == "vehicle":
        text = tr._("What is the car's plate, or the authorization number on its sticker?")
    elif step == "vehicle_confirm":
        text = tr._("Is this the car: {car}?").format(car=esc(data.get("vehicle_ref", "")))
        rows = [[(tr._("Yes, continue"), "rep:veh:ok"), (tr._("No, type it again"), "rep:veh:again")]]
    elif step == "reason":
        text = tr._("What did the driver do?")
        rows = [[(tr._(reason.label), f"rep:why:{reason.key}")] for reason in RIDE_HAILING_REASONS]
    else:
        await show_review(update, context, data)
        return
    if markup is None:
        markup = keyboard([*rows, cancel])
    await respond(update, context, text, markup=markup)


# --- starting ---------------------------------------------------------------------------------------------------


def _kinds(context: BalcaoContext) -> list[str]:
    return [kind for kind, book in (("cp", CP), ("app", L1533)) if book in context.settings.rulebooks]


@chat_command(
    "representacao",
    aliases=("denuncia", "report"),
    description=N_("Report a breach of the city rules or a ride-hailing driver"),
    menu_label=N_("Report a problem"),
    order=20,
)
async def start_representation(update: Update, context: BalcaoContext) -> None:
    """``/representacao``: resume the report in progress, or start one (within the daily limit)."""
    question = context.tr._("You have a report in progress. Continue where you stopped, or start again?")
    if not await offer_to_resume(update, context, form=FORM, prefix="rep", question=question):
        await _begin(update, context)


async def _begin(update: Update, context: BalcaoContext) -> None:
    if not await within_daily_limit(update, context):
        return
    kinds = _kinds(context)
    if not kinds:
        await respond(update, context, context.tr._("Reports are not available in this city."),
                    markup=keyboard([menu_row(context)]))
        return
    if len(kinds) == 2:
        data: dict[str, Any] = {}
        step = "kind"
    else:
        data = {"kind": kinds[0]}
        step = _steps(data)[0]
    await save(context, FORM, step, data)
    await respond(update, context, context.tr._("Let's go. You can stop at any time with /cancelar."))
    await ask(update, context, step, data)


# --- free input -------------------------------------------------------------------------------------------------


@form_input(FORM, title=N_("your report"))
async def on_input(update: Update, context: BalcaoContext, draft: Draft) -> None:
    """Text, location, photo or document while the report is being filled in."""
    data = dict(draft.data)
    step = draft.step
    message = update.effective_message
    assert message is not None
    if message.text == context.tr._("✖ Cancel"):
        await cancel_form(update, context)
        return
    try:
        if step == "where" and message.location is not None:
            data.update(place_text=None, lat=message.location.latitude, lon=message.location.longitude)
            await respond(update, context, context.tr._("📍 Location received."), markup=ReplyKeyboardRemove())
            await _advance(update, context, step, data)
            return
        if step == "evidence" and is_file(message):
            await take_file(update, context, form=FORM, step=step, data=data,
                            markup=keyboard([[(context.tr._("Done"), "rep:files:done")],
                                             cancel_row(context, "rep:cancel")]))
            return
        text = message.text
        if text is None:
            await respond(update, context, context.tr._("Please answer with text or press a button."))
            await ask(update, context, step, data)
            return
        await _take_text(update, context, step, data, text)
    except InvalidInput as invalid:
        await respond(update, context, invalid.render(context.tr))
        await ask(update, context, step, data)


async def _take_text(update: Update, context: BalcaoContext, step: str, data: dict[str, Any], text: str) -> None:
    today = city_today(context)
    if step == "name":
        data["name"] = fields.person_name(text)
    elif step == "profession":
        data["profession"] = fields.profession(text)
    elif step == "address":
        data["address"] = fields.address(text)
    elif step == "cpf":
        data["cpf"] = fields.cpf(text)
    elif step == "what":
        await _search(update, context, data, text)
        return
    elif step == "facts":
        data["facts"] = fields.clean_text(text, min_length=10, max_length=2000)
    elif step == "accused":
        data["accused"] = fields.clean_text(text, min_length=2, max_length=200).replace("\n", " ")
    elif step == "where":
        data.update(place_text=fields.address(text), lat=None, lon=None)
        await respond(update, context, context.tr._("Address noted."), markup=ReplyKeyboardRemove())
    elif step == "when":
        data["occurred_on"] = fields.past_day(text, today=today).isoformat()
    elif step == "evidence":
        data["evidence_note"] = fields.clean_text(text, min_length=5, max_length=1000)
    elif step == "learned":
        data["learned"] = fields.clean_text(text, min_length=3, max_length=300).replace("\n", " ")
        data.pop("learned_key", None)
    elif step == "relation_end":
        data["relation_ended_on"] = fields.past_day(text, today=today).isoformat()
        await _advance(update, context, "relation", data)
        return
    elif step == "vehicle":
        await _vehicle(update, context, data, text)
        return
    elif step == "review":
        answer = fields.yes_or_no(text)
        if answer:
            await _send(update, context, data)
        else:
            await show_review(update, context, data)
        return
    else:
        await respond(update, context, context.tr._("Please press one of the buttons."))
        await ask(update, context, step, data)
        return
    await _advance(update, context, step, data)


async def _advance(update: Update, context: BalcaoContext, step: str, data: dict[str, Any]) -> None:
    following = _next(data, step)
    if following == "review":
        data.pop("editing", None)
    await save(context, FORM, following, data)
    await ask(update, context, following, data)


async def _search(update: Update, context: BalcaoContext, data: dict[str, Any], text: str) -> None:
    tr = context.tr
    query = fields.clean_text(text, min_length=2, max_length=80)
    found = search_infractions(query, rulebooks=[CP], limit=SEARCH_RESULTS)
    data["search"] = query
    await save(context, FORM, "what", data)
    none = [(tr._("None of these: I'll describe it"), "rep:inf:none")]
    if not found:
        await respond(
            update,
            context,
            tr._("I found nothing for “{query}”. Try another word, or describe it in your own words.").format(
                query=esc(query)
            ),
            markup=keyboard([none, cancel_row(context, "rep:cancel")]),
        )
        return
    rows = [[(_short(row.description), f"rep:inf:{row.code}")] for row in found]
    await respond(
        update,
        context,
        tr._("Is it one of these? Press it, or type other words to search again."),
        markup=keyboard([*rows, none, cancel_row(context, "rep:cancel")]),
    )


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def _vehicle(update: Update, context: BalcaoContext, data: dict[str, Any], text: str) -> None:
    tr = context.tr
    async with context.sessions() as session:
        found = await find_reported_vehicle(session=session, text=text)
    data.update(vehicle_ref=found.reference, driver_id=found.driver_id)
    await save(context, FORM, "vehicle_confirm", data)
    if found.registered:
        text_out = tr._("Found in the registry: plate {plate}, authorization nº {number}. Is this the car?").format(
            plate=esc(found.plate or "—"), number=esc(found.authorization_number or "—")
        )
    else:
        text_out = tr._(
            "“{car}” is not in the registry of authorized drivers. Carrying passengers without authorization "
            "is itself an infraction. Is it typed right?"
        ).format(car=esc(found.reference)) + small(tr._("Lei 1.533/2020, Art. 27"))
    await respond(update, context, text_out, markup=keyboard([
        [(tr._("Yes, continue"), "rep:veh:ok"), (tr._("No, type it again"), "rep:veh:again")],
        cancel_row(context, "rep:cancel"),
    ]))


# --- buttons ----------------------------------------------------------------------------------------------------


async def on_button(update: Update, context: BalcaoContext) -> None:
    """Every ``rep:`` button."""
    query = update.callback_query
    assert query is not None and query.data is not None
    _, action, *rest = query.data.split(":", 2)
    arg = rest[0] if rest else ""
    if action == "cancel":
        await cancel_form(update, context)
        return
    draft = await current_draft(context, FORM)
    if action == "restart":
        await _begin(update, context)
        return
    if draft is None:
        await respond(update, context, context.tr._("This report is no longer in progress. Start a new one with "
                                                  "/representacao."), markup=keyboard([menu_row(context)]))
        return
    data = dict(draft.data)
    step = draft.step
    if action == "resume":
        await ask(update, context, step, data)
        return
    try:
        await _button(update, context, step, data, action, arg)
    except InvalidInput as invalid:
        await respond(update, context, invalid.render(context.tr))
        await ask(update, context, step, data)


_BUTTON_STEPS = {
    "kind": {"kind"},
    "skip": {"cpf", "accused", "evidence"},
    "inf": {"what"},
    "when": {"when"},
    "files": {"evidence"},
    "learn": {"learned"},
    "rel": {"relation"},
    "veh": {"vehicle_confirm"},
    "why": {"reason"},
    "send": {"review"},
    "edit": {"review"},
}


async def _button(
    update: Update, context: BalcaoContext, step: str, data: dict[str, Any], action: str, arg: str
) -> None:
    tr = context.tr
    allowed = _BUTTON_STEPS.get(action)
    if allowed is None or step not in allowed or (action == "skip" and arg != step):
        await respond(update, context, tr._("That button belongs to an earlier question. Here is where we are:"))
        await ask(update, context, step, data)
        return
    if action == "kind" and arg in _kinds(context):
        data = {"kind": arg}
        first = _steps(data)[0]
        await save(context, FORM, first, data)
        await ask(update, context, first, data)
        return
    if action == "skip":
        data[{"cpf": "cpf", "accused": "accused", "evidence": "evidence_note"}[arg]] = None
    elif action == "inf":
        if arg != "none":
            try:
                get_infraction(arg)
            except CatalogueError:
                raise InvalidInput(N_("Please choose one of the buttons.")) from None
        data["infraction_code"] = None if arg == "none" else arg
    elif action == "when":
        today = city_today(context)
        data["occurred_on"] = (today - dt.timedelta(days=int(arg))).isoformat()
    elif action == "files":
        if not data.get("files"):
            raise InvalidInput(N_("Please send a file, or type where the evidence can be found."))
    elif action == "learn":
        if arg not in LEARNED:
            raise InvalidInput(N_("Please choose one of the buttons."))
        data["learned"] = translator(DEFAULT_LOCALE)._(LEARNED[arg])  # the record reads in the city hall's language
        data["learned_key"] = arg
    elif action == "rel":
        data["relation"] = Relation(arg).value
        if arg == "former":
            await save(context, FORM, "relation_end", data)
            await ask(update, context, "relation_end", data)
            return
        data["relation_ended_on"] = None
    elif action == "veh":
        if arg == "again":
            await save(context, FORM, "vehicle", data)
            await ask(update, context, "vehicle", data)
            return
        step = "vehicle"
    elif action == "why":
        if arg not in RIDE_HAILING_BY_KEY:
            raise InvalidInput(N_("Please choose one of the buttons."))
        data["reason"] = arg
    elif action == "send":
        await _send(update, context, data)
        return
    elif action == "edit":
        await _edit(update, context, data, arg)
        return
    await _advance(update, context, step, data)


async def _edit(update: Update, context: BalcaoContext, data: dict[str, Any], field: str) -> None:
    steps = _steps(data)
    if field == "review":
        await show_review(update, context, data)
        return
    if field in steps:
        data["editing"] = True
        await save(context, FORM, field, data)
        await ask(update, context, field, data)
        return
    await ask_what_to_change(update, context, "rep", [(name, EDITABLE[name]) for name in steps if name in EDITABLE])


# --- review and sending -----------------------------------------------------------------------------------------


def _line(label: str, value: object) -> str:
    return f"<b>{esc(label)}:</b> {esc(value)}"


def summary(data: dict[str, Any], tr: Translator) -> str:
    """The review screen's text: every answer, as it will be filed."""
    lines = []
    if data.get("kind") == "app":
        lines.append(tr._("<b>Report about a ride-hailing driver</b>"))
        lines.append(_line(tr._("Car"), data.get("vehicle_ref", "")))
        reason = RIDE_HAILING_BY_KEY.get(data.get("reason", ""))
        if reason:
            lines.append(_line(tr._("What the driver did"), tr._(reason.label)))
    else:
        lines.append(tr._("<b>Representation (Código de Posturas)</b>"))
        lines.append(_line(tr._("Name"), data.get("name", "")))
        lines.append(_line(tr._("Profession"), data.get("profession", "")))
        lines.append(_line(tr._("Address"), data.get("address", "")))
        if data.get("cpf"):
            lines.append(_line(tr._("CPF"), mask_cpf(data["cpf"])))
        if data.get("infraction_code"):
            infraction = get_infraction(data["infraction_code"])
            lines.append(_line(tr._("Rule broken"), f"{infraction.description} ({infraction.article})"))
    lines.append(_line(tr._("What happened"), data.get("facts", "")))
    if data.get("kind") != "app":
        lines.append(_line(tr._("Who is responsible"), data.get("accused") or tr._("not known")))
    place = data.get("place_text") or (
        tr._("location sent ({lat:.5f}, {lon:.5f})").format(lat=data["lat"], lon=data["lon"])
        if data.get("lat") is not None else ""
    )
    lines.append(_line(tr._("Where"), place))
    if data.get("occurred_on"):
        lines.append(_line(tr._("When"), tr.date(dt.date.fromisoformat(data["occurred_on"]))))
    files = len(data.get("files", []))
    evidence = [tr.ngettext("{n} file", "{n} files", files).format(n=files)] if files else []
    if data.get("evidence_note"):
        evidence.append(data["evidence_note"])
    lines.append(_line(tr._("Evidence"), "; ".join(evidence) or tr._("none")))
    if data.get("kind") == "app":
        lines.append(_line(tr._("Your name"), data.get("name", "")))
    else:
        key = data.get("learned_key")
        learned = tr._(LEARNED[key]) if key in LEARNED else data.get("learned", "")
        lines.append(_line(tr._("How you learned of it"), learned))
        relation = {"none": tr._("none"), "current": tr._("I still work there"),
                    "former": tr._("I left on {date}").format(
                        date=tr.date(dt.date.fromisoformat(data["relation_ended_on"]))
                    ) if data.get("relation_ended_on") else ""}.get(data.get("relation", ""), "")
        lines.append(_line(tr._("Relation to the accused"), relation))
    return "\n".join(lines)


async def show_review(update: Update, context: BalcaoContext, data: dict[str, Any]) -> None:
    """The summary and the buttons to send, change or cancel."""
    tr = context.tr
    text = tr._("Please check your report before sending:") + "\n\n" + summary(data, tr) + "\n\n" + tr._(
        "Your name is never shown to the person reported."
    )
    await respond(update, context, text, markup=review_markup(context, "rep"))


def _place(data: dict[str, Any]) -> Place:
    return Place(text=data.get("place_text"), latitude=data.get("lat"), longitude=data.get("lon"))


def _form(data: dict[str, Any]) -> RepresentationForm | RideHailingForm:
    occurred = dt.date.fromisoformat(data["occurred_on"])
    if data.get("kind") == "app":
        return RideHailingForm(
            author=Author(name=data["name"]),
            vehicle_ref=data["vehicle_ref"],
            reason=data["reason"],
            facts=data["facts"],
            occurred_on=occurred,
            place=_place(data),
            driver_id=data.get("driver_id"),
            evidence_note=data.get("evidence_note"),
            attachment_ids=list(data.get("files", [])),
        )
    ended = data.get("relation_ended_on")
    return RepresentationForm(
        author=Author(name=data["name"], profession=data["profession"], address=data["address"], cpf=data.get("cpf")),
        facts=data["facts"],
        occurred_on=occurred,
        place=_place(data),
        learned_how=data.get("learned") or "",
        relation=Relation(data.get("relation", "none")),
        infraction_code=data.get("infraction_code"),
        accused=data.get("accused"),
        evidence_note=data.get("evidence_note"),
        attachment_ids=list(data.get("files", [])),
        relation_ended_on=dt.date.fromisoformat(ended) if ended else None,
    )


async def _send(update: Update, context: BalcaoContext, data: dict[str, Any]) -> None:
    tr = context.tr
    form = _form(data)
    try:
        async with context.sessions() as session:
            if isinstance(form, RideHailingForm):
                filed = await file_ride_hailing_report(session=session, person_id=context.person.id, form=form,
                                                       now=utcnow(), settings=context.settings)
            else:
                filed = await file_representation(session=session, person_id=context.person.id, form=form,
                                                  now=utcnow(), settings=context.settings)
    except NotAdmitted as refused:
        await respond(update, context, refused.render(tr), markup=keyboard([
            [(tr._("Change the date of the facts"), "rep:edit:when")],
            [(tr._("Change my answer"), "rep:edit:relation")],
            cancel_row(context, "rep:cancel"),
        ]))
        return
    except InvalidInput as refused:
        await refuse_filing(update, context, refused, "rep")
        return
    await confirm_filing(update, context, filed)


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Add the representação buttons (the command and free input are registered through their decorators)."""
    application.add_handler(CallbackQueryHandler(on_button, pattern=r"^rep:"))

