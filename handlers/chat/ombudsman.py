"""/ouvidoria: a case for the Ombudsman (Lei 13.460/2017) — complaint, report, suggestion, praise or request.

Steps (kept in the draft after each one): the type, the text, optional files, whether the author's identity is
restricted (only the Ombudsman sees it; Art. 10 §7), the author's name, then a review before sending. Filing
gives a protocol number, the 30-day deadline (Art. 16) and a PDF receipt. Buttons: ``ouv:…``.
"""

from __future__ import annotations

from typing import Any

from telegram import Update
from telegram.ext import Application, CallbackQueryHandler

from bot.i18n import N_, Translator
from handlers.chat.commands import chat_command
from handlers.chat.context import BalcaoContext
from handlers.chat.forms import form_input
from handlers.chat.replies import esc, keyboard, menu_row
from handlers.chat.representation import (
    ask_what_to_change,
    cancel_form,
    cancel_row,
    confirm_filing,
    current_draft,
    is_file,
    offer_to_resume,
    refuse_filing,
    respond,
    review_markup,
    save,
    take_file,
    within_daily_limit,
)
from models.cases import fields
from models.cases.fields import InvalidInput
from models.cases.filing import Author, OmbudsmanForm, file_ombudsman_case
from models.cases.labels import OMBUDSMAN_TYPE_HELP, OMBUDSMAN_TYPE_LABELS
from models.cases.limits import CaseLimits
from models.cases.tables import OmbudsmanType
from models.columns import utcnow
from models.drafts import Draft
from notifications.telegram_text import small

FORM = "ouvidoria"
STEPS = ("type", "text", "files", "identity", "name", "review")
EDITABLE = {
    "type": N_("Type"),
    "text": N_("Your message"),
    "files": N_("Files"),
    "identity": N_("Who sees your name"),
    "name": N_("Name"),
}


async def ask(update: Update, context: BalcaoContext, step: str, data: dict[str, Any]) -> None:
    """Ask the question of a step, with its buttons."""
    tr = context.tr
    rows: list[list[tuple[str, str]]] = []
    if step == "type":
        lines = [tr._("What kind of message is it?"), ""]
        lines += [f"• <b>{esc(tr._(OMBUDSMAN_TYPE_LABELS[t]))}</b>: {esc(tr._(OMBUDSMAN_TYPE_HELP[t]))}"
                  for t in OmbudsmanType]
        text = "\n".join(lines) + small(tr._("Lei 13.460/2017"))
        rows = [[(tr._(OMBUDSMAN_TYPE_LABELS[t]), f"ouv:type:{t.value}")] for t in OmbudsmanType]
    elif step == "text":
        text = tr._("Write your message: what happened, where and when, and what you expect from the city hall.")
    elif step == "files":
        limits = CaseLimits.from_settings(context.settings)
        text = tr._("If you want, send photos or documents (JPEG, PNG or PDF, up to {mb} MB each).").format(
            mb=limits.max_attachment_bytes // (1024 * 1024)
        )
        count = len(data.get("files", []))
        label = tr._("Done") if count else tr._("Continue without files")
        rows = [[(label, "ouv:files:done")]]
    elif step == "identity":
        text = "\n".join([
            tr._("Who may see your name?"),
            "",
            tr._("• <b>Restricted</b>: only the Ombudsman sees your name; everyone else sees a code."),
            tr._("• <b>Identified</b>: the staff who handle your case see your name."),
            "",
            tr._("Either way, your name is never shown to anyone you complain about."),
        ]) + small(tr._("Lei 13.460/2017, Art. 10 §7"))
        rows = [[(tr._("Restricted (recommended)"), "ouv:id:restricted")], [(tr._("Identified"), "ouv:id:open")]]
    elif step == "name":
        text = tr._("What is your full name?") + small(tr._("The law asks for it (Lei 13.460/2017, Art. 10)."))
    else:
        await show_review(update, context, data)
        return
    await respond(update, context, text, markup=keyboard([*rows, cancel_row(context, "ouv:cancel")]))


@chat_command(
    "ouvidoria",
    aliases=("ombudsman",),
    description=N_("Talk to the Ombudsman: complaint, suggestion, praise, request"),
    menu_label=N_("Ombudsman"),
    order=30,
)
async def start_ombudsman(update: Update, context: BalcaoContext) -> None:
    """``/ouvidoria``: resume the message in progress, or start one (within the daily limit)."""
    question = context.tr._("You have a message to the Ombudsman in progress. Continue where you stopped, or start "
                            "again?")
    if not await offer_to_resume(update, context, form=FORM, prefix="ouv", question=question):
        await _begin(update, context)


async def _begin(update: Update, context: BalcaoContext) -> None:
    if not await within_daily_limit(update, context):
        return
    await save(context, FORM, "type", {})
    await respond(update, context, context.tr._("The Ombudsman answers within 30 days. You can stop at any time "
                                              "with /cancelar."))
    await ask(update, context, "type", {})


def _next(data: dict[str, Any], step: str) -> str:
    if data.get("editing"):
        return "review"
    return STEPS[STEPS.index(step) + 1]


async def _advance(update: Update, context: BalcaoContext, step: str, data: dict[str, Any]) -> None:
    following = _next(data, step)
    if following == "review":
        data.pop("editing", None)
    await save(context, FORM, following, data)
    await ask(update, context, following, data)


@form_input(FORM, title=N_("your message to the Ombudsman"))
async def on_input(update: Update, context: BalcaoContext, draft: Draft) -> None:
    """Text, photo or document while the message is being written."""
    data = dict(draft.data)
    step = draft.step
    message = update.effective_message
    assert message is not None
    if step == "files" and is_file(message):
        await take_file(update, context, form=FORM, step=step, data=data,
                        markup=keyboard([[(context.tr._("Done"), "ouv:files:done")],
                                         cancel_row(context, "ouv:cancel")]))
        return
    try:
        if message.text is None:
            raise InvalidInput(N_("Please answer with text or press a button."))
        if step == "text":
            data["text"] = fields.clean_text(message.text, min_length=10, max_length=3500)
        elif step == "name":
            data["name"] = fields.person_name(message.text)
        elif step == "review" and fields.yes_or_no(message.text):
            await _send(update, context, data)
            return
        elif step == "review":
            await show_review(update, context, data)
            return
        else:
            raise InvalidInput(N_("Please press one of the buttons."))
    except InvalidInput as invalid:
        await respond(update, context, invalid.render(context.tr))
        await ask(update, context, step, data)
        return
    await _advance(update, context, step, data)


_BUTTON_STEPS = {"type": "type", "files": "files", "id": "identity", "send": "review", "edit": "review"}


async def on_button(update: Update, context: BalcaoContext) -> None:
    """Every ``ouv:`` button."""
    tr = context.tr
    query = update.callback_query
    assert query is not None and query.data is not None
    _, action, *rest = query.data.split(":", 2)
    arg = rest[0] if rest else ""
    if action == "cancel":
        await cancel_form(update, context)
        return
    if action == "restart":
        await _begin(update, context)
        return
    draft = await current_draft(context, FORM)
    if draft is None:
        await respond(update, context, tr._("This message is no longer in progress. Start a new one with /ouvidoria."),
                    markup=keyboard([menu_row(context)]))
        return
    data, step = dict(draft.data), draft.step
    if action == "resume":
        await ask(update, context, step, data)
        return
    if _BUTTON_STEPS.get(action) != step:
        await respond(update, context, tr._("That button belongs to an earlier question. Here is where we are:"))
        await ask(update, context, step, data)
        return
    if action == "type" and arg in {t.value for t in OmbudsmanType}:
        data["type"] = arg
    elif action == "files":
        pass
    elif action == "id" and arg in {"restricted", "open"}:
        data["restricted"] = arg == "restricted"
    elif action == "send":
        await _send(update, context, data)
        return
    elif action == "edit":
        await _edit(update, context, data, arg)
        return
    else:
        await ask(update, context, step, data)
        return
    await _advance(update, context, step, data)


async def _edit(update: Update, context: BalcaoContext, data: dict[str, Any], field: str) -> None:
    if field == "review":
        await show_review(update, context, data)
        return
    if field in EDITABLE:
        data["editing"] = True
        await save(context, FORM, field, data)
        await ask(update, context, field, data)
        return
    await ask_what_to_change(update, context, "ouv", list(EDITABLE.items()))


def summary(data: dict[str, Any], tr: Translator) -> str:
    """The review screen's text."""
    files = len(data.get("files", []))
    kind = OmbudsmanType(data["type"])
    return "\n".join([
        tr._("<b>Message to the Ombudsman</b>"),
        f"<b>{esc(tr._('Type'))}:</b> {esc(tr._(OMBUDSMAN_TYPE_LABELS[kind]))}",
        f"<b>{esc(tr._('Your message'))}:</b> {esc(data.get('text', ''))}",
        f"<b>{esc(tr._('Files'))}:</b> "
        + esc(tr.ngettext("{n} file", "{n} files", files).format(n=files) if files else tr._("none")),
        f"<b>{esc(tr._('Name'))}:</b> {esc(data.get('name', ''))}",
        f"<b>{esc(tr._('Who sees your name'))}:</b> "
        + esc(tr._("only the Ombudsman") if data.get("restricted") else tr._("the staff who handle your case")),
    ])


async def show_review(update: Update, context: BalcaoContext, data: dict[str, Any]) -> None:
    """The summary and the buttons to send, change or cancel."""
    tr = context.tr
    text = tr._("Please check your message before sending:") + "\n\n" + summary(data, tr)
    await respond(update, context, text, markup=review_markup(context, "ouv"))


async def _send(update: Update, context: BalcaoContext, data: dict[str, Any]) -> None:
    form = OmbudsmanForm(
        author=Author(name=data["name"]),
        type=OmbudsmanType(data["type"]),
        text=data["text"],
        identity_restricted=bool(data.get("restricted")),
        attachment_ids=list(data.get("files", [])),
    )
    try:
        async with context.sessions() as session:
            filed = await file_ombudsman_case(session=session, person_id=context.person.id, form=form, now=utcnow(),
                                              settings=context.settings)
    except InvalidInput as refused:
        await refuse_filing(update, context, refused, "ouv")
        return
    await confirm_filing(update, context, filed)


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Add the ombudsman buttons (the command and free input are registered through their decorators)."""
    application.add_handler(CallbackQueryHandler(on_button, pattern=r"^ouv:"))
