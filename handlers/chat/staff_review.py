"""/defesas, a reclamação before its decision: vista to each side in turn (CP Art. 40 §1) and diligência (Art. 42).

Thin: each action calls :mod:`models.notices.review` and shows the filing again. The buttons are ``dfs:vis`` and
``dfs:dild`` (concluded), routed by ``handlers.chat.notice_filings``, which checks the clerk's role first; ordering
the diligência is the sub-form ``handlers.chat.notice_diligencia`` (``dlg:open``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable

from telegram import Update

from core.i18n import N_, Translator
from core.municipality import Municipality
from handlers.chat.context import BalcaoContext
from handlers.chat.replies import esc, reply
from models.notices.filings import FilingRefused
from models.notices.review import conclude_diligencia, next_vista_side, open_vista
from models.notices.status import NoticeView
from models.notices.tables import FilingKind, NoticeFiling
from models.notices.windows import diligencia_pending
from models.rulebooks.catalogue import CP
from notifications.telegram_text import small

SIDE_LABELS = {"autuado": N_("the person notified (autuado)"), "autuante": N_("the inspector (autuante)")}
ShowFiling = Callable[[Update, BalcaoContext, int], Awaitable[None]]


def review_lines(tr: Translator, filing: NoticeFiling, view: NoticeView, city: Municipality,
                 today: dt.date) -> tuple[list[str], list[list[tuple[str, str]]]]:
    """The vista and diligência lines of a pending CP reclamação, and their buttons.

    The next vista is offered only once the running one is over (Art. 40 §1: "sucessivamente").
    """
    if view.notice.rulebook != CP or filing.kind is not FilingKind.RECLAMACAO:
        return [], []
    lines: list[str] = []
    rows: list[list[tuple[str, str]]] = []
    vistas = [w for w in view.windows if w.rule.id == "cp-40-1-vista"]
    for window in vistas:
        lines.append(tr._("Vista for final arguments until {date}.").format(date=tr.date(window.final_date))
                     + small("Código de Posturas, Art. 40, §1º"))
    due = next((w for w in view.windows if w.rule.id in ("cp-40-decisao", "cp-40-2-decisao-apos-vista")), None)
    if due is not None:
        lines.append(tr._("Decide by {date}.").format(date=tr.date(due.final_date))
                     + small(tr._("Código de Posturas, {article}; after it the person may appeal (Art. 42)").format(
                         article=due.rule.article)))
    if diligencia_pending(filing):
        lines.append(tr._("Converted into a diligência: {text}").format(text=esc(filing.diligencia_text or ""))
                     + small(tr._("Código de Posturas, Art. 42: no appeal for lack of decision while it is pending")))
        rows.append([(tr._("Diligência concluded"), f"dfs:dild:{filing.id}")])
        return lines, rows
    side = next_vista_side(filing, city)
    if side is not None and all(window.final_date < today for window in vistas):
        rows.append([(tr._("Give vista to {side} (3 days)").format(side=tr._(SIDE_LABELS[side])),
                      f"dfs:vis:{filing.id}")])
    rows.append([(tr._("Order a diligência"), f"dlg:open:{filing.id}")])
    return lines, rows


async def vista(update: Update, context: BalcaoContext, filing_id: int, show: ShowFiling) -> None:
    """Open the next vista (CP Art. 40 §1)."""
    try:
        async with context.sessions() as session:
            await open_vista(session=session, cities=context.cities, filing_id=filing_id,
                             decider_telegram_id=context.person.telegram_user_id)
    except FilingRefused as refused:
        await reply(update, context, esc(refused.render(context.tr)), edit=True)
        return
    await show(update, context, filing_id)


async def diligencia_done(update: Update, context: BalcaoContext, filing_id: int, show: ShowFiling) -> None:
    """The diligência is concluded: the Art. 40 days run again."""
    try:
        async with context.sessions() as session:
            await conclude_diligencia(session=session, cities=context.cities, filing_id=filing_id,
                                      decider_telegram_id=context.person.telegram_user_id)
    except FilingRefused as refused:
        await reply(update, context, esc(refused.render(context.tr)), edit=True)
        return
    await show(update, context, filing_id)
