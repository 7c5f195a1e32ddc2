"""Reading the log: the current head, entries, inclusion and consistency proofs from the stored subtrees.

Synchronous functions on a :class:`~sqlalchemy.Connection` (the verifier, the migration and the web handlers
share them; async callers use :func:`run`). A proof reads only the O(log² n) perfect subtrees it needs, in one
query (:func:`models.tlog.merkle.needed_subtrees`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import Connection, select, tuple_
from sqlalchemy.orm import Session
from sqlmodel.ext.asyncio.session import AsyncSession

from models.tlog import merkle
from models.tlog.heads import TreeHead
from models.tlog.tables import LogEntry, LogNode, LogState, PublishedHead

T = TypeVar("T")
_E = LogEntry.__table__.c  # type: ignore[attr-defined]
_N = LogNode.__table__.c  # type: ignore[attr-defined]
_S = LogState.__table__.c  # type: ignore[attr-defined]
_P = PublishedHead.__table__.c  # type: ignore[attr-defined]


async def run(session: AsyncSession, function: Callable[..., T], *args: Any) -> T:
    """Run ``function(connection, *args)`` on the session's connection."""

    def call(sync_session: Session) -> T:
        return function(sync_session.connection(), *args)

    return await session.run_sync(call)


def current_head(connection: Connection) -> TreeHead:
    """The head of the last append (size 0, unsigned, for an empty log)."""
    row = connection.execute(select(_S.size, _S.root, _S.timestamp, _S.key_id, _S.signature)
                             .where(_S.id == 1)).first()
    if row is None:
        return TreeHead(tree_size=0, root_hash=merkle.EMPTY_ROOT, timestamp=0)
    return TreeHead(tree_size=int(row.size), root_hash=bytes(row.root), timestamp=int(row.timestamp),
                    key_id=row.key_id, signature=None if row.signature is None else bytes(row.signature))


def published_heads(connection: Connection, *, limit: int = 1000) -> list[TreeHead]:
    """The heads written out, oldest first (at most ``limit``, the newest ones)."""
    rows = connection.execute(
        select(_P.size, _P.root, _P.timestamp, _P.key_id, _P.signature, _P.tsa_token)
        .order_by(_P.id.desc()).limit(limit)).all()
    return [TreeHead(tree_size=int(r.size), root_hash=bytes(r.root), timestamp=int(r.timestamp), key_id=r.key_id,
                     signature=bytes(r.signature), tsa_token=None if r.tsa_token is None else bytes(r.tsa_token))
            for r in reversed(rows)]


def _stored(connection: Connection, wanted: set[tuple[int, int]]) -> dict[tuple[int, int], bytes]:
    found: dict[tuple[int, int], bytes] = {}
    leaves = [index for level, index in wanted if level == 0]
    inner = [(level, index) for level, index in wanted if level > 0]
    for start in range(0, len(leaves), 500):
        for row in connection.execute(select(_E.idx, _E.leaf_hash).where(_E.idx.in_(leaves[start:start + 500]))):
            found[(0, int(row.idx))] = bytes(row.leaf_hash)
    for start in range(0, len(inner), 300):
        chunk = inner[start:start + 300]
        for row in connection.execute(select(_N.level, _N.idx, _N.hash)
                                      .where(tuple_(_N.level, _N.idx).in_(chunk))):
            found[(int(row.level), int(row.idx))] = bytes(row.hash)
    return found


class MissingSubtree(LookupError):
    """A subtree the proof needs is not stored (the log's tables were damaged)."""


def _with_stored(connection: Connection, proof: Callable[[merkle.Perfect], T]) -> T:
    stored = _stored(connection, merkle.needed_subtrees(proof))

    def perfect(level: int, index: int) -> bytes:
        try:
            return stored[(level, index)]
        except KeyError:
            raise MissingSubtree(f"subtree {level}/{index}") from None

    return proof(perfect)


def inclusion_proof(connection: Connection, index: int, size: int) -> list[bytes]:
    """RFC 9162 §2.1.3.1 audit path of leaf ``index`` in the tree of ``size`` leaves."""
    return _with_stored(connection, lambda perfect: merkle.inclusion_path(index, size, perfect))


def consistency_proof(connection: Connection, first: int, second: int) -> list[bytes]:
    """RFC 9162 §2.1.4.1 consistency proof from the tree of ``first`` leaves to that of ``second``."""
    return _with_stored(connection, lambda perfect: merkle.consistency_path(first, second, perfect))


def root_at(connection: Connection, size: int) -> bytes:
    """``MTH`` of the first ``size`` leaves, from the stored subtrees."""
    return _with_stored(connection, lambda perfect: merkle.root_hash(size, perfect))


@dataclass(frozen=True, slots=True)
class Entry:
    """One leaf as stored."""

    index: int
    data: bytes
    leaf_hash: bytes


def entries_of_row(connection: Connection, table: str, row_id: int) -> list[Entry]:
    """Every leaf of one row, oldest first."""
    rows = connection.execute(select(_E.idx, _E.data, _E.leaf_hash).where(_E.tbl == table, _E.row_id == row_id)
                              .order_by(_E.idx)).all()
    return [Entry(index=int(r.idx), data=bytes(r.data), leaf_hash=bytes(r.leaf_hash)) for r in rows]
