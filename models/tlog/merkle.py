"""The Merkle tree of RFC 9162 (Certificate Transparency v2), §2.1: hashes, inclusion and consistency proofs.

Pure functions over hashes, nothing stored. The tree of ``n`` leaves is the RFC's:

- ``MTH({}) = SHA-256()``; ``MTH({d0}) = SHA-256(0x00 || d0)`` (a *leaf hash*);
- for ``n > 1``, with ``k`` the largest power of two smaller than ``n``:
  ``MTH(D[n]) = SHA-256(0x01 || MTH(D[0:k]) || MTH(D[k:n]))``.

Every range the RFC's recursions visit starts at a multiple of its own largest power of two, so it splits into
*perfect* subtrees (``2**level`` leaves starting at ``index * 2**level``). The functions here ask a
``perfect(level, index)`` callback for those; the log stores them (level 0 is a leaf hash), so a proof reads
O(log² n) stored hashes instead of rehashing the whole log. :func:`needed_subtrees` tells which ones a proof
reads, so a caller can fetch them in one query first.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

Perfect = Callable[[int, int], bytes]
"""``perfect(level, index)``: the hash of the leaves ``index * 2**level`` to ``(index + 1) * 2**level - 1``."""

EMPTY_ROOT = hashlib.sha256(b"").digest()


def leaf_hash(data: bytes) -> bytes:
    """RFC 9162 §2.1.1: ``SHA-256(0x00 || data)``."""
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """RFC 9162 §2.1.1: ``SHA-256(0x01 || left || right)``."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (``n > 1``)."""
    return 1 << ((n - 1).bit_length() - 1)


def subtree_hash(start: int, end: int, perfect: Perfect) -> bytes:
    """``MTH(D[start:end])`` for a range the RFC's recursions visit (``end > start``)."""
    size = end - start
    if size & (size - 1) == 0 and start % size == 0:
        return perfect(size.bit_length() - 1, start // size)
    k = _split(size)
    return node_hash(subtree_hash(start, start + k, perfect), subtree_hash(start + k, end, perfect))


def root_hash(size: int, perfect: Perfect) -> bytes:
    """``MTH(D[size])``, the root of the first ``size`` leaves."""
    return EMPTY_ROOT if size == 0 else subtree_hash(0, size, perfect)


def inclusion_path(index: int, size: int, perfect: Perfect) -> list[bytes]:
    """RFC 9162 §2.1.3.1 ``PATH(m, D[n])``: the audit path of leaf ``index`` in the tree of ``size`` leaves.

    Raises:
        ValueError: the leaf is not in the tree.
    """
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of {size}")
    path: list[bytes] = []
    start, end = 0, size
    while end - start > 1:
        k = _split(end - start)
        if index < start + k:
            path.append(subtree_hash(start + k, end, perfect))
            end = start + k
        else:
            path.append(subtree_hash(start, start + k, perfect))
            start += k
    path.reverse()  # the RFC lists the path from the leaf up
    return path


def consistency_path(first: int, second: int, perfect: Perfect) -> list[bytes]:
    """RFC 9162 §2.1.4.1 ``PROOF(m, D[n])``: that the tree of ``first`` leaves is a prefix of ``second``'s.

    Raises:
        ValueError: not ``0 <= first <= second``.
    """
    if not 0 <= first <= second:
        raise ValueError(f"no consistency proof from {first} to {second}")
    if first in (0, second):
        return []
    path: list[bytes] = []
    start, end, complete = 0, second, True
    m = first
    while True:
        n = end - start
        if m == n:
            if not complete:
                path.append(subtree_hash(start, end, perfect))
            break
        k = _split(n)
        if m <= k:
            path.append(subtree_hash(start + k, end, perfect))
            end = start + k
        else:
            path.append(subtree_hash(start, start + k, perfect))
            start, m, complete = start + k, m - k, False
    path.reverse()
    return path


def needed_subtrees(proof: Callable[[Perfect], object]) -> set[tuple[int, int]]:
    """The ``(level, index)`` perfect subtrees a proof reads (its shape does not depend on the hashes)."""
    wanted: set[tuple[int, int]] = set()

    def record(level: int, index: int) -> bytes:
        wanted.add((level, index))
        return b""

    proof(record)
    return wanted


def verify_inclusion(*, leaf: bytes, index: int, size: int, path: Sequence[bytes], root: bytes) -> bool:
    """RFC 9162 §2.1.3.2: whether ``path`` proves leaf hash ``leaf`` at ``index`` in the tree with ``root``."""
    if not 0 <= index < size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == root


def verify_consistency(*, first: int, second: int, first_root: bytes, second_root: bytes,
                       path: Sequence[bytes]) -> bool:
    """RFC 9162 §2.1.4.2: whether ``path`` proves the tree ``first``/``first_root`` is a prefix of ``second``'s."""
    if not 0 <= first <= second:
        return False
    if first == second:
        return not path and first_root == second_root
    if first == 0:
        return not path and first_root == EMPTY_ROOT
    if not path:
        return False
    hashes = list(path)
    if first & (first - 1) == 0:
        hashes.insert(0, first_root)
    roots = _consistency_roots(first=first, second=second, hashes=hashes)
    return roots is not None and roots == (first_root, second_root)


def _consistency_roots(*, first: int, second: int, hashes: list[bytes]) -> tuple[bytes, bytes] | None:
    """RFC 9162 §2.1.4.2 steps 3–6: the two roots a consistency path rebuilds, or None when it is malformed."""
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = hashes[0]
    for c in hashes[1:]:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return (fr, sr) if sn == 0 else None


@dataclass(slots=True)
class Frontier:
    """The right edge of a tree: the perfect subtrees its size is made of, largest first (``(level, hash)``).

    Appending a leaf costs O(log n) and yields the perfect subtrees it completes, which the log stores.
    """

    size: int = 0
    edge: list[tuple[int, bytes]] = field(default_factory=list)

    def append(self, leaf: bytes) -> list[tuple[int, int, bytes]]:
        """Add a leaf hash; returns the ``(level, index, hash)`` of each perfect subtree (level ≥ 1) completed."""
        completed: list[tuple[int, int, bytes]] = []
        level, index, current = 0, self.size, leaf
        while self.edge and self.edge[-1][0] == level:
            _, left = self.edge.pop()
            current, level, index = node_hash(left, current), level + 1, index >> 1
            completed.append((level, index, current))
        self.edge.append((level, current))
        self.size += 1
        return completed

    def root(self) -> bytes:
        """``MTH`` of the leaves appended so far."""
        if not self.edge:
            return EMPTY_ROOT
        current = self.edge[-1][1]
        for _, left in reversed(self.edge[:-1]):
            current = node_hash(left, current)
        return current
