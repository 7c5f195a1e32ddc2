"""Cells that a spreadsheet cannot run: the OWASP defence against CSV (formula) injection.

A name typed as ``=cmd|' /C calc'!A0`` or ``@SUM(1+1)*cmd|…`` is stored as typed (it is what the person sent),
but once exported to a CSV or XLSX file a clerk opens, Excel or LibreOffice would run it. Every export writes
its cells through :func:`safe_cell` (or :func:`safe_row`, :func:`csv_text`): a text starting with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return gets a leading apostrophe, which spreadsheets show as text and never
evaluate (https://owasp.org/www-community/attacks/CSV_Injection). Numbers, dates and booleans pass as they are;
only texts are changed. openpyxl also treats a text starting with ``=`` as a formula, so XLSX needs this too.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a cell as a formula (OWASP)."""


def safe_cell(value: object) -> object:
    """The value, with a text that could start a formula made inert by a leading apostrophe."""
    if isinstance(value, str) and value.startswith(FORMULA_TRIGGERS):
        return "'" + value
    return value


def safe_row(values: Iterable[object]) -> list[object]:
    """Every cell of a row through :func:`safe_cell`."""
    return [safe_cell(value) for value in values]


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
