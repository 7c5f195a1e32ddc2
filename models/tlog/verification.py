"""Checking the log against itself, its signed heads and every covered row (``python -m bot notice verify``).

What is checked, in one pass over the log and one over each covered table:

1. each entry: indices contiguous from 0, the stored leaf hash is ``SHA-256(0x00 || data)``, the data a leaf;
2. the tree: the root recomputed from the entries equals the current head's at its size, whose Ed25519
   signature must be valid under the log's key; every stored perfect subtree (what proofs are built from) equals
   the recomputed one. Entries past the current head were integrated by their commit and wait for the next head
   (:mod:`models.tlog.signing`): that is no problem while the oldest has waited less than the maximum merge delay,
   and is one once it has waited longer (the head job does not run, or the heads were rolled back);
3. the heads kept (``tlog_head``, every head the job signed): the current head is the newest of them, each is
   signed by the key and its root equals the root recomputed at its size; the newest carries a valid RFC 3161
   token when a TSA is configured (unless it is younger than the merge delay: the job retries the TSA);
4. the past: every head written out (``tlog_published``) and a head kept elsewhere (``--head FILE``) is signed
   by the key, its root equals the root recomputed at its size, and a consistency proof built from the stored
   subtrees proves it a prefix of the current tree; an RFC 3161 token, if any, timestamps that head;
5. both directions: every covered row has an entry and its current values equal its latest entry; every row
   whose latest entry says it exists does exist.

Each problem names where it is (a notice number, a table and id, a log index) and what broke.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from sqlalchemy import Connection, Dialect, column, select, table, tuple_
from sqlalchemy.exc import SQLAlchemyError

from core.i18n import N_
from models.columns import utcnow
from models.tlog import merkle
from models.tlog.anchors import check_anchors, check_kept, check_waiting
from models.tlog.coverage import (
    COVERED,
    TYPES,
    Covered,
    current_version,
    leaf_data,
    leaf_version,
    parse_leaf,
    row_values,
)
from models.tlog.heads import TreeHead, signature_is_valid
from models.tlog.proofs import MissingSubtree, consistency_proof, current_head, published_heads
from models.tlog.report import LogReport, Problem
from models.tlog.signing import signed_heads
from models.tlog.tables import LogEntry, LogNode
from models.tlog.timestamps import TimestampError, check_token

BATCH = 1000
DEFAULT_MERGE_DELAY = dt.timedelta(seconds=60)  # BALCAO_TLOG_MAX_MERGE_DELAY's default
_E = LogEntry.__table__.c  # type: ignore[attr-defined]
_N = LogNode.__table__.c  # type: ignore[attr-defined]


def _batches(connection: Connection) -> Iterator[Sequence[Any]]:
    last = -1
    while True:
        rows = connection.execute(select(_E.idx, _E.tbl, _E.row_id, _E.data, _E.leaf_hash)
                                  .where(_E.idx > last).order_by(_E.idx).limit(BATCH)).all()
        if not rows:
            return
        yield rows
        last = int(rows[-1].idx)


def _check_nodes(connection: Connection, completed: list[tuple[int, int, bytes]], report: LogReport) -> None:
    for start in range(0, len(completed), 300):
        chunk = completed[start:start + 300]
        stored = {(int(r.level), int(r.idx)): bytes(r.hash) for r in connection.execute(
            select(_N.level, _N.idx, _N.hash).where(tuple_(_N.level, _N.idx).in_([(lv, ix) for lv, ix, _ in chunk])))}
        for level, index, digest in chunk:
            if stored.get((level, index)) != digest:
                report.problems.append(Problem(
                    f"tlog_node {level}/{index}",
                    N_("a stored subtree differs from the entries (proofs built from it would not verify)")))


class _Walk:
    """The log read once: the latest entry of each row, and the root at each size asked for."""

    def __init__(self, sizes: set[int]) -> None:
        self.frontier = merkle.Frontier()
        self.latest: dict[tuple[str, int], tuple[int, bytes, bool, int]] = {}  # key -> (idx, hash, exists, version)
        self.roots: dict[int, bytes] = {0: merkle.EMPTY_ROOT} if 0 in sizes else {}
        self.sizes = sizes


def _walk(connection: Connection, report: LogReport, sizes: set[int], signed: int) -> _Walk:
    """Read the log once, checking the stored subtrees of the first ``signed`` entries.

    The subtrees that waiting entries complete are stored by the head job, with the head that includes them.
    """
    walk = _Walk(sizes)
    for rows in _batches(connection):
        completed: list[tuple[int, int, bytes]] = []
        for row in rows:
            index, where = int(row.idx), f"tlog_entry {row.idx}"
            data = row.data.encode("utf-8") if isinstance(row.data, str) else bytes(row.data or b"")
            if index != walk.frontier.size:
                report.problems.append(Problem(where, N_("log entries are missing before this one (expected index "
                                                         "{expected})"), {"expected": walk.frontier.size}))
            digest = merkle.leaf_hash(data)
            if not isinstance(row.leaf_hash, bytes | memoryview) or bytes(row.leaf_hash) != digest:
                report.problems.append(Problem(where, N_("the entry's leaf hash does not match its data")))
            try:
                table, row_id, values = parse_leaf(data)
                if (table, row_id) != (row.tbl, row.row_id):
                    raise ValueError("the entry's table or row differs from its data")
                walk.latest[(table, row_id)] = (index, digest, values is not None, leaf_version(data))
            except ValueError:
                report.problems.append(Problem(where, N_("the entry's data is not a leaf of this log")))
            finished = walk.frontier.append(digest)
            if walk.frontier.size <= signed:
                completed += finished
            if walk.frontier.size in sizes:
                walk.roots[walk.frontier.size] = walk.frontier.root()
        report.entries += len(rows)
        _check_nodes(connection, completed, report)
    return walk


def _check_head(connection: Connection, head: TreeHead, where: str, walk: _Walk, current: TreeHead,
                key: Ed25519PublicKey, report: LogReport, *, prove: bool = True) -> None:
    if prove:
        report.heads += 1
    else:
        report.kept += 1
    if not signature_is_valid(head, key):
        report.problems.append(Problem(where, N_("the tree head's signature is not valid for this log's key")))
    if head.tree_size > current.tree_size:
        report.problems.append(Problem(where, N_("the tree head has {size} entries but the log has only {current} "
                                                 "(entries were removed)"),
                                       {"size": head.tree_size, "current": current.tree_size}))
        return
    if walk.roots.get(head.tree_size) != head.root_hash:
        report.problems.append(Problem(where, N_("the log's first {size} entries no longer hash to this head's "
                                                 "root (the past was rewritten)"), {"size": head.tree_size}))
    try:
        path = consistency_proof(connection, head.tree_size, current.tree_size) if prove else None
    except MissingSubtree:
        path = []
    # a head the job signed (prove=False): its root at its size is checked above, and the subtrees once, by the walk
    if path is not None and not merkle.verify_consistency(
            first=head.tree_size, second=current.tree_size, first_root=head.root_hash,
            second_root=current.root_hash, path=path):
        report.problems.append(Problem(where, N_("the consistency proof from this head to the current one does "
                                                 "not verify")))
    if head.tsa_token is not None:
        try:
            check_token(head.tsa_token, head.signed_bytes())
        except TimestampError as exc:
            report.problems.append(Problem(where, N_("its RFC 3161 timestamp does not match the head ({reason})"),
                                           {"reason": str(exc)}))


def _where(numbers: dict[int, str], table: str, row_id: int, values: dict[str, Any] | None) -> str:
    values = values or {}
    number = values.get("number") if table == "notice" else numbers.get(values.get("notice_id"))  # type: ignore[arg-type]
    return f"{number} · {table} {row_id}" if number else f"{table} {row_id}"


def _latest_values(connection: Connection, index: int) -> dict[str, Any] | None:
    data = connection.execute(select(_E.data).where(_E.idx == index)).scalar()
    try:
        return parse_leaf(bytes(data))[2] if data is not None else None
    except ValueError:
        return None


def _typed(spec: Covered, row: Any, dialect: Dialect) -> dict[str, Any]:
    """A row read without types, converted column by column as the application reads it.

    Raises:
        ValueError: a stored value is not of its column's type (its name is the message).
    """
    out = dict(row)
    for name, kind in spec.columns.items():
        type_ = TYPES[kind]
        if type_ is None or row[name] is None:
            continue
        try:
            processor = type_.dialect_impl(dialect).result_processor(dialect, None)
            out[name] = processor(row[name]) if processor is not None else row[name]
        except Exception as exc:  # whatever an attacker stored: verify names the column and goes on
            raise ValueError(name) from exc
    return out


def _table_rows(connection: Connection, spec: Covered) -> Iterator[Any]:
    raw = table(spec.name, column("id"), *(column(name) for name in spec.columns))
    last: Any = None
    while True:
        statement = select(raw).order_by(raw.c.id).limit(BATCH)
        if last is not None:
            statement = statement.where(raw.c.id > last)
        rows = connection.execute(statement).mappings().all()
        if not rows:
            return
        last = rows[-1]["id"]
        yield from rows


def _check_row(connection: Connection, walk: _Walk, report: LogReport, numbers: dict[int, str], spec: Covered,
               row: Any) -> tuple[str, int]:
    table_name, row_id = spec.name, int(row["id"])
    key = (table_name, row_id)
    report.rows += 1
    latest = walk.latest.get(key)
    version = latest[3] if latest is not None else current_version()
    try:
        values = row_values(spec, _typed(spec, row, connection.dialect), version)
    except ValueError as exc:
        report.problems.append(Problem(f"{table_name} {row_id}", N_("a stored value is not of its column's type "
                                                                    "({column}): written behind the application's "
                                                                    "back"), {"column": str(exc.args[0])}))
        return key
    if table_name == "notice":
        numbers[row_id] = str(values["number"])
    if latest is None or not latest[2]:
        report.problems.append(Problem(_where(numbers, table_name, row_id, values),
                                       N_("this row has no entry in the log (it was added or restored "
                                          "behind the application's back)")))
    elif merkle.leaf_hash(leaf_data(table_name, row_id, values, version)) != latest[1]:
        logged = _latest_values(connection, latest[0]) or {}
        changed = sorted(name for name in values if logged.get(name) != values[name])
        report.problems.append(Problem(
            _where(numbers, table_name, row_id, values),
            N_("differs from its latest log entry ({index}) in: {fields}"),
            {"index": latest[0], "fields": ", ".join(changed) or "?"}))
    return key


def _check_rows(connection: Connection, walk: _Walk, report: LogReport) -> None:
    seen: set[tuple[str, int]] = set()
    numbers: dict[int, str] = {}  # notice id -> number, to name the rows of a notice (the notice table comes first)
    for spec in COVERED.values():
        try:
            for row in _table_rows(connection, spec):
                seen.add(_check_row(connection, walk, report, numbers, spec, row))
        except (SQLAlchemyError, ValueError, TypeError) as exc:
            report.problems.append(Problem(spec.name, N_("the table cannot be read ({reason})"),
                                           {"reason": exc.__class__.__name__}))
    for key, (index, _digest, exists, _version) in walk.latest.items():
        if exists and key not in seen:
            report.problems.append(Problem(
                _where(numbers, key[0], key[1], _latest_values(connection, index)),
                N_("the row of log entry {index} is missing (it was deleted behind the application's back)"),
                {"index": index}))


def _read_heads(connection: Connection, report: LogReport) -> tuple[TreeHead, list[TreeHead], list[TreeHead]]:
    """The current, published and signed heads; one that cannot be read is a problem, and counts as empty."""
    try:
        current = current_head(connection)
    except (SQLAlchemyError, ValueError, TypeError) as exc:
        report.problems.append(Problem("tlog_state", N_("the current tree head cannot be read ({reason})"),
                                       {"reason": exc.__class__.__name__}))
        current = TreeHead(tree_size=0, root_hash=merkle.EMPTY_ROOT, timestamp=0)
    try:
        published = published_heads(connection, limit=100_000)
    except (SQLAlchemyError, ValueError, TypeError) as exc:
        report.problems.append(Problem("tlog_published", N_("the published heads cannot be read ({reason})"),
                                       {"reason": exc.__class__.__name__}))
        published = []
    try:
        kept = signed_heads(connection)
    except (SQLAlchemyError, ValueError, TypeError) as exc:
        report.problems.append(Problem("tlog_head", N_("the signed heads cannot be read ({reason})"),
                                       {"reason": exc.__class__.__name__}))
        kept = []
    return current, published, kept


def _check_current_signature(current: TreeHead, key: Ed25519PublicKey | None, where: str,
                             report: LogReport) -> None:
    """The current head of a non-empty log is signed by the log's key (which must be configured)."""
    if key is None:
        report.problems.append(Problem(where, N_("no log key is configured (BALCAO_LOG_SIGNING_KEY_FILE): "
                                                 "signatures cannot be checked")))
    elif current.tree_size and current.signature is None:
        report.problems.append(Problem(where, N_("the current tree head is not signed (appended without the "
                                                 "log's key)")))
    elif current.tree_size and not signature_is_valid(current, key):
        report.problems.append(Problem(where, N_("the current tree head's signature is not valid for this log's "
                                                 "key (the head was forged)")))


def verify_log(connection: Connection, *, key: Ed25519PublicKey | None, external: TreeHead | None = None,
               witness: TreeHead | None = None, require_timestamp: bool = False, now: dt.datetime | None = None,
               max_merge_delay: dt.timedelta = DEFAULT_MERGE_DELAY) -> LogReport:
    """Verify the whole log, its heads and every covered row (read only).

    Args:
        connection: a connection to the database.
        key: the log's public key; without it no signature can be checked, which is itself a problem.
        external: a head kept elsewhere (``--head FILE``), checked like the published ones.
        witness: the newest head the witness holds (``BALCAO_LOG_WITNESS_URL``), checked the same way, and that
            the log is not older than it.
        require_timestamp: the newest signed head must carry a valid RFC 3161 token (a TSA is configured), unless
            it is younger than ``max_merge_delay`` (then the newest one that has a token is checked).
        now: the moment of the check (now when None).
        max_merge_delay: the longest an entry may wait for a signed head (``BALCAO_TLOG_MAX_MERGE_DELAY``).
    """
    now = now or utcnow()
    report = LogReport()
    current, published, kept = _read_heads(connection, report)
    heads = [(f"published head {i + 1} (size {h.tree_size})", h) for i, h in enumerate(published)]
    if external is not None:
        heads.append((f"--head (size {external.tree_size})", external))
    if witness is not None:
        heads.append((f"witness (size {witness.tree_size})", witness))
    sizes = {current.tree_size} | {head.tree_size for _, head in heads} | {head.tree_size for head in kept}
    walk = _walk(connection, report, sizes, current.tree_size)
    where = f"tree head (size {current.tree_size})"
    if walk.frontier.size < current.tree_size or walk.roots.get(current.tree_size) != current.root_hash:
        report.problems.append(Problem(where, N_("the current tree head does not match the log's entries (entries "
                                                 "were changed, added or removed)")))
    check_waiting(connection, current, now, max_merge_delay, report)
    check_kept(kept, current, report)
    _check_current_signature(current, key, where, report)
    if key is not None:
        for label, head in heads:
            _check_head(connection, head, label, walk, current, key, report)
        for head in kept:
            _check_head(connection, head, f"signed head (size {head.tree_size})", walk, current, key, report,
                        prove=False)
    fresh_after = int((now - max_merge_delay).timestamp() * 1000)
    check_anchors(kept, current, witness, require_timestamp, fresh_after, report)
    if current_version() == 1 and any(latest[3] >= 2 for latest in walk.latest.values()):
        report.problems.append(Problem(where, N_("no leaf key is installed (the log key of "
                                                 "BALCAO_LOG_SIGNING_KEY_FILE): the rows cannot be compared")))
        return report
    _check_rows(connection, walk, report)
    return report
