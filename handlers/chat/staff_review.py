"""/defesas, a reclamação before its decision: vista to each side in turn (CP Art. 40 §1) and diligência (Art. 42).

Thin: each action calls :mod:`models.notices.review` and shows the filing again. The buttons are ``nstf:vis``,
``nstf:dil`` and ``nstf:dild`` (concluded), routed by ``handlers.chat.staff_notices``, which checks the clerk's
role first. ``nstf:dil`` starts the diligência's form on the engine (buttons ``dil:``): what it is for, in one
message, then a confirmation; the clerk's role is checked again on every update, the order is filed once, and
the clerk is offered the way back to the filing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable

from telegram import Update

from core.i18n import N_, Translator
from core.settings import Settings
from handlers.chat.context import BalcaoContext
from handlers.chat.engine import Filed, Form, Question, Step, Turn, register_form, start
from handlers.chat.replies import esc, keyboard, reply, respond
from models.cases.fields import clean_text
from models.invalid_input import InvalidInput
from models.notices.filings import FilingRefused
from models.notices.review import conclude_diligencia, next_vista_side, open_vista, order_diligencia
from models.notices.status import NoticeView
from models.notices.tables import FilingKind, Notice, NoticeFiling
from models.notices.windows import diligencia_pending
from models.people import PermissionDenied, Role, require_role
from models.rulebooks.catalogue import CP
from notifications.telegram_text import small

DILIGENCIA_FORM = "notice_diligencia"
SIDE_LABELS = {"autuado": N_("the person notified (autuado)"), "autuante": N_("the inspector (autuante)")}
ShowFiling = Callable[[Update, BalcaoContext, int], Awaitable[None]]


def review_lines(tr: Translator, filing: NoticeFiling, view: NoticeView, settings: Settings,
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
        rows.append([(tr._("Diligência concluded"), f"nstf:dild:{filing.id}")])
        return lines, rows
    side = next_vista_side(filing, settings)
    if side is not None and all(window.final_date < today for window in vistas):
        rows.append([(tr._("Give vista to {side} (3 days)").format(side=tr._(SIDE_LABELS[side])),
                      f"nstf:vis:{filing.id}")])
    rows.append([(tr._("Order a diligência"), f"nstf:dil:{filing.id}")])
    return lines, rows


async def vista(update: Update, context: BalcaoContext, filing_id: int, show: ShowFiling) -> None:
    """Open the next vista (CP Art. 40 §1)."""
    try:
        async with context.sessions() as session:
            await open_vista(session=session, settings=context.settings, filing_id=filing_id,
                             decider_telegram_id=context.person.telegram_user_id)
    except FilingRefused as refused:
        await reply(update, context, esc(refused.render(context.tr)), edit=True)
        return
    await show(update, context, filing_id)


class _Refused(InvalidInput):
    """A refusal of the notices' domain (:class:`FilingRefused`, with its article) as the engine shows refusals."""

    def __init__(self, refused: FilingRefused) -> None:
        super().__init__(refused.message)
        self.refused = refused

    def render(self, tr: Translator) -> str:
        """The domain's reason in the reader's language."""
        return esc(self.refused.render(tr))


def _back_rows(turn: Turn) -> list[list[tuple[str, str]]]:
    tr, filing_id = turn.tr, turn.data.get("filing_id")
    rows = [[(tr._("◀ Defences to decide"), "nstf:filings")]]
    if isinstance(filing_id, int):
        rows.insert(0, [(tr._("Back to the filing"), f"nstf:fil:{filing_id}")])
    return rows


async def _check(turn: Turn) -> bool:
    """Clerks only, in the notice's municipality (CF Art. 30 I: each city hall, its own staff): on every update."""
    context, filing_id = turn.context, turn.data.get("filing_id")
    try:
        async with context.sessions() as session:
            filing = await session.get(NoticeFiling, filing_id) if isinstance(filing_id, int) else None
            notice = await session.get(Notice, filing.notice_id) if filing is not None else None
            if notice is None:
                await respond(turn.update, context, turn.tr._(DILIGENCIA.gone), markup=keyboard(_back_rows(turn)))
                return False
            await require_role(session=session, telegram_user_id=context.person.telegram_user_id,
                               allowed=frozenset({Role.CLERK}), municipality=notice.municipality)
    except PermissionDenied:
        await respond(turn.update, context, turn.tr._("Only staff with the right role can do this."))
        return False
    return True


def _ask_text(turn: Turn) -> Question:
    # CP Art. 42: the reclamação converted into a diligência
    return Question(turn.tr._("Write in one message what the diligência is for.")
                    + small("Código de Posturas, Art. 42"))


async def _submit(turn: Turn) -> Filed:
    """Order the diligência (CP Art. 42): the complaint waits for it."""
    context, filing_id = turn.context, int(turn.data["filing_id"])
    try:
        async with context.sessions() as session:
            await order_diligencia(session=session, settings=context.settings, filing_id=filing_id,
                                   text=turn.data["text"], decider_telegram_id=context.person.telegram_user_id)
    except FilingRefused as refused:
        raise _Refused(refused) from refused

    async def announce() -> None:
        await respond(turn.update, context, turn.tr._("Diligência ordered. The complaint waits for it."),
                      markup=keyboard(_back_rows(turn)))

    return Filed(str(filing_id), announce)


async def _back(turn: Turn) -> None:
    await respond(turn.update, turn.context, turn.tr._("Nothing was recorded."), markup=keyboard(_back_rows(turn)))


DILIGENCIA = Form(
    name=DILIGENCIA_FORM,
    prefix="dil",
    title=N_("the diligência being ordered"),
    steps=(Step("text", _ask_text, label=N_("What it is for"),
                text=lambda text, _t: {"text": clean_text(text, min_length=5, max_length=4000)}),),
    flow=lambda _data: ("text",),
    start=lambda _turn: {},
    intro=N_("You can stop at any time with ✖ Cancel: nothing is changed until you confirm."),
    resume=N_("You have an action on a case in progress. Continue where you stopped, or start again?"),
    gone=N_("This diligência is no longer being ordered. Open the filing again in /defesas."),
    already_sent=N_("This diligência was already ordered: nothing was done twice."),
    review_intro=N_("Please check before confirming:"),
    review_note=N_("Confirm?"),
    summary=lambda turn: f"<b>{esc(turn.tr._('Diligência to order:'))}</b>\n\n{esc(turn.data.get('text', ''))}",
    submit=_submit,
    refusal_fields=lambda refused: () if isinstance(refused, _Refused) else ("text",),
    check=_check,
    back=_back,
    send_label=N_("✅ Confirm"),
)
register = register_form(DILIGENCIA)


async def ask_diligencia(update: Update, context: BalcaoContext, filing_id: int) -> None:
    """What the diligência is for, in one message, then a confirmation (the form, prefilled with the filing)."""
    await start(DILIGENCIA, update, context, values={"filing_id": filing_id})


async def diligencia_done(update: Update, context: BalcaoContext, filing_id: int, show: ShowFiling) -> None:
    """The diligência is concluded: the Art. 40 days run again."""
    try:
        async with context.sessions() as session:
            await conclude_diligencia(session=session, settings=context.settings, filing_id=filing_id,
                                      decider_telegram_id=context.person.telegram_user_id)
    except FilingRefused as refused:
        await reply(update, context, esc(refused.render(context.tr)), edit=True)
        return
    await show(update, context, filing_id)
