"""The author's answer to a request for complementação (D9492 Art. 18), a form on the engine.

Started from "Responder agora" under the request, or a case's "Send the information asked for"
(``acomp:compl:<case id>``): the answer step takes the typed answer and, before it, files of every kind the
representação takes (``handlers.chat.engine.intake``); then the review, where ✅ Send or a typed "sim" sends it. A
text typed outside any form while exactly one case waits is that case's answer at once (issue 9 item 6,
:func:`typed_answer`); with several waiting the text is kept and the form asks which case it is for. Buttons
``cpl:…``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from telegram import Update

from core.i18n import N_
from handlers.chat.context import BalcaoContext
from handlers.chat.engine import Filed, Forged, Form, Question, Step, Turn, begin, busy_elsewhere, register_form
from handlers.chat.engine.intake import recordings_line
from handlers.chat.replies import esc, keyboard, menu_row, respond
from models.cases import fields
from models.cases.attachments import discard_unfiled
from models.cases.citizen import CaseLine, answer_complement, awaiting_complement, my_case
from models.cases.tables import CaseStatus
from models.cases.timeline import CaseNotFound
from models.columns import utcnow
from models.invalid_input import InvalidInput

FORM_NAME = "complemento"
NOT_YOURS = N_("I found no case of yours with that number. Check it and try again.")


def _answer(text: str, _turn: Turn) -> dict[str, Any]:
    return {"text": fields.clean_text(text, min_length=3, max_length=3500)}


def _ask_answer(turn: Turn) -> Question:
    tr = turn.tr
    text = tr._("Type your answer to the question above. You can also send photos or PDF files first.")
    if turn.data.get("question"):
        text = tr._("The question was:") + f"\n<i>{esc(turn.data['question'])}</i>\n\n" + text
    return Question(text + recordings_line(turn.context))


async def _waiting(context: BalcaoContext) -> list[CaseLine]:
    async with context.sessions() as session:
        return await awaiting_complement(session=session, person_id=context.person.id)


async def _which(arg: str, turn: Turn) -> dict[str, Any]:
    """``cpl:for:<case id>``: one of the person's cases waiting for an answer (any other id is forged)."""
    waiting = {str(line.id): line for line in await _waiting(turn.context)}
    if arg not in waiting:
        raise Forged(arg)
    return {"case_id": waiting[arg].id, "protocol": waiting[arg].protocol}


def _ask_which(turn: Turn) -> Question:
    return Question(turn.tr._("Which case is this answer for?"),
                    [[(protocol, f"cpl:for:{case_id}")] for case_id, protocol in turn.data.get("waiting", [])])


STEPS = (
    Step("case", _ask_which, buttons={"for": _which}),
    Step("answer", _ask_answer, text=_answer, files=True, label=N_("Your answer")),
    Step("text", lambda t: Question(t.tr._("Type your answer to the question above.")), text=_answer,
         parent="answer"),  # Done pressed after the files, with no answer typed yet
)


def _flow(data: dict[str, Any]) -> tuple[str, ...]:
    if data.get("choosing"):
        return ("case",)
    return ("answer",) if data.get("text") else ("answer", "text")


def summary(turn: Turn) -> str:
    """The review: the case, the answer and the files."""
    tr, data = turn.tr, turn.data
    text = tr._("Your answer about {protocol}:").format(protocol=f"<b>{esc(data.get('protocol', ''))}</b>")
    text += f"\n\n{esc(data.get('text', ''))}"
    count = len(data.get("files", []))
    if count:
        text += "\n" + esc(tr.ngettext("{n} file", "{n} files", count).format(n=count))
    return text


async def _added(update: Update, context: BalcaoContext, *, case_id: int, protocol: str, due: dt.date) -> None:
    tr = context.tr
    text = tr._("Thank you! Your answer was added to {protocol}. The new deadline is {date}.").format(
        protocol=f"<b>{esc(protocol)}</b>", date=tr.date(due))
    await respond(update, context, text, markup=keyboard([[(tr._("See the case"), f"acomp:case:{case_id}")],
                                                         menu_row(context)]))


async def _file(context: BalcaoContext, *, case_id: int, text: str, files: list[int]) -> dt.date:
    """The domain call: the answer joins the case (D9492 Art. 18) and the deadline runs again."""
    try:
        async with context.sessions() as session:
            return await answer_complement(session=session, person_id=context.person.id, case_id=case_id,
                                           text=text, attachment_ids=files, now=utcnow(), cities=context.cities)
    except CaseNotFound:
        raise InvalidInput(NOT_YOURS) from None


async def submit(turn: Turn) -> Filed:
    """Send the answer; the confirmation names the case and its new deadline."""
    data = turn.data
    if "case_id" not in data:  # a draft kept by the hand-rolled form before its case was chosen
        raise InvalidInput(N_("This answer is no longer in progress."))
    case_id, protocol = int(data["case_id"]), str(data["protocol"])
    due = await _file(turn.context, case_id=case_id, text=data.get("text", ""), files=list(data.get("files", [])))
    return Filed(protocol, lambda: _added(turn.update, turn.context, case_id=case_id, protocol=protocol, due=due))


def _start(turn: Turn) -> dict[str, Any]:
    if "case_id" not in turn.data and not turn.data.get("choosing"):
        raise InvalidInput(N_("This answer is no longer in progress."))
    return {"files": turn.data.get("files", [])}


FORM = Form(
    name=FORM_NAME,
    prefix="cpl",
    title=N_("your answer"),
    steps=STEPS,
    flow=_flow,
    start=_start,
    intro=N_("Nothing is sent until you confirm at the end. You can stop at any time with /cancelar."),
    resume=N_("You were answering a question of the city hall. Continue where you stopped, or start again?"),
    gone=N_("This answer is no longer in progress."),
    already_sent=N_("This answer was already added to {result}."),
    review_intro=N_("Please check your answer before sending:"),
    review_note=N_("Send it?"),
    summary=summary,
    submit=submit,
)
register = register_form(FORM)


async def start_complement(update: Update, context: BalcaoContext, case_id: int) -> None:
    """Answer the request of one of the person's cases (unless another form is in progress, or nothing is asked)."""
    tr = context.tr
    if await busy_elsewhere(update, context, FORM_NAME):
        return
    try:
        async with context.sessions() as session:
            view = await my_case(session=session, person_id=context.person.id, case_id=case_id)
            await discard_unfiled(session=session, person_id=context.person.id)
            await session.commit()
    except CaseNotFound:
        await respond(update, context, tr._(NOT_YOURS))
        return
    if view.status is not CaseStatus.AWAITING_COMPLEMENT:
        await respond(update, context, tr._("This case is not waiting for more information from you."),
                      markup=keyboard([[(tr._("See the case"), f"acomp:case:{case_id}")], menu_row(context)]))
        return
    await begin(FORM, update, context, prefill={"case_id": case_id, "protocol": view.protocol,
                                                "question": view.complement_question})


async def typed_answer(update: Update, context: BalcaoContext) -> bool:
    """A text typed outside any form, while a case waits for more information from its author: it is the answer.

    Issue 9 item 6: people answer the question by typing, without pressing "Send the information asked for".
    With one case waiting, the text is recorded as its answer (D9492 Art. 18); with several, the text
    is kept and the form asks which case it is for.

    Returns:
        Whether the text was taken as an answer (else the caller goes on reading it).
    """
    message = update.effective_message
    if message is None or not message.text:
        return False
    waiting = await _waiting(context)
    if not waiting:
        return False
    try:
        text = fields.clean_text(message.text, min_length=3, max_length=3500)
    except InvalidInput as invalid:
        await respond(update, context, invalid.render(context.tr))
        return True
    if len(waiting) > 1:
        await begin(FORM, update, context, prefill={
            "text": text, "choosing": True, "waiting": [(line.id, line.protocol) for line in waiting]})
        return True
    line = waiting[0]
    try:
        due = await _file(context, case_id=line.id, text=text, files=[])
    except InvalidInput as refused:
        await respond(update, context, refused.render(context.tr), markup=keyboard([menu_row(context)]))
        return True
    await _added(update, context, case_id=line.id, protocol=line.protocol, due=due)
    return True
