"""/entregas → "Address it to a person of the bot": link an issued notice to the person it is for.

A sub-form on ``handlers.chat.engine``: one question (the person's Telegram user id), a confirmation with their
first name, then back to /entregas (``Form.back``). ``lnk:sug:<notice>:<telegram id>`` starts it at the
confirmation, for the person who said the notice's CPF is theirs. If they accepted electronic notices, what waits
for the bot goes to them (CP Art. 36; L1533 Art. 22 §1). The role is checked on every update.
"""

from __future__ import annotations

from typing import Any

from telegram import Update

from core.i18n import N_
from handlers.chat.context import BalcaoContext
from handlers.chat.engine import Filed, Forged, Question, Review, Step, Turn, begin, register_form
from handlers.chat.notice_deliveries import show_deliveries
from handlers.chat.replies import esc, respond
from handlers.chat.staff_scope import ISSUERS, outside, staff_sub_form
from models.invalid_input import InvalidInput
from models.notices.delivery import DeliveryError, link_person, person_by_telegram_id
from models.notices.tables import Notice
from models.people import PermissionDenied

LINK_FORM = "notice_link"


def _ask_person(turn: Turn) -> Question:
    return Question(turn.tr._("Telegram user id of the person (a number). If they accepted electronic notices, the "
                              "notice goes to them in the bot."))


async def _person(text: str, turn: Turn) -> dict[str, Any]:
    if not text.strip().isdigit():
        raise InvalidInput(N_("A Telegram user id is a number."))
    async with turn.context.sessions() as session:
        found = await person_by_telegram_id(session=session, telegram_user_id=int(text.strip()))
    if found is None:
        raise InvalidInput(N_("Nobody with this id has talked to the bot."))
    return {"telegram_user_id": found.telegram_user_id, "first_name": found.first_name}


async def _review(turn: Turn) -> Review:
    async with turn.context.sessions() as session:
        notice = await session.get(Notice, int(turn.data["notice_id"]))
    number = notice.number if notice is not None else ""
    return Review(turn.tr._("Address {number} to {name} (Telegram {id})?").format(
        number=esc(number), name=esc(turn.data.get("first_name", "")), id=turn.data.get("telegram_user_id")))


async def _submit(turn: Turn) -> Filed:
    context, data = turn.context, turn.data
    try:
        async with context.sessions() as session:
            if await outside(context, session, int(data["notice_id"]), ISSUERS):
                raise PermissionDenied("another municipality's notice")  # CF Art. 30 I
            notice = await session.get(Notice, int(data["notice_id"]))
            sent = await link_person(session=session, cities=context.cities,
                                     http_root=context.deployment_settings.http_root, notice_id=int(data["notice_id"]),
                                     telegram_user_id=int(data["telegram_user_id"]),
                                     actor=f"staff:{context.person.telegram_user_id}")
    except DeliveryError as refused:
        raise InvalidInput(N_("Not recorded: {reason}"), reason=turn.tr._(str(refused))) from refused

    async def announce() -> None:
        tr = turn.tr
        await respond(turn.update, context, tr._("Done: the notice was sent to the person in the bot.") if sent else
                      tr._("Done. The person has not accepted electronic notices, so it stays on this list."))

    return Filed(notice.number if notice is not None else "", announce)


async def _open(arg: str, update: Update, context: BalcaoContext) -> None:
    """``lnk:open:<notice id>``: ask whom to address it to."""
    if not arg.isdigit():
        raise Forged(arg)
    await begin(FORM, update, context, prefill={"notice_id": int(arg)}, pending=("person",))


async def _suggested(arg: str, update: Update, context: BalcaoContext) -> None:
    """``lnk:sug:<notice id>:<telegram id>``: the person who claimed the CPF, straight to the confirmation."""
    notice_id, _, telegram_id = arg.partition(":")
    if not (notice_id.isdigit() and telegram_id.isdigit()):
        raise Forged(arg)
    async with context.sessions() as session:
        found = await person_by_telegram_id(session=session, telegram_user_id=int(telegram_id))
    if found is None:
        raise Forged(arg)
    await begin(FORM, update, context, pending=(), prefill={
        "notice_id": int(notice_id), "telegram_user_id": found.telegram_user_id, "first_name": found.first_name})


async def _back(turn: Turn) -> None:
    await show_deliveries(turn.update, turn.context)


FORM = staff_sub_form(
    name=LINK_FORM,
    prefix="lnk",
    title=N_("the person being linked to a notice"),
    step=Step("person", _ask_person, text=_person, label=N_("Telegram id")),
    intro=N_("Let's address the notice to a person of the bot."),
    resume=N_("You are addressing a notice to a person. Continue where you stopped, or start again?"),
    gone=N_("Nothing is being recorded now. Start again from /entregas."),
    review=_review,
    submit=_submit,
    roles=ISSUERS,
    back=_back,
    entries={"open": _open, "sug": _suggested},
)
register = register_form(FORM)
