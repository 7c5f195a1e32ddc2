"""/meusdados: what Balcão holds about the person, as a JSON file, and the deletion of what may be deleted (LGPD).

Export (LGPD Art. 18 II) is sent as two documents: a PDF to read, in the person's language and local time, and
the machine-readable JSON (English keys, ISO 8601 times with their offset). Deletion (Art. 18 VI) first says what
will be deleted and what the law requires the city hall to keep, with the article, and asks for confirmation.
Buttons: ``dados:…``.
"""

from __future__ import annotations

import json
from typing import Any

from telegram import InputFile, Update
from telegram.ext import Application, CallbackQueryHandler

from core.i18n import N_, Translator
from handlers.chat.commands import chat_command
from handlers.chat.context import BalcaoContext
from handlers.chat.engine import form_titles
from handlers.chat.replies import acknowledge, answer_query, esc, keyboard, menu_row, respond
from models.cases.export_pdf import build_data_export_pdf
from models.cases.privacy import KeptRecord, erase_personal_data, export_personal_data, kept_records
from models.columns import utcnow
from models.encarregado import encarregado_line
from models.notices.labels import STAGE_LABELS, TYPE_LABELS
from notifications.kind_labels import KIND_LABELS as MESSAGE_KIND_LABELS
from notifications.kind_labels import STATUS_LABELS as MESSAGE_STATUS_LABELS
from notifications.topics import TOPICS

EXPORT_FILE = "meus-dados-balcao.json"
READABLE_FILE = "meus-dados-balcao.pdf"


@chat_command(
    "meusdados",
    aliases=("mydata", "misdatos"),
    description=N_("See or delete your data (LGPD)"),
    menu_label=N_("My data"),
    order=91,
)
async def my_data(update: Update, context: BalcaoContext) -> None:
    """``/meusdados``: the choices — download everything, or delete what may be deleted."""
    tr = context.tr
    text = "\n".join([
        tr._("<b>Your data</b>"),
        tr._("You can download everything Balcão holds about you, or ask us to delete your personal data."),
        "<i>" + esc(tr._("LGPD, Art. 18")) + "</i>",
    ])
    await respond(update, context, text, edit=True, markup=keyboard([
        [(tr._("📄 Download my data"), "dados:export")],
        [(tr._("Delete my personal data"), "dados:erase")],
        menu_row(context),
    ]))


def kept_text(kept: list[KeptRecord] | tuple[KeptRecord, ...], tr: Translator) -> str:
    """What is kept and why, one item per line."""
    return "\n".join(f"• <b>{esc(tr._(k.what))}</b>: {esc(tr._(k.why))}" for k in kept)


def _export_words() -> dict[str, dict[str, str]]:
    """The export's code words that the chat and the messages name, by the key they stand under."""
    return {
        "kind": dict(MESSAGE_KIND_LABELS),
        "status": {status.value: label for status, label in MESSAGE_STATUS_LABELS.items()},
        "type": {kind.value: label for kind, label in TYPE_LABELS.items()},
        "stage": {stage.value: label for stage, label in STAGE_LABELS.items()},
        "muted_reminders": {name: topic.label for name, topic in TOPICS.items()},
        "form": form_titles(),
    }


async def _export(update: Update, context: BalcaoContext) -> None:
    tr = context.tr
    async with context.sessions() as session:
        document = await export_personal_data(session=session, person_id=context.person.id, now=utcnow())
    content = json.dumps(document, ensure_ascii=False, indent=2).encode("utf-8")
    readable = build_data_export_pdf(document, tr=tr, municipality=context.settings.municipality_name,
                                     words=_export_words(),
                                     encarregado=encarregado_line(municipality=context.settings.municipality, tr=tr))
    chat = update.effective_chat
    assert chat is not None
    await acknowledge(update, context)
    await context.bot.send_document(
        chat_id=chat.id,
        document=InputFile(readable, filename=READABLE_FILE),
        caption=tr._("Everything Balcão holds about you (CPF numbers are partly hidden, for your safety)."),
    )
    await context.bot.send_document(
        chat_id=chat.id,
        document=InputFile(content, filename=EXPORT_FILE),
        caption=tr._("The same data for computers (JSON)."),
    )
    await respond(update, context, tr._("Your data is in the files above."), markup=keyboard([menu_row(context)]))


async def _confirm_erase(update: Update, context: BalcaoContext) -> None:
    tr = context.tr
    async with context.sessions() as session:
        kept = await kept_records(session=session, person_id=context.person.id)
    lines = [
        tr._("<b>Delete your personal data?</b>"),
        tr._("We will delete your Telegram name, any form in progress and its files, your reminder choices, "
             "and the CPF you gave in a case."),
    ]
    if kept:
        lines += ["", tr._("The law requires the city hall to keep:"), kept_text(kept, tr)]
    await respond(update, context, "\n".join(lines), edit=True, markup=keyboard([
        [(tr._("Yes, delete"), "dados:erase:yes")],
        [(tr._("No, keep everything"), "menu:main")],
    ]))


async def _erase(update: Update, context: BalcaoContext) -> None:
    tr = context.tr
    async with context.sessions() as session:
        report = await erase_personal_data(session=session, person_id=context.person.id, now=utcnow())
    lines = [tr._("Done: your personal data was deleted.")]
    if report.kept:
        lines += ["", tr._("Kept because the law requires it:"), kept_text(report.kept, tr)]
    await respond(update, context, "\n".join(lines), edit=True, markup=keyboard([menu_row(context)]))


async def on_button(update: Update, context: BalcaoContext) -> None:
    """Every ``dados:`` button."""
    query = update.callback_query
    assert query is not None and query.data is not None
    if query.data == "dados:export":
        await _export(update, context)
    elif query.data == "dados:erase":
        await _confirm_erase(update, context)
    elif query.data == "dados:erase:yes":
        await _erase(update, context)
    else:
        await answer_query(update, context)


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Add the /meusdados buttons."""
    application.add_handler(CallbackQueryHandler(on_button, pattern=r"^dados:"))
