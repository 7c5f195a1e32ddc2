"""/defesas → "Order a diligência": a reclamação converted into a diligência before its decision (CP Art. 42).

A sub-form on ``handlers.chat.engine``, started from the filing (``dlg:open:<filing id>``): one question (what the
diligência is for), the confirmation, then back to /defesas (``Form.back``). While it is pending there is no
appeal for lack of decision (Art. 42); "Diligência concluded" (``handlers.chat.staff_review``) lets the Art. 40
days run again. The clerk's role is checked on every update, and in the notice's municipality at Send
(CF Art. 30 I).
"""

from __future__ import annotations

from typing import Any

from telegram import Update

from core.i18n import N_
from handlers.chat.context import BalcaoContext
from handlers.chat.engine import Filed, Forged, Question, Review, Step, Turn, begin, register_form
from handlers.chat.notice_filings import show_filings
from handlers.chat.replies import esc, respond
from handlers.chat.staff_scope import DECIDERS, outside, staff_sub_form
from models.cases.fields import clean_text
from models.invalid_input import InvalidInput
from models.notices.filings import FilingRefused
from models.notices.review import order_diligencia
from models.notices.tables import Notice, NoticeFiling
from models.people import PermissionDenied
from notifications.telegram_text import small

DILIGENCIA_FORM = "notice_diligencia"


def _ask_text(turn: Turn) -> Question:
    text = turn.tr._("Write in one message what the diligência is for.")
    return Question(text + small("Código de Posturas, Art. 42"))


def _text(typed: str, _turn: Turn) -> dict[str, Any]:
    return {"text": clean_text(typed, min_length=5, max_length=4000)}


async def _review(turn: Turn) -> Review:
    return Review(turn.tr._("Converted into a diligência: {text}").format(text=esc(turn.data.get("text", "")))
                  + small(turn.tr._("Código de Posturas, Art. 42: no appeal for lack of decision while it is pending")))


async def _submit(turn: Turn) -> Filed:
    context, data = turn.context, turn.data
    try:
        async with context.sessions() as session:
            filing = await session.get(NoticeFiling, int(data["filing_id"]))
            if await outside(context, session, filing.notice_id if filing else None, DECIDERS):
                raise PermissionDenied("another municipality's notice")  # CF Art. 30 I
            notice = await session.get(Notice, filing.notice_id) if filing is not None else None
            await order_diligencia(session=session, cities=context.cities, filing_id=int(data["filing_id"]),
                                   text=data["text"], decider_telegram_id=context.person.telegram_user_id)
    except FilingRefused as refused:
        raise InvalidInput(N_("Not recorded: {reason}"), reason=refused.render(turn.tr), fields=("text",)) from refused

    async def announce() -> None:
        await respond(turn.update, context, turn.tr._("Diligência ordered. The complaint waits for it."))

    return Filed(notice.number if notice is not None else "", announce)


async def _open(arg: str, update: Update, context: BalcaoContext) -> None:
    """``dlg:open:<filing id>``: what the diligência is for."""
    if not arg.isdigit():
        raise Forged(arg)
    await begin(FORM, update, context, prefill={"filing_id": int(arg)}, pending=("text",))


async def _back(turn: Turn) -> None:
    await show_filings(turn.update, turn.context)


FORM = staff_sub_form(
    name=DILIGENCIA_FORM,
    prefix="dlg",
    title=N_("the diligência being ordered"),
    step=Step("text", _ask_text, text=_text, label=N_("the diligência")),
    intro=N_("Let's order the diligência."),
    resume=N_("You are ordering a diligência. Continue where you stopped, or start again?"),
    gone=N_("Nothing is being recorded now. Start again from /defesas."),
    review=_review,
    submit=_submit,
    roles=DECIDERS,
    back=_back,
    entries={"open": _open},
)
register = register_form(FORM)
