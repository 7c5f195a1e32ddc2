"""/aviso's plain screens, not a form: the notices still going out (each with its stop button), and stopping one.

The progress message a broadcast updates in place ends on the same stop button (``aviso:stop:<id>``,
``notifications.broadcasts.progress_buttons``); the role is checked on every press.
"""

from __future__ import annotations

from telegram import Update

from handlers.chat.context import BalcaoContext
from handlers.chat.replies import answer_query, keyboard, menu_row, reply, respond
from handlers.chat.staff_scope import has_role
from models.columns import utcnow
from models.people import Role
from notifications.broadcasts import BroadcastView, open_broadcasts, progress_buttons, progress_text, stop_broadcast
from notifications.service import wake_dispatcher

ROLES = frozenset({Role.CLERK})
"""Who may broadcast (admins always may)."""
OPEN_SHOWN = 5


def _open_line(view: BroadcastView, context: BalcaoContext) -> str:
    tr = context.tr
    if view.send_at > utcnow():
        return tr._("#{id}: scheduled for {when}").format(id=view.id, when=tr.moment(view.send_at))
    return tr._("#{id}: sending, {done} of {total}").format(
        id=view.id, done=tr.number(view.done), total=tr.number(view.recipients)
    )


async def show_running(update: Update, context: BalcaoContext) -> None:
    """The notices still going out, each with a stop button (nothing when none is)."""
    tr = context.tr
    async with context.sessions() as session:
        running = await open_broadcasts(session=session)
    if not running:
        return
    lines = [tr._("<b>Notices still going out</b>")]
    rows = []
    for view in running[:OPEN_SHOWN]:
        lines.append("• " + _open_line(view, context))
        rows.append([(tr._("⏹ Stop #{id}").format(id=view.id), f"aviso:stop:{view.id}")])
    await respond(update, context, "\n".join(lines), markup=keyboard(rows))


async def stop_button(update: Update, context: BalcaoContext) -> None:
    """``aviso:stop:<id>``: stop a broadcast; messages not sent yet are not sent."""
    if not await has_role(update, context, ROLES):
        return
    query = update.callback_query
    assert query is not None and query.data is not None
    broadcast_id = int(query.data.rsplit(":", 1)[1])
    tr = context.tr
    async with context.sessions() as session:
        view = await stop_broadcast(session=session, broadcast_id=broadcast_id,
                                    actor=f"staff:{context.person.telegram_user_id}")
    if view is None:
        await answer_query(update, context, tr._("This notice is no longer going out."))
        return
    buttons = progress_buttons(view, tr) or [menu_row(context)]
    await reply(update, context, progress_text(view, tr, now=utcnow()), markup=keyboard(buttons), edit=True)
    wake_dispatcher()
