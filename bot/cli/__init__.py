"""The command line: ``python -m bot <command>`` (also the ``balcao`` console script).

Each area of the product registers its subcommands in a module of this package; ``--help`` works on
every command, in ``BALCAO_CLI_LOCALE`` like their output. Commands print plain text and exit non-zero with a one-line
reason on bad input.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from telegram.error import InvalidToken

from bot.cli import backup, core, deadlines, demo, drivers, log, notices, open311, outbox, payments, running
from bot.cli.argparse_texts import argparse_in
from bot.cli.errors import CommandError
from bot.cli.output import help_translator
from bot.logs import setup_logging
from core.database_wait import DatabaseUnreachable
from core.i18n import CatalogsMissing, Translator, check_catalogs
from core.migrate import SchemaOutOfDate
from core.references import new_reference
from core.settings import Settings, SettingsError, get_settings, load_settings, unknown_variables

logger = logging.getLogger("balcao.cli")

Handler = Callable[[argparse.Namespace], Coroutine[Any, Any, int]]

# Each adds an area's subcommands, their help in the CLI's language (``tr._`` on English msgids, in cli.po).
REGISTRARS: tuple[Callable[[argparse._SubParsersAction[argparse.ArgumentParser], Translator], None], ...] = (
    core.register,
    running.register,
    outbox.register,
    demo.register,
    deadlines.register,
    notices.register,
    drivers.register,
    backup.register,
    log.register,
    open311.register,
    payments.register,
)


def build_parser(tr: Translator) -> argparse.ArgumentParser:
    """The full argument parser, with one subcommand per operation, its help in ``tr``'s language.

    Parse with it inside :func:`~bot.cli.argparse_texts.argparse_in` too, so that argparse's usage errors and the
    "usage:" line are in that language as well.
    """
    with argparse_in(tr):  # headings and the -h help are translated as each parser is made
        parser = argparse.ArgumentParser(
            prog="python -m bot",
            description=tr._("Balcão: the city hall's service counter in Telegram."),
        )
        subparsers = parser.add_subparsers(dest="command", metavar=tr.pgettext("metavar", "COMMAND"), required=True)
        for register in REGISTRARS:
            register(subparsers, tr)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the arguments, run the command and return its exit code."""
    tr = help_translator()  # --help and usage errors speak BALCAO_CLI_LOCALE, like every command's output
    parser = build_parser(tr)
    with argparse_in(tr):
        args = parser.parse_args(argv)
    try:
        setup_logging(load_settings())
    except SettingsError:  # the command itself reports the invalid settings; log with the defaults meanwhile
        setup_logging(Settings.model_construct())
    for name, close in unknown_variables(os.environ):  # a misspelt setting is otherwise silently ignored
        logger.warning("%s is not a Balcão setting and is ignored%s", name,
                       f" (did you mean {close}?)" if close else "")
    handler: Handler = args.handler
    try:
        check_catalogs()  # every command speaks to staff in BALCAO_CLI_LOCALE, and run/demo to people in theirs
        if not getattr(args, "no_log_key", False):
            # run signs the log's heads in its head job; a one-off command's commits sign their own
            log.install_log_key(get_settings(), heads_on_schedule=getattr(args, "heads_on_schedule", False))
        return asyncio.run(handler(args))
    except (SettingsError, CommandError, SchemaOutOfDate, CatalogsMissing) as exc:
        print(exc, file=sys.stderr)
        return 2
    except DatabaseUnreachable as exc:  # run/dispatch waited for it (core.database_wait); the supervisor restarts
        print(tr._("The database did not answer in {seconds} s ({cause}); stopping. BALCAO_DATABASE_WAIT_SECONDS "
                   "sets how long to wait.").format(seconds=round(exc.waited_seconds), cause=exc.cause),
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except InvalidToken:  # python-telegram-bot's text quotes the token: never printed
        print(tr._("Telegram refused a bot token. Check BALCAO_TELEGRAM_TOKEN (or the token of each bot of the "
                   "deployment)."), file=sys.stderr)
        return 2
    except Exception:  # no traceback on the terminal (it may quote a secret): the log has it, redacted
        reference = new_reference()
        logger.exception("command failed, reference %s", reference)
        print(tr._("The command stopped on an unexpected error. The log has the details under {reference}.").format(
            reference=reference), file=sys.stderr)
        return 1
