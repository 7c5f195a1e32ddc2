"""Covered facts: a row the application may derive a legal effect from only while it is exactly its latest leaf.

A tacit ciência, for instance, follows from the moment a notice was delivered (CTB Art. 282-A §2 model): the
scan derives it only from the delivery row and the notice row as the log holds them, so a value changed in the
database behind the application's back (which ``notice verify`` reports) never becomes a new act.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Connection, select

from models.tlog.coverage import COVERED, leaf_data, leaf_version, row_values
from models.tlog.tables import LogEntry

_E = LogEntry.__table__.c  # type: ignore[attr-defined]


def is_logged(connection: Connection, table: str, row_id: int) -> bool:
    """Whether the row as stored now is its latest log entry (False for an uncovered table or an odd value)."""
    spec = COVERED.get(table)
    if spec is None:
        return False
    latest = connection.execute(select(_E.data).where(_E.tbl == table, _E.row_id == row_id)
                                .order_by(_E.idx.desc()).limit(1)).scalar()
    clause = spec.clause()
    try:
        row = connection.execute(select(clause).where(clause.c.id == row_id)).mappings().first()
        version = 1 if latest is None else leaf_version(bytes(latest))
        current = None if row is None else leaf_data(table, row_id, row_values(spec, row, version), version)
    except (ValueError, TypeError, AssertionError):
        return False  # a value the application would not have written
    return latest is not None and current is not None and bytes(latest) == current


def all_logged(connection: Connection, rows: Iterable[tuple[str, int]]) -> bool:
    """Whether every one of ``(table, id)`` is its latest log entry."""
    return all(is_logged(connection, table, row_id) for table, row_id in rows)
