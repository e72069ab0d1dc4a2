"""The proof-checking algorithm printed in docs/evidence.md works as printed: it accepts a
proof from ``tonk prove`` with the public key alone, and refuses a changed one."""

from __future__ import annotations

import base64
import dataclasses
import re
from pathlib import Path

import pytest

from tonk.storage import EventStore
from tonk.storage import evidence as ev

DOC = Path(__file__).resolve().parents[2] / "docs" / "evidence.md"


def documented_check():
    code = re.search(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S).group(1)
    namespace: dict = {}
    exec(compile(code, str(DOC), "exec"), namespace)
    return namespace["check"]


def test_the_documented_algorithm_checks_a_real_proof(archives, tmp_path):
    check = documented_check()
    archive = archives[0]
    path = archive.materialise(tmp_path)
    with EventStore.open(path) as store:
        for gid in store.game_ids():
            proof = ev.make_proof(store, gid)
            text = ev.proof_text(proof)
            assert check(text, archive.vkey) == (gid, proof.seq, proof.hash)
    lines = text.split("\n")
    lines[3] = base64.b64encode(b"\x01" * 32).decode()
    with pytest.raises(ValueError, match="not in the checkpoint's tree"):
        check("\n".join(lines), archive.vkey)
    other = "tonk/0000000000000000+00000000+" + archive.vkey.split("+", 2)[2]
    with pytest.raises(ValueError, match="not signed by the trusted key"):
        check(text, other)


def test_the_documented_algorithm_refuses_an_index_outside_the_tree_and_a_foreign_header(archives, tmp_path):
    """RFC 9162 2.1.3.2 fails a proof whose index is not below the tree size: without that
    check, an index with a high bit added walks the same path to the same root."""
    check = documented_check()
    archive = archives[0]
    path = archive.materialise(tmp_path)
    with EventStore.open(path) as store:
        proofs = [ev.make_proof(store, gid) for gid in store.game_ids()]
    for proof in proofs:
        beyond = ev.proof_text(dataclasses.replace(proof, index=proof.index + 2**40))
        with pytest.raises(ValueError, match="not in the checkpoint's tree"):
            check(beyond, archive.vkey)
    text = ev.proof_text(proofs[0])
    with pytest.raises(ValueError, match="not a tlog-proof"):
        check(text.replace("c2sp.org/tlog-proof@v1", "c2sp.org/tlog-proof@v9", 1), archive.vkey)
