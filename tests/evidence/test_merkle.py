"""The Merkle tree of RFC 6962: the published reference roots and proofs, and property tests:
every inclusion and consistency proof verifies, for every size and index, and none survives a
changed leaf, a changed root or a changed proof."""

from __future__ import annotations

from hashlib import sha256

from hypothesis import given, settings
from hypothesis import strategies as st

from tonk.storage import merkle
from tonk.storage.merkle import (
    EMPTY_ROOT,
    consistency_proof,
    inclusion_proof,
    leaf_hash,
    node_hash,
    root,
    verify_consistency,
    verify_inclusion,
)

# The test vectors of the Certificate Transparency reference implementation (merkle_tree_test)
CT_LEAVES = [bytes.fromhex(h) for h in ("", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f")]
CT_ROOTS = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
H = [leaf_hash(d) for d in CT_LEAVES]


def reference_root(leaves: list[bytes]) -> bytes:
    """MTH written as RFC 6962 defines it: split at the largest power of two below n."""
    n = len(leaves)
    if n == 0:
        return sha256(b"").digest()
    if n == 1:
        return leaves[0]
    k = 1
    while k * 2 < n:
        k *= 2
    return sha256(b"\x01" + reference_root(leaves[:k]) + reference_root(leaves[k:])).digest()


def test_the_reference_roots_of_every_size():
    for n in range(len(CT_LEAVES) + 1):
        assert root(H[:n]).hex() == CT_ROOTS[n], n
    assert EMPTY_ROOT.hex() == CT_ROOTS[0]


def test_the_reference_inclusion_and_consistency_proofs():
    assert [p.hex() for p in inclusion_proof(H, 0)] == [
        "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
        "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ]
    assert [p.hex() for p in inclusion_proof(H, 5)] == [
        "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ]
    assert [p.hex() for p in consistency_proof(H, 6)] == [
        "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
        "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ]
    assert [p.hex() for p in consistency_proof(H[:5], 2)] == [
        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
        "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    ]


leaves_st = st.lists(st.binary(max_size=8), min_size=1, max_size=70).map(lambda ds: [leaf_hash(d) for d in ds])


@settings(max_examples=150, deadline=None)
@given(leaves_st)
def test_the_root_is_rfc_6962s_recursive_definition(leaves):
    assert root(leaves) == reference_root(leaves)


def flip(h: bytes) -> bytes:
    return bytes([h[0] ^ 1]) + h[1:]


@settings(max_examples=60, deadline=None)
@given(leaves_st, st.data())
def test_every_inclusion_proof_verifies_and_a_changed_leaf_fails(leaves, data):
    n = len(leaves)
    top = root(leaves)
    for i in range(n):  # every index of this size
        proof = inclusion_proof(leaves, i)
        assert verify_inclusion(leaves[i], i, n, proof, top)
        assert not verify_inclusion(flip(leaves[i]), i, n, proof, top)
        assert not verify_inclusion(leaves[i], i, n, proof, flip(top))
        if proof:
            j = data.draw(st.integers(0, len(proof) - 1), label="proof element changed")
            assert not verify_inclusion(leaves[i], i, n, proof[:j] + [flip(proof[j])] + proof[j + 1 :], top)
            assert not verify_inclusion(leaves[i], i, n, proof[:-1], top)
    # a leaf changed in the tree: its own proof from the changed tree does not reach the true root
    i = data.draw(st.integers(0, n - 1), label="changed leaf")
    changed = leaves[:i] + [flip(leaves[i])] + leaves[i + 1 :]
    assert not verify_inclusion(changed[i], i, n, inclusion_proof(changed, i), top)


@settings(max_examples=60, deadline=None)
@given(leaves_st, st.data())
def test_every_consistency_proof_verifies_and_a_changed_leaf_fails(leaves, data):
    n = len(leaves)
    new_root = root(leaves)
    for m in range(0, n + 1):  # every earlier size
        old_root = root(leaves[:m])
        proof = consistency_proof(leaves, m)
        assert verify_consistency(m, n, old_root, new_root, proof), m
        if 0 < m < n:
            assert not verify_consistency(m, n, flip(old_root), new_root, proof)
            assert not verify_consistency(m, n, old_root, flip(new_root), proof)
            j = data.draw(st.integers(0, len(proof) - 1), label="proof element changed")
            assert not verify_consistency(m, n, old_root, new_root, proof[:j] + [flip(proof[j])] + proof[j + 1 :])
    # a leaf of the old tree changed afterwards: no proof from the new tree reaches the old root
    m = data.draw(st.integers(1, n), label="old size")
    i = data.draw(st.integers(0, m - 1), label="changed leaf")
    old_root = root(leaves[:m])
    rewritten = leaves[:i] + [flip(leaves[i])] + leaves[i + 1 :]
    assert not verify_consistency(m, n, old_root, root(rewritten), consistency_proof(rewritten, m))


def test_proofs_refuse_sizes_out_of_range():
    assert not verify_inclusion(H[0], 1, 1, [], H[0])
    assert not verify_consistency(3, 2, root(H[:3]), root(H[:2]), [])
    assert not verify_consistency(2, 2, root(H[:2]), root(H[:3]), [])  # same size, other root
    assert not verify_consistency(2, 5, root(H[:2]), root(H[:5]), [])  # a proof is needed
    assert node_hash(H[0], H[1]) == root(H[:2])
    for bad in (-1, 8):
        try:
            inclusion_proof(H, bad)
        except ValueError as exc:
            assert "outside" in str(exc)
        else:
            raise AssertionError("an index outside the tree was accepted")
    assert merkle.consistency_proof(H, 0) == [] and merkle.consistency_proof(H, 8) == []
