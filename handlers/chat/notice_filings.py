"""/defesas: clerks decide defences, reclamações and appeals (CP Art. 40–41, 45).

Screens only: the list, one filing with its text, files, vista to each side and a diligência (Art. 40 §1, Art. 42:
``handlers.chat.staff_review``). The decision itself (its text, then the confirmation) is the sub-form
``handlers.chat.notice_decision`` on ``handlers.chat.engine``, which comes back to this list, as does ordering a
diligência (``handlers.chat.notice_diligencia``). The role is checked
on every button. Buttons: ``dfs:…``.
"""

from __future__ import annotations

from typing import Any

from telegram import InputFile, Update
from telegram.ext import Application, CallbackQueryHandler

from core.i18n import N_
from handlers.chat.commands import chat_command
from handlers.chat.context import BalcaoContext, city_today
from handlers.chat.replies import esc, keyboard, menu_row, reply
from handlers.chat.staff_review import diligencia_done, review_lines, vista
from handlers.chat.staff_scope import DECIDERS, LIST_LIMIT, has_role, outside, reach, refuse_other_municipality
from models.notices.filings import attachments_of, pending_filings
from models.notices.status import notice_view
from models.notices.tables import FilingKind, Notice, NoticeFiling
from notifications.notice_messages import money

FILING_NAMES = {FilingKind.DEFESA: N_("defence"), FilingKind.RECLAMACAO: N_("complaint (reclamação)"),
                FilingKind.RECURSO: N_("appeal")}


@chat_command("defesas", description=N_("Defences and appeals to decide"), menu_label=N_("Defences to decide"),
              staff_roles=DECIDERS, order=62)
async def filings_command(update: Update, context: BalcaoContext) -> None:
    """``/defesas``: filings waiting for a decision."""
    if not await has_role(update, context, DECIDERS):
        return
    await show_filings(update, context, edit=update.callback_query is not None)


async def show_filings(update: Update, context: BalcaoContext, *, edit: bool = False) -> None:
    """The filings waiting for a decision, of the municipalities where the clerk holds the role (CF Art. 30 I)."""
    tr = context.tr
    async with context.sessions() as session:
        where = await reach(context, session, DECIDERS)
        rows_found = [(filing, notice) for filing, notice in await pending_filings(session=session)
                      if where is None or notice.municipality in where]
    lines = [tr._("<b>Defences and appeals to decide</b>")]
    rows: list[list[tuple[str, str]]] = []
    if not rows_found:
        lines.append(tr._("Nothing waiting for a decision."))
    for filing, notice in rows_found[:LIST_LIMIT]:
        lines.append(tr._("• <b>{number}</b> — {kind}, filed on {date}").format(
            number=esc(notice.number), kind=tr._(FILING_NAMES[filing.kind]), date=tr.short_date(filing.filed_at)))
        rows.append([(notice.number, f"dfs:fil:{filing.id}")])
    rows.append(menu_row(context))
    await reply(update, context, "\n".join(lines), markup=keyboard(rows), edit=edit)


async def show_filing(update: Update, context: BalcaoContext, filing_id: int) -> None:
    """A filing: its text, files, vista and diligência (CP Art. 40 §1, Art. 42), and the decision buttons."""
    tr = context.tr
    async with context.sessions() as session:
        filing = await session.get(NoticeFiling, filing_id)
        notice = await session.get(Notice, filing.notice_id) if filing is not None else None
        if notice is not None and await outside(context, session, notice.id, DECIDERS):
            filing = notice = None  # another municipality's: as if it were not there
        files = await attachments_of(session=session, filing_id=filing_id) if filing is not None else []
        view = None if notice is None else await notice_view(session=session,
                                                             city=context.cities.of(notice.municipality),
                                                             notice=notice, today=city_today(context))
    if filing is None or notice is None or view is None or filing.decided_at is not None:
        await reply(update, context, tr._("This filing was already decided."), markup=keyboard([menu_row(context)]),
                    edit=True)
        return
    lines = [
        tr._("<b>{number}</b> — {kind}, filed on {date}").format(
            number=esc(notice.number), kind=tr._(FILING_NAMES[filing.kind]), date=tr.date(filing.filed_at)),
        f"<blockquote>{esc(filing.text)}</blockquote>",
        tr.ngettext("{n} file attached.", "{n} files attached.", len(files)).format(n=len(files)),
        tr._("Fine: {amount}").format(amount=money(tr, notice.fine_cents)),
    ]
    rows: list[list[tuple[str, str]]] = []
    review, review_rows = review_lines(  # CP Art. 40 §1, 42
        tr, filing, view, context.cities.of(notice.municipality), city_today(context))
    lines += review
    rows += review_rows
    if files:
        rows.append([(tr._("Send me the files"), f"dfs:att:{filing_id}")])
    rows.append([(tr._("Accept (procedente)"), f"dcs:open:{filing_id}:granted"),
                 (tr._("Reject (improcedente)"), f"dcs:open:{filing_id}:denied")])
    rows.append(menu_row(context))
    await reply(update, context, "\n".join(lines), markup=keyboard(rows), edit=True)


async def send_files(update: Update, context: BalcaoContext, filing_id: int) -> None:
    """The filing's files, one message each."""
    async with context.sessions() as session:
        files = await attachments_of(session=session, filing_id=filing_id)
    chat = update.effective_chat
    assert chat is not None
    if update.callback_query is not None:
        await update.callback_query.answer()
    for attachment in files:
        await context.bot.send_document(chat_id=chat.id,
                                        document=InputFile(attachment.content, filename=attachment.file_name))


async def _filing_outside(context: BalcaoContext, filing_id: int) -> bool:
    async with context.sessions() as session:
        filing = await session.get(NoticeFiling, filing_id)
        return await outside(context, session, filing.notice_id if filing else None, DECIDERS)


async def on_button(update: Update, context: BalcaoContext) -> None:
    """Every ``dfs:`` button (the clerk's role is checked first)."""
    query = update.callback_query
    assert query is not None and query.data is not None
    action, *args = query.data.split(":")[1:]
    if not await has_role(update, context, DECIDERS):
        return
    filing_id = int(args[0]) if args and args[0].isdigit() else None
    if action == "filings" or filing_id is None:
        await filings_command(update, context)
    elif await _filing_outside(context, filing_id):  # another municipality's notice (CF Art. 30 I)
        await refuse_other_municipality(update, context)
    elif action == "fil":
        await show_filing(update, context, filing_id)
    elif action == "att":
        await send_files(update, context, filing_id)
    elif action == "vis":
        await vista(update, context, filing_id, show_filing)
    elif action == "dild":
        await diligencia_done(update, context, filing_id, show_filing)
    else:
        await show_filing(update, context, filing_id)


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Add the /defesas buttons."""
    application.add_handler(CallbackQueryHandler(on_button, pattern=r"^dfs:"))
