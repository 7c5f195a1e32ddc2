"""Issue 10 item 8: names like ``=cmd|…`` or ``@SUM(…)`` never run as formulas in an exported spreadsheet."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from decimal import Decimal
from pathlib import Path

import pytest

from models.exports.cells import csv_text, safe_cell, safe_row

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ["=cmd|' /C calc'!A0", "@SUM(1+1)*cmd|' /C calc'!A0", "+55 65 9999", "-2+3", "\t=1+1", "\r=1+1",
           "=HYPERLINK(\"http://x\",\"y\")"]


@pytest.mark.parametrize("value", HOSTILE)
def test_a_text_that_could_start_a_formula_is_made_inert(value: str) -> None:
    assert safe_cell(value) == "'" + value


def test_other_values_pass_unchanged() -> None:
    values = ["Maria Aparecida", "São João = bom", "", 42, -3, Decimal("-1.50"), dt.date(2026, 1, 4), None, True]
    assert safe_row(values) == values


def test_a_csv_export_reads_back_with_every_hostile_cell_quoted() -> None:
    text = csv_text(["nome", "valor"], [[name, -5] for name in HOSTILE])
    rows = list(csv.reader(io.StringIO(text), delimiter=";"))
    assert rows[0] == ["nome", "valor"]
    assert [row[0] for row in rows[1:]] == ["'" + name for name in HOSTILE]
    assert {row[1] for row in rows[1:]} == {"-5"}  # a number stays a number


def test_every_spreadsheet_writer_in_the_code_goes_through_the_safe_cells() -> None:
    """Any module that writes CSV or XLSX must use models.exports.cells (the demo registry is the import format,
    made of fixed demo data and read back by the import, never opened by staff)."""
    allowed = {"models/exports/cells.py", "bot/sandbox/demo_data.py"}
    writer = re.compile(r"csv\.(writer|DictWriter)\(|openpyxl|xlsxwriter|XlsxWriter")
    offenders = []
    for package in ("bot", "handlers", "models", "notifications"):
        for path in (ROOT / package).rglob("*.py"):
            relative = path.relative_to(ROOT).as_posix()
            source = path.read_text(encoding="utf-8")
            if writer.search(source) and relative not in allowed and "models.exports.cells" not in source:
                offenders.append(relative)
    assert offenders == []
