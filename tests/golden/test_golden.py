"""Nothing changes meaning: the engine reproduces the frozen golden corpus byte for byte.

The corpus (``corpus/``) was written by ``make_corpus.py`` from the code before the
redesign of issue 11: adjudication of every public and referee hand record, the
frozen format-1 event log as decoded, simulated games under the base game and
every variant (event payloads), their audits, archive audits of tampered copies
and re-adjudications under other rules.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SPEC = importlib.util.spec_from_file_location("make_corpus", HERE / "make_corpus.py")
make_corpus = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(make_corpus)

BUILT = make_corpus.build()
FROZEN = sorted(p.name for p in (HERE / "corpus").iterdir())


def test_the_corpus_names_the_same_files():
    assert sorted(BUILT) == FROZEN


@pytest.mark.parametrize("name", FROZEN)
def test_the_code_reproduces_the_frozen_file(name):
    frozen = (HERE / "corpus" / name).read_bytes()
    built = BUILT.get(name)
    assert built is not None, f"{name} is no longer produced"
    if built != frozen:
        old, new = frozen.decode().splitlines(), built.decode().splitlines()
        first = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
        pytest.fail(f"{name} differs from line {first + 1}:\n  frozen: {old[first:first + 1]}\n  built:  {new[first:first + 1]}")
