"""``payment record`` and ``payment import``: a fine paid, from the DAM's receipt or the bank's file (CP Art. 34 IV).

The operator's shell acts as the city hall (no staff role to check); the console's Pagamentos page is the staff
members' way, with their role checked on every call. Both change nothing on a repeat.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from bot.cli.errors import CommandError, file_problem
from bot.cli.output import cli_translator
from core import migrate
from core.db import database
from core.i18n import Translator
from core.municipality import cities_of
from core.settings import get_settings
from models.columns import utcnow
from models.municipalities import sync_municipalities
from models.payments.recording import (
    PaymentFileRefused,
    PaymentRefused,
    import_payments,
    parse_amount,
    parse_day,
    record_payment,
)
from models.when import municipal_today

ACTOR = "cli"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser], tr: Translator) -> None:
    """Add ``payment record`` and ``payment import`` to the command line."""
    payment = subparsers.add_parser("payment", help=tr._("fines paid: record one, or import the bank's file"))
    actions = payment.add_subparsers(dest="action", required=True, metavar=tr.pgettext("metavar", "ACTION"))
    one = actions.add_parser("record", help=tr._("record that a notice's fine was paid"),
                             description=tr._("Records the payment of a notice's fine (CP Art. 34 IV); the same "
                                              "payment again changes nothing."))
    one.add_argument("number", metavar=tr.pgettext("metavar", "NUMBER"), help=tr._("the notice's number or PIX txid"))
    one.add_argument("--valor", required=True, metavar=tr.pgettext("metavar", "AMOUNT"),
                     help=tr._("amount paid, e.g. 378,00"))
    one.add_argument("--data", required=True, metavar=tr.pgettext("metavar", "DATE"),
                     help=tr._("day of the payment (YYYY-MM-DD or DD/MM/YYYY)"))
    one.add_argument("--id-transacao", required=True, metavar=tr.pgettext("metavar", "ID"),
                     help=tr._("the bank's id of the payment"))
    one.set_defaults(handler=_record)
    bulk = actions.add_parser("import", help=tr._("import the bank's payment file (CSV)"),
                              description=tr._("Columns: data_pagamento, valor, txid (or notificacao), id_transacao. "
                                               "A bad row changes nothing; the same file again changes nothing."))
    bulk.add_argument("file", type=Path, metavar=tr.pgettext("metavar", "FILE"))
    bulk.set_defaults(handler=_import)


async def _record(args: argparse.Namespace) -> int:
    settings = get_settings()
    tr = cli_translator(settings)
    await migrate.check_schema(settings.database_url)
    async with database(settings.database_url) as (_engine, sessions), sessions() as session:
        await sync_municipalities(session=session, served=settings.municipalities)
        try:
            recorded = await record_payment(
                session=session, cities=cities_of(settings), number=args.number, amount=parse_amount(args.valor),
                paid_on=parse_day(args.data, today=municipal_today(settings.tz, now=utcnow())),
                reference=args.id_transacao, actor=ACTOR, staff_telegram_id=None, now=utcnow())
        except PaymentRefused as refused:
            raise CommandError(refused.render(tr)) from None
    if recorded.created:
        print(tr._("Payment of {number} recorded.").format(number=recorded.notice.number))
    else:
        print(tr._("Payment of {number} was already recorded; nothing changed.").format(
            number=recorded.notice.number))
    return 0


async def _import(args: argparse.Namespace) -> int:
    settings = get_settings()
    tr = cli_translator(settings)
    try:
        raw = await asyncio.to_thread(args.file.read_bytes)
        text = raw.decode("utf-8-sig")
    except OSError as error:
        raise CommandError(tr._("{file}: {reason}").format(file=args.file, reason=file_problem(tr, error))) from None
    except UnicodeDecodeError:
        raise CommandError(tr._("{file}: not UTF-8; export it again as UTF-8 CSV").format(file=args.file)) from None
    await migrate.check_schema(settings.database_url)
    async with database(settings.database_url) as (_engine, sessions), sessions() as session:
        await sync_municipalities(session=session, served=settings.municipalities)
        try:
            result = await import_payments(session=session, cities=cities_of(settings), content=text, actor=ACTOR,
                                           staff_telegram_id=None, now=utcnow())
        except PaymentFileRefused as refused:
            lines = [tr._("Line {line}: {reason}").format(line=line, reason=reason.render(tr))
                     for line, reason in refused.problems]
            raise CommandError("\n".join([*lines, tr._("Nothing was imported.")])) from None
    print(tr._("{recorded} payments recorded, {already} already known.").format(
        recorded=result.recorded, already=result.already))
    return 0
