"""``python -m bot prazo RULE --inicio DATE``: compute any rulebook deadline and show how it was counted.

A staff tool for the city hall's clerks, so it prints in the CLI locale (BALCAO_CLI_LOCALE, pt_BR by default):
the final date as people say it, the rule and its article, the kind of day, and every day not counted with the reason.
"""

from __future__ import annotations

import argparse
import datetime as dt
from zoneinfo import ZoneInfo

from bot.cli.errors import CommandError, unknown_municipality
from bot.cli.output import cli_translator
from core.i18n import Translator
from core.municipality import cities_of
from core.settings import get_settings
from models import when
from models.calendar import BusinessCalendar
from models.columns import utcnow
from models.deadlines import compute_deadline, explain
from models.invalid_input import InvalidInput
from models.rulebooks import RULES, DeadlineChoices, Unit, UnknownRule, get_rule


def _rule_list() -> str:
    width = max(len(rule.id) for rule in RULES)
    return "\n".join(f"  {rule.id:<{width}}  {rule.citation}" for rule in RULES)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser], tr: Translator) -> None:
    """Add ``prazo`` to the command line."""
    parser = subparsers.add_parser(
        "prazo",
        help=tr._("compute a rulebook deadline from a start date and show how it was counted"),
        description=tr._("Compute a deadline of the rulebooks from the date of its starting event (excluded from "
                         "the count), with national, Mato Grosso and the municipality's holidays, and its short "
                         "office days (Lei 9.784/1999 Art. 66 §1; BALCAO_MUNICIPALITIES_FILE or "
                         "BALCAO_MUNICIPAL_HOLIDAYS)."),
        epilog=tr._("rules:") + "\n" + _rule_list(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("rule", metavar=tr.pgettext("metavar", "RULE"),
                        help=tr._("deadline id, e.g. cp-43-recurso (listed below)"))
    parser.add_argument(
        "--inicio",
        required=True,
        metavar=tr.pgettext("metavar", "DATE"),
        help=tr._("date of the starting event: YYYY-MM-DD or DD/MM/YYYY (add HH:MM for deadlines in hours)"),
    )
    parser.add_argument(
        "--leitura",
        metavar=tr.pgettext("metavar", "READING"),
        help=tr._("for an ambiguous rule, count this reading instead of the configured one"),
    )
    parser.add_argument(
        "--municipio",
        metavar=tr.pgettext("metavar", "SLUG"),
        help=tr._("count with this municipality's holidays and short office days (default: the one whose law the "
                  "rule is, else the default municipality)"),
    )
    parser.set_defaults(handler=_prazo)


def parse_start(text: str, tz: ZoneInfo, tr: Translator, *, now: dt.datetime) -> dt.date:
    """A day (``2027-01-04``, ``04/01/2027``, ``ontem``) or, with an hour, an aware date-time in ``tz``.

    Both read by :mod:`models.when`, as everywhere else (``04/01/2027 14h30``, ``ontem 9.30``).

    Raises:
        CommandError: not a valid date (said in ``tr``'s language).
    """
    today = when.municipal_today(tz, now=now)
    try:
        return when.parse_day(text, today=today, towards="past")
    except InvalidInput:
        pass
    try:
        return when.parse_moment(text, now=now, tz=tz, towards="past").astimezone(tz)
    except InvalidInput:
        raise CommandError(tr._('--inicio "{value}": write YYYY-MM-DD or DD/MM/YYYY (with HH:MM for a deadline in '
                                'hours)').format(value=text)) from None


async def _prazo(args: argparse.Namespace) -> int:
    settings = get_settings()
    tr = cli_translator(settings)
    try:
        rule = get_rule(args.rule.strip().lower())
    except UnknownRule:
        raise CommandError(tr._('There is no rule "{rule}". The rules are:\n{rules}').format(
            rule=args.rule, rules=_rule_list())) from None
    if args.leitura is not None and args.leitura not in {reading.key for reading in rule.readings}:
        keys = ", ".join(reading.key for reading in rule.readings)
        raise CommandError(tr._('{rule} has no reading "{reading}"; use one of: {readings}').format(
            rule=rule.id, reading=args.leitura, readings=keys))
    served = settings.municipalities
    if args.municipio is not None and args.municipio not in served:
        raise unknown_municipality(tr, option="--municipio", value=args.municipio, served=served)
    owner = served.with_rulebook(rule.rulebook)
    city = cities_of(settings).of(args.municipio or (owner.slug if owner is not None else None))
    start = parse_start(args.inicio, city.tz, tr, now=utcnow())
    if rule.readings[0].unit is Unit.HOURS and not isinstance(start, dt.datetime):
        raise CommandError(tr._("{rule} is counted in hours: give --inicio with a time, e.g. 2027-01-04T14:30").format(
            rule=rule.id))
    calendar = BusinessCalendar.of(city)
    choices = DeadlineChoices.of(city.readings)
    result = compute_deadline(rule_id=rule.id, start=start, calendar=calendar, choices=choices, reading=args.leitura)
    alternatives = tuple(
        compute_deadline(rule_id=rule.id, start=start, calendar=calendar, choices=choices, reading=reading.key)
        for reading in rule.readings
        if reading.key != result.reading.key
    )
    print("\n".join(explain(result, cli_translator(settings), alternatives=alternatives)))
    return 0
