"""``import drivers FILE.csv`` and ``driver link-code CPF``: the driver registry (Lei 1.533/2020) for staff.

The import validates every row first and applies nothing when any row is bad (each reported with its line
number and reason); re-importing the same file changes nothing. The link code is shown once: staff send the
deep link (or the code) to the driver, who opens it in Telegram to link their account.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from telegram import Bot
from telegram.error import TelegramError

from bot.cli.errors import CommandError
from bot.cli.output import cli_translator
from core import migrate
from core.db import database
from core.i18n import Translator
from core.municipality import cities_of
from core.settings import Settings, get_settings
from models.columns import utcnow
from models.drivers.identifiers import InvalidIdentifier
from models.drivers.importing import import_drivers
from models.drivers.linking import DriverNotFound, IssuedCode, create_link_code
from models.drivers.registry import registry_city
from models.municipalities import sync_municipalities
from models.when import municipal_today

logger = logging.getLogger("balcao.cli.drivers")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser], tr: Translator) -> None:
    """Add ``import drivers`` and ``driver link-code`` to the command line."""
    importing = subparsers.add_parser("import", help=tr._("import a registry file"))
    what = importing.add_subparsers(dest="import_what", metavar=tr.pgettext("metavar", "WHAT"), required=True)
    drivers = what.add_parser(
        "drivers",
        help=tr._("import the SMFO's driver registry (CSV)"),
        description=tr._("UTF-8 CSV with a header row, ';' or ',' between fields, columns: cpf, nome, telefone, "
                         "cnh_numero, cnh_categoria, cnh_emissao, placa, renavam, ano_modelo, autorizacao_numero, "
                         "autorizacao_emissao, autorizacao_validade, vistoria_data, vistoria_resultado. Dates "
                         "YYYY-MM-DD or DD/MM/YYYY. Any bad row (reported with its line number) stops the whole "
                         "import: nothing is changed."),
    )
    drivers.add_argument("file", type=Path, metavar=tr.pgettext("metavar", "FILE.csv"),
                         help=tr._("the registry, as exported from the spreadsheet"))
    drivers.add_argument("--dry-run", action="store_true", help=tr._("only check the file and count the changes"))
    drivers.set_defaults(handler=_import_drivers)

    driver = subparsers.add_parser("driver", help=tr._("a registered driver"))
    actions = driver.add_subparsers(dest="driver_action", metavar=tr.pgettext("metavar", "ACTION"), required=True)
    link_code = actions.add_parser(
        "link-code",
        help=tr._("a one-time link for the driver to link Telegram"),
        description=tr._("Prints a random one-time code and the deep link https://t.me/<bot>?start=link-<code> "
                         "(valid for BALCAO_DRIVER_LINK_CODE_HOURS hours, 72 by default). Give it to the driver "
                         "only."),
    )
    link_code.add_argument("cpf", metavar="CPF", help=tr._("the driver's CPF, with or without dots and dash"))
    link_code.set_defaults(handler=_link_code)


def _read(path: Path, tr: Translator) -> str:
    try:
        return path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise CommandError(tr._("{path}: no such file").format(path=path)) from None
    except UnicodeDecodeError:
        raise CommandError(tr._("{path} is not UTF-8: export it again as UTF-8 CSV").format(path=path)) from None


async def _import_drivers(args: argparse.Namespace) -> int:
    settings = get_settings()
    tr = cli_translator(settings)
    text = _read(args.file, tr)
    await migrate.check_schema(settings.database_url)
    async with database(settings.database_url) as (_engine, sessions), sessions() as session:
        await sync_municipalities(session=session, served=settings.municipalities)
        report = await import_drivers(
            session=session,
            text=text,
            actor="cli",
            cities=cities_of(settings),
            today=municipal_today(settings.tz, now=utcnow()),
            dry_run=args.dry_run,
        )
    for problem in report.errors:
        print(f"{args.file}:{problem.line}: {problem.render(tr)}", file=sys.stderr)
    for problem in report.warnings:
        print(tr._("{file}:{line}: warning: {reason}").format(file=args.file, line=problem.line,
                                                             reason=problem.render(tr)))
    if report.errors:
        bad = len({problem.line for problem in report.errors})
        raise CommandError(
            tr.ngettext("{n} bad row in {file}: nothing was imported.", "{n} bad rows in {file}: nothing was imported.",
                        bad).format(n=bad, file=args.file)
        )
    if args.dry_run:
        summary = tr._(
            "{file}: {rows} rows; {created} drivers would be added, {updated} updated, {unchanged} unchanged."
        )
    else:
        summary = tr._("{file}: {rows} rows; {created} drivers were added, {updated} updated, {unchanged} unchanged.")
    print(summary.format(file=args.file, rows=report.rows, created=report.created, updated=report.updated,
                         unchanged=report.unchanged))
    return 0


async def _bot_username(settings: Settings) -> str | None:
    """The bot's username from getMe, when a token is configured (None offline or on any error)."""
    if settings.telegram_token is None:
        return None
    bot = Bot(settings.telegram_token.get_secret_value(), base_url=f"{settings.telegram_api_url}/bot")
    try:
        async with bot:
            return bot.username
    except (TelegramError, OSError) as exc:  # the message may quote the token (InvalidToken): log only its kind
        logger.warning("could not ask Telegram for the bot's username (%s)", type(exc).__name__)
        return None


async def _link_code(args: argparse.Namespace) -> int:
    settings = get_settings()
    tr = cli_translator(settings)
    await migrate.check_schema(settings.database_url)
    async with database(settings.database_url) as (_engine, sessions), sessions() as session:
        await sync_municipalities(session=session, served=settings.municipalities)
        try:
            issued: IssuedCode = await create_link_code(
                session=session, cpf=args.cpf, actor="cli", now=utcnow(), city=registry_city(cities_of(settings))
            )
        except InvalidIdentifier as exc:
            raise CommandError(exc.render(tr)) from None
        except DriverNotFound as exc:
            raise CommandError(tr._("No driver with this CPF in the registry; import the registry first "
                                     "(python -m bot import drivers FILE.csv)")) from exc
    expires = issued.expires_at.astimezone(settings.tz).strftime("%d/%m/%Y %H:%M")
    print(tr._("One-time link code for {name} (CPF {cpf}): {code}").format(
        name=issued.driver_name, cpf=issued.cpf_masked, code=issued.code))
    print(tr._("Valid until {expires} ({timezone}); it works once.").format(
        expires=expires, timezone=settings.timezone))
    username = await _bot_username(settings)
    if username:
        link = issued.deep_link(username)
    else:
        link = tr._("https://t.me/<your bot's username>?start={payload}").format(payload=issued.start_payload)
    print(tr._("Link: {link}").format(link=link))
    return 0
