"""argparse's own texts ("usage: ", "options", "the following arguments are required: %s"…) in the CLI's language.

argparse marks its texts for gettext (the Python docs' argparse HOWTO, "How to translate the argparse output"), and
translates them with ``gettext.gettext``: the process-wide ``messages`` domain, whose language comes from the
LANGUAGE/LC_ALL/LANG environment, not from ``BALCAO_CLI_LOCALE``, and which would also capture every other library's
``gettext`` calls. argparse looks its name ``_`` up in its module each time it translates (some texts when a parser
is built, the rest when help is printed or the command line is refused), so :func:`argparse_in` binds that one name
to the CLI's translator while the CLI builds its parser and reads its command line, and gives the old one back after.

The msgids are listed here, marked with ``N_``, so the catalogs carry them (``locales/<loc>/LC_MESSAGES/cli.po``)
and ``python -m bot.catalogs missing`` checks them. Only the texts our parsers can produce are listed: none of them
uses ``nargs=N``, ``FileType``, a version action or a mutually exclusive group, and a type that can refuse a value
says why itself (:func:`bot.cli.numbers.whole_number`) instead of argparse's "invalid int value".
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager

from core.i18n import N_, Translator

ARGPARSE_TEXTS: tuple[str, ...] = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"),
    N_("expected one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("ignored explicit argument %r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
)
"""What argparse itself says to the person at the terminal (its help headings and its usage errors)."""


@contextmanager
def argparse_in(tr: Translator) -> Iterator[None]:
    """Speak ``tr``'s language in argparse's own texts meanwhile (the parser's construction and its parsing).

    Args:
        tr: the CLI's translator.

    Yields:
        Nothing; on exit argparse translates as before.
    """
    names = vars(argparse)
    previous = names["_"]
    names["_"] = tr._
    try:
        yield
    finally:
        names["_"] = previous
