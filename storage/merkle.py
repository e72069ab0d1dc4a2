"""The Merkle hash tree of RFC 6962 / RFC 9162 (section 2.1), with SHA-256.

A tree over the leaves ``d[0], d[1], ... d[n-1]`` (byte strings):

* the hash of the empty tree is ``SHA-256()`` (of no bytes);
* a leaf's hash is ``SHA-256(0x00 || d[i])``;
* a tree of ``n > 1`` leaves splits at ``k``, the largest power of two smaller
  than ``n``: its hash is ``SHA-256(0x01 || MTH(d[0:k]) || MTH(d[k:n]))``.

An **inclusion proof** (the audit path) for leaf ``i`` of a tree of size ``n``
is the list of sibling hashes from the leaf up to the root; a **consistency
proof** from size ``m`` to size ``n`` is the list of subtree hashes that lets
anyone holding only the two roots check that the first ``m`` leaves are the
same in both trees.  The proofs are built as RFC 6962 section 2.1.1/2.1.2
define them and checked with the algorithms of RFC 9162 sections 2.1.3.2 and
2.1.4.2.

Functions here take *leaf hashes* (:func:`leaf_hash` of each leaf's bytes), so
a caller hashes each leaf once.  Pure functions; nothing of tonk imported.
"""

from __future__ import annotations

from hashlib import sha256
from typing import Sequence

HASH_SIZE = 32
EMPTY_ROOT = sha256(b"").digest()


def leaf_hash(data: bytes) -> bytes:
    """The hash of a leaf whose bytes are ``data``: ``SHA-256(0x00 || data)``."""
    return sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """The hash of an inner node: ``SHA-256(0x01 || left || right)``."""
    return sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (``n >= 2``)."""
    return 1 << ((n - 1).bit_length() - 1)


def root(leaves: Sequence[bytes]) -> bytes:
    """The tree hash (MTH) of the leaf hashes ``leaves``.

    Computed level by level: adjacent nodes are paired and an odd last node moves
    up unchanged, which gives the same tree as RFC 6962's split at the largest
    power of two (its left subtrees are always complete)."""
    if not leaves:
        return EMPTY_ROOT
    level = list(leaves)
    while len(level) > 1:
        nxt = [node_hash(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return level[0]


def inclusion_proof(leaves: Sequence[bytes], index: int) -> list[bytes]:
    """The audit path ``PATH(index, D[n])`` of leaf ``index`` in the tree of ``leaves``."""
    n = len(leaves)
    if not 0 <= index < n:
        raise ValueError(f"leaf index {index} is outside a tree of size {n}")
    return _path(leaves, 0, n, index)


def _path(leaves: Sequence[bytes], lo: int, hi: int, m: int) -> list[bytes]:
    # PATH(m, D[lo:hi]) of RFC 6962 2.1.1, m relative to lo
    if hi - lo == 1:
        return []
    k = _split(hi - lo)
    if m < k:
        return _path(leaves, lo, lo + k, m) + [root(leaves[lo + k : hi])]
    return _path(leaves, lo + k, hi, m - k) + [root(leaves[lo : lo + k])]


def consistency_proof(leaves: Sequence[bytes], old_size: int) -> list[bytes]:
    """The proof ``PROOF(old_size, D[n])`` that the tree of the first ``old_size`` leaves
    is a prefix of the tree of all ``leaves``.  Empty when ``old_size`` is 0 or ``n``."""
    n = len(leaves)
    if not 0 <= old_size <= n:
        raise ValueError(f"old size {old_size} is outside 0..{n}")
    if old_size in (0, n):
        return []
    return _subproof(leaves, 0, n, old_size, True)


def _subproof(leaves: Sequence[bytes], lo: int, hi: int, m: int, whole: bool) -> list[bytes]:
    # SUBPROOF(m, D[lo:hi], b) of RFC 6962 2.1.2
    n = hi - lo
    if m == n:
        return [] if whole else [root(leaves[lo:hi])]
    k = _split(n)
    if m <= k:
        return _subproof(leaves, lo, lo + k, m, whole) + [root(leaves[lo + k : hi])]
    return _subproof(leaves, lo + k, hi, m - k, False) + [root(leaves[lo : lo + k])]


def verify_inclusion(leaf: bytes, index: int, size: int, proof: Sequence[bytes], expected_root: bytes) -> bool:
    """Whether ``proof`` shows the leaf hash ``leaf`` at ``index`` in the tree of ``size``
    leaves whose hash is ``expected_root`` (RFC 9162 2.1.3.2)."""
    if not 0 <= index < size:
        return False
    fn, sn = index, size - 1
    r = leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == expected_root


def verify_consistency(old_size: int, new_size: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]) -> bool:
    """Whether ``proof`` shows that the tree of ``old_size`` leaves with hash ``old_root``
    is a prefix of the tree of ``new_size`` leaves with hash ``new_root`` (RFC 9162 2.1.4.2).

    The empty tree is a prefix of every tree (with an empty proof); a tree is consistent
    with itself only when the roots are equal (and the proof is empty)."""
    if not 0 <= old_size <= new_size:
        return False
    if old_size == 0:
        return not proof
    if old_size == new_size:
        return not proof and old_root == new_root
    if not proof:
        return False
    path = list(proof)
    if old_size & (old_size - 1) == 0:  # an exact power of two: the old root is itself a node
        path.insert(0, old_root)
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return fr == old_root and sr == new_root and sn == 0
