"""Cells that a spreadsheet cannot run: the OWASP defence against CSV (formula) injection.

A name typed as ``=cmd|' /C calc'!A0`` or ``@SUM(1+1)*cmd|…`` is stored as typed (it is what the person sent),
but once exported to a CSV or XLSX file a clerk opens, Excel or LibreOffice would run it. Every export writes
its cells through :func:`safe_cell` (or :func:`safe_row`, :func:`csv_text`, :func:`cell_text`): a text starting
with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return (or their full-width forms, which some spreadsheets
fold into the ASCII ones) gets a leading apostrophe, which spreadsheets show as text and never evaluate
(https://owasp.org/www-community/attacks/CSV_Injection). Numbers, dates and booleans pass as they are; only
texts are changed. openpyxl and XlsxWriter also treat a text starting with ``=`` as a formula, so XLSX needs
this too.
"""

from __future__ import annotations

import csv
import datetime as dt
import enum
import io
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from core.i18n import Translator

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠")
"""First characters that make a spreadsheet read a cell as a formula (OWASP, and their full-width forms)."""

Cell = str | int | float | Decimal | dt.date | dt.datetime | enum.Enum | None
"""What an export's cell may hold: an enum member is a code the writer names in the reader's language, a Decimal an
amount of money."""


def neutralise(value: str) -> str:
    """The text with a leading apostrophe when a spreadsheet would read it as a formula."""
    return "'" + value if value.startswith(FORMULA_TRIGGERS) else value


def safe_cell(value: object) -> object:
    """The value, with a text that could start a formula made inert by a leading apostrophe."""
    return neutralise(value) if isinstance(value, str) else value


def safe_row(values: Iterable[object]) -> list[object]:
    """Every cell of a row through :func:`safe_cell`."""
    return [safe_cell(value) for value in values]


Names = Mapping[type[enum.Enum], Mapping[Any, str]]
"""The msgid of each code an export may hold, by its enum: what a spreadsheet shows instead of the code."""


def cell_text(value: Cell, *, tr: Translator, names: Names) -> str:
    """A cell as a person reads it in a spreadsheet of their language, for CSV.

    Codes by their names, amounts with two decimals ("504,00"), moments in the civil time zone to the minute
    ("01/12/2026 16:36"), dates as ``01/12/2026``, yes or no in words, texts neutralised, None empty.

    Raises:
        KeyError: a code whose enum has no names (a test exports every kind of row, so a new code is named).
    """
    if value is None:
        return ""
    if isinstance(value, enum.Enum):
        return neutralise(tr._(names[type(value)][value]))
    if isinstance(value, bool):
        return tr._("yes") if value else tr._("no")
    if isinstance(value, Decimal):
        return tr.amount(value)
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, dt.datetime):
        return f"{tr.short_date(value)} {tr.time(value)}"
    if isinstance(value, dt.date):
        return tr.short_date(value)
    return neutralise(value)


def csv_text(header: Sequence[str], rows: Iterable[Iterable[object]], *, delimiter: str = ";") -> str:
    """A CSV file whose cells cannot run as formulas.

    CRLF line endings (the csv module's), ``;`` by default as Brazilian spreadsheets expect.
    """
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter)
    writer.writerow(safe_row(header))
    for row in rows:
        writer.writerow(safe_row("" if value is None else value for value in row))
    return out.getvalue()
