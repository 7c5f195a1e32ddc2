"""Core commands: ``db upgrade``, ``staff add``, ``staff remove``; ``run`` and ``demo`` are in ``bot.cli.running``."""

from __future__ import annotations

import argparse
import asyncio
import sys

from bot import migrate
from bot.cli.errors import unknown_municipality
from bot.cli.numbers import whole_number
from bot.cli.output import cli_translator
from bot.db import database
from bot.i18n import Translator
from bot.settings import get_settings
from models.columns import utcnow
from models.console.roles import NoSuchRole, end_role
from models.municipalities import sync_municipalities
from models.people import ROLE_LABELS, Role, add_staff


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser], tr: Translator) -> None:
    """Add ``db`` and ``staff`` to the command line."""
    db = subparsers.add_parser("db", help=tr._("database schema"))
    db_commands = db.add_subparsers(dest="db_command", metavar=tr.pgettext("metavar", "ACTION"), required=True)
    upgrade = db_commands.add_parser("upgrade", help=tr._("apply every pending migration (BALCAO_DATABASE_URL)"))
    upgrade.set_defaults(handler=_db_upgrade)

    staff = subparsers.add_parser("staff", help=tr._("municipal staff and their roles"))
    staff_commands = staff.add_subparsers(dest="staff_command", metavar=tr.pgettext("metavar", "ACTION"),
                                          required=True)
    add = staff_commands.add_parser(
        "add",
        help=tr._("make a Telegram user a staff member (or change their role)"),
        description=tr._("The Telegram user id is a number; the person can see it with @userinfobot."),
    )
    add.add_argument("telegram_id", type=whole_number(tr), metavar=tr.pgettext("metavar", "TELEGRAM_ID"),
                     help=tr._("the person's Telegram user id"))
    add.add_argument("--role", required=True, choices=[role.value for role in Role],
                     help=tr._("what the person does: admin, clerk, inspector or ombudsman"))
    add.add_argument("--name", default="", metavar=tr.pgettext("metavar", "NAME"), help=tr._("display name"))
    add.add_argument("--municipality", metavar=tr.pgettext("metavar", "SLUG"), default=None,
                     help=tr._("where the role is held (a role is held in one municipality); omitted: in every "
                               "municipality of the deployment"))
    add.set_defaults(handler=_staff_add)
    remove = staff_commands.add_parser(
        "remove",
        help=tr._("end a staff member's role: signed out at once, links and API tokens revoked"),
        description=tr._("Ends the role (LGPD Art. 46): the member's console sessions end at once and their sign-in "
                         "links and personal API tokens stop working. The audit log keeps who did it."),
    )
    remove.add_argument("telegram_id", type=whole_number(tr), metavar=tr.pgettext("metavar", "TELEGRAM_ID"),
                        help=tr._("the person's Telegram user id"))
    remove.add_argument("--municipality", metavar=tr.pgettext("metavar", "SLUG"), default=None,
                        help=tr._("the municipality where the role is held; omitted: the role held in every "
                                  "municipality of the deployment"))
    remove.set_defaults(handler=_staff_remove)


async def _db_upgrade(_args: argparse.Namespace) -> int:
    settings = get_settings()
    applied = await asyncio.to_thread(migrate.upgrade, settings.database_url)
    async with database(settings.database_url) as (_engine, sessions), sessions() as session:
        await sync_municipalities(session=session, served=settings.municipalities)
    tr = cli_translator(settings)
    for migration in applied:  # the migration's own note (developers', in English) after the translated frame
        print(tr._("Applied migration {revision}: {description}").format(
            revision=migration.revision, description=migration.description))
    print(tr._("Database at migration {revision}.").format(revision=migrate.head_revision()))
    return 0


async def _staff_add(args: argparse.Namespace) -> int:
    settings = get_settings()
    await migrate.check_schema(settings.database_url)
    if args.municipality is not None and args.municipality not in settings.municipalities:
        raise unknown_municipality(cli_translator(settings), option="--municipality", value=args.municipality,
                                   served=settings.municipalities)
    async with database(settings.database_url) as (_engine, sessions), sessions() as session:
        await sync_municipalities(session=session, served=settings.municipalities)
        member = await add_staff(
            session=session, telegram_user_id=args.telegram_id, role=Role(args.role), name=args.name, actor="cli",
            municipality=args.municipality,
        )
    tr = cli_translator(settings)
    print(tr._("Staff member {telegram_id} has role {role}.").format(
        telegram_id=member.telegram_user_id, role=tr._(ROLE_LABELS[member.role])))
    return 0


async def _staff_remove(args: argparse.Namespace) -> int:
    settings = get_settings()
    await migrate.check_schema(settings.database_url)
    tr = cli_translator(settings)
    if args.municipality is not None and args.municipality not in settings.municipalities:
        raise unknown_municipality(tr, option="--municipality", value=args.municipality,
                                   served=settings.municipalities)
    async with database(settings.database_url) as (_engine, sessions), sessions() as session:
        try:
            ended = await end_role(session=session, telegram_user_id=args.telegram_id,
                                   municipality=args.municipality, actor="cli", now=utcnow())
        except NoSuchRole:
            print(tr._("Staff member {telegram_id} has no active role there. Nothing was changed.").format(
                telegram_id=args.telegram_id), file=sys.stderr)
            return 1
    print(tr._("The role {role} of staff member {telegram_id} has ended: {sessions} console sessions signed out, "
               "{links} sign-in links and {tokens} API tokens revoked.").format(
        role=ended.role, telegram_id=ended.telegram_user_id, sessions=ended.sessions_ended,
        links=ended.links_revoked, tokens=ended.tokens_revoked))
    return 0
