"""The review's leftovers stay gone: which signal gives which exit code is decided in
kgroup/reset/interrupts.py only, and each deletion loop of kgroup/reset/streams.py catches an
interrupt in one place (it caught it twice: inside the loop and around it)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[3] / "kgroup"


def _sources() -> list[tuple[str, str]]:
    return [
        (str(path.relative_to(PACKAGE.parent)), path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "interrupts.py"
    ]


def test_only_interrupts_py_maps_a_signal_to_its_code_or_name() -> None:
    spelled = ('"SIGTERM" if isinstance', "EXIT_SIGTERM if")
    found = [f"{name}: {s}" for name, text in _sources() for s in spelled if s in text]
    assert found == []


def test_terminated_is_one_class() -> None:
    # core/errors.py defines it, so the CLI's last resort catches it without importing reset/
    defined = [name for name, text in _sources() if "class Terminated(" in text]
    assert defined == ["kgroup/core/errors.py"]


def _interrupt_handlers(function: ast.AST) -> int:
    count = 0
    for node in ast.walk(function):
        if isinstance(node, ast.ExceptHandler) and node.type is not None:
            text = ast.unparse(node.type)
            count += "INTERRUPTS" in text or "KeyboardInterrupt" in text or "Terminated" in text
    return count


def test_each_deletion_of_streams_py_catches_an_interrupt_once() -> None:
    tree = ast.parse((PACKAGE / "reset" / "streams.py").read_text(encoding="utf-8"))
    functions = {
        node.name: _interrupt_handlers(node)
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
    }
    assert functions["delete_after_commit"] == 1
    assert functions["delete_with_internal_topics"] == 1
    assert sum(functions.values()) == 2
