"""``scan``, ``dispatch`` and ``broadcast``: the notification engine for operators and cron-style deployments.

``run`` does the first two on its own (scans every 15 minutes and at start, the dispatcher always on); these
commands do one round and exit, e.g. from cron::

    */15 * * * *  python -m bot scan
    * * * * *     python -m bot dispatch
"""

from __future__ import annotations

import argparse
import asyncio

from bot.bots import UnknownBots, choose_bots, configured_bots, senders
from bot.cli.bot_choice import bot_keys_argument, bots_refusal
from bot.cli.errors import CommandError, unknown_municipality
from bot.cli.numbers import whole_number
from bot.cli.output import cli_translator
from bot.signals import stop_on_signals
from core import migrate
from core.database_wait import wait_for_database
from core.db import database
from core.i18n import N_, Translator
from core.municipality import cities_of
from core.settings import get_settings
from models.columns import utcnow
from models.municipalities import sync_municipalities
from notifications.audiences import AUDIENCES
from notifications.broadcasts import AudienceChoice, BroadcastRefused, check_text, create_broadcast, parse_when
from notifications.dispatcher import Dispatcher, DispatchStats, DispatchStopped, sending_bot, settle_memory
from notifications.plugins import load_all
from notifications.service import Sender, run_scans

REFUSALS = {
    "empty_text": N_("--text is empty."),
    "bad_html": N_("--text is not valid Telegram HTML: {detail}."),
    "text_too_long": N_("--text is too long: at most {limit} characters."),
    "unknown_audience": N_("unknown audience '{detail}'; python -m bot broadcast --help lists them."),
    "days_required": N_("this audience needs --days N (0 to {limit})."),
    "topic_required": N_("this audience needs --topic TOPIC."),
    "in_the_past": N_("--at is in the past."),
    "nobody": N_("nobody is in this audience now; nothing was sent."),
}


def _audience_list(tr: Translator) -> str:
    load_all()
    lines = [tr._("audiences:")]
    for found in AUDIENCES.values():
        needs = ""
        if found.takes_days:
            needs = " " + tr._("(needs --days N)")
        elif found.takes_topic:
            needs = " " + tr._("(needs --topic TOPIC)")
        lines.append(f"  {found.name:<22} {tr._(found.label)}{needs}")
    if len(lines) == 1:
        lines.append("  " + tr._("(none registered)"))
    return "\n".join(lines)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser], tr: Translator) -> None:
    """Add ``scan``, ``dispatch`` and ``broadcast`` to the command line."""
    scan = subparsers.add_parser(
        "scan",
        help=tr._("run every reminder scan once and exit"),
        description=tr._("Each scan computes from the database what is due (reminders, deadlines) and queues it; "
                         "running it again queues nothing twice. Exit code 1 when a scan failed."),
    )
    scan.set_defaults(handler=_scan)

    dispatch = subparsers.add_parser(
        "dispatch",
        help=tr._("send the queued messages that are due, then exit"),
        description=tr._("Sends within BALCAO_DISPATCH_GLOBAL_RATE and BALCAO_DISPATCH_PER_CHAT_RATE (paid "
                         "broadcasts: BALCAO_DISPATCH_PAID_BROADCAST). Several dispatch processes may run against one "
                         "PostgreSQL."),
    )
    dispatch.add_argument("--bots", type=bot_keys_argument, metavar=tr.pgettext("metavar", "KEY[,KEY…]"),
                          help=tr._("send only for these bots (default: every bot of the deployment)"))
    dispatch.add_argument("--forever", action="store_true",
                          help=tr._("keep sending as messages fall due, until SIGTERM (a service beside run with "
                                    "BALCAO_RUN_DISPATCHER=false)"))
    dispatch.set_defaults(handler=_dispatch)

    broadcast = subparsers.add_parser(
        "broadcast",
        help=tr._("send a notice to an audience, now or at a date and time"),
        description=tr._("Queues a notice for everyone in AUDIENCE (people who muted notices are left out). "
                         "The running bot, or python -m bot dispatch, sends it."),
        epilog=_audience_list(tr),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    broadcast.add_argument("--audience", required=True, metavar=tr.pgettext("metavar", "AUDIENCE"),
                           help=tr._("who gets it (see below)"))
    broadcast.add_argument("--text", required=True, metavar=tr.pgettext("metavar", "TEXT"),
                           help=tr._("the notice (plain text)"))
    broadcast.add_argument("--html", action="store_true", help=tr._("TEXT is Telegram HTML (<b>, <i>, <a href=…>)"))
    broadcast.add_argument("--municipality", metavar=tr.pgettext("metavar", "SLUG"),
                           help=tr._("the municipality that sends it and whose people it reaches (default: the "
                                     "first)"))
    broadcast.add_argument("--days", type=whole_number(tr), metavar="N",
                           help=tr._("for audiences about a deadline within N days"))
    broadcast.add_argument("--topic", metavar=tr.pgettext("metavar", "TOPIC"),
                           help=tr._("for the audience of people who follow a topic"))
    broadcast.add_argument(
        "--at",
        metavar=tr.pgettext("metavar", "DATETIME"),
        help=tr._("send later: 'YYYY-MM-DD HH:MM' or 'DD/MM/YYYY HH:MM' in BALCAO_TIMEZONE (default: now)"),
    )
    broadcast.set_defaults(handler=_broadcast)


async def _scan(_args: argparse.Namespace) -> int:
    settings = get_settings()
    await migrate.check_schema(settings.database_url)
    async with database(settings.database_url) as (_engine, sessions):
        outcomes = await run_scans(sessions=sessions, settings=settings)
    tr = cli_translator(settings)
    for outcome in outcomes:
        if outcome.error:
            result = tr._("FAILED ({error})").format(error=outcome.error)
        else:
            result = tr.ngettext("{n} queued", "{n} queued", outcome.enqueued).format(n=outcome.enqueued)
        print(f"{outcome.name}: {result}")
    if not outcomes:
        print(tr._("No scans are registered."))
    return 1 if any(outcome.error for outcome in outcomes) else 0


async def _dispatch(args: argparse.Namespace) -> int:
    settings = get_settings()
    tr = cli_translator(settings)
    if settings.telegram_token is None:
        raise CommandError(tr._("BALCAO_TELEGRAM_TOKEN is not set: there is no bot to send with."))
    deployment = configured_bots(settings, settings.own_bots())
    try:
        served = choose_bots(deployment, args.bots)
    except UnknownBots as error:
        raise bots_refusal(error, settings) from None
    await wait_for_database(lambda: migrate.check_schema(settings.database_url),
                            max_wait_seconds=settings.database_wait_seconds)
    load_all()
    stats = DispatchStats()
    async with database(settings.database_url) as (_engine, sessions):
        with stop_on_signals() as stop:

            async def send_with(sender: Sender) -> DispatchStats:
                async with sending_bot(sender.settings) as bot:
                    settle_memory()
                    dispatcher = Dispatcher(sessions=sessions, bot=bot, settings=sender.settings, scope=sender.scope)
                    if args.forever:
                        return await dispatcher.run_forever(stop=stop)
                    return await dispatcher.run_until_idle(stop=stop)

            try:  # one dispatcher per bot, at once: each keeps its own bot's limits; one stopping stops the others
                async with asyncio.TaskGroup() as group:
                    running = [group.create_task(send_with(s)) for s in senders(settings, served, deployment)]
            except* DispatchStopped as exc:  # every bot here has a token, so Telegram refused one; its text may
                # quote the token (python-telegram-bot's InvalidToken): it is never printed
                raise CommandError(tr._("Telegram refused a bot token: sending stopped. Check BALCAO_TELEGRAM_TOKEN "
                                        "(or the token of each bot of the deployment).")) from exc
            for task in running:
                stats.merge(task.result())
    print(
        tr._("sent {sent}, unreachable {unreachable}, failed {failed}, cancelled {cancelled}, "
             "to retry later {retry_later}").format(sent=stats.sent, unreachable=stats.unreachable,
                                                    failed=stats.failed, cancelled=stats.cancelled,
                                                    retry_later=stats.retry_later)
    )
    return 0


async def _broadcast(args: argparse.Namespace) -> int:
    settings = get_settings()
    tr = cli_translator(settings)
    await migrate.check_schema(settings.database_url)
    load_all()
    now = utcnow()
    send_at = None
    if args.at:
        send_at = parse_when(args.at, now=now, tz=settings.tz)
        if send_at is None:
            raise CommandError(
                tr._("--at '{value}': use 'YYYY-MM-DD HH:MM' or 'DD/MM/YYYY HH:MM' ({timezone}).").format(
                    value=args.at, timezone=settings.timezone)
            )
    if args.municipality is not None and args.municipality not in settings.municipalities:
        raise unknown_municipality(tr, option="--municipality", value=args.municipality,
                                   served=settings.municipalities)
    cities = cities_of(settings)
    choice = AudienceChoice(name=args.audience, days=args.days, topic=args.topic)
    try:
        text = check_text(args.text, is_html=args.html)
        async with database(settings.database_url) as (_engine, sessions), sessions() as session:
            await sync_municipalities(session=session, served=settings.municipalities)
            created = await create_broadcast(
                session=session, city=cities.of(args.municipality), cities=cities, choice=choice, text=text,
                actor="cli", now=now, send_at=send_at,
            )
    except BroadcastRefused as refused:
        raise CommandError(tr._(REFUSALS[refused.code]).format(detail=refused.detail, limit=refused.limit)) from refused
    if created.send_at <= now:
        queued = tr.ngettext("Notice #{id} queued for {n} person, to be sent now.",
                             "Notice #{id} queued for {n} people, to be sent now.", created.recipients)
    else:
        queued = tr.ngettext("Notice #{id} queued for {n} person, to be sent {when}.",
                             "Notice #{id} queued for {n} people, to be sent {when}.", created.recipients)
    when = created.send_at.astimezone(settings.tz).strftime("%Y-%m-%d %H:%M")
    print(queued.format(id=created.id, n=created.recipients, when=when))
    if created.left_out:
        print(tr.ngettext("{n} person of this audience is left out (they muted notices or erased their data).",
                          "{n} people of this audience are left out (they muted notices or erased their data).",
                          created.left_out).format(n=created.left_out))
    print(tr._("The running bot sends it; without one, run: python -m bot dispatch"))
    return 0
