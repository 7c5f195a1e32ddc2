"""/entregas: what staff deliver in person (CP Art. 36 I), by post with AR (II) or by edital (III).

Lei 1.533 notices show their 90-day limit (Art. 22 §1).
Screens only: the list, one document with its ways of delivery and the PDF. Recording the date
(``handlers.chat.notice_delivery_date``) and addressing the notice to a person of the bot
(``handlers.chat.notice_link``) are sub-forms on ``handlers.chat.engine`` that come back to this list when done.
The role is checked on every button. Buttons: ``ent:…``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from telegram import InputFile, Update
from telegram.ext import Application, CallbackQueryHandler

from core.i18n import N_
from handlers.chat.commands import chat_command
from handlers.chat.context import BalcaoContext
from handlers.chat.delivery_refusals import refusal_row
from handlers.chat.replies import esc, keyboard, menu_row, reply
from handlers.chat.staff_scope import ISSUERS, LIST_LIMIT, has_role, outside, reach
from models.calendar import BusinessCalendar
from models.notices.delivery import cpf_claimant, staff_list
from models.notices.pdf import format_document
from models.notices.reminders import delivery_limit
from models.notices.tables import Notice, NoticeDelivery, StaffReason
from models.rulebooks.procedure import delivery_means, manual_means
from notifications.telegram_text import small

REASONS = {
    StaffReason.NO_PERSON: N_("nobody in the bot"),
    StaffReason.NO_OPTIN: N_("did not accept electronic notices"),
    StaffReason.UNREACHABLE: N_("unreachable in Telegram"),
    StaffReason.NOT_ACKNOWLEDGED: N_("did not confirm receipt in time"),
    StaffReason.OPTED_OUT: N_("stopped electronic notices"),
}


@chat_command("entregas", description=N_("Notices to deliver by post, in person or by edital"),
              menu_label=N_("Notices to deliver"), staff_roles=ISSUERS, order=61)
async def deliveries_command(update: Update, context: BalcaoContext) -> None:
    """``/entregas``: the staff list."""
    if not await has_role(update, context, ISSUERS):
        return
    await show_deliveries(update, context, edit=update.callback_query is not None)


def _limit(notice: Notice, context: BalcaoContext) -> dt.date | None:
    city = context.cities.of(notice.municipality)
    limit = delivery_limit(notice=notice, city=city, calendar=BusinessCalendar.of(city))
    return limit.final_date if limit is not None else None


async def show_deliveries(update: Update, context: BalcaoContext, *, edit: bool = False) -> None:
    """Each document to deliver, why it is here, and the 90-day limit of Lei 1.533 notices."""
    tr = context.tr
    async with context.sessions() as session:
        where = await reach(context, session, ISSUERS)
        items = [item for item in await staff_list(session=session)
                 if where is None or item.notice.municipality in where]
    lines = [tr._("<b>Notices to deliver</b>")]
    rows: list[list[tuple[str, str]]] = []
    if not items:
        lines.append(tr._("Nothing to deliver."))
    for item in items[:LIST_LIMIT]:
        delivery, notice = item.delivery, item.notice
        if delivery.edital_published_on is not None:
            reason = tr._("edital published on {date}").format(date=tr.short_date(delivery.edital_published_on))
        else:
            reason = tr._(REASONS[delivery.staff_reason]) if delivery.staff_reason else ""
        line = f"• <b>{esc(notice.number)}</b> — {esc(reason)}"
        limit = _limit(notice, context)
        if limit is not None:
            line += "\n  " + tr._("deliver by {date} (Lei 1.533, Art. 22 §1)").format(date=tr.short_date(limit))
        lines.append(line)
        rows.append([(notice.number, f"ent:dlv:{delivery.id}")])
    rows.append(menu_row(context))
    await reply(update, context, "\n".join(lines), markup=keyboard(rows), edit=edit)


async def show_delivery(update: Update, context: BalcaoContext, delivery_id: int) -> None:
    """One document to deliver: who, where, and the ways to record the delivery."""
    tr = context.tr
    async with context.sessions() as session:
        delivery = await session.get(NoticeDelivery, delivery_id)
        notice = await session.get(Notice, delivery.notice_id) if delivery is not None else None
        if notice is not None and await outside(context, session, notice.id, ISSUERS):
            notice = None  # another municipality's: as if it were not there
        claimant = await cpf_claimant(session=session, notice=notice) if notice is not None else None
    if delivery is None or notice is None:
        await show_deliveries(update, context, edit=True)
        return
    what = tr._("the decision") if delivery.document.value == "decision" else tr._("the notice")
    lines = [
        f"<b>{esc(notice.number)}</b> — {esc(what)}",
        tr._("Offender: {name}").format(name=esc(notice.offender_name)),
        tr._("Address: {address}").format(address=esc(notice.offender_address or tr._("unknown"))),
    ]
    if notice.offender_document:
        lines.append(tr._("CPF/CNPJ: {document}").format(document=format_document(notice.offender_document)))
    lines.append(small(tr._(delivery_means(notice.rulebook))))  # each act cites its own law
    means = manual_means(notice.rulebook)  # each act cites its own law (CP Art. 36; L1533 Art. 22 §1)
    rows = [[(tr._(means[how]), f"dday:open:{delivery_id}:{how}")] for how in means]
    if claimant is not None:
        lines.append(tr._("In the bot, {name} said this CPF is theirs when accepting electronic notices. Check "
                          "before addressing the notice to them.").format(name=esc(claimant.first_name)))
        rows.append([(tr._("Address it to {name}").format(name=claimant.first_name),
                      f"lnk:sug:{notice.id}:{claimant.telegram_user_id}")])
    if notice.person_id is None:
        rows.append([(tr._("Address it to a person of the bot"), f"lnk:open:{notice.id}")])
    rows += refusal_row(context, delivery=delivery, notice=notice)  # CP Art. 25, 26, 34 §3 (delivery_refusals)
    rows += [[(tr._("📄 PDF"), f"ent:pdf:{notice.id}"), (tr._("◀ Notices to deliver"), "ent:list")], menu_row(context)]
    await reply(update, context, "\n".join(lines), markup=keyboard(rows), edit=True)


async def send_pdf(update: Update, context: BalcaoContext, notice_id: int) -> None:
    """The notice's signed PDF (only of a municipality where the staff member holds the role)."""
    async with context.sessions() as session:
        notice = await session.get(Notice, notice_id)
        if notice is not None and await outside(context, session, notice.id, ISSUERS):
            notice = None
    chat = update.effective_chat
    if notice is not None and chat is not None and update.callback_query is not None:
        await update.callback_query.answer()
        await context.bot.send_document(chat_id=chat.id, document=InputFile(notice.pdf,
                                                                            filename=f"{notice.number}.pdf"))


async def on_button(update: Update, context: BalcaoContext) -> None:
    """Every ``ent:`` button (the role is checked first)."""
    query = update.callback_query
    assert query is not None and query.data is not None
    _, action, arg = [*query.data.split(":", 2), "", ""][:3]
    if not await has_role(update, context, ISSUERS):
        return
    if action == "dlv" and arg.isdigit():
        await show_delivery(update, context, int(arg))
    elif action == "pdf" and arg.isdigit():
        await send_pdf(update, context, int(arg))
    else:
        await show_deliveries(update, context, edit=True)


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Add the /entregas buttons."""
    application.add_handler(CallbackQueryHandler(on_button, pattern=r"^ent:"))
