"""Refusals at a delivery in person, recorded from the chat's /entregas as the console records them (issue 18 §3).

The Código de Posturas provides for them (``models.notices.refusals``): the person notified refuses to sign the
"ciente" of a preliminar (CP Art. 25 sole paragraph), refuses to receive the copy, declared by the agent (Art. 26
sole paragraph), or would not or could not sign the auto (Art. 34 §3); a refused preliminar leads to the auto at
once (Art. 29). The delivery screen of /entregas offers "Refused or could not sign" on a Código de Posturas notice;
this module answers its ``nrf:`` buttons and records the refusal through
:func:`models.notices.refusals.record_refusal`, the same function as the console:

- ``nrf:o:<delivery id>``: the refusals the code provides for that act, each with its article;
- ``nrf:r:<delivery id>:<refusal>``: the day, today or yesterday (a delivery in person is recorded as it happens;
  an older one goes through the console's form, which takes any date);
- ``nrf:c:<delivery id>:<refusal>:<YYYY-MM-DD>``: recorded. The day is checked again by the domain (not in the
  future, not before the issue).

The role is checked on every press (clerks and inspectors, as /entregas), and a notice of a municipality where the
member holds no such role is answered as if it did not exist (CF Art. 30 I).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from telegram import Update
from telegram.ext import Application, CallbackQueryHandler

from handlers.chat.context import BalcaoContext, city_today
from handlers.chat.replies import esc, keyboard, menu_row, reply
from models.notices.delivery import DeliveryError
from models.notices.refusals import ARTICLES, FOR_TYPE, LABELS, Refusal, record_refusal
from models.notices.tables import DocumentKind, Notice, NoticeDelivery
from models.people import PermissionDenied, Role, require_role, staff_municipalities
from models.rulebooks.catalogue import CP
from notifications.telegram_text import small

PREFIX = "nrf"
RECORDERS = frozenset({Role.CLERK, Role.INSPECTOR})
"""Who records deliveries in /entregas (admins always)."""


def refusal_row(context: BalcaoContext, *, delivery: NoticeDelivery, notice: Notice) -> list[list[tuple[str, str]]]:
    """The delivery screen's button to this flow, on a Código de Posturas notice only (Lei 1.533 provides none)."""
    if notice.rulebook != CP or delivery.document is not DocumentKind.NOTICE:
        return []
    return [[(context.tr._("Refused, or could not sign (in person)"), f"{PREFIX}:o:{delivery.id}")]]


async def _allowed(update: Update, context: BalcaoContext) -> bool:
    try:
        async with context.sessions() as session:
            await require_role(session=session, telegram_user_id=context.person.telegram_user_id,
                               allowed=RECORDERS, municipality=context.person.municipality)
    except PermissionDenied:
        await reply(update, context, context.tr._("Only staff with the right role can do this."),
                    markup=keyboard([menu_row(context)]), edit=True)
        return False
    return True


async def _delivery(context: BalcaoContext, delivery_id: int) -> tuple[NoticeDelivery, Notice] | None:
    """The delivery and its notice, if the member holds a recording role in its municipality."""
    async with context.sessions() as session:
        delivery = await session.get(NoticeDelivery, delivery_id)
        notice = await session.get(Notice, delivery.notice_id) if delivery is not None else None
        reach = await staff_municipalities(session=session, telegram_user_id=context.person.telegram_user_id,
                                           allowed=RECORDERS)
    if delivery is None or notice is None or (reach is not None and notice.municipality not in reach):
        return None
    return delivery, notice


def _back(context: BalcaoContext, delivery_id: int) -> list[list[tuple[str, str]]]:
    return [[(context.tr._("◀ Back"), f"ent:dlv:{delivery_id}")], menu_row(context)]


async def show_refusals(update: Update, context: BalcaoContext, delivery_id: int) -> None:
    """The refusals the code provides for this act (CP Art. 25, 26 sole paragraphs; Art. 34 §3)."""
    tr = context.tr
    found = await _delivery(context, delivery_id)
    if found is None or found[1].rulebook != CP:
        await reply(update, context, tr._("There is no such delivery to record."), markup=keyboard(
            [menu_row(context)]), edit=True)
        return
    _delivery_row, notice = found
    lines = [tr._("<b>{number}</b>: what happened at the delivery in person?").format(number=esc(notice.number))]
    rows = []
    for refusal in FOR_TYPE[notice.type]:
        lines.append(f"• {esc(tr._(LABELS[refusal]))}" + small(ARTICLES[refusal]))
        rows.append([(tr._(LABELS[refusal]), f"{PREFIX}:r:{delivery_id}:{refusal.value}")])
    await reply(update, context, "\n".join(lines), markup=keyboard([*rows, *_back(context, delivery_id)]), edit=True)


async def ask_day(update: Update, context: BalcaoContext, delivery_id: int, refusal: Refusal) -> None:
    """On which day: today or yesterday, each a button that records at once."""
    tr = context.tr
    today = city_today(context)
    days = [(tr._("Today ({date})"), today), (tr._("Yesterday ({date})"), today - dt.timedelta(days=1))]
    rows = [[(label.format(date=tr.short_date(day)), f"{PREFIX}:c:{delivery_id}:{refusal.value}:{day.isoformat()}")]
            for label, day in days]
    text = tr._("Record: {what}. On which day was it delivered in person?").format(what=esc(tr._(LABELS[refusal])))
    text += small(ARTICLES[refusal])
    await reply(update, context, text, markup=keyboard([*rows, *_back(context, delivery_id)]), edit=True)


async def record(update: Update, context: BalcaoContext, delivery_id: int, refusal: Refusal, day: dt.date) -> None:
    """Record the refusal as the delivery in person of that day; a refused preliminar: the auto is due (Art. 29)."""
    tr = context.tr
    if await _delivery(context, delivery_id) is None:
        await reply(update, context, tr._("There is no such delivery to record."), markup=keyboard(
            [menu_row(context)]), edit=True)
        return
    try:
        async with context.sessions() as session:
            done = await record_refusal(session=session, cities=context.cities, delivery_id=delivery_id,
                                        refusal=refusal, on=day, actor=f"staff:{context.person.telegram_user_id}")
    except DeliveryError as refused:
        await reply(update, context, tr._("Not recorded: {reason}").format(reason=esc(tr._(str(refused)))),
                    markup=keyboard(_back(context, delivery_id)), edit=True)
        return
    lines = [tr._("Recorded: {what}. {number} counts as received on {date}; the deadlines start from it.").format(
        what=esc(tr._(LABELS[refusal])), number=esc(done.notice.number), date=tr.date(day)) + small(ARTICLES[refusal])]
    if done.auto_due:
        lines.append(tr._("The preliminary notice was refused: draw up the infraction report now with /emitir, "
                          "citing {number} (Código de Posturas, Art. 29).").format(number=esc(done.notice.number)))
    await reply(update, context, "\n".join(lines), markup=keyboard(
        [[(tr._("◀ Notices to deliver"), "ent:list")], menu_row(context)]), edit=True)


async def on_button(update: Update, context: BalcaoContext) -> None:
    """Every ``nrf:`` button; the role is checked first."""
    query = update.callback_query
    assert query is not None and query.data is not None
    if not await _allowed(update, context):
        return
    parts = query.data.split(":")[1:]
    delivery_id = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() and len(parts[1]) < 10 else None
    refusal = next((r for r in Refusal if len(parts) > 2 and r.value == parts[2]), None)
    if delivery_id is None:
        await reply(update, context, context.tr._("There is no such delivery to record."),
                    markup=keyboard([menu_row(context)]), edit=True)
    elif parts[0] == "o" or refusal is None:
        await show_refusals(update, context, delivery_id)
    elif parts[0] == "r":
        await ask_day(update, context, delivery_id, refusal)
    else:
        try:
            day = dt.date.fromisoformat(parts[3]) if parts[0] == "c" and len(parts) == 4 else None
        except ValueError:
            day = None
        if day is None:
            await ask_day(update, context, delivery_id, refusal)
        else:
            await record(update, context, delivery_id, refusal, day)


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Add the refusal buttons of /entregas."""
    application.add_handler(CallbackQueryHandler(on_button, pattern=rf"^{PREFIX}:"))
