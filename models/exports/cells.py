"""Cells of a CSV or XLSX export, neutralised against formula injection (CSV injection, OWASP).

A text a citizen typed, such as ``=HYPERLINK(...)`` or ``+1+cmd|' /C calc'!A0``, would run as a formula when a
clerk opens the export in a spreadsheet. Every text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return (or their full-width forms) gets a leading apostrophe, which spreadsheets show as text.
Written here for the console's exports; meant to be the one neutraliser every export uses.
"""

from __future__ import annotations

import datetime as dt

TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠")

Cell = str | int | float | dt.date | dt.datetime | None


def neutralise(value: str) -> str:
    """The text with a leading apostrophe when a spreadsheet would read it as a formula."""
    return "'" + value if value.startswith(TRIGGERS) else value


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
