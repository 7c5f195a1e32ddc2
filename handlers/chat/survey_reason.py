"""The survey says why (issue 20 §3): after a "No" or "Partly", the author's reason, and how to disagree.

L13460 Art. 23: the satisfaction survey evaluates the service. A one-question form on the engine, started
from the buttons under the thanks for the rating: "✍️ Say why" (``svy:why:<case id>``) and "🔁 Reopen the case"
(``svy:reopen:<case id>``). Both file the typed reason on the case (``models.cases.citizen.explain_rating``); the
case stays closed by its conclusive answer (L13460 Art. 12), so "reopen" then offers the form for a new case of
the same kind (LEGAL-CHOICES item 80). The last answer files the form at once (``confirm=False``).
"""

from __future__ import annotations

from typing import Any

from telegram import Update

from core.i18n import N_
from handlers.chat.context import BalcaoContext
from handlers.chat.engine import Filed, Forged, Form, Question, Step, Turn, begin, register_form
from handlers.chat.replies import keyboard, menu_row, respond
from models.cases.citizen import REASON_MAX, REASON_MIN, explain_rating, my_case
from models.cases.fields import clean_text
from models.cases.handling import CaseActionRefused
from models.cases.tables import CaseKind
from models.cases.timeline import CaseNotFound
from models.columns import utcnow
from models.invalid_input import InvalidInput
from notifications.telegram_text import small

SURVEY_FORM = "survey_reason"
NOT_YOURS = N_("I found no case of yours with that number. Check it and try again.")

NEW_CASE_COMMAND: dict[CaseKind, tuple[str, str]] = {
    CaseKind.REPRESENTATION: ("representacao", N_("Report a problem")),
    CaseKind.RIDE_HAILING: ("representacao", N_("Report a problem")),
    CaseKind.OMBUDSMAN: ("ouvidoria", N_("Ombudsman")),
}
"""Where a new case of each kind is opened: the command and its button."""


def _ask_reason(turn: Turn) -> Question:
    text = turn.tr._("Tell us in one message why you were not fully satisfied.")
    return Question(text + small("Lei 13.460/2017, Art. 23"))


def _reason(typed: str, _turn: Turn) -> dict[str, Any]:
    return {"reason": clean_text(typed, min_length=REASON_MIN, max_length=REASON_MAX)}


async def _submit(turn: Turn) -> Filed:
    context, data = turn.context, turn.data
    case_id = int(data["case_id"])
    try:
        async with context.sessions() as session:
            await explain_rating(session=session, person_id=context.person.id, case_id=case_id,
                                 reason=data["reason"], now=utcnow())
    except CaseNotFound:
        raise InvalidInput(NOT_YOURS) from None
    except CaseActionRefused as refused:
        raise InvalidInput(N_("Not recorded: {reason}"), reason=refused.render(turn.tr)) from refused

    async def announce() -> None:
        tr = turn.tr
        text = tr._("Thank you! Your reason was recorded on {protocol}. The city hall uses it to improve.").format(
            protocol=data.get("protocol", ""))
        rows: list[list[tuple[str, str]]] = []
        if data.get("reopen"):
            command, label = NEW_CASE_COMMAND[CaseKind(data["kind"])]
            # L13460 Art. 12: the conclusive answer closed the case; a disagreement is a new manifestação
            text += "\n\n" + tr._("This case was closed by its answer, so it cannot be reopened. If the problem "
                                  "goes on, open a new case: it gets its own number and deadline.")
            rows.append([(tr._(label), f"cmd:{command}")])
        await respond(turn.update, context, text, markup=keyboard([*rows, menu_row(context)]))

    return Filed(str(data.get("protocol", "")), announce)


async def _open(arg: str, update: Update, context: BalcaoContext, *, reopen: bool) -> None:
    if not arg.isdigit():
        raise Forged(arg)
    try:
        async with context.sessions() as session:
            view = await my_case(session=session, person_id=context.person.id, case_id=int(arg))
    except CaseNotFound:
        await respond(update, context, context.tr._(NOT_YOURS), markup=keyboard([menu_row(context)]))
        return
    await begin(FORM, update, context, pending=("reason",), prefill={
        "case_id": view.id, "protocol": view.protocol, "kind": view.kind.value, "reopen": reopen})


async def _why(arg: str, update: Update, context: BalcaoContext) -> None:
    """``svy:why:<case id>``: the reason only."""
    await _open(arg, update, context, reopen=False)


async def _reopen(arg: str, update: Update, context: BalcaoContext) -> None:
    """``svy:reopen:<case id>``: the reason, then how to open a new case."""
    await _open(arg, update, context, reopen=True)


FORM = Form(
    name=SURVEY_FORM,
    prefix="svy",
    title=N_("the reason for your rating"),
    steps=(Step("reason", _ask_reason, text=_reason, label=N_("Your reason")),),
    flow=lambda _data: ("reason",),
    start=lambda _turn: {},
    intro=N_("Nothing is sent until you type your reason. You can stop at any time with /cancelar."),
    resume=N_("You were telling us why you were not satisfied. Continue where you stopped, or start again?"),
    gone=N_("This is no longer in progress. Open the case again from /acompanhar."),
    already_sent=N_("Your reason was already recorded on {result}."),
    review_intro="",
    summary=lambda _turn: "",
    submit=_submit,
    entries={"why": _why, "reopen": _reopen},
    confirm=False,
)
register = register_form(FORM)
