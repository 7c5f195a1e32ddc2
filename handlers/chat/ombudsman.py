"""/ouvidoria: a case for the Ombudsman (Lei 13.460/2017) — complaint, report, suggestion, praise or request.

Steps: the type, the text, optional files, whether the author's identity is restricted (only the Ombudsman sees
it; Art. 10 §7), the author's name, then the review. Filing gives a protocol number, the 30-day deadline
(Art. 16) and a PDF receipt. The form runs on ``handlers.chat.engine``; buttons ``ouv:…``.
"""

from __future__ import annotations

from telegram import Update

from core.i18n import N_
from handlers.chat.case_forms import (
    TOLD,
    confirm_filing,
    known_author,
    known_values,
    reuse_rows,
    told_first,
    within_daily_limit,
)
from handlers.chat.city import ask_city, needs_choice
from handlers.chat.commands import chat_command
from handlers.chat.context import BalcaoContext
from handlers.chat.engine import Filed, Form, Question, Step, Turn, begin, register_form, start
from handlers.chat.engine.intake import recordings_line
from handlers.chat.replies import esc
from models.cases import fields
from models.cases.filing import Author, OmbudsmanForm, file_ombudsman_case
from models.cases.labels import OMBUDSMAN_TYPE_HELP, OMBUDSMAN_TYPE_LABELS
from models.cases.limits import CaseLimits
from models.cases.tables import OmbudsmanType
from models.columns import utcnow
from models.invalid_input import InvalidInput
from notifications.telegram_text import small

IDENTITY = {"restricted": True, "open": False}


def _ask_type(turn: Turn) -> Question:
    tr = turn.tr
    lines = [tr._("What kind of message is it?"), ""]
    lines += [f"• <b>{esc(tr._(OMBUDSMAN_TYPE_LABELS[t]))}</b>: {esc(tr._(OMBUDSMAN_TYPE_HELP[t]))}"
              for t in OmbudsmanType]
    return Question("\n".join(lines) + small(tr._("Lei 13.460/2017")),
                    [[(tr._(OMBUDSMAN_TYPE_LABELS[t]), f"ouv:type:{t.value}")] for t in OmbudsmanType])


def _ask_files(turn: Turn) -> Question:
    tr = turn.tr
    limits = CaseLimits.of(turn.city.readings)
    text = tr._("If you want, send photos or documents (JPEG, PNG or PDF, up to {mb} MB each).").format(
        mb=limits.max_attachment_bytes // (1024 * 1024)
    ) + recordings_line(turn.context)
    label = tr._("Done") if turn.data.get("files") else tr._("Continue without files")
    return Question(text, [[(label, "ouv:files:done")]])


def _ask_identity(turn: Turn) -> Question:
    tr = turn.tr
    text = "\n".join([
        tr._("Who may see your name?"),
        "",
        tr._("• <b>Restricted</b>: only the Ombudsman sees your name; everyone else sees a code."),
        tr._("• <b>Identified</b>: the staff who handle your case see your name."),
        "",
        tr._("Either way, your name is never shown to anyone you complain about."),
    ]) + small(tr._("Lei 13.460/2017, Art. 10 §7"))
    return Question(text, [[(tr._("Restricted (recommended)"), "ouv:id:restricted")],
                           [(tr._("Identified"), "ouv:id:open")]])


def _message(text: str) -> str:
    return fields.clean_text(text, min_length=10, max_length=3500)


STEPS = (
    Step("type", _ask_type, buttons={"type": lambda arg, _t: {"type": OmbudsmanType(arg).value}}, label=N_("Type")),
    Step("text", lambda t: Question(t.tr._("Write your message: what happened, where and when, and what you "
                                           "expect from the city hall.")),
         text=lambda text, _t: {"text": _message(text)},
         label=N_("Your message")),
    Step("files", _ask_files, files=True, label=N_("Files")),
    # L13460 Art. 10 §7: the author's identity is protected on request.
    Step("identity", _ask_identity, buttons={"id": lambda arg, _t: {"restricted": IDENTITY[arg]}},
         label=N_("Who sees your name")),
    # L13460 Art. 10: the manifestação identifies its author.
    Step("name", lambda t: Question(t.tr._("What is your full name?")
                                    + small(t.tr._("The law asks for it (Lei 13.460/2017, Art. 10).")),
                                    reuse_rows(t, "ouv", with_address=False)),
         text=lambda text, _t: {"name": fields.person_name(text)},
         buttons={"reuse": lambda arg, t: {"name": fields.person_name(known_values(arg, t)["name"])}},
         label=N_("Name")),
)


def summary(turn: Turn) -> str:
    """The review screen's text."""
    tr, data = turn.tr, turn.data
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


async def submit(turn: Turn) -> Filed:
    """File the case (L13460 Art. 12): the domain call; the confirmation comes with the protocol."""
    data, context = turn.data, turn.context
    form = OmbudsmanForm(
        author=Author(name=data["name"]),
        type=OmbudsmanType(data["type"]),
        text=data["text"],
        identity_restricted=bool(data.get("restricted")),
        attachment_ids=list(data.get("files", [])),
    )
    async with context.sessions() as session:
        filed = await file_ombudsman_case(session=session, person_id=context.person.id, form=form, now=utcnow(),
                                          city=context.city)
    return Filed(filed.protocol, lambda: confirm_filing(turn.update, context, filed))


async def _city_then_limit(update: Update, context: BalcaoContext) -> bool:
    """The city first where several are served (Lei 13.460/2017: each municipality answers for its services)."""
    if needs_choice(context):
        await ask_city(update, context, then="ouvidoria", edit=update.callback_query is not None)
        return False
    return await within_daily_limit(update, context)


FORM = Form(
    name="ouvidoria",
    prefix="ouv",
    title=N_("your message to the Ombudsman"),
    steps=STEPS,
    flow=lambda data: told_first(tuple(step.name for step in STEPS), data),
    start=lambda _turn: {},
    before_start=lambda update, context: _city_then_limit(update, context),
    prepare=known_author,
    intro=N_("The Ombudsman answers within 30 days. You can stop at any time with /cancelar."),
    resume=N_("You have a message to the Ombudsman in progress. Continue where you stopped, or start again?"),
    gone=N_("This message is no longer in progress. Start a new one with /ouvidoria."),
    already_sent=N_("This message was already sent. Its protocol number is <b>{result}</b>."),
    review_intro=N_("Please check your message before sending:"),
    summary=summary,
    submit=submit,
)
register = register_form(FORM)


@chat_command(
    "ouvidoria",
    aliases=("ombudsman",),
    description=N_("Talk to the Ombudsman: complaint, suggestion, praise, request"),
    menu_label=N_("Ombudsman"),
    order=30,
)
async def start_ombudsman(update: Update, context: BalcaoContext) -> None:
    """``/ouvidoria``: resume the message in progress, or start one (within the daily limit)."""
    await start(FORM, update, context)


async def start_from_sentence(update: Update, context: BalcaoContext, sentence: str,
                              kind: OmbudsmanType | None) -> None:
    """/ouvidoria begun from a sentence typed at the menu: the sentence is the message, and its verb the kind.

    "quero reclamar do posto de saúde" is a reclamação (L13460 Art. 2 V) whose message is that sentence:
    both are its first answers, asked no more and changeable at the review. A sentence too short to be a message
    starts the form as /ouvidoria does.
    """
    try:
        text = _message(sentence)
    except InvalidInput:
        await start(FORM, update, context)
        return
    told = ["text", "type"] if kind is not None else ["text"]
    answers = {"text": text, TOLD: told} | ({"type": kind.value} if kind is not None else {})
    await begin(FORM, update, context, prefill=answers, at=FORM.flow(answers)[len(told)], note=context.tr._(
        "I kept what you wrote as your message. You can change it before sending."))
