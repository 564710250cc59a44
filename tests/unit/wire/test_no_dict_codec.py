"""No part of kgroup reads or writes Kafka messages through the run-time dict codec
(`kgroup.protocol.dicts`): the wire client and the assignors use the generated message classes
(`kgroup.protocol.generated`), one shape per message (issue #25)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import kgroup

ROOT = Path(kgroup.__file__).parent
CODEC = "kgroup.protocol.dicts"


def imports(source: str, package: str) -> set[str]:
    """Every module `source` (a module of `package`) imports, at any depth: `from a import b`
    gives both `a` and `a.b`, relative imports resolved."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def test_no_module_of_kgroup_imports_the_dict_codec() -> None:
    users = sorted(
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("*.py")
        if path.name != "dicts.py"
        and CODEC
        in imports(
            path.read_text(encoding="utf-8"),
            ".".join(path.relative_to(ROOT.parent).parent.parts),
        )
    )
    assert users == []


@pytest.mark.parametrize(
    ("source", "package"),
    [
        ("from kgroup.protocol import dicts", "kgroup.core.wire"),
        ("import kgroup.protocol.dicts", "kgroup.core.wire"),
        ("from kgroup.protocol.dicts import decode", "kgroup.assign"),
        ("def f():\n    from kgroup.protocol import dicts as codec\n", "kgroup.core.wire"),
        ("from ..protocol import dicts", "kgroup.core"),
        ("from . import dicts", "kgroup.protocol"),
    ],
)
def test_each_way_of_importing_the_codec_is_seen(source: str, package: str) -> None:
    assert CODEC in imports(source, package)
