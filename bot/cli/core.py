"""Core commands: ``db upgrade``, ``staff add``, ``staff remove``; ``run`` and ``demo`` are in ``bot.cli.running``."""

from __future__ import annotations

import argparse
import asyncio
import sys

from bot.cli.errors import CommandError, unknown_municipality
from bot.cli.notices import parse_day
from bot.cli.numbers import whole_number
from bot.cli.output import cli_translator
from core import migrate
from core.db import database
from core.i18n import Translator
from core.municipalities import ACT_KINDS
from core.settings import get_settings
from models.authorities import grant_authority
from models.columns import utcnow
from models.console.roles import NoSuchRole, end_role
from models.invalid_input import InvalidInput
from models.municipalities import sync_municipalities
from models.people import ROLE_LABELS, Role, add_staff
from models.when import municipal_today


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
    add.add_argument("--registration", default="", metavar=tr.pgettext("metavar", "NUMBER"),
                     help=tr._("registration number (matrícula), named on every act the person signs"))
    add.add_argument("--act", action="append", default=[], choices=list(ACT_KINDS),
                     help=tr._("a kind of act the person is the competent authority for, in the office the "
                               "municipalities file sets (repeat for several)"))
    add.add_argument("--designation-kind", default="Portaria", metavar=tr.pgettext("metavar", "KIND"),
                     help=tr._("the designation act (default: Portaria)"))
    add.add_argument("--designation-number", default="", metavar=tr.pgettext("metavar", "NUMBER"),
                     help=tr._("the designation act's number, e.g. 12/2026 (required to draw up notices, CP Art. 12)"))
    add.add_argument("--designation-date", default=None, metavar=tr.pgettext("metavar", "DATE"),
                     help=tr._("the designation act's date: YYYY-MM-DD or DD/MM/YYYY"))
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
    tr = cli_translator(settings)
    designated_on = parse_day(args.designation_date, tr, today=municipal_today(settings.tz, now=utcnow()),
                              option="--designation-date")
    places = ([settings.municipalities[args.municipality]] if args.municipality
              else list(settings.municipalities.values()))  # a deployment-wide member: the office of each one
    async with database(settings.database_url) as (_engine, sessions), sessions() as session:
        await sync_municipalities(session=session, served=settings.municipalities)
        try:
            member = await add_staff(
                session=session, telegram_user_id=args.telegram_id, role=Role(args.role), name=args.name,
                actor="cli", municipality=args.municipality, registration=args.registration,
            )
        except InvalidInput as refused:
            raise CommandError(refused.render(tr)) from None
        granted = []
        for act in dict.fromkeys(args.act):
            for place in places:
                try:
                    held = await grant_authority(
                        session=session, member=member, act=act, municipality=place, actor="cli",
                        designation_kind=args.designation_kind, designation_number=args.designation_number,
                        designation_on=designated_on)
                except InvalidInput as refused:
                    raise CommandError(tr._("{option} {value}: {reason}").format(
                        option="--act", value=act, reason=refused.render(tr))) from None
                granted.append(f"{held.title} ({held.office})")
    print(tr._("Staff member {telegram_id} has role {role}.").format(
        telegram_id=member.telegram_user_id, role=tr._(ROLE_LABELS[member.role])))
    for line in granted:
        print(tr._("Competent as: {authority}").format(authority=line))
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
