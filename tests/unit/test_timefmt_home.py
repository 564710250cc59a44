"""Time formatting lives in kgroup/core/timefmt.py alone (issue #25 point 3): an AST scan of
every module of kgroup fails on strftime / gmtime / localtime / isoformat / ctime outside it,
and on a function defined elsewhere whose name says it formats a time or a duration
(`format_duration_ms` in render/describe.py was one, with its own rule)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1].parent / "kgroup"
HOME = "kgroup/core/timefmt.py"
FORMATTING = {"strftime", "gmtime", "localtime", "isoformat", "ctime", "asctime"}
FORMATTER_NAME = re.compile(r"format\w*_(duration|utc|time|date|clock|lag)|(duration|time)_text")


def time_formatting(edited: dict[Path, str] | None = None) -> set[tuple[str, str]]:
    """(module, what) for each time formatting outside core/timefmt.py: a call or reference
    to one of FORMATTING (attribute or name), or a def named like a time formatter."""
    edited = edited or {}
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        name = str(path.relative_to(PACKAGE.parent))
        if name == HOME:
            continue
        text = edited.get(path) or path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text, filename=name)):
            if isinstance(node, ast.Attribute) and node.attr in FORMATTING:
                found.add((name, node.attr))
            elif isinstance(node, ast.Name) and node.id in FORMATTING:
                found.add((name, node.id))
            elif isinstance(node, ast.alias) and node.name in FORMATTING:
                found.add((name, node.name))
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and FORMATTER_NAME.search(
                node.name
            ):
                found.add((name, f"def {node.name}"))
    return found


def test_time_is_formatted_only_in_core_timefmt() -> None:
    found = time_formatting()
    assert not found, f"format times through a named function of {HOME}:\n" + "\n".join(
        f"  {module}: {what}" for module, what in sorted(found)
    )


@pytest.mark.parametrize(
    ("module", "line", "what"),
    [
        ("render/check.py", 'time.strftime("%H", time.gmtime(0))', "strftime"),
        ("cli/describe.py", "time.gmtime()", "gmtime"),
        ("sandbox/broker.py", "datetime.now().isoformat()", "isoformat"),
        ("check/run.py", "from time import localtime", "localtime"),
        ("render/describe.py", "def format_duration_ms(ms): return ''", "def format_duration_ms"),
        ("check/run.py", "def window_time_text(s): return ''", "def window_time_text"),
    ],
)
def test_an_added_time_formatting_is_caught(module: str, line: str, what: str) -> None:
    path = PACKAGE / module
    text = path.read_text(encoding="utf-8") + f"\n\ndef _added():\n    {line}\n"
    if line.startswith("def "):
        text = path.read_text(encoding="utf-8") + f"\n\n{line}\n"
    assert (f"kgroup/{module}", what) in time_formatting({path: text})
