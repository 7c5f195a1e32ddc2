"""``python -m bot open311 key add NAME`` / ``key revoke NAME``: the keys of Open311 client systems."""

from __future__ import annotations

import argparse

from bot.cli.errors import CommandError
from bot.cli.output import cli_translator
from core import migrate
from core.db import database
from core.i18n import Translator
from core.settings import get_settings
from models.columns import utcnow
from models.open311.keys import ClientKeyRefused, issue_key, revoke_key


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser], tr: Translator) -> None:
    """Add ``open311 key add|revoke`` to the command line."""
    open311 = subparsers.add_parser("open311", help=tr._("Open311 GeoReport v2 client systems"))
    commands = open311.add_subparsers(dest="open311_command", metavar=tr.pgettext("metavar", "ACTION"), required=True)
    key = commands.add_parser("key", help=tr._("API keys, one per client system (stored hashed)"))
    key_commands = key.add_subparsers(dest="key_command", metavar=tr.pgettext("metavar", "ACTION"), required=True)
    add = key_commands.add_parser("add", help=tr._("issue a key for a client system and print it (shown only once)"))
    add.add_argument("name", metavar=tr.pgettext("metavar", "NAME"), help=tr._("the client system, e.g. fixmystreet"))
    add.set_defaults(handler=_key_add)
    revoke = key_commands.add_parser("revoke", help=tr._("stop a client system's key at once"))
    revoke.add_argument("name", metavar=tr.pgettext("metavar", "NAME"), help=tr._("the client system"))
    revoke.set_defaults(handler=_key_revoke)


async def _key_add(args: argparse.Namespace) -> int:
    settings = get_settings()
    await migrate.check_schema(settings.database_url)
    tr = cli_translator(settings)
    async with database(settings.database_url) as (_engine, sessions), sessions() as session:
        try:
            key = await issue_key(session=session, name=args.name, now=utcnow(), actor="cli")
        except ClientKeyRefused:
            raise CommandError(
                tr._("{name} already has an active key (or the name is not 1 to 64 characters). Revoke it first: "
                     "python -m bot open311 key revoke {name}").format(name=args.name)
            ) from None
    print(tr._("Open311 key for {name} (shown only now; give it to that system's operator):").format(name=args.name))
    print(key)
    return 0


async def _key_revoke(args: argparse.Namespace) -> int:
    settings = get_settings()
    await migrate.check_schema(settings.database_url)
    tr = cli_translator(settings)
    async with database(settings.database_url) as (_engine, sessions), sessions() as session:
        try:
            await revoke_key(session=session, name=args.name, now=utcnow(), actor="cli")
        except ClientKeyRefused:
            raise CommandError(tr._("No active Open311 key named {name}.").format(name=args.name)) from None
    print(tr._("The Open311 key of {name} is revoked.").format(name=args.name))
    return 0
