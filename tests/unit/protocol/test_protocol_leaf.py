"""kgroup.protocol is a leaf: none of its modules imports another part of kgroup (as franz-go's
`kmsg` is its own module), so the layers above can use it and it never reaches up to them."""

from __future__ import annotations

import ast
from pathlib import Path

import kgroup.protocol

ROOT = Path(kgroup.protocol.__file__).parent


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_protocol_imports_nothing_else_of_kgroup() -> None:
    outside = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in ROOT.rglob("*.py")
        for name in _imports(path)
        if (name == "kgroup" or name.startswith("kgroup."))
        and not name.startswith("kgroup.protocol")
    }
    assert not outside, sorted(outside)
