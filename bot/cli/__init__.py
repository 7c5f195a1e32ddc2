"""The command line: ``python -m bot <command>`` (also the ``balcao`` console script).

Each area of the product registers its subcommands in a module of this package; ``--help`` works on
every command. Commands print plain text and exit non-zero with a one-line reason on bad input.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from bot.cli import backup, core, deadlines, demo, drivers, log, notices, open311, outbox, running
from bot.cli.errors import CommandError
from bot.i18n import CatalogsMissing, check_catalogs
from bot.logs import setup_logging
from bot.migrate import SchemaOutOfDate
from bot.settings import Settings, SettingsError, get_settings, load_settings

Handler = Callable[[argparse.Namespace], Coroutine[Any, Any, int]]

REGISTRARS: tuple[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None], ...] = (
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
)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with one subcommand per operation."""
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="Balcão: the city hall's service counter in Telegram.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for register in REGISTRARS:
        register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the arguments, run the command and return its exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        setup_logging(load_settings())
    except SettingsError:  # the command itself reports the invalid settings; log with the defaults meanwhile
        setup_logging(Settings.model_construct())
    handler: Handler = args.handler
    try:
        check_catalogs()  # every command speaks to staff in BALCAO_CLI_LOCALE, and run/demo to people in theirs
        if not getattr(args, "no_log_key", False):
            log.install_log_key(get_settings())  # every append of this process signs the log's new head
        return asyncio.run(handler(args))
    except (SettingsError, CommandError, SchemaOutOfDate, CatalogsMissing) as exc:
        print(exc, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
