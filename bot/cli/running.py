"""``run``: the bot for real (polling, or webhook when BALCAO_WEBHOOK_URL is set)."""

from __future__ import annotations

import argparse
import logging

from bot.bots import UnknownBots
from bot.cli.bot_choice import bot_keys_argument, bots_refusal
from bot.cli.errors import CommandError
from bot.cli.output import cli_translator
from bot.running import serve
from bot.single_run import AlreadyRunning
from core.i18n import N_, Translator
from core.municipality import cities_of
from core.settings import get_settings
from models.signatures.pades import SigningError, check_certificates

logger = logging.getLogger("balcao.run")

HOW_TO_GET_A_BOT = N_(
    """\
BALCAO_TELEGRAM_TOKEN is not set, so there is no bot to run.

To get a token:
  1. In Telegram, open a chat with @BotFather and send /newbot.
  2. Choose a name and a username ending in "bot".
  3. BotFather answers with a token like 123456789:AA...; put it in .env:
       BALCAO_TELEGRAM_TOKEN=123456789:AA...

To try Balcão without Telegram, run the offline sandbox instead:
  python -m bot demo"""
)

ALREADY_RUNNING = N_(
    """\
Another run process already serves the bot {bot} on this SQLite database: process {pid} on {host}, started at \
{started} (UTC).

With SQLite a bot has one run process: stop that one first. To run several processes of one bot, use \
PostgreSQL (see the operations guide in the README). Lock file: {lock}"""
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser], tr: Translator) -> None:
    """Add ``run`` to the command line."""
    run = subparsers.add_parser(
        "run",
        help=tr._("run the bot (polling; webhook when BALCAO_WEBHOOK_URL is set)"),
        description=tr._("Serves the bot, the staff API and /healthz until SIGTERM; "
                         "the database must be migrated first (python -m bot db upgrade)."),
    )
    run.add_argument("--bots", type=bot_keys_argument, metavar=tr.pgettext("metavar", "KEY[,KEY…]"),
                     help=tr._("serve only these bots (default: every bot of the deployment; 'default' is the main "
                               "one)"))
    run.set_defaults(handler=_run, heads_on_schedule=True)


async def _run(args: argparse.Namespace) -> int:
    settings = get_settings()
    if settings.telegram_token is None:
        raise CommandError(cli_translator(settings)._(HOW_TO_GET_A_BOT))
    try:
        unsigned = check_certificates(cities_of(settings))
    except SigningError as error:
        raise CommandError(cli_translator(settings)._("Cannot start: the signing certificate of {reason}").format(
            reason=str(error))) from None
    for slug in unsigned:  # docs/LEGAL-CHOICES.md: unsigned PDFs, said so on /verificar
        logger.warning("municipality %s has no signing certificate: its notices and receipts are issued unsigned "
                       "(README: Signing certificates)", slug)
    try:
        await serve(settings, bot_keys=args.bots, own_bots=settings.own_bots())
    except UnknownBots as error:
        raise bots_refusal(error, settings) from None
    except AlreadyRunning as running:
        holder = running.holder
        raise CommandError(cli_translator(settings)._(ALREADY_RUNNING).format(
            bot=running.bot_key, pid=holder.get("pid", "?"), host=holder.get("host", "?"),
            started=holder.get("started", "?"), lock=running.path)) from None
    return 0
