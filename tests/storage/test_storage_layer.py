"""storage imports only core, and not even core's rules: the import's rules check is passed in."""

import ast
from pathlib import Path

import tonk.storage

STORAGE = Path(tonk.storage.__file__).parent


def _imports(path: Path) -> list[str]:
    """Every module a file imports, anywhere in it (inside functions too), as absolute names."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                out.append(node.module or "")
            else:  # relative to tonk.storage
                base = ["tonk", "storage"][: 3 - node.level] if node.level <= 2 else []
                out.append(".".join(base + ([node.module] if node.module else [])))
    return out


def test_storage_imports_only_core_and_no_rules():
    bad = []
    for path in sorted(STORAGE.glob("*.py")):
        for name in _imports(path):
            if name.startswith("tonk.") and not name.startswith(("tonk.core", "tonk.storage")):
                bad.append(f"{path.name}: {name}")
            if name.startswith(("tonk.core.audit", "tonk.core.ruleset", "tonk.variants")):
                bad.append(f"{path.name}: {name} (the rules are passed in, not imported)")
    assert bad == []


def test_the_hash_chain_is_computed_only_in_chain_py():
    """One home for the chain: the stores and jsonl.py call chain.py's functions."""
    for name in ("base.py", "append_rules.py", "sqlite.py", "postgres.py", "memory.py", "jsonl.py", "projection.py", "codec.py"):
        text = (STORAGE / name).read_text()
        assert "sha256(prev" not in text and "sha256(last" not in text and "from hashlib import sha256" not in text, name
