"""Signing heads on a schedule, as Certificate Transparency does: the commit integrates, the head job signs.

A commit that changes covered rows only *integrates* their leaves (:mod:`models.tlog.appending`: each gets the
next index under the log-sequence lock, with its data and leaf hash). Every ``BALCAO_TLOG_HEAD_INTERVAL``
seconds the head job (:func:`notifications.log_heads.sign_log_heads`) calls :func:`sign_pending_head`: under the
same lock it hashes the entries integrated since the newest signed head into the tree's right edge, stores the
perfect subtrees they complete, signs the new head, and keeps it (``tlog_head``, one row per tree size, and
``tlog_state``). So an entry waits at most one interval (plus the job's own run) for a signed head: the log's
maximum merge delay (``BALCAO_TLOG_MAX_MERGE_DELAY``), which ``notice verify`` holds it to.

Several processes running the job at once (PostgreSQL) sign one head per tree size: the lock serialises them,
the second finds nothing waiting, and the primary key of ``tlog_head`` refuses a second row for one size.

``BALCAO_TLOG_HEAD_INTERVAL=0`` signs in the commit itself (no merge delay, the cost of a signature and of the
subtrees in every commit): :func:`use_head_interval`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from models.columns import utcnow
from models.tlog.heads import TreeHead, key_id_of, raw_public, sign_head, signing_key
from models.tlog.merkle import EMPTY_ROOT, Frontier
from models.tlog.tables import LogEntry, LogNode, LogState, SignedHead

BATCH = 5000
_E = LogEntry.__table__.c  # type: ignore[attr-defined]
_H = SignedHead.__table__  # type: ignore[attr-defined]
_STATE = LogState.__table__  # type: ignore[attr-defined]

_interval_seconds: float = 5.0


def use_head_interval(seconds: float) -> None:
    """Install how often this process's head job signs (``0``: every commit signs its own head)."""
    global _interval_seconds
    _interval_seconds = seconds


def signs_in_commit() -> bool:
    """Whether commits sign their head themselves (``BALCAO_TLOG_HEAD_INTERVAL=0``)."""
    return _interval_seconds == 0


def lock_state(connection: Connection) -> Any:
    """The ``tlog_state`` row, locked until the transaction ends (created empty on first use)."""
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


def sign_pending_head(connection: Connection, *, keep: bool = True) -> TreeHead | None:
    """Integrate the waiting entries into the tree and sign its new head; None when nothing waits.

    Runs in the caller's transaction (commit it promptly: it holds the log-sequence lock). Without an installed
    key the head is stored unsigned, as before (``notice verify`` says so). ``keep``: the head is also kept in
    ``tlog_head`` (False only for a migration chained before 0017, which creates it).
    """
    state = lock_state(connection)
    frontier = frontier_of(state)
    start = frontier.size
    while True:
        hashes = [bytes(h) for h in connection.execute(
            select(_E.leaf_hash).where(_E.idx >= frontier.size).order_by(_E.idx).limit(BATCH)).scalars()]
        if not hashes:
            break
        nodes: list[dict[str, Any]] = []
        for digest in hashes:
            nodes += [{"level": level, "idx": index, "hash": value} for level, index, value in frontier.append(digest)]
        if nodes:
            connection.execute(insert(LogNode.__table__), nodes)  # type: ignore[attr-defined]
    if frontier.size == start:
        return None
    return _write_head(connection, frontier, keep=keep)


def _write_head(connection: Connection, frontier: Frontier, *, keep: bool) -> TreeHead:
    root = frontier.root()
    timestamp = int(utcnow().timestamp() * 1000)
    key = signing_key()
    head = TreeHead(tree_size=frontier.size, root_hash=root, timestamp=timestamp)
    if key is not None:
        head = sign_head(tree_size=frontier.size, root_hash=root, timestamp=timestamp, key=key)
    connection.execute(update(_STATE).where(_STATE.c.id == 1).values(
        size=frontier.size, root=root, timestamp=timestamp, key_id=head.key_id, signature=head.signature,
        edge=json.dumps([[level, digest.hex()] for level, digest in frontier.edge]),
    ))
    if keep:
        connection.execute(insert(_H).values(size=head.tree_size, root=root, timestamp=timestamp, key_id=head.key_id,
                                             signature=head.signature, witnessed=False))
    return head


@dataclass(frozen=True, slots=True)
class Waiting:
    """Entries integrated after the newest signed head: how many, and since when the oldest waits."""

    entries: int
    first_index: int
    since: int | None  # ms since the epoch, UTC (None: integrated before schedules, migration 0017)


def waiting(connection: Connection, signed_size: int) -> Waiting | None:
    """The entries past a signed head of ``signed_size`` entries, or None when every entry is in it."""
    first = connection.execute(select(_E.idx, _E.integrated_at).where(_E.idx >= signed_size)
                               .order_by(_E.idx).limit(1)).first()
    if first is None:
        return None
    last = int(connection.execute(select(_E.idx).order_by(_E.idx.desc()).limit(1)).scalar_one())
    return Waiting(entries=last + 1 - int(first.idx), first_index=int(first.idx),
                   since=None if first.integrated_at is None else int(first.integrated_at))


def _head_of(row: Any) -> TreeHead:
    key = signing_key()
    public = raw_public(key.public_key()) if key is not None and row.key_id == key_id_of(key.public_key()) else None
    return TreeHead(tree_size=int(row.size), root_hash=bytes(row.root), timestamp=int(row.timestamp),
                    key_id=row.key_id, signature=None if row.signature is None else bytes(row.signature),
                    public_key=public, tsa_token=None if row.tsa_token is None else bytes(row.tsa_token))


def newest_signed_head(connection: Connection) -> TreeHead | None:
    """The newest head in ``tlog_head`` with its token (and this process's public key when it signed it)."""
    row = connection.execute(select(_H).order_by(_H.c.size.desc()).limit(1)).first()
    return None if row is None else _head_of(row)


def signed_heads(connection: Connection) -> list[TreeHead]:
    """Every head in ``tlog_head``, oldest first."""
    return [_head_of(row) for row in connection.execute(select(_H).order_by(_H.c.size))]


def store_token(connection: Connection, size: int, token: bytes) -> bool:
    """Keep an RFC 3161 token with the head of ``size`` unless it has one already; True when stored."""
    result = connection.execute(update(_H).where(_H.c.size == size, _H.c.tsa_token.is_(None)).values(tsa_token=token))
    return bool(result.rowcount)


def claim_for_witness(connection: Connection, size: int) -> bool:
    """Claim the head of ``size`` for posting to the witness (one process posts it); True when this one did."""
    result = connection.execute(update(_H).where(_H.c.size == size, _H.c.witnessed.is_(False)).values(witnessed=True))
    return bool(result.rowcount)


def release_for_witness(connection: Connection, size: int) -> None:
    """The witness did not take the head: the next run posts it again."""
    connection.execute(update(_H).where(_H.c.size == size).values(witnessed=False))
