"""/defesas → Accept or Reject: the decision of a defence, reclamação or appeal (CP Art. 40–41, 45).

A sub-form on ``handlers.chat.engine``, started from the filing (``dcs:open:<filing id>:<granted|denied>``) once
the clerk is known to be the competent authority, not impeded (issue 18 §1: ``may_decide``): one question (the
decision and its effects, CP Art. 41; a reason of substance, L9784 Art. 50), the confirmation ("✅ Confirm the
decision"), then back to /defesas (``Form.back``). The role is checked on every update.
"""

from __future__ import annotations

from typing import Any

from telegram import Update

from core.i18n import N_
from core.municipality import Publication
from handlers.chat.context import BalcaoContext
from handlers.chat.engine import Filed, Forged, Question, Review, Step, Turn, begin, register_form
from handlers.chat.notice_filings import show_filings
from handlers.chat.replies import esc, keyboard, menu_row, respond
from handlers.chat.staff_scope import DECIDERS, outside, staff_sub_form
from models.authorities import NotCompetent
from models.cases.fields import clean_text
from models.invalid_input import InvalidInput
from models.notices.authority import check_motivation, may_decide
from models.notices.filings import FilingRefused, decide_filing
from models.notices.tables import FilingOutcome, Notice, NoticeFiling
from models.people import PermissionDenied
from notifications.telegram_text import small

DECISION_FORM = "notice_decision"


def _verdict(turn: Turn) -> str:
    return turn.tr._("Accept") if turn.data.get("outcome") == FilingOutcome.GRANTED.value else turn.tr._("Reject")


def _ask_text(turn: Turn) -> Question:
    text = turn.tr._("{verdict}: write the decision and its effects in one message.").format(verdict=_verdict(turn))
    return Question(text + small("Código de Posturas, Art. 41"))


def _text(typed: str, turn: Turn) -> dict[str, Any]:
    text = clean_text(typed, min_length=1, max_length=4000)
    return {"text": check_motivation(text, turn.city)}  # CP Art. 41; L9784 Art. 50: "ok" is no reason


async def _review(turn: Turn) -> Review:
    tr = turn.tr
    summary = tr._("<b>{verdict}</b>, with this decision:").format(verdict=_verdict(turn))
    return Review(f"{summary}\n<blockquote>{esc(turn.data.get('text', ''))}</blockquote>\n"
                  + tr._("It will be delivered to the person with the deadlines that follow."))


async def _submit(turn: Turn) -> Filed:
    context, data = turn.context, turn.data
    try:
        async with context.sessions() as session:
            filing = await session.get(NoticeFiling, int(data["filing_id"]))
            if await outside(context, session, filing.notice_id if filing else None, DECIDERS):
                raise PermissionDenied("another municipality's notice")  # CF Art. 30 I
            notice = await session.get(Notice, filing.notice_id) if filing is not None else None
            await decide_filing(session=session, cities=context.cities,
                                publication=Publication.of(context.deployment_settings),
                                filing_id=int(data["filing_id"]),
                                outcome=FilingOutcome(data["outcome"]), text=data["text"],
                                decider_telegram_id=context.person.telegram_user_id)
    except FilingRefused as refused:
        raise InvalidInput(N_("Not recorded: {reason}"), reason=refused.render(turn.tr),
                           fields=("text",)) from refused

    async def announce() -> None:
        await respond(turn.update, context, turn.tr._("Decided. The decision is being delivered to the person."))

    return Filed(notice.number if notice is not None else "", announce)


async def _open(arg: str, update: Update, context: BalcaoContext) -> None:
    """``dcs:open:<filing id>:<outcome>``: the competence first, before a word is typed (issue 18 §1)."""
    filing_id, _, outcome = arg.partition(":")
    if not filing_id.isdigit() or outcome not in (each.value for each in FilingOutcome):
        raise Forged(arg)
    tr = context.tr
    try:
        async with context.sessions() as session:
            filing = await session.get(NoticeFiling, int(filing_id))
            if await outside(context, session, filing.notice_id if filing else None, DECIDERS):
                raise PermissionDenied("another municipality's notice")  # CF Art. 30 I
            await may_decide(session=session, cities=context.cities, filing_id=int(filing_id),
                             telegram_user_id=context.person.telegram_user_id)
    except NotCompetent as refused:
        await respond(update, context, esc(refused.render(tr)),
                      markup=keyboard([[(tr._("◀ Defences to decide"), "dfs:filings")], menu_row(context)]))
        return
    await begin(FORM, update, context, prefill={"filing_id": int(filing_id), "outcome": outcome}, pending=("text",))


async def _back(turn: Turn) -> None:
    await show_filings(turn.update, turn.context)


FORM = staff_sub_form(
    name=DECISION_FORM,
    prefix="dcs",
    title=N_("the decision being written"),
    step=Step("text", _ask_text, text=_text, label=N_("the decision")),
    intro=N_("Let's write the decision."),
    resume=N_("You are writing a decision. Continue where you stopped, or start again?"),
    gone=N_("There is no decision being written."),
    review=_review,
    send_label=N_("✅ Confirm the decision"),
    submit=_submit,
    roles=DECIDERS,
    back=_back,
    entries={"open": _open},
)
register = register_form(FORM)
