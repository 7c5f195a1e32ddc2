"""A notice's place in the log: its entries and the inclusion proof of the latest one, for the citizen to check.

The notice's PDF cannot carry its own entry (the entry hashes the PDF), so it carries the verification URL;
``/verificar/<code>`` shows the entry's index and ``/verificar/<code>/prova.json`` gives everything needed to
recompute the proof offline: the leaf's data, its index, the audit path and the signed head it leads to.

Heads are signed on a schedule (:mod:`models.tlog.signing`): for at most the merge delay after a commit, the
notice's latest entry is integrated (it has its index) but no signed head includes it yet. The proof is then a
:class:`PendingEntry`, and the page says the proof is available after the next head.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, select

from models.tlog import merkle
from models.tlog.heads import TreeHead, raw_public, signing_key
from models.tlog.proofs import current_head, entries_of_row, inclusion_proof
from models.tlog.tables import SignedHead

_H = SignedHead.__table__.c  # type: ignore[attr-defined]


def signed_current_head(connection: Connection) -> TreeHead:
    """The current head, with this process's public key and the head's RFC 3161 token once the head job has it."""
    head = current_head(connection)
    token = connection.execute(select(_H.tsa_token).where(_H.size == head.tree_size)).scalar()
    key = signing_key()
    return TreeHead(tree_size=head.tree_size, root_hash=head.root_hash, timestamp=head.timestamp,
                    key_id=head.key_id, signature=head.signature,
                    public_key=None if key is None else raw_public(key.public_key()),
                    tsa_token=None if token is None else bytes(token))


@dataclass(frozen=True, slots=True)
class NoticeProof:
    """The latest entry of a notice's row, proven included in the current head."""

    first_index: int  # the entry written when the notice was issued
    index: int  # the latest entry (its current stage and outcome)
    entries: int  # how many entries the notice's row has
    data: bytes
    path: list[bytes]
    head: TreeHead

    def to_json(self) -> dict[str, Any]:
        """What ``/verificar/<code>/prova.json`` answers."""
        return {
            "leaf_index": self.index, "first_leaf_index": self.first_index, "notice_entries": self.entries,
            "leaf_data": self.data.decode("utf-8"), "leaf_hash": base64.b64encode(merkle.leaf_hash(self.data)).decode(),
            "tree_size": self.head.tree_size, "inclusion_path": [base64.b64encode(p).decode() for p in self.path],
            "sth": self.head.to_json(),
        }


@dataclass(frozen=True, slots=True)
class PendingEntry:
    """The notice's latest entry, integrated but not yet in a signed head (the next head includes it)."""

    index: int
    tree_size: int  # of the newest signed head

    def to_json(self, *, within_seconds: int) -> dict[str, Any]:
        """What ``/verificar/<code>/prova.json`` answers until the next head (with a Retry-After)."""
        return {"status": "pending", "leaf_index": self.index, "signed_tree_size": self.tree_size,
                "available_within_seconds": within_seconds}


def notice_proof(connection: Connection, notice_id: int) -> NoticeProof | PendingEntry | None:
    """The proof for a notice; None when its row has no entry (a damaged log: ``notice verify`` says why)."""
    entries = entries_of_row(connection, "notice", notice_id)
    head = signed_current_head(connection)
    if not entries:
        return None
    if entries[-1].index >= head.tree_size:
        return PendingEntry(index=entries[-1].index, tree_size=head.tree_size)
    latest = entries[-1]
    return NoticeProof(first_index=entries[0].index, index=latest.index, entries=len(entries), data=latest.data,
                       path=inclusion_proof(connection, latest.index, head.tree_size), head=head)
