"""Exit codes are set from their named constants (kgroup.core.errors, kgroup.reset.apply), never
spelled as numbers or arithmetic (`128 + 15`): a code changes in one place, and a reader finds
every place that uses it by name."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "kgroup"


def _has_number(node: ast.AST) -> bool:
    return any(
        isinstance(n, ast.Constant) and type(n.value) is int and n.value != 0
        for n in ast.walk(node)
    )


def numeric_exit_codes(source: str, name: str = "<source>") -> list[str]:
    """`exit_code = <number>` (or an expression with one), as an assignment, a class attribute
    or an `exit_code=` keyword argument; comparisons are not assignments and pass."""
    found = []
    for node in ast.walk(ast.parse(source)):
        values: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            for target in node.targets:
                leaf = (
                    target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                )
                if leaf == "exit_code":
                    values.append(node.value)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target = node.target
            leaf = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if leaf == "exit_code":
                values.append(node.value)
        elif isinstance(node, ast.keyword) and node.arg == "exit_code":
            values.append(node.value)
        found += [f"{name}:{v.lineno}: {ast.unparse(v)}" for v in values if _has_number(v)]
    return found


def test_no_exit_code_is_set_as_a_number() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "generated" in path.parts:
            continue
        rel = str(path.relative_to(PACKAGE.parent))
        found += numeric_exit_codes(path.read_text(encoding="utf-8"), rel)
    assert not found, "exit codes set as numbers, not their constants:\n" + "\n".join(found)


def test_the_check_sees_a_number_and_passes_a_constant() -> None:
    bad = "error.exit_code = 128 + 15 if s else EXIT_INTERRUPTED\nclass E:\n    exit_code = 130\n"
    assert len(numeric_exit_codes(bad)) == 2
    good = "error.exit_code = EXIT_SIGTERM if s else EXIT_INTERRUPTED\nif x.exit_code == 3: pass\n"
    assert numeric_exit_codes(good) == []
