"""kgroup runs on Python 3.10 to 3.13: pyproject's metadata and the README name the same range,
and no source uses syntax or a standard-library name newer than 3.10 (main is developed on 3.11,
where such a name works and no other test would notice)."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest depends on tomli below 3.11
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
OLDEST = (3, 10)

# Standard-library names added after 3.10, by module (the version that added each set).
NEWER_NAMES: dict[str, dict[str, str]] = {
    "typing": {
        **dict.fromkeys(
            [
                "Self",
                "Never",
                "LiteralString",
                "assert_never",
                "assert_type",
                "reveal_type",
                "Required",
                "NotRequired",
                "Unpack",
                "TypeVarTuple",
                "dataclass_transform",
                "get_overloads",
                "clear_overloads",
            ],
            "3.11",
        ),
        **dict.fromkeys(["override", "TypeAliasType"], "3.12"),
        **dict.fromkeys(["ReadOnly", "TypeIs", "NoDefault", "get_protocol_members"], "3.13"),
    },
    "datetime": {"UTC": "3.11"},
    "enum": dict.fromkeys(
        [
            "StrEnum",
            "ReprEnum",
            "EnumCheck",
            "FlagBoundary",
            "verify",
            "member",
            "nonmember",
            "global_enum",
            "show_flag_values",
        ],
        "3.11",
    ),
    "asyncio": {
        **dict.fromkeys(
            [
                "TaskGroup",
                "timeout",
                "timeout_at",
                "Timeout",
                "Runner",
                "Barrier",
                "BrokenBarrierError",
            ],
            "3.11",
        ),
        **dict.fromkeys(["eager_task_factory", "create_eager_task_factory"], "3.12"),
        "QueueShutDown": "3.13",
    },
    "hashlib": {"file_digest": "3.11"},
    "contextlib": {"chdir": "3.11"},
    "itertools": {"batched": "3.12"},
    "operator": {"call": "3.11"},
    "math": {"cbrt": "3.11", "exp2": "3.11", "sumprod": "3.12", "fma": "3.13"},
    "logging": {"getLevelNamesMapping": "3.11", "getHandlerByName": "3.12"},
    "re": {"NOFLAG": "3.11"},
    "inspect": {"getmembers_static": "3.11", "markcoroutinefunction": "3.12"},
    "sys": {"exception": "3.11", "monitoring": "3.12"},
    "copy": {"replace": "3.13"},
    "warnings": {"deprecated": "3.13"},
}
NEWER_MODULES = {"tomllib": "3.11", "wsgiref.types": "3.11"}
NEWER_BUILTINS = {
    "ExceptionGroup": "3.11",
    "BaseExceptionGroup": "3.11",
    "PythonFinalizationError": "3.13",
}


def walk(tree: ast.AST) -> list[ast.AST]:
    """The nodes of `tree`, less the bodies of `if sys.version_info >= ...:` (code that only
    newer Pythons run)."""
    nodes: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        nodes.append(node)
        if (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Compare)
            and "sys.version_info" in ast.unparse(node.test.left)
            and isinstance(node.test.ops[0], (ast.Gt, ast.GtE))
        ):
            todo.extend([node.test, *node.orelse])
        else:
            todo.extend(ast.iter_child_nodes(node))
    return nodes


def newer_than_oldest(source: str, name: str = "<source>") -> list[str]:
    """Each use in `source` of syntax or a standard-library name that Python 3.10 lacks, as
    `name:line: what (version)`."""
    try:
        tree = ast.parse(source, name, feature_version=OLDEST)
    except SyntaxError as exc:
        return [f"{name}:{exc.lineno}: syntax newer than 3.10 ({exc.msg})"]
    nodes = walk(tree)
    modules: dict[str, str] = {}  # local name -> module, from `import X [as Y]`
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                modules[alias.asname or alias.name.split(".")[0]] = alias.name
    found: list[str] = []

    def hit(node: ast.AST, what: str, version: str) -> None:
        found.append(f"{name}:{getattr(node, 'lineno', 0)}: {what} (Python {version})")

    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in NEWER_MODULES:
                    hit(node, f"import {alias.name}", NEWER_MODULES[alias.name])
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module in NEWER_MODULES:
                hit(node, f"from {node.module} import", NEWER_MODULES[node.module])
            for alias in node.names:
                version = NEWER_NAMES.get(node.module, {}).get(alias.name)
                if version:
                    hit(node, f"from {node.module} import {alias.name}", version)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            module = modules.get(node.value.id)
            version = NEWER_NAMES.get(module or "", {}).get(node.attr)
            if version:
                hit(node, f"{module}.{node.attr}", version)
        elif isinstance(node, ast.Name) and node.id in NEWER_BUILTINS:
            hit(node, node.id, NEWER_BUILTINS[node.id])
    return found


def sources() -> list[Path]:
    roots = [ROOT / "kgroup", ROOT / "scripts", ROOT / "benchmarks", ROOT / "tests"]
    return [ROOT / "setup.py", *sorted(p for root in roots for p in root.rglob("*.py"))]


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def classifier_versions() -> list[tuple[int, int]]:
    prefix = "Programming Language :: Python :: "
    found = [c[len(prefix) :] for c in pyproject().get("classifiers", []) if c.startswith(prefix)]
    return sorted(tuple(map(int, v.split("."))) for v in found if re.fullmatch(r"3\.\d+", v))


def test_no_source_uses_syntax_or_a_stdlib_name_newer_than_3_10() -> None:
    found = [
        line
        for path in sources()
        for line in newer_than_oldest(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert found == []


def test_the_scan_finds_each_kind_of_newer_use() -> None:
    source = (
        "import tomllib\nimport datetime as dt\nimport enum\nfrom typing import Self\n"
        "from itertools import batched\nfrom wsgiref.types import WSGIApplication\n"
        "class E(enum.StrEnum): pass\nwhen = dt.UTC\n"
        "try:\n    pass\nexcept ValueError as exc:\n    raise ExceptionGroup('x', [exc])\n"
    )
    assert sorted(line.split(": ", 1)[1] for line in newer_than_oldest(source)) == [
        "ExceptionGroup (Python 3.11)",
        "datetime.UTC (Python 3.11)",
        "enum.StrEnum (Python 3.11)",
        "from itertools import batched (Python 3.12)",
        "from typing import Self (Python 3.11)",
        "from wsgiref.types import (Python 3.11)",
        "import tomllib (Python 3.11)",
    ]
    star = "try:\n    pass\nexcept* ValueError:\n    pass\n"
    # 3.11+ says "Exception groups are only supported in Python 3.11 and greater", 3.10 "invalid
    # syntax" (its parser knows no except*)
    (syntax,) = newer_than_oldest(star)
    assert re.fullmatch(r"<source>:[34]: syntax newer than 3\.10 \(.+\)", syntax)
    guarded = (
        "import sys\nif sys.version_info >= (3, 11):\n    import tomllib\nelse:\n    import tomli\n"
    )
    assert newer_than_oldest(guarded) == []
    assert newer_than_oldest(guarded.replace("tomli\n", "tomllib\n")) == [
        "<source>:5: import tomllib (Python 3.11)"
    ]


def test_pyproject_names_python_3_10_to_3_13() -> None:
    assert pyproject()["requires-python"] == ">=3.10"
    assert classifier_versions() == [(3, 10), (3, 11), (3, 12), (3, 13)]
    assert "Programming Language :: Python :: 3 :: Only" in pyproject()["classifiers"]


def test_readme_states_the_range_pyproject_declares() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    stated = re.search(
        r"^## Start here \(fresh machine: Python (3\.\d+) to (3\.\d+)\)$", readme, re.M
    )
    assert stated is not None, "README's 'Start here' heading names no Python range"
    low, high = (tuple(map(int, v.split("."))) for v in stated.groups())
    versions = classifier_versions()
    assert (low, high) == (versions[0], versions[-1])
    assert pyproject()["requires-python"] == ">={}.{}".format(*low)
