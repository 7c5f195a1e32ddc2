"""RFC 9162 §2.1: the tree hash, inclusion and consistency proofs, against trees computed by hand here.

The worked example is the RFC's own (§2.1.5): seven leaves d0…d6, with the inclusion proofs for d0, d3, d4, d6
and the consistency proofs from the trees of 3, 4 and 6 leaves that the RFC gives.
"""

from __future__ import annotations

import hashlib

import pytest

from models.tlog import merkle


def H(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


D = [f"d{i}".encode() for i in range(7)]
# The RFC's figure: leaves a..f, d6's leaf; g..j, k, l, and the root.
a, b, c, d, e, f = (H(b"\x00" + D[i]) for i in range(6))
leaf6 = H(b"\x00" + D[6])
g, h, i_, j = H(b"\x01" + a + b), H(b"\x01" + c + d), H(b"\x01" + e + f), leaf6
k, l_ = H(b"\x01" + g + h), H(b"\x01" + i_ + j)
ROOT7 = H(b"\x01" + k + l_)
ROOT3 = H(b"\x01" + g + c)
ROOT4 = k
ROOT6 = H(b"\x01" + k + i_)


def perfect_of(leaves: list[bytes]) -> merkle.Perfect:
    hashes = [merkle.leaf_hash(x) for x in leaves]

    def naive(start: int, end: int) -> bytes:  # the RFC's recursive definition, leaf by leaf
        if end - start == 1:
            return hashes[start]
        split = 1
        while split * 2 < end - start:
            split *= 2
        return merkle.node_hash(naive(start, start + split), naive(start + split, end))

    return lambda level, index: naive(index << level, (index + 1) << level)


def test_leaf_and_node_hashes_have_the_rfc_prefixes() -> None:
    assert merkle.EMPTY_ROOT.hex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert merkle.leaf_hash(b"").hex() == "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"
    assert merkle.node_hash(a, b) == g


def test_the_tree_of_seven_leaves_is_the_rfcs() -> None:
    perfect = perfect_of(D)
    assert merkle.root_hash(7, perfect) == ROOT7
    assert (merkle.root_hash(3, perfect), merkle.root_hash(4, perfect), merkle.root_hash(6, perfect)) == (
        ROOT3, ROOT4, ROOT6)
    frontier = merkle.Frontier()
    for leaf in D:
        frontier.append(merkle.leaf_hash(leaf))
    assert frontier.root() == ROOT7 and [level for level, _ in frontier.edge] == [2, 1, 0]


@pytest.mark.parametrize(("index", "expected"), [(0, [b, h, l_]), (3, [c, g, l_]), (4, [f, j, k]), (6, [i_, k])])
def test_inclusion_proofs_of_the_rfc_example(index: int, expected: list[bytes]) -> None:
    path = merkle.inclusion_path(index, 7, perfect_of(D))
    assert path == expected
    assert merkle.verify_inclusion(leaf=merkle.leaf_hash(D[index]), index=index, size=7, path=path, root=ROOT7)


@pytest.mark.parametrize(("first", "root", "expected"), [(3, ROOT3, [c, d, g, l_]), (4, ROOT4, [l_]),
                                                          (6, ROOT6, [i_, j, k])])
def test_consistency_proofs_of_the_rfc_example(first: int, root: bytes, expected: list[bytes]) -> None:
    path = merkle.consistency_path(first, 7, perfect_of(D))
    assert path == expected
    assert merkle.verify_consistency(first=first, second=7, first_root=root, second_root=ROOT7, path=path)
    assert not merkle.verify_consistency(first=first, second=7, first_root=ROOT7, second_root=ROOT7, path=path)


def test_every_proof_up_to_33_leaves_verifies_and_a_wrong_one_does_not() -> None:
    leaves = [bytes([n]) * (n % 5) for n in range(33)]
    perfect = perfect_of(leaves)
    frontier = merkle.Frontier()
    stored: dict[tuple[int, int], bytes] = {}
    for size in range(1, 34):
        stored[(0, size - 1)] = merkle.leaf_hash(leaves[size - 1])
        for level, index, value in frontier.append(stored[(0, size - 1)]):
            stored[(level, index)] = value
        root = merkle.root_hash(size, perfect)
        assert frontier.root() == root
        assert merkle.root_hash(size, lambda lv, ix: stored[(lv, ix)]) == root  # proofs only need what is stored
        for index in range(size):
            path = merkle.inclusion_path(index, size, perfect)
            leaf = merkle.leaf_hash(leaves[index])
            assert merkle.verify_inclusion(leaf=leaf, index=index, size=size, path=path, root=root)
            assert not merkle.verify_inclusion(leaf=merkle.leaf_hash(b"other"), index=index, size=size, path=path,
                                               root=root)
            assert not merkle.verify_inclusion(leaf=leaf, index=index, size=size, path=[*path, bytes(32)], root=root)
            if path:
                forged = [bytes(32), *path[1:]]
                assert not merkle.verify_inclusion(leaf=leaf, index=index, size=size, path=forged, root=root)
        for first in range(size + 1):
            path = merkle.consistency_path(first, size, perfect)
            old = merkle.root_hash(first, perfect)
            assert merkle.verify_consistency(first=first, second=size, first_root=old, second_root=root, path=path)
            if 0 < first < size:
                assert not merkle.verify_consistency(first=first, second=size, first_root=old,
                                                     second_root=merkle.node_hash(root, root), path=path)


def test_a_proof_asks_only_for_the_subtrees_it_needs() -> None:
    wanted = merkle.needed_subtrees(lambda perfect: merkle.inclusion_path(0, 7, perfect))
    assert wanted == {(0, 1), (1, 1), (1, 2), (0, 6)}  # b, h, and l = node(i, d6's leaf)
