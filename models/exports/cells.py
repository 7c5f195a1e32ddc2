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
import io
from collections.abc import Iterable, Sequence

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠")
"""First characters that make a spreadsheet read a cell as a formula (OWASP, and their full-width forms)."""

Cell = str | int | float | dt.date | dt.datetime | None
"""What an export's cell may hold."""


def neutralise(value: str) -> str:
    """The text with a leading apostrophe when a spreadsheet would read it as a formula."""
    return "'" + value if value.startswith(FORMULA_TRIGGERS) else value


def safe_cell(value: object) -> object:
    """The value, with a text that could start a formula made inert by a leading apostrophe."""
    return neutralise(value) if isinstance(value, str) else value


def safe_row(values: Iterable[object]) -> list[object]:
    """Every cell of a row through :func:`safe_cell`."""
    return [safe_cell(value) for value in values]


def cell_text(value: Cell) -> str:
    """A cell as text for CSV: numbers as they are, dates in ISO 8601, texts neutralised, None empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
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
