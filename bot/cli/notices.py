"""``python -m bot notice issue …`` (issue a penalty notice) and ``python -m bot notice verify`` (check the log).

Staff tools, so they print in the CLI locale (BALCAO_CLI_LOCALE, pt_BR by default). ``notice issue`` takes one
flag per element of the CP Art. 25 (notificação preliminar) or Art. 34 (auto de infração) — Lei
1.533/2020 autos the same, Art. 22 — and refuses a missing one naming its article (exit 2). ``notice verify``
checks the transparency log (:mod:`models.tlog.verification`), optionally against a head kept elsewhere
(``--head FILE``) and the witness's newest head (``--witness URL`` or ``BALCAO_LOG_WITNESS_URL``), and exits 1
naming each thing that does not verify.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
from decimal import Decimal, InvalidOperation
from pathlib import Path

from sqlmodel import select

from bot.cli.errors import CommandError, file_problem
from bot.cli.numbers import whole_number
from bot.cli.output import cli_translator
from core import migrate
from core.db import database
from core.i18n import N_, Translator
from core.municipality import Publication, cities_of
from core.settings import get_settings
from models import when
from models.columns import utcnow
from models.invalid_input import InvalidInput
from models.municipalities import sync_municipalities
from models.notices.documents import offender_document
from models.notices.elements import NoticeInput, NoticeRefused
from models.notices.issuing import IssuedNotice, issue_notice, require_issuer
from models.notices.status import notice_by_number
from models.notices.tables import DeliveryState, NoticeDelivery, NoticeType
from models.people import PermissionDenied, Role
from models.rulebooks.catalogue import RULEBOOK_IDS
from models.tlog.heads import HeadFormatError, TreeHead, load_public_key, signing_key
from models.tlog.proofs import run
from models.tlog.verification import Problem, verify_log
from notifications.log_heads import WitnessError, fetch_witnessed_head


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser], tr: Translator) -> None:
    """Add ``notice`` to the command line."""
    notice = subparsers.add_parser("notice", help=tr._("penalty notices: issue one, verify the event chains"))
    actions = notice.add_subparsers(dest="notice_command", metavar=tr.pgettext("metavar", "ACTION"), required=True)
    issue = actions.add_parser(
        "issue",
        help=tr._("issue a notificação preliminar or an auto de infração (prints number, code and PDF path)"),
        description=tr._("Every element of Código de Posturas Art. 25 (preliminar) / Art. 34 (auto), or Lei "
                         "1.533/2020 Art. 22, is a flag; a missing one is refused naming its article. The fine comes "
                         "from the catalogue and BALCAO_UNIT_VALUES, doubled for a repeat offender (CP Art. 8)."),
    )
    issue.add_argument("--tipo", required=True, choices=[t.value for t in NoticeType], help=tr._("type of notice"))
    issue.add_argument("--rulebook", required=True, choices=list(RULEBOOK_IDS), help=tr._("the law applied"))
    issue.add_argument("--infracao", metavar=tr.pgettext("metavar", "CODE"),
                       help=tr._("catalogue code, e.g. CP-I-1 or L1533-26-IV"))
    issue.add_argument("--nome", metavar=tr.pgettext("metavar", "NAME"),
                       help=tr._("offender's name or a designation that identifies them"))
    issue.add_argument("--documento", metavar=tr.pgettext("metavar", "CPF_OR_CNPJ"),
                       help=tr._("offender's CPF or CNPJ (optional)"))
    issue.add_argument("--endereco", metavar=tr.pgettext("metavar", "ADDRESS"),
                       help=tr._("offender's address, for postal delivery (optional)"))
    issue.add_argument("--local", metavar=tr.pgettext("metavar", "PLACE"), help=tr._("place where it is drawn up"))
    issue.add_argument("--data", metavar=tr.pgettext("metavar", "DATE"),
                       help=tr._("day it is drawn up: YYYY-MM-DD or DD/MM/YYYY"))
    issue.add_argument("--hora", metavar="HH:MM", help=tr._("hour it is drawn up"))
    issue.add_argument("--fatos", metavar=tr.pgettext("metavar", "TEXT"), help=tr._("description of the facts"))
    issue.add_argument("--como", required=True, type=whole_number(tr), metavar=tr.pgettext("metavar", "TELEGRAM_ID"),
                       help=tr._("the staff member who issues and signs it (python -m bot staff add … --act "
                                 "autuar): their role and designation are checked"))
    issue.add_argument("--confirmar-prazo", action="store_true",
                       help=tr._("issue a Lei 1.533 auto drawn up more than 90 days ago anyway (Art. 22 §1)"))
    issue.add_argument("--testemunhas", metavar=tr.pgettext("metavar", "NAMES"),
                       help=tr._("witnesses, if any (auto, Art. 34 II)"))
    issue.add_argument("--dispositivo", metavar=tr.pgettext("metavar", "PROVISION"),
                       help=tr._("provision infringed, e.g. \"Art. 50, IX\" (required for the \"Outros\" items; "
                                 "CP Art. 34 III)"))
    issue.add_argument("--plataforma", metavar=tr.pgettext("metavar", "NAME"),
                       help=tr._("technology platform the driver works through, notified too (Lei 1.533 Art. 22)"))
    issue.add_argument("--termo", metavar=tr.pgettext("metavar", "REF"),
                       help=tr._("termo de fiscalização, if any (auto, Art. 34 III)"))
    issue.add_argument("--unidades", metavar=tr.pgettext("metavar", "UNITS"),
                       help=tr._("fine in units, only for a row the table lost"))
    issue.add_argument("--data-infracao", metavar=tr.pgettext("metavar", "DATE"),
                       help=tr._("day of the infraction, when not the day it is drawn up (its year's unit value "
                                 "applies)"))
    issue.add_argument("--quantidade", metavar="M2", help=tr._("area in m², for a row charged per m² (Tabela III)"))
    number = whole_number(tr)
    issue.add_argument("--person-telegram-id", type=number, metavar="ID", help=tr._("deliver in the bot to this user"))
    issue.add_argument("--person-id", type=number, metavar="ID", help=tr._("deliver in the bot to this person"))
    issue.add_argument("--case-id", type=number, metavar="ID", help=tr._("the representação case it comes from"))
    issue.add_argument("--preliminar", metavar=tr.pgettext("metavar", "NUMBER"),
                       help=tr._("the notificação preliminar this auto follows"))
    issue.add_argument("--pdf", metavar=tr.pgettext("metavar", "FILE"),
                       help=tr._("where to write the PDF (default: <number>.pdf)"))
    issue.set_defaults(handler=_issue)

    verify = actions.add_parser(
        "verify",
        help=tr._("check the transparency log and every row it covers (exit 1 naming what broke)"),
        description=tr._("Recomputes every leaf and the RFC 9162 tree, checks the signed heads (current, published "
                         "and --head) and that every notice, delivery, filing, attachment, opt-in, event and audit row "
                         "matches its latest entry, and every entry its row."),
    )
    verify.add_argument("--head", type=Path, metavar=tr.pgettext("metavar", "FILE"),
                        help=tr._("a tree head kept elsewhere (JSON from /verificar/sth.json or python -m bot log "
                                  "head): prove the log still extends it"))
    verify.add_argument("--public-key", type=Path, metavar=tr.pgettext("metavar", "FILE"),
                        help=tr._("the log's public key (PEM); default: the key of BALCAO_LOG_SIGNING_KEY_FILE"))
    verify.add_argument("--witness", metavar="URL",
                        help=tr._("the witness that keeps the heads written out (default: BALCAO_LOG_WITNESS_URL): "
                                  "prove the log is not older than, nor a rewrite of, its newest head"))
    verify.set_defaults(handler=_verify)


def parse_day(text: str | None, tr: Translator, *, today: dt.date, option: str = "--data") -> dt.date | None:
    """A day given to ``option``, as :func:`models.when.parse_day` reads it (``02/03/2026``, ``2026-03-02``, ``ontem``).

    Raises:
        CommandError: not a date (said in ``tr``'s language).
    """
    if text is None:
        return None
    try:
        return when.parse_day(text, today=today, towards="past")
    except InvalidInput:
        raise CommandError(tr._('{option} "{value}": write YYYY-MM-DD or DD/MM/YYYY').format(
            option=option, value=text)) from None


def parse_time(text: str | None, tr: Translator) -> dt.time | None:
    """An hour as :func:`models.when.parse_time` reads it (``09:30``, ``9h30``, ``9.30``, ``9h``).

    Raises:
        CommandError: not an hour (said in ``tr``'s language).
    """
    if text is None:
        return None
    try:
        return when.parse_time(text)
    except InvalidInput:
        raise CommandError(tr._('--hora "{value}": write HH:MM, e.g. 09:30').format(value=text)) from None


def _decimal_option(text: str | None, option: str, tr: Translator) -> Decimal | None:
    """A decimal option (a comma or a point), None when not given."""
    if not text:
        return None
    try:
        return Decimal(text.replace(",", "."))
    except InvalidOperation:
        raise CommandError(tr._('{option} "{value}": not a number').format(option=option, value=text)) from None


async def _issue(args: argparse.Namespace) -> int:
    settings = get_settings()
    tr = cli_translator(settings)
    document = None
    if args.documento:
        try:
            document = offender_document(args.documento)
        except InvalidInput as exc:
            raise CommandError(tr._("{option}: {reason}").format(option="--documento", reason=exc.render(tr))) from None
    units = _decimal_option(args.unidades, "--unidades", tr)
    quantity = _decimal_option(args.quantidade, "--quantidade", tr)
    today = when.municipal_today(settings.tz, now=utcnow())
    infraction_on = (parse_day(args.data_infracao, tr, today=today, option="--data-infracao")
                     if args.data_infracao else None)
    await migrate.check_schema(settings.database_url)
    async with database(settings.database_url) as (_engine, sessions), sessions() as session:
        await sync_municipalities(session=session, served=settings.municipalities)
        preliminar_id = None
        if args.preliminar:
            preliminar = await notice_by_number(session=session, number=args.preliminar)
            if preliminar is None:
                raise CommandError(tr._('--preliminar "{number}": there is no notice with this number').format(
                    number=args.preliminar))
            preliminar_id = preliminar.id
        data = NoticeInput(
            type=NoticeType(args.tipo), rulebook=args.rulebook, infraction_code=args.infracao,
            offender_name=args.nome, offender_document=document, offender_address=args.endereco, place=args.local,
            drawn_up_on=parse_day(args.data, tr, today=today), drawn_up_time=parse_time(args.hora, tr),
            facts=args.fatos, witnesses=args.testemunhas, inspection_term=args.termo,
            person_id=args.person_id, person_telegram_id=args.person_telegram_id, case_id=args.case_id,
            preliminar_id=preliminar_id, units=units, infraction_on=infraction_on, quantity=quantity,
            infringed_provision=args.dispositivo, platform_name=args.plataforma,
        )
        try:
            cities = cities_of(settings)
            await require_issuer(session=session, cities=cities, city=cities.default, telegram_user_id=args.como,
                                 rulebook=args.rulebook, allowed=frozenset({Role.INSPECTOR, Role.CLERK}))
            issued = await issue_notice(session=session, cities=cities, publication=Publication.of(settings), data=data,
                                        actor=f"staff:{args.como}",
                                        issuer_telegram_id=args.como, late_confirmed=args.confirmar_prazo)
        except PermissionDenied:
            raise CommandError(tr._("--como {id}: not a staff member who may issue notices under this law there.")
                               .format(id=args.como)) from None
        except NoticeRefused as exc:
            lines = [tr._("The notice was not issued:")] + [f"  - {p.render(tr)}" for p in exc.problems]
            raise CommandError("\n".join(lines)) from None
        delivery = (await session.exec(
            select(NoticeDelivery).where(NoticeDelivery.notice_id == issued.notice.id)
        )).first()
    path = Path(args.pdf or f"{issued.notice.number}.pdf")
    await asyncio.to_thread(path.write_bytes, issued.pdf)
    _print_issued(issued, delivery, path, tr)
    return 0


def _print_issued(issued: IssuedNotice, delivery: NoticeDelivery | None, path: Path, tr: Translator) -> None:
    """The issued notice's number, code and PDF, and how it will reach the person."""
    print(tr._("Number: {number}").format(number=issued.notice.number))
    print(tr._("Verification code: {code}").format(code=issued.code))
    print(tr._("PDF: {path}").format(path=path))
    if delivery is not None and delivery.state is DeliveryState.ELECTRONIC:
        print(tr._("Delivery: in the bot (the person accepted electronic notices)."))
    else:
        print(tr._("Delivery: on the list to deliver in person, by post or by edital."))


def _read_head(path: Path, tr: Translator) -> TreeHead:
    try:
        return TreeHead.from_json(json.loads(path.read_text(encoding="utf-8")))
    except OSError as exc:
        reason = file_problem(tr, exc)
    except HeadFormatError as exc:
        reason = exc.render(tr)
    except ValueError:  # not UTF-8, not JSON
        reason = tr._("not a JSON file (keep the head as python -m bot log head prints it)")
    raise CommandError(tr._("{option} {path}: {reason}").format(option="--head", path=path, reason=reason))


async def _verify(args: argparse.Namespace) -> int:
    settings = get_settings()
    tr = cli_translator(settings)
    external = _read_head(args.head, tr) if args.head else None
    installed = signing_key()
    key = installed.public_key() if installed is not None else None
    if args.public_key is not None:
        try:
            key = load_public_key(args.public_key)
        except HeadFormatError as exc:
            raise CommandError(tr._("{option}: {reason}").format(option="--public-key",
                                                                 reason=exc.render(tr))) from None
    witness_url = args.witness or settings.log_witness_url
    witness, unreachable = None, None
    if witness_url:
        try:
            witness = await fetch_witnessed_head(witness_url)
        except WitnessError as exc:
            unreachable = Problem(f"witness {witness_url}", N_("the witness cannot be read ({reason}): the log "
                                                               "cannot be compared with it"), {"reason": str(exc)})
    await migrate.check_schema(settings.database_url)
    async with database(settings.database_url) as (_engine, sessions), sessions() as session:
        await sync_municipalities(session=session, served=settings.municipalities)
        report = await run(session, lambda connection: verify_log(
            connection, key=key, external=external, witness=witness, require_timestamp=bool(settings.tsa_url),
            max_merge_delay=dt.timedelta(seconds=settings.tlog_max_merge_delay)))
    if unreachable is not None:
        report.problems.append(unreachable)
    for problem in report.problems:
        print(f"{problem.where}: {tr._(problem.problem).format(**problem.params)}")
    checked = tr._("{entries} log entries, {rows} rows and {heads} signed heads checked").format(
        entries=report.entries, rows=report.rows, heads=report.heads)
    found = tr.ngettext("{n} problem", "{n} problems", len(report.problems)).format(n=len(report.problems))
    print(f"{checked}; {found}.")
    return 0 if report.ok else 1
