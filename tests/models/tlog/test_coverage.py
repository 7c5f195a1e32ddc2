"""Every column of every table is decided on: covered by the log, or listed as not covered with its reason (issue
23, item 2). A column from which a deadline, a ciência, an authorship or an access right follows, added later by
another area's migration, must be decided on, not silently left out of the tamper evidence."""

from __future__ import annotations

from pathlib import Path

from sqlmodel import SQLModel

import models  # noqa: F401  (every table)
from models.tlog.coverage import COVERED, NOT_COVERED, UNCOVERED_TABLES

README = Path(__file__).resolve().parents[3] / "README.md"


def test_every_column_of_a_covered_table_is_covered_or_explained() -> None:
    for name, spec in COVERED.items():
        columns = {column.name for column in SQLModel.metadata.tables[name].columns} - {"id"}
        explained = {column for table, column in NOT_COVERED if table == name}
        assert columns == set(spec.columns) | explained, name
        assert not set(spec.columns) & explained, name


def test_every_table_is_covered_or_listed_with_its_reason() -> None:
    tables = set(SQLModel.metadata.tables)
    assert tables == set(COVERED) | set(UNCOVERED_TABLES), tables ^ (set(COVERED) | set(UNCOVERED_TABLES))
    assert not set(COVERED) & set(UNCOVERED_TABLES)
    assert all(reason.strip() for reason in [*UNCOVERED_TABLES.values(), *NOT_COVERED.values()])


def test_the_columns_with_a_legal_effect_named_in_issue_23_are_covered() -> None:
    # CP Art. 32 and L13460 Art. 16 (deadlines), L13460 Art. 12 (answer), Art. 10 §7 (who reads the author).
    for table, column in [("citizen_case", "received_at"), ("citizen_case", "due_on"), ("citizen_case", "answer"),
                          ("citizen_case", "status"), ("case_attachment", "content"), ("case_attachment", "sha256"),
                          ("staff_member", "role"), ("staff_member", "active"), ("case_author", "person_id")]:
        assert column in COVERED[table].columns, (table, column)


def test_the_readme_lists_every_table_outside_the_log_and_every_column_left_out() -> None:
    text = README.read_text(encoding="utf-8")
    for table in UNCOVERED_TABLES:
        assert f"`{table}`" in text, table
    for table, column in NOT_COVERED:
        assert f"`{table}.{column}`" in text, (table, column)
