"""A defence, reclamação or appeal against a notice, filed from the chat like a case.

Steps: the text (CP Art. 38, 44: by petition), the files (documents may be attached: photos, PDF, voice notes,
audio, short videos, with their captions; the one file intake of ``handlers.chat.engine.intake``), then the review,
where ✅ Send or a typed "sim" files it. Filing gives a protocol number and a signed PDF receipt, as a case does
(L9784 Art. 6 par. único). The window is checked when the form starts and again when it is sent. The form runs on
``handlers.chat.engine``; it starts from a notice's "Apresentar defesa/reclamação/recurso" (``ntc:file:<id>``,
:func:`start_filing`); buttons ``fil:…``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from telegram import InputFile, Update

from core.i18n import N_, Translator
from handlers.chat.context import BalcaoContext
from handlers.chat.engine import Filed, Form, Question, Step, Turn, begin, busy_elsewhere, register_form
from handlers.chat.engine.intake import recordings_line
from handlers.chat.replies import esc, keyboard, menu_row, respond
from models.cases import fields
from models.cases.limits import CaseLimits
from models.columns import utcnow
from models.invalid_input import InvalidInput
from models.notices.delivery import civil_date
from models.notices.filing_receipt import signed_filing_receipt
from models.notices.filings import MAX_TEXT, FilingRefused, check_can_file, file_filing, store_filing_attachment
from models.notices.status import notice_of_person
from models.notices.tables import FilingKind
from models.rulebooks.catalogue import LAW_TITLES
from notifications.notice_messages import FILING_LABELS
from notifications.telegram_text import small

FILING_FORM = "notice_filing"


class NotFiled(InvalidInput):
    """A filing the domain refused (the window closed, already filed…), said with its article."""

    def __init__(self, refused: FilingRefused) -> None:
        super().__init__(refused.message)
        self.refused = refused

    def render(self, tr: Translator) -> str:
        """The reason in the reader's language, the article in small print."""
        refused = self.refused
        return esc(refused.render(tr)) + (small(refused.citation) if refused.citation else "")


def _kind(turn: Turn) -> str:
    return turn.tr._(FILING_LABELS[FilingKind(turn.data["kind"])])


def _deadline_line(tr: Translator, data: dict[str, Any]) -> str:
    if data.get("last_day"):
        return tr._("Deadline: {date}.").format(date=tr.date(dt.date.fromisoformat(data["last_day"])))
    return tr._("Appeal without a first-instance decision: no deadline while the complaint stays undecided.") + (
        small(f"{LAW_TITLES['nx-posturas']}, Art. 42"))


def _ask_text(turn: Turn) -> Question:
    tr = turn.tr
    text = tr._("Write {kind} for notice {number} in one message: what happened and why the notice "
                "should change. You can attach photos or documents next.").format(
        kind=esc(_kind(turn)), number=f"<b>{esc(turn.data['number'])}</b>")
    return Question(text + "\n" + _deadline_line(tr, turn.data))


def _ask_files(turn: Turn) -> Question:
    tr = turn.tr
    limits = CaseLimits.of(turn.city.readings)
    text = tr._("Now send photos or PDF documents, if you have any, then press Done.") + "\n" + tr.ngettext(
        "JPEG, PNG or PDF, up to {mb} MB each, at most {n} file.",
        "JPEG, PNG or PDF, up to {mb} MB each, at most {n} files.", limits.max_attachments).format(
        mb=limits.max_attachment_bytes // (1024 * 1024), n=limits.max_attachments) + recordings_line(turn.context)
    label = tr._("Done") if turn.data.get("files") else tr._("Continue without files")
    return Question(text, [[(label, "fil:files:done")]])


STEPS = (
    # CP Art. 38, 44: the reclamação and the appeal are made by petition
    Step("text", _ask_text, text=lambda text, _t: {"text": fields.clean_text(text, min_length=10,
                                                                              max_length=MAX_TEXT)},
         label=N_("Your text")),
    Step("files", _ask_files, files=True, label=N_("Files")),
)


def summary(turn: Turn) -> str:
    """The review screen's text: the kind, the notice, the text, the files and the deadline."""
    tr, data = turn.tr, turn.data
    files = len(data.get("files", []))
    return "\n".join([
        tr._("Text of {kind}, notice {number}:").format(kind=esc(_kind(turn)), number=esc(data["number"])),
        f"<blockquote>{esc(data.get('text', ''))}</blockquote>",
        tr.ngettext("{n} file attached.", "{n} files attached.", files).format(n=files),
        _deadline_line(tr, data),
    ])


def _start(turn: Turn) -> dict[str, Any]:
    """Only from a notice's button (:func:`start_filing` prefills it); "Start again" cannot know the notice."""
    if "notice_id" not in turn.data:
        raise InvalidInput(N_("There is nothing to send. Start again from /notificacoes."))
    return {"files": []}


async def _keep(context: BalcaoContext, content: bytes, name: str | None, caption: str | None,
                already: list[int]) -> int:
    async with context.sessions() as session:
        stored = await store_filing_attachment(session=session, city=context.city,
                                               person_id=context.person.id, content=content, file_name=name,
                                               already=already, caption=caption)
    assert stored.id is not None
    return stored.id


async def submit(turn: Turn) -> Filed:
    """File it (the window is checked again now): the domain call; the confirmation comes with the protocol."""
    data, context = turn.data, turn.context
    try:
        async with context.sessions() as session:
            filing = await file_filing(session=session, cities=context.cities, notice_id=int(data["notice_id"]),
                                       person_id=context.person.id, text=data["text"],
                                       attachment_ids=[int(i) for i in data.get("files", [])])
    except FilingRefused as refused:
        raise NotFiled(refused) from None
    assert filing.protocol is not None
    return Filed(filing.protocol, lambda: _confirm(turn, filing.id or 0))


async def _confirm(turn: Turn, filing_id: int) -> None:
    """The protocol and the moment (a message without buttons, the proof), the signed receipt, then the buttons."""
    context, tr, data = turn.context, turn.tr, turn.data
    async with context.sessions() as session:
        receipt = await signed_filing_receipt(session=session, filing_id=filing_id, tr=tr,
                                              cities=context.cities, tsa_url=context.deployment_settings.tsa_url)
    filing = receipt.filing
    text = tr._("Sent! We registered {kind} on {moment}. You will get the decision here.").format(
        kind=esc(tr._(FILING_LABELS[filing.kind])), moment=tr.datetime(filing.filed_at, "short"))
    text += "\n" + tr._("Its protocol number is <b>{protocol}</b>. The receipt is below.").format(
        protocol=esc(receipt.protocol))
    if filing.kind is FilingKind.RECLAMACAO:
        text += "\n" + tr._("While it is reviewed, the fine is suspended.") + small(
            f"{LAW_TITLES['nx-posturas']}, Art. 39")
    await respond(turn.update, context, text)
    chat = turn.update.effective_chat
    assert chat is not None
    document = InputFile(receipt.pdf, filename=f"{receipt.protocol}.pdf")
    await context.bot.send_document(chat_id=chat.id, document=document,
                                    caption=tr._("Receipt of {protocol}").format(protocol=receipt.protocol))
    await respond(turn.update, context, tr._("What would you like to do now?"), markup=keyboard([
        [(tr._("See the notice"), f"ntc:show:{data['notice_id']}")], menu_row(context)]))


FORM = Form(
    name=FILING_FORM,
    prefix="fil",
    title=N_("your defence"),  # the draft's "title" names the filing it is for /cancelar ("seu recurso")
    steps=STEPS,
    flow=lambda _data: tuple(step.name for step in STEPS),
    start=_start,
    intro=N_("Nothing is sent until you confirm at the end. You can stop at any time with /cancelar."),
    resume=N_("You have a filing in progress. Continue where you stopped, or start again?"),
    gone=N_("There is nothing to send. Start again from /notificacoes."),
    already_sent=N_("This was already filed. Its protocol number is <b>{result}</b>."),
    review_intro=N_("<b>Check before sending</b>"),
    summary=summary,
    submit=submit,
    keep_file=_keep,
)
register = register_form(FORM)


async def start_filing(update: Update, context: BalcaoContext, notice_id: int) -> None:
    """Check the window (refusing with the article after it), then begin the form at the text."""
    tr = context.tr
    if await busy_elsewhere(update, context, FILING_FORM):
        return
    async with context.sessions() as session:
        notice = await notice_of_person(session=session, notice_id=notice_id, person_id=context.person.id)
        if notice is None:
            await respond(update, context, tr._("This notice is not addressed to you."))
            return
        try:
            city = context.cities.of(notice.municipality)
            kind, last_day = await check_can_file(session=session, city=city, notice=notice,
                                                  today=civil_date(utcnow(), city))
        except FilingRefused as refused:
            await respond(update, context, NotFiled(refused).render(tr), markup=keyboard([
                [(tr._("◀ Back"), f"ntc:show:{notice_id}")], menu_row(context)]))
            return
    await begin(FORM, update, context, prefill={
        "notice_id": notice_id, "number": notice.number, "kind": kind.value,
        "title": FILING_LABELS[kind],  # /cancelar names it: "seu recurso", not "sua defesa"
        "last_day": last_day.isoformat() if last_day else None,
    })
