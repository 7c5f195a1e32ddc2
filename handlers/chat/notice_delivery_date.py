"""/entregas → a way of delivery: the day it was delivered, the AR came back, or the edital was published.

A sub-form on ``handlers.chat.engine``: one question (the day, or Today), a confirmation, then back to /entregas
(``Form.back``). The deadlines start from that day (CP Art. 36 I–III; L1533 Art. 22 §1: each act under its
own law's means, ``models.rulebooks.procedure.manual_means``). The role is checked on every update.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from telegram import Update

from core.i18n import N_
from handlers.chat.context import BalcaoContext
from handlers.chat.engine import Filed, Forged, Question, Review, Step, Turn, begin, register_form
from handlers.chat.notice_deliveries import show_deliveries
from handlers.chat.replies import esc, respond
from handlers.chat.staff_scope import ISSUERS, outside, staff_sub_form
from models.cases.fields import past_day
from models.invalid_input import InvalidInput
from models.notices.delivery import DeliveryError, record_edital, record_staff_delivery
from models.notices.tables import CienciaKind, Notice, NoticeDelivery
from models.people import PermissionDenied
from models.rulebooks.catalogue import CP
from models.rulebooks.procedure import manual_means

DELIVERY_FORM = "notice_delivery"


def _ask_day(turn: Turn) -> Question:
    tr = turn.tr
    question = (tr._("On which day was it published?") if turn.data.get("how") == "edital"
                else tr._("On which day was it delivered?"))
    return Question(question + " " + tr._("(e.g. 4/3 or 04/03/2026)"), [[(tr._("Today"), "dday:today")]])


def _day(text: str, turn: Turn) -> dict[str, Any]:
    return {"date": past_day(text, today=turn.today).isoformat()}


async def _review(turn: Turn) -> Review:
    tr, data = turn.tr, turn.data
    means = manual_means(data.get("rulebook") or CP)
    return Review(tr._("Record: {how}, on {date}?").format(how=tr._(means[data["how"]]),
                                                           date=tr.date(dt.date.fromisoformat(data["date"]))))


async def _submit(turn: Turn) -> Filed:
    context, data = turn.context, turn.data
    actor = f"staff:{context.person.telegram_user_id}"
    day = dt.date.fromisoformat(data["date"])
    try:
        async with context.sessions() as session:
            delivery = await session.get(NoticeDelivery, int(data["delivery_id"]))
            if await outside(context, session, delivery.notice_id if delivery else None, ISSUERS):
                raise PermissionDenied("another municipality's notice")  # CF Art. 30 I
            if data["how"] == "edital":
                result = await record_edital(session=session, cities=context.cities,
                                             delivery_id=int(data["delivery_id"]), published_on=day, actor=actor)
            else:
                result = await record_staff_delivery(session=session, cities=context.cities,
                                                     delivery_id=int(data["delivery_id"]),
                                                     how=CienciaKind(data["how"]), on=day, actor=actor)
    except DeliveryError as refused:
        raise InvalidInput(N_("Not recorded: {reason}"), reason=turn.tr._(str(refused))) from refused
    assert result.delivery.ciencia_on is not None
    ciencia_on = result.delivery.ciencia_on

    async def announce() -> None:
        tr = turn.tr
        await respond(turn.update, context, tr._(
            "Recorded. {number} counts as received on {date}; the deadlines start from it.").format(
            number=esc(result.notice.number), date=tr.date(ciencia_on)))

    return Filed(result.notice.number, announce)


async def _open(arg: str, update: Update, context: BalcaoContext) -> None:
    """``dday:open:<delivery id>:<how>``: one of the ways the notice's own law allows."""
    delivery_id, _, how = arg.partition(":")
    if not delivery_id.isdigit():
        raise Forged(arg)
    async with context.sessions() as session:
        delivery = await session.get(NoticeDelivery, int(delivery_id))
        notice = await session.get(Notice, delivery.notice_id) if delivery is not None else None
    rulebook = notice.rulebook if notice is not None else CP
    if how not in manual_means(rulebook):
        raise Forged(arg)
    await begin(FORM, update, context, pending=("date",),
                prefill={"delivery_id": int(delivery_id), "how": how, "rulebook": rulebook})


async def _back(turn: Turn) -> None:
    await show_deliveries(turn.update, turn.context)


FORM = staff_sub_form(
    name=DELIVERY_FORM,
    prefix="dday",
    title=N_("the delivery being recorded"),
    step=Step("date", _ask_day, text=_day, label=N_("date"),
               buttons={"today": lambda _arg, turn: {"date": turn.today.isoformat()}}),
    intro=N_("Let's record the delivery."),
    resume=N_("You are recording a delivery. Continue where you stopped, or start again?"),
    gone=N_("Nothing is being recorded now. Start again from /entregas."),
    review=_review,
    submit=_submit,
    roles=ISSUERS,
    back=_back,
    entries={"open": _open},
)
register = register_form(FORM)
