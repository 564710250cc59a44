"""Imports run one way, down the layers (issue #25, README "Layout"): an AST scan of every module
of kgroup, generated ones included, fails on an import of a higher layer than the module's own.

Layers, bottom to top: protocol (0) < core, offsets (1) < the run layers (2) < render (3) <
cli (4). A module may import its own layer or lower ones. Every import counts: top-level, lazy
(inside a function), `import x` and `from x import y`, relative ones resolved. A new top-level
package of kgroup must be given a layer here, or the scan fails.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "kgroup"

LAYERS = {
    "protocol": 0,
    "core": 1,
    "offsets": 1,
    "assign": 2,
    "describe": 2,
    "check": 2,
    "reset": 2,
    "delete": 2,
    "decode": 2,
    "scan": 2,
    "sandbox": 2,
    "render": 3,
    "cli": 4,
    "__main__": 4,  # `python -m kgroup`: runs the CLI
}

# The upward arrows still left, as (importing module, imported module). Empty it as they go;
# never add to it: a run layer hands results or callbacks to cli/ instead of rendering.


def _modules() -> Iterator[Path]:
    return iter(sorted(PACKAGE.rglob("*.py")))


def _layer_of_path(path: Path) -> str | None:
    """The layer name of a module of kgroup (None: the package root, which imports nothing)."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return None if parts == ("__init__",) else parts[0]


def _imported(path: Path, source: str | None = None) -> Iterator[str]:
    """Every kgroup module `path` (or `source` as if it were `path`) imports, dotted."""
    text = path.read_text(encoding="utf-8") if source is None else source
    tree = ast.parse(text, filename=str(path))
    rel = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = list(rel[:-1])  # the package a relative import starts from
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            yield module
            if module == "kgroup":  # from kgroup import cli (not: import __version__)
                names = (a.name for a in node.names)
                yield from (f"kgroup.{n}" for n in names if not n.startswith("__"))


@functools.cache
def _imports_of_file(path: Path) -> tuple[str, ...]:
    return tuple(_imported(path))


def _importers(
    edited: dict[Path, str] | None,
    checked: Callable[[Path], bool],
    forbidden: Callable[[str], bool],
) -> set[str]:
    """kgroup/... names of the `checked` modules importing a `forbidden` module (at any depth,
    lazily too); `edited` gives modules' text in place of the files'."""
    edited = edited or {}
    found = set()
    for path in _modules():
        if not checked(path):
            continue
        modules = _imported(path, edited[path]) if path in edited else _imports_of_file(path)
        if any(forbidden(module) for module in modules):
            found.add(str(path.relative_to(PACKAGE.parent)))
    return found


def upward_imports(edited: dict[Path, str] | None = None) -> set[tuple[str, str]]:
    """(module path, imported module) for every import of a higher layer; `edited` gives
    modules' text in place of the files'."""
    edited = edited or {}
    found = set()
    for path in _modules():
        source = _layer_of_path(path)
        if source is None:
            continue
        assert source in LAYERS, f"kgroup/{source} has no layer in tests/unit/test_layers.py"
        modules = _imported(path, edited[path]) if path in edited else _imports_of_file(path)
        for module in modules:
            parts = module.split(".")
            if parts[0] != "kgroup" or len(parts) < 2:
                continue  # not kgroup, or its root package (only __version__)
            target = parts[1]
            assert target in LAYERS, f"{module} (imported by {path}) has no layer"
            if LAYERS[target] > LAYERS[source]:
                found.add((str(path.relative_to(PACKAGE.parent)), module))
    return found


def test_the_scan_sees_generated_modules_and_lazy_imports() -> None:
    scanned = {str(p.relative_to(PACKAGE.parent)) for p in _modules()}
    assert any(p.startswith("kgroup/protocol/generated/") for p in scanned)
    assert any(p.startswith("kgroup/offsets/generated/") for p in scanned)
    # a lazy import inside a function: kgroup.cli.reset renders through kgroup.render.reset
    assert "kgroup.render.reset" in set(_imported(PACKAGE / "cli" / "reset.py"))


def test_no_import_runs_back_up_the_layers() -> None:
    new = upward_imports()
    assert not new, "imports of a higher layer (move the code, or pass a callback down):\n" + (
        "\n".join(f"  {module} imports {target}" for module, target in sorted(new))
    )


@pytest.mark.parametrize(
    ("module", "line", "arrow"),
    [
        ("core/admin.py", "from kgroup.reset.share import x", "kgroup.reset.share"),
        ("protocol/errors.py", "import kgroup.core.errors", "kgroup.core.errors"),
        ("reset/run.py", "from kgroup import render", "kgroup.render"),
        ("scan/local.py", "from ..cli import app", "kgroup.cli"),
    ],
)
def test_an_added_upward_import_is_caught(module: str, line: str, arrow: str) -> None:
    """The scan itself, with one upward import added inside a function of a module."""
    path = PACKAGE / module
    text = path.read_text(encoding="utf-8") + f"\n\ndef _added():\n    {line}\n"
    assert (f"kgroup/{module}", arrow) in upward_imports({path: text})


# ---------------------------------------------------------------------------------------------
# Only core/ talks to Kafka: no other module imports the client library (librdkafka's binding)

KAFKA_CLIENT = "confluent_kafka"


def kafka_client_imports(edited: dict[Path, str] | None = None) -> set[str]:
    """Modules outside kgroup/core that import confluent_kafka (at any depth, lazily too)."""
    return _importers(
        edited,
        lambda path: _layer_of_path(path) not in (None, "core"),
        lambda module: module.split(".")[0] == KAFKA_CLIENT,
    )


def test_only_core_imports_the_kafka_client() -> None:
    found = kafka_client_imports()
    assert not found, (
        "only kgroup/core talks to Kafka: move the call into core (which raises kgroup's own "
        "errors, kgroup.core.rdkafka_errors) and call that:\n" + "\n".join(sorted(found))
    )


@pytest.mark.parametrize(
    ("module", "line"),
    [
        ("reset/liveness.py", "from confluent_kafka import KafkaException"),
        ("decode/run.py", "import confluent_kafka.admin"),
        ("protocol/errors.py", "from confluent_kafka import KafkaError as E"),
    ],
)
def test_an_added_kafka_client_import_is_caught(module: str, line: str) -> None:
    path = PACKAGE / module
    text = path.read_text(encoding="utf-8") + f"\n\ndef _added():\n    {line}\n"
    assert f"kgroup/{module}" in kafka_client_imports({path: text})


# ---------------------------------------------------------------------------------------------
# Run layers take typed options: no `opts: Any` (the CLI's option bag) below cli/

OPTION_NAMES = ("opts", "gopts")
# (module, function, parameter) still untyped. Empty it as they go; never add to it.


def untyped_options(edited: dict[Path, str] | None = None) -> set[tuple[str, str, str]]:
    """(module, function, parameter) of every opts/gopts parameter of a run layer (or of
    core, offsets, protocol) that is unannotated or annotated `Any`."""
    edited = edited or {}
    found = set()
    for path in _modules():
        layer = _layer_of_path(path)
        if layer is None or LAYERS[layer] > 2:
            continue
        text = edited.get(path) or path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text, filename=str(path))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                if arg.arg not in OPTION_NAMES:
                    continue
                note = arg.annotation
                if note is None or ast.unparse(note) in ("Any", "typing.Any", "'Any'"):
                    found.add((str(path.relative_to(PACKAGE.parent)), node.name, arg.arg))
    return found


def test_run_layers_take_typed_options() -> None:
    new = untyped_options()
    assert not new, "give these a typed options object (a dataclass the CLI builds):\n" + (
        "\n".join(f"  {m}: {f}({a}: Any)" for m, f, a in sorted(new))
    )


def test_an_untyped_options_parameter_is_caught() -> None:
    path = PACKAGE / "describe" / "run.py"
    added = "\n\ndef _added(opts: Any, x: int) -> None:\n    pass\n"
    text = path.read_text(encoding="utf-8") + added
    assert ("kgroup/describe/run.py", "_added", "opts") in untyped_options({path: text})


# ---------------------------------------------------------------------------------------------
# Run layers draw nothing: no module below render/ imports rich, and every progress bar or live
# line is built by render/progress.py alone (issue #25 point 3)

DRAWING = "rich"
PROGRESS_HOME = "kgroup/render/progress.py"
PROGRESS_MODULES = ("rich.progress", "rich.live")


def rich_imports(edited: dict[Path, str] | None = None) -> set[str]:
    """Modules of a run layer (or core, offsets, protocol) that import rich, at any depth,
    under TYPE_CHECKING too (a run layer hands numbers to a protocol cli/ fills in)."""

    def below_render(path: Path) -> bool:
        layer = _layer_of_path(path)
        return layer is not None and LAYERS[layer] <= 2

    return _importers(edited, below_render, lambda module: module.split(".")[0] == DRAWING)


def progress_builders(edited: dict[Path, str] | None = None) -> set[str]:
    """Modules other than render/progress.py that import rich's progress bars or live display."""
    return _importers(
        edited,
        lambda path: str(path.relative_to(PACKAGE.parent)) != PROGRESS_HOME,
        lambda module: any(module == p or module.startswith(p + ".") for p in PROGRESS_MODULES),
    )


def test_no_run_layer_imports_rich() -> None:
    found = rich_imports()
    assert not found, (
        "run layers report progress through a protocol or callback (kgroup.scan.spark_jobs."
        "TaskReport, kgroup.decode.run.DecodeProgress) that cli/ fills from render/:\n"
        + "\n".join(sorted(found))
    )


def test_only_render_progress_builds_progress_bars() -> None:
    found = progress_builders()
    assert not found, f"build progress bars in {PROGRESS_HOME}:\n" + "\n".join(sorted(found))


@pytest.mark.parametrize(
    ("module", "line"),
    [
        ("scan/spark_jobs.py", "import rich.progress as rpg"),
        ("decode/run.py", "from rich.console import Console"),
        ("check/run.py", "import rich"),
    ],
)
def test_an_added_rich_import_in_a_run_layer_is_caught(module: str, line: str) -> None:
    path = PACKAGE / module
    text = path.read_text(encoding="utf-8") + f"\n\ndef _added():\n    {line}\n"
    assert f"kgroup/{module}" in rich_imports({path: text})


@pytest.mark.parametrize(
    ("module", "line"),
    [
        ("cli/simulate_progress.py", "from rich.live import Live"),
        ("render/check.py", "import rich.progress as rp"),
    ],
)
def test_an_added_progress_bar_outside_render_progress_is_caught(module: str, line: str) -> None:
    path = PACKAGE / module
    text = path.read_text(encoding="utf-8") + f"\n\ndef _added():\n    {line}\n"
    assert f"kgroup/{module}" in progress_builders({path: text})
