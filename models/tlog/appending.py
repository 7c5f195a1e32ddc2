"""Appending to the log: every commit that changed a covered row integrates one leaf per row, under one lock.

The application never calls this itself. After each flush, the session notes which covered rows it inserted,
changed or deleted (:func:`_note_changes`); just before the commit it reads those rows back *from the
database* and appends a leaf for each whose values differ from its latest leaf (:func:`append_rows`). So the
leaf is exactly what the commit stores, whatever code path changed it, and a change made behind the
application's back (raw SQL) has no leaf and is found by :mod:`models.tlog.verification`.

Concurrency: appending takes the single log-sequence lock, ``SELECT … FROM tlog_state WHERE id = 1 FOR
UPDATE`` (PostgreSQL; SQLite has one writer at a time anyway), as the last thing before the commit, so it is
held only for the append itself and never while waiting for another lock (no deadlock with the notices' own
row locks). Two transactions appending at once get consecutive, distinct indices.

Efficiency (``bench/bench_tlog.py``): a commit reads its rows back (one query per table), reads the latest
leaf only of rows it did not insert, and inserts its entries: no hashing of the tree, no subtree, no
signature. Those are the head job's (:mod:`models.tlog.signing`), on a schedule, for every entry waiting.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, Select, bindparam, event, func, insert, inspect, select
from sqlalchemy.orm import ORMExecuteState, Session, SessionTransaction

from models.columns import utcnow
from models.tlog.coverage import COVERED, Covered, Kind, leaf_data, row_values
from models.tlog.merkle import leaf_hash
from models.tlog.signing import lock_state, sign_pending_head, signs_in_commit
from models.tlog.tables import LogEntry

PENDING = "tlog_pending"
INSERTED = "tlog_inserted"  # the pending rows this transaction inserted (no earlier leaf to read)
CHUNK = 500  # ids per IN (...), well under SQLite's and asyncpg's bound-parameter limits
RowKey = tuple[str, int]

_E = LogEntry.__table__.c  # type: ignore[attr-defined]
_INSERT_AFTER_LAST = insert(LogEntry.__table__).values(  # type: ignore[attr-defined]
    idx=select(func.coalesce(func.max(_E.idx), -1) + 1).scalar_subquery())


def _covered_key(obj: object) -> RowKey | None:
    name = getattr(type(obj), "__tablename__", None)
    row_id = getattr(obj, "id", None)
    if name not in COVERED or not isinstance(row_id, int):
        return None
    return name, row_id


@event.listens_for(Session, "after_flush")
def _note_changes(session: Session, _context: object) -> None:
    pending: dict[RowKey, None] = session.info.setdefault(PENDING, {})
    inserted: set[RowKey] = session.info.setdefault(INSERTED, set())
    pending_before = set(pending)
    for obj in list(session.new) + list(session.dirty) + list(session.deleted):
        key = _covered_key(obj)
        if key is None or (obj in session.dirty and not session.is_modified(obj, include_collections=False)):
            continue
        pending[key] = None
        if obj in session.new and key not in pending_before:
            inserted.add(key)


@event.listens_for(Session, "do_orm_execute")
def _note_bulk_changes(state: ORMExecuteState) -> None:
    """A bulk ``update(...)``/``delete(...)`` through the session changes rows the flush never sees: note them."""
    if not (state.is_update or state.is_delete):
        return
    target = getattr(state.statement, "table", None)
    name = getattr(target, "name", None)
    if name not in COVERED or target is None:
        return
    ids = select(target.c.id)
    where = getattr(state.statement, "whereclause", None)
    if where is not None:
        ids = ids.where(where)
    pending: dict[RowKey, None] = state.session.info.setdefault(PENDING, {})
    for row_id in state.session.execute(ids).scalars():
        pending[(name, int(row_id))] = None


@event.listens_for(Session, "before_commit")
def _append_before_commit(session: Session) -> None:
    session.flush()  # the commit's own flush comes after this hook: run it now so its rows are noted
    if session.in_nested_transaction():
        return  # a SAVEPOINT's release: the rows are logged when the whole transaction commits
    pending: dict[RowKey, None] | None = session.info.pop(PENDING, None)
    inserted: set[RowKey] | None = session.info.pop(INSERTED, None)
    if pending:
        append_rows(session.connection(), list(pending), new=frozenset(inserted or ()))


@event.listens_for(Session, "after_soft_rollback")
def _forget_after_rollback(session: Session, previous: SessionTransaction) -> None:
    if previous.nested:
        return  # a SAVEPOINT rolled back: its rows are read again at commit (gone rows were never logged)
    session.info.pop(PENDING, None)
    session.info.pop(INSERTED, None)


@functools.lru_cache(maxsize=256)
def _readback(name: str, columns: tuple[tuple[str, Kind], ...]) -> Select[Any]:
    """The SELECT that reads covered rows back, built once per table (each commit only binds its ids)."""
    clause = Covered(name, dict(columns)).clause()
    return select(clause).where(clause.c.id.in_(bindparam("ids", expanding=True)))


def _current_leaves(connection: Connection, keys: Iterable[RowKey], specs: dict[str, Covered]) -> dict[RowKey, bytes]:
    wanted: dict[str, list[int]] = {}
    for name, row_id in keys:
        wanted.setdefault(name, []).append(row_id)
    leaves: dict[RowKey, bytes] = {}
    for name, ids in wanted.items():
        spec = specs[name]
        statement = _readback(spec.name, tuple(spec.columns.items()))
        found = {}
        for start in range(0, len(ids), CHUNK):
            chunk = ids[start:start + CHUNK]
            found.update({row.id: row for row in connection.execute(statement, {"ids": chunk}).mappings()})
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


def _insert_entries(connection: Connection, entries: list[dict[str, Any]]) -> None:
    """Insert entries at the next indices: consecutive, after the log's last one.

    SQLite has one writer at a time, and this transaction already wrote the rows it logs: each insert takes
    ``MAX(idx) + 1`` (one statement, executed per entry in order). PostgreSQL first takes the log-sequence lock,
    so that a concurrent appender (or the head job) waits its turn.
    """
    if connection.dialect.name != "postgresql":
        connection.execute(_INSERT_AFTER_LAST, entries)
        return
    lock_state(connection)
    last = connection.execute(select(func.max(_E.idx))).scalar()
    first = 0 if last is None else int(last) + 1
    for offset, entry in enumerate(entries):
        entry["idx"] = first + offset
    connection.execute(insert(LogEntry.__table__), entries)  # type: ignore[attr-defined]


def append_rows(connection: Connection, keys: list[RowKey], specs: dict[str, Covered] = COVERED,
                new: frozenset[RowKey] = frozenset(), *, migrating: bool = False) -> int:
    """Integrate a leaf for each row whose current values differ from its latest leaf; returns how many.

    Runs inside the caller's transaction (it commits them together). Rows that are gone get a removal leaf,
    unless their latest leaf already says so; a row never logged and never stored gets none. Rows in ``new``
    were inserted by this transaction: they have no earlier leaf to compare with (a reused id's earlier leaf is
    its removal, which differs). No head is signed here (:mod:`models.tlog.signing` does, on a schedule), unless
    this process signs in every commit (``BALCAO_TLOG_HEAD_INTERVAL=0``). ``migrating``: a migration chained
    before 0017 runs it, whose ``tlog_entry`` has no ``integrated_at`` yet (:func:`backfill` signs at its end).
    """
    current = _current_leaves(connection, keys, specs)
    latest = _latest_leaves(connection, [key for key in keys if key not in new])
    entries: list[dict[str, Any]] = []
    for key in keys:
        data = current[key]
        previous = latest.get(key)
        if data == previous or (previous is None and data == leaf_data(key[0], key[1], None)):
            continue
        entries.append({"tbl": key[0], "row_id": key[1], "data": data, "leaf_hash": leaf_hash(data)})
        latest[key] = data
    if not entries:
        return 0
    if not migrating:
        integrated_at = int(utcnow().timestamp() * 1000)
        for entry in entries:
            entry["integrated_at"] = integrated_at
    _insert_entries(connection, entries)
    if signs_in_commit() and not migrating:
        sign_pending_head(connection)
    return len(entries)


def backfill(connection: Connection) -> int:
    """Append a leaf for every covered row whose values differ from its latest leaf (or that has none).

    Migration 0005 runs it to log every existing row; a later migration that adds or fills a covered column runs
    it again after its change (only the rows it changed get a new leaf). Columns of :data:`COVERED` that the
    database does not have yet (added by a migration chained after the one running) are left out of the leaves
    until then, and so are covered tables it does not have yet.
    """
    inspector = inspect(connection)
    scheduled = inspector.has_table("tlog_head")  # migration 0017 (heads on a schedule) has run
    present = {name: {column["name"] for column in inspector.get_columns(name)}
               for name in COVERED if inspector.has_table(name)}
    specs = {name: Covered(name, {c: k for c, k in spec.columns.items() if c in present[name]})
             for name, spec in COVERED.items() if name in present}
    total = 0
    for name, spec in specs.items():
        clause = spec.clause()
        ids = [int(row_id) for row_id in connection.execute(select(clause.c.id).order_by(clause.c.id)).scalars()]
        for start in range(0, len(ids), CHUNK):
            total += append_rows(connection, [(name, row_id) for row_id in ids[start:start + CHUNK]], specs,
                                 migrating=not scheduled)
    sign_pending_head(connection, keep=scheduled)  # a migration's entries are in a signed head when it ends
    return total
