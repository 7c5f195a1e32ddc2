"""Appending to the log: every commit that changed a covered row adds one leaf per row, under one lock.

The application never calls this itself. After each flush, the session notes which covered rows it inserted,
changed or deleted (:func:`_note_changes`); just before the commit it reads those rows back *from the
database* and appends a leaf for each whose values differ from its latest leaf (:func:`append_rows`). So the
leaf is exactly what the commit stores, whatever code path changed it, and a change made behind the
application's back (raw SQL) has no leaf and is found by :mod:`models.tlog.verification`.

Concurrency: appending takes the single log-sequence lock, ``SELECT … FROM tlog_state WHERE id = 1 FOR
UPDATE`` (PostgreSQL; SQLite has one writer at a time anyway), as the last thing before the commit, so it is
held only for the append itself and never while waiting for another lock (no deadlock with the notices' own
row locks). Two transactions appending at once get consecutive, distinct indices.

Efficiency: the tree's right edge (O(log n) hashes) is kept in ``tlog_state``; an append hashes O(log n)
nodes and stores the perfect subtrees it completes in ``tlog_node``; the new head is signed (Ed25519, ~50 µs).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, event, func, insert, inspect, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session, SessionTransaction

from models.columns import utcnow
from models.tlog.coverage import COVERED, Covered, leaf_data, row_values
from models.tlog.heads import key_id_of, sign_head, signing_key
from models.tlog.merkle import EMPTY_ROOT, Frontier, leaf_hash
from models.tlog.tables import LogEntry, LogNode, LogState

PENDING = "tlog_pending"
CHUNK = 500  # ids per IN (...), well under SQLite's and asyncpg's bound-parameter limits
RowKey = tuple[str, int]

_E = LogEntry.__table__.c  # type: ignore[attr-defined]
_STATE = LogState.__table__  # type: ignore[attr-defined]


def _covered_key(obj: object) -> RowKey | None:
    name = getattr(type(obj), "__tablename__", None)
    row_id = getattr(obj, "id", None)
    if name not in COVERED or not isinstance(row_id, int):
        return None
    return name, row_id


@event.listens_for(Session, "after_flush")
def _note_changes(session: Session, _context: object) -> None:
    pending: dict[RowKey, None] = session.info.setdefault(PENDING, {})
    for obj in list(session.new) + list(session.dirty) + list(session.deleted):
        key = _covered_key(obj)
        if key is None or (obj in session.dirty and not session.is_modified(obj, include_collections=False)):
            continue
        pending[key] = None


@event.listens_for(Session, "before_commit")
def _append_before_commit(session: Session) -> None:
    session.flush()  # the commit's own flush comes after this hook: run it now so its rows are noted
    if session.in_nested_transaction():
        return  # a SAVEPOINT's release: the rows are logged when the whole transaction commits
    pending: dict[RowKey, None] | None = session.info.pop(PENDING, None)
    if pending:
        append_rows(session.connection(), list(pending))


@event.listens_for(Session, "after_soft_rollback")
def _forget_after_rollback(session: Session, previous: SessionTransaction) -> None:
    if previous.nested:
        return  # a SAVEPOINT rolled back: its rows are read again at commit (gone rows were never logged)
    session.info.pop(PENDING, None)


def _lock_state(connection: Connection) -> Any:
    statement = select(_STATE).where(_STATE.c.id == 1)
    row = connection.execute(statement.with_for_update()).first()
    if row is not None:
        return row
    values = {"id": 1, "size": 0, "root": EMPTY_ROOT, "edge": "[]", "timestamp": 0}
    dialect_insert = pg_insert if connection.dialect.name == "postgresql" else sqlite_insert
    connection.execute(dialect_insert(_STATE).values(**values).on_conflict_do_nothing())
    return connection.execute(statement.with_for_update()).one()


def frontier_of(state: Any) -> Frontier:
    """The tree's right edge as stored in ``tlog_state``."""
    edge = [(int(level), bytes.fromhex(digest)) for level, digest in json.loads(state.edge)]
    return Frontier(size=int(state.size), edge=edge)


def _current_leaves(connection: Connection, keys: Iterable[RowKey], specs: dict[str, Covered]) -> dict[RowKey, bytes]:
    wanted: dict[str, list[int]] = {}
    for name, row_id in keys:
        wanted.setdefault(name, []).append(row_id)
    leaves: dict[RowKey, bytes] = {}
    for name, ids in wanted.items():
        spec = specs[name]
        clause = spec.clause()
        found = {}
        for start in range(0, len(ids), CHUNK):
            chunk = ids[start:start + CHUNK]
            found.update({row.id: row for row in connection.execute(
                select(clause).where(clause.c.id.in_(chunk))).mappings()})
        for row_id in ids:
            row = found.get(row_id)
            leaves[(name, row_id)] = leaf_data(name, row_id, None if row is None else row_values(spec, row))
    return leaves


def _latest_leaves(connection: Connection, keys: list[RowKey]) -> dict[RowKey, bytes]:
    latest: dict[RowKey, bytes] = {}
    by_table: dict[str, list[int]] = {}
    for name, row_id in keys:
        by_table.setdefault(name, []).append(row_id)
    for name, ids in by_table.items():
        for start in range(0, len(ids), CHUNK):
            newest = (select(func.max(_E.idx)).where(_E.tbl == name, _E.row_id.in_(ids[start:start + CHUNK]))
                      .group_by(_E.row_id).scalar_subquery())
            for row in connection.execute(select(_E.row_id, _E.data).where(_E.idx.in_(newest))):
                latest[(name, int(row.row_id))] = bytes(row.data)
    return latest


def append_rows(connection: Connection, keys: list[RowKey], specs: dict[str, Covered] = COVERED) -> int:
    """Append a leaf for each row whose current values differ from its latest leaf; returns how many.

    Runs inside the caller's transaction (it commits them together). Rows that are gone get a removal leaf,
    unless their latest leaf already says so; a row never logged and never stored gets none.
    """
    state = _lock_state(connection)
    current = _current_leaves(connection, keys, specs)
    latest = _latest_leaves(connection, keys)
    frontier = frontier_of(state)
    entries: list[dict[str, Any]] = []
    nodes: list[dict[str, Any]] = []
    for key in keys:
        data = current[key]
        previous = latest.get(key)
        if data == previous or (previous is None and data == leaf_data(key[0], key[1], None)):
            continue
        digest = leaf_hash(data)
        entries.append({"idx": frontier.size, "tbl": key[0], "row_id": key[1], "data": data, "leaf_hash": digest})
        nodes += [{"level": level, "idx": index, "hash": value} for level, index, value in frontier.append(digest)]
        latest[key] = data
    if not entries:
        return 0
    connection.execute(insert(LogEntry.__table__), entries)  # type: ignore[attr-defined]
    if nodes:
        connection.execute(insert(LogNode.__table__), nodes)  # type: ignore[attr-defined]
    write_state(connection, frontier)
    return len(entries)


def write_state(connection: Connection, frontier: Frontier) -> None:
    """Store the new size, root and edge, with a head signed by the installed key (unsigned without one)."""
    root = frontier.root()
    timestamp = int(utcnow().timestamp() * 1000)
    key = signing_key()
    signature, key_id = None, None
    if key is not None:
        head = sign_head(tree_size=frontier.size, root_hash=root, timestamp=timestamp, key=key)
        signature, key_id = head.signature, key_id_of(key.public_key())
    connection.execute(update(_STATE).where(_STATE.c.id == 1).values(
        size=frontier.size, root=root, timestamp=timestamp, key_id=key_id, signature=signature,
        edge=json.dumps([[level, digest.hex()] for level, digest in frontier.edge]),
    ))


def backfill(connection: Connection) -> int:
    """Append a leaf for every covered row whose values differ from its latest leaf (or that has none).

    Migration 0005 runs it to log every existing row; a later migration that adds or fills a covered column runs
    it again after its change (only the rows it changed get a new leaf). Columns of :data:`COVERED` that the
    database does not have yet (added by a migration chained after the one running) are left out of the leaves
    until then, and so are the tables such a migration creates.
    """
    inspector = inspect(connection)  # a covered table a later migration creates is left out until then
    present = {name: {column["name"] for column in inspector.get_columns(name)} for name in COVERED
               if inspector.has_table(name)}
    specs = {name: Covered(name, {c: k for c, k in spec.columns.items() if c in present[name]})
             for name, spec in COVERED.items() if name in present}
    total = 0
    for name, spec in specs.items():
        clause = spec.clause()
        ids = [int(row_id) for row_id in connection.execute(select(clause.c.id).order_by(clause.c.id)).scalars()]
        for start in range(0, len(ids), CHUNK):
            total += append_rows(connection, [(name, row_id) for row_id in ids[start:start + CHUNK]], specs)
    return total
