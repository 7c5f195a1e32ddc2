"""/lembretes: which reminders are on, what is queued, and turning optional ones off or on. Buttons: ``rem:…``."""

from __future__ import annotations

from typing import Any

from telegram import Update
from telegram.ext import Application, CallbackQueryHandler

from core.i18n import N_
from handlers.chat.commands import chat_command
from handlers.chat.context import BalcaoContext
from handlers.chat.replies import esc, keyboard, menu_row, reply
from notifications.plugins import load_all
from notifications.reminders import LEGAL_BASIS, NotMutable, reminder_overview, set_reminder_topic

SHOW = "rem:show"
WHY = "rem:why"


@chat_command(
    "lembretes",
    aliases=("reminders",),
    description=N_("Your reminders: see them, turn them off or on"),
    menu_label=N_("Reminders"),
    order=60,
)
async def reminders_command(update: Update, context: BalcaoContext) -> None:
    """``/lembretes``: the person's reminder topics and the messages queued for them."""
    await show_reminders(update, context)


async def show_reminders(update: Update, context: BalcaoContext, *, edit: bool = False) -> None:
    """The reminders screen: one line per topic (on/off), what is coming, and why legal notices always come."""
    tr = context.tr
    async with context.sessions() as session:
        overview = await reminder_overview(session=session, person_id=context.person.id)
    lines = [tr._("<b>Your reminders</b>")]
    if overview.topics:
        lines.append(tr._("You can turn these off and on again at any time:"))
        for state in overview.topics:
            status = tr._("off") if state.muted else tr._("on")
            icon = "🔕" if state.muted else "🔔"
            lines.append(f"{icon} <b>{esc(tr._(state.topic.label))}</b> — {status}")
            if state.topic.description:
                lines.append(f"    <i>{esc(tr._(state.topic.description))}</i>")
    else:
        lines.append(tr._("There are no optional reminders for you yet."))
    lines += ["", tr._("⚖️ Legal notices (penalties, deadlines to defend yourself) always arrive.")]
    if overview.upcoming:
        lines += ["", tr.ngettext("Coming up: {n} message.", "Coming up: {n} messages.", overview.upcoming_total)
                  .format(n=overview.upcoming_total)]
        for item in overview.upcoming:
            what = tr._(item.topic.label) if item.topic else tr._("Legal notice")
            when = tr.moment(item.at)
            suffix = " " + tr._("(off: will not be sent)") if item.muted else ""
            lines.append(f"• {esc(what)}: {when}{suffix}")
    buttons = [
        [(
            (tr._("🔔 Turn on: {label}") if state.muted else tr._("🔕 Turn off: {label}")).format(
                label=tr._(state.topic.label)
            ),
            f"rem:{'on' if state.muted else 'off'}:{state.topic.name}",
        )]
        for state in overview.topics
    ]
    buttons += [[(tr._("Why can't I turn off legal notices?"), WHY)], menu_row(context)]
    await reply(update, context, "\n".join(lines), markup=keyboard(buttons), edit=edit)


async def topic_button(update: Update, context: BalcaoContext) -> None:
    """``rem:off:<topic>`` / ``rem:on:<topic>``: turn a topic off or on, then show the screen again."""
    query = update.callback_query
    assert query is not None and query.data is not None
    _, action, topic = query.data.split(":", 2)
    try:
        async with context.sessions() as session:
            await set_reminder_topic(session=session, person_id=context.person.id, topic=topic, muted=action == "off")
    except NotMutable:
        await query.answer(context.tr._("This reminder no longer exists."))
    await show_reminders(update, context, edit=True)


async def why_button(update: Update, context: BalcaoContext) -> None:
    """``rem:why``: why legal notices cannot be turned off."""
    tr = context.tr
    text = tr._(
        "A legal notice (a penalty, a deadline to defend yourself or to appeal) starts counting the days you "
        "have. The law requires that you be notified, so these messages cannot be turned off. Turning them off "
        "would not stop the deadlines; it would only keep you from knowing them."
    )
    await reply(
        update,
        context,
        f"{text}\n<i>{esc(LEGAL_BASIS)}</i>",
        markup=keyboard([[(tr._("« Back to my reminders"), SHOW)], menu_row(context)]),
        edit=True,
    )


async def show_button(update: Update, context: BalcaoContext) -> None:
    """``rem:show``: back to the reminders screen."""
    await show_reminders(update, context, edit=True)


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Add the /lembretes buttons (the command itself is registered by ``chat_command``)."""
    load_all()
    application.add_handler(CallbackQueryHandler(topic_button, pattern=r"^rem:(on|off):"))
    application.add_handler(CallbackQueryHandler(why_button, pattern=f"^{WHY}$"))
    application.add_handler(CallbackQueryHandler(show_button, pattern=f"^{SHOW}$"))
