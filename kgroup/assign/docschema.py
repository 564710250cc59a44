"""A small declarative validator for YAML/JSON documents that says where a value is wrong.

Loading keeps every value's position: YAML through `yaml.compose` (node marks, line:column),
JSON through the stdlib parser (syntax errors carry line:column; values only their key path).
A schema is a tree of `Spec` objects; `validate` walks document and schema together and returns
plain data, or raises a UsageError naming the key path and position. Duplicate mapping keys,
which YAML and JSON loaders silently collapse to the last one, are errors.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kgroup.core.errors import UsageError

Path = tuple[str | int, ...]
"""Where a value is: mapping keys and list indexes from the document root."""

MAX_NODES = 5_000_000
"""Values one document may expand to (YAML aliases can repeat a subtree many times)."""


@dataclass(eq=False)
class Node:
    """One value of a loaded document: a scalar, a list of Nodes or (key, value) Node pairs."""

    kind: str  # "scalar" | "list" | "map"
    value: Any
    pos: tuple[int, int] | None = None  # 1-based line, column where the value starts
    text: str | None = None  # a YAML plain scalar's source text (a name written as 2024)


def describe_path(path: Path) -> str:
    """`members[0].owned.t[1]`."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


@dataclass
class Document:
    """A loaded document: its root Node and where it came from (for error messages)."""

    root: Node
    source: str
    positions: dict[Path, tuple[int, int]] = field(default_factory=dict)
    _visited: int = 0

    def error(self, path: Path, message: str, hint: str | None = None) -> UsageError:
        """A UsageError `SOURCE:LINE:COL: PATH: MESSAGE` (position of `path` or its parent)."""
        where = self.source
        for depth in range(len(path), -1, -1):
            pos = self.positions.get(path[:depth])
            if pos is not None:
                where = f"{self.source}:{pos[0]}:{pos[1]}"
                break
        name = describe_path(path)
        return UsageError(f"{where}: {name}: {message}" if name else f"{where}: {message}", hint)

    def visit(self, spec: Spec, node: Node, path: Path) -> Any:
        """Check `node` against `spec` at `path`, remembering where it is."""
        self._visited += 1
        if self._visited > MAX_NODES:
            raise self.error(path, f"the document expands to more than {MAX_NODES:,} values")
        self.note(path, node)
        return spec.check(self, node, path)

    def note(self, path: Path, node: Node) -> None:
        """Remember where the value at `path` starts."""
        if node.pos is not None:
            self.positions[path] = node.pos

    def key_error(self, key_node: Node, path: Path, message: str) -> UsageError:
        """A UsageError at a mapping key's own position (unknown or repeated key)."""
        if key_node.pos is None:
            return self.error(path, message)
        name = describe_path(path)
        line, column = key_node.pos
        return UsageError(
            f"{self.source}:{line}:{column}: " + (f"{name}: " if name else "") + message
        )

    def at(self, node: Node | None, path: Path) -> str:
        """`line:column` of `node` (else of `path`), or the key path without positions."""
        pos = node.pos if node is not None and node.pos else self.positions.get(path)
        return f"{pos[0]}:{pos[1]}" if pos else describe_path(path)


# --- loading ------------------------------------------------------------------------------------


def load_json(text: str, source: str) -> Document:
    """Parse JSON; a syntax error names its line and column."""
    try:
        data = json.loads(text, object_pairs_hook=_Pairs)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{source}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from exc
    except ValueError as exc:  # an integer with more digits than Python converts
        raise UsageError(f"{source}: not valid JSON: {exc}") from exc
    except RecursionError as exc:
        raise UsageError(f"{source}: not valid JSON: nested too deeply") from exc
    return Document(_json_node(data), source)


class _Pairs(list):
    """A JSON object as its (key, value) pairs, duplicates kept."""


def _json_node(value: Any) -> Node:
    if isinstance(value, _Pairs):
        return Node("map", [(Node("scalar", k), _json_node(v)) for k, v in value])
    if isinstance(value, list):
        return Node("list", [_json_node(v) for v in value])
    return Node("scalar", value)


def load_yaml(text: str, source: str) -> Document:
    """Parse YAML (safe tags only) keeping each value's line and column."""
    import yaml  # lazy: `kgroup --help` stays fast

    loader = yaml.SafeLoader("")
    try:
        composed = yaml.compose(text, Loader=yaml.SafeLoader)
        root = _YamlConverter(loader, source).node(composed) if composed is not None else None
    except yaml.MarkedYAMLError as exc:
        raise UsageError(f"{source}:{_yaml_problem(exc)}") from exc
    except yaml.YAMLError as exc:
        raise UsageError(f"{source}: not valid YAML: {' '.join(str(exc).split())}") from exc
    except RecursionError as exc:
        raise UsageError(f"{source}: not valid YAML: nested too deeply") from exc
    return Document(root or Node("scalar", None, (1, 1)), source)


def _yaml_problem(exc: Any) -> str:
    """`LINE:COL: not valid YAML: PROBLEM (CONTEXT at LINE:COL)` from a MarkedYAMLError."""
    mark = exc.problem_mark or exc.context_mark
    where = f"{mark.line + 1}:{mark.column + 1}: " if mark is not None else " "
    text = f"{where}not valid YAML: {exc.problem or exc.context or 'error'}"
    if exc.context and exc.problem:
        text += f" ({exc.context}"
        if exc.context_mark is not None:
            text += f" started at {exc.context_mark.line + 1}:{exc.context_mark.column + 1}"
        text += ")"
    return " ".join(text.split())


class _YamlConverter:
    """yaml nodes -> Nodes; an alias becomes the same Node object (no copy)."""

    _MERGE = "tag:yaml.org,2002:merge"

    def __init__(self, loader: Any, source: str) -> None:
        self.loader = loader
        self.source = source
        self.done: dict[int, Node] = {}

    def node(self, ynode: Any) -> Node:
        import yaml

        known = self.done.get(id(ynode))
        if known is not None:
            return known
        pos = (ynode.start_mark.line + 1, ynode.start_mark.column + 1)
        if isinstance(ynode, yaml.ScalarNode):
            try:
                value = self.loader.construct_object(ynode, deep=True)
            except ValueError as exc:  # e.g. an integer of more digits than Python converts
                where = f"{self.source}:{pos[0]}:{pos[1]}"
                reason = str(exc).split(":")[0]
                raise UsageError(f"{where}: not a usable value ({reason})") from exc
            text = ynode.value if ynode.style is None else None
            node = self.done[id(ynode)] = Node("scalar", value, pos, text)
            return node
        if isinstance(ynode, yaml.SequenceNode):
            node = self.done[id(ynode)] = Node("list", [], pos)
            node.value.extend(self.node(item) for item in ynode.value)
            return node
        node = self.done[id(ynode)] = Node("map", [], pos)
        explicit = [(k, v) for k, v in ynode.value if k.tag != self._MERGE]
        if len(explicit) != len(ynode.value):
            self.loader.flatten_mapping(ynode)  # YAML merge keys (`<<: *base`)
        pairs = [(self.node(k), self.node(v)) for k, v in ynode.value]
        # merged keys come first; an explicit key overrides them (as yaml.safe_load does)
        merged = len(ynode.value) - len(explicit)
        explicit_keys = {_key(k) for k, _ in pairs[merged:] if _hashable(k)}
        node.value.extend(
            (k, v) for k, v in pairs[:merged] if not (_hashable(k) and _key(k) in explicit_keys)
        )
        node.value.extend(pairs[merged:])
        return node


def _hashable(node: Node) -> bool:
    return node.kind == "scalar" and isinstance(node.value, Hashable)


def _key(node: Node) -> Any:
    return (type(node.value).__name__, node.value)


# --- schema -------------------------------------------------------------------------------------


class Spec:
    """What a value must be; `check` returns the plain value or raises at its path."""

    what = "a value"

    def check(self, doc: Document, node: Node, path: Path) -> Any:
        raise NotImplementedError

    def wrong(self, doc: Document, node: Node, path: Path) -> UsageError:
        return doc.error(path, f"expected {self.what}, got {kind_of(node)}")


def kind_of(node: Node) -> str:
    """How a value reads to a user: `a list`, `a string 'x'`, `null`."""
    if node.kind == "list":
        return "a list"
    if node.kind == "map":
        return "a mapping"
    value = node.value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, int):
        return f"an integer ({value})"
    if isinstance(value, float):
        return f"a number ({value})"
    if isinstance(value, str):
        return f"a string {value!r}"
    return f"a {type(value).__name__}"


@dataclass
class Int(Spec):
    """An integer (not a boolean, not a float) within [low, high]."""

    low: int | None = None
    high: int | None = None
    what: str = "an integer"
    too_big: Callable[[int], str] | None = None  # message for a value above `high`

    def check(self, doc: Document, node: Node, path: Path) -> int:
        value = node.value
        if node.kind != "scalar" or isinstance(value, bool) or not isinstance(value, int):
            raise self.wrong(doc, node, path)
        if self.low is not None and value < self.low:
            raise doc.error(path, f"{value} is below {self.low}")
        if self.high is not None and value > self.high:
            raise doc.error(
                path, self.too_big(value) if self.too_big else f"{value} is above {self.high:,}"
            )
        return value


@dataclass
class Name(Spec):
    """A name: a string, or an integer written as one (`2024`, kept as written)."""

    what: str = "a name"
    empty_ok: bool = False

    def check(self, doc: Document, node: Node, path: Path) -> str:
        value = node.value
        if node.kind == "scalar" and isinstance(value, int) and not isinstance(value, bool):
            return node.text if node.text is not None else str(value)
        if node.kind != "scalar" or not isinstance(value, str):
            hint = "quote it" if node.kind == "scalar" and value is not None else None
            raise doc.error(path, f"expected {self.what}, got {kind_of(node)}", hint)
        if not value and not self.empty_ok:
            raise doc.error(path, f"expected {self.what}, got an empty string")
        return value


@dataclass
class Optional(Spec):
    """`inner`, or null (None)."""

    inner: Spec

    def check(self, doc: Document, node: Node, path: Path) -> Any:
        if node.kind == "scalar" and node.value is None:
            return None
        return self.inner.check(doc, node, path)


@dataclass
class ListOf(Spec):
    """A list of `item`; with `unique`, items with the same key are an error."""

    item: Spec
    what: str = "a list"
    unique: Callable[[Any], Hashable] | None = None
    duplicate: Callable[[Any], str] = lambda key: f"{key!r} is listed twice"
    hint: str | None = None

    def check(self, doc: Document, node: Node, path: Path) -> list[Any]:
        if node.kind != "list":
            raise doc.error(path, f"expected {self.what}, got {kind_of(node)}", self.hint)
        out: list[Any] = []
        first: dict[Hashable, Path] = {}
        for index, child in enumerate(node.value):
            value = doc.visit(self.item, child, (*path, index))
            if self.unique is not None:
                key = self.unique(value)
                if key in first:
                    raise doc.error(
                        (*path, index),
                        f"{self.duplicate(key)} (first at {doc.at(None, first[key])})",
                    )
                first[key] = (*path, index)
            out.append(value)
        return out


class _Mapping(Spec):
    """A mapping walked in document order; a key given twice is an error. `entry` reads a key
    and says which Spec its value must meet."""

    def entry(self, doc: Document, key_node: Node, path: Path) -> tuple[str, Spec]:
        raise NotImplementedError

    def check(self, doc: Document, node: Node, path: Path) -> dict[str, Any]:
        if node.kind != "map":
            raise self.wrong(doc, node, path)
        out: dict[str, Any] = {}
        first: dict[str, tuple[Node, Path]] = {}
        for key_node, value_node in node.value:
            key, spec = self.entry(doc, key_node, path)
            here = (*path, key)
            if key in first:
                raise doc.key_error(
                    key_node, path, f"key {key!r} appears twice (first at {doc.at(*first[key])})"
                )
            doc.note(here, key_node)
            first[key] = (key_node, here)
            out[key] = doc.visit(spec, value_node, here)
        return out


@dataclass
class MapOf(_Mapping):
    """A mapping of names to `value`, in document order; a key given twice is an error."""

    value: Spec
    key: Spec = field(default_factory=Name)
    what: str = "a mapping"

    def entry(self, doc: Document, key_node: Node, path: Path) -> tuple[str, Spec]:
        return self.key.check(doc, key_node, path), self.value


@dataclass
class Record(_Mapping):
    """A mapping with known keys: `fields` (key -> Spec); `required` keys must be present."""

    fields: Mapping[str, Spec]
    required: frozenset[str] = frozenset()
    what: str = "a mapping"

    def entry(self, doc: Document, key_node: Node, path: Path) -> tuple[str, Spec]:
        key = key_node.value
        if not isinstance(key, str) or key not in self.fields:
            expected = ", ".join(self.fields)
            raise doc.key_error(key_node, path, f"unknown key {key!r} (expected {expected})")
        return key, self.fields[key]

    def check(self, doc: Document, node: Node, path: Path) -> dict[str, Any]:
        out = super().check(doc, node, path)
        missing = [k for k in self.fields if k in self.required and k not in out]
        if missing:
            raise doc.error(path, f"missing key {missing[0]!r}")
        return out


@dataclass
class ByKind(Spec):
    """One spec per kind of value: a scalar, a list or a mapping."""

    scalar: Spec | None = None
    list: Spec | None = None
    map: Spec | None = None
    what: str = "a value"

    def check(self, doc: Document, node: Node, path: Path) -> Any:
        spec = {"scalar": self.scalar, "list": self.list, "map": self.map}[node.kind]
        if spec is None:
            raise self.wrong(doc, node, path)
        return spec.check(doc, node, path)


@dataclass
class OneKey(Spec):
    """A mapping with exactly one key, one of `choices` (a tagged union): returns (key, value)."""

    choices: Mapping[str, Spec]
    what: str = "a mapping with one key"
    label: str = "key"

    def check(self, doc: Document, node: Node, path: Path) -> tuple[str, Any]:
        names = ", ".join(self.choices)
        if node.kind != "map":
            raise doc.error(path, f"expected {self.what} ({names}), got {kind_of(node)}")
        if len(node.value) != 1:
            keys = ", ".join(repr(k.value) for k, _ in node.value) or "none"
            raise doc.error(path, f"{self.what} is a mapping with one key ({names}), got {keys}")
        ((key_node, value_node),) = node.value
        key = key_node.value
        if not isinstance(key, str) or key not in self.choices:
            raise doc.error(path, f"unknown {self.label} {key!r} (expected {names})")
        here = (*path, key)
        doc.note(here, key_node)
        return key, doc.visit(self.choices[key], value_node, here)


def validate(doc: Document, spec: Spec) -> Any:
    """The document's data as `spec` describes it; UsageError at the first wrong value."""
    return doc.visit(spec, doc.root, ())
