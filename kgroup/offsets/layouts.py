"""Reading and writing the tables of `schema.py`: the generated readers and writers of
`kgroup.offsets.generated`, and the program the compiled fast path runs.

Source of truth: Kafka's message generator (`MessageDataGenerator`): how a versioned field list
becomes bytes in classic and flexible versions, including tagged-field sections (KIP-482).
OFFSETS_FORMAT.md §1. scripts/gen_offsets_codec.py writes one straight-line Python function per
declaration and version, with the options the decoder prints with: uuids as Kafka's base64 text,
fields a version lacks left out (no defaults filled in), errors raised as `wire.DecodeError`
naming the field and the byte in the words `kgroup decode` has always used
(`kgroup.offsets.wording`). Nothing is compiled at run time: a declaration (generated
Python, kgroup.protocol.declarations) names its file (`path`), which names its generated
module (`module_name`).

Strictness is Kafka's generated `read` methods' (issue #13): every field of the version is
required; a negative length or count is null where the field is nullable and "non-nullable
field <name> was serialized as null" where it is not; a string longer than 0x7fff "had invalid
length"; array elements are never null; compact lengths and tag counts are Java ints; invalid
UTF-8 raises UnicodeDecodeError. The caller decides about trailing bytes (Kafka ignores them).
Unknown tagged fields are kept as `_tag<N>: bytes`, so data from a newer Kafka is not lost.

When the compiled extension is built (`native.py`), each reader is wrapped in a
`_speedups.Reader` that runs the program generated with it (kgroup.offsets.generated.programs,
`c_program`) and hands the bytes to the Python reader whenever it gives up, so errors always
come from the Python code.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from kgroup.offsets import native
from kgroup.offsets.schema import Message, Struct, snake
from kgroup.offsets.wording import WORDING as WORDING

Reader = Callable[[bytes, int, int], tuple[dict[str, Any], int]]
Writer = Callable[[dict[str, Any], bytearray], None]

_READERS: dict[tuple[Any, ...], Reader] = {}
_GENERATED: dict[tuple[str, Struct, int, bool], Any] = {}
_MODULES: dict[tuple[str, str], Any] = {}


def module_name(path: str) -> str:
    """The generated module of a declaration: `coordinator/kafka-3.7/ShareGroupMetadataValue`
    -> `coordinator_kafka_3_7_share_group_metadata_value` (scripts/gen_offsets_codec.py names
    the files by this rule)."""
    *folders, name = path.split("/")
    return "_".join([*(f.replace("-", "_").replace(".", "_") for f in folders), snake(name)])


def _module(kind: str, struct: Struct) -> Any:
    """The generated module of `struct`'s declaration (kind "readers" or "writers")."""
    cache_key = (kind, struct.path)
    module = _MODULES.get(cache_key)
    if module is None:
        name = f"kgroup.offsets.generated.{kind}.{module_name(struct.path)}"
        try:
            module = importlib.import_module(name) if struct.path else None
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            module = None
        if module is None:
            where = f"declaration {struct.path!r}" if struct.path else "declaration built in code"
            raise LookupError(
                f"no generated {kind[:-1]} for {struct.name} ({where}): run `make protocol` "
                "(scripts/gen_protocol.py) after adding a declaration"
            )
        _MODULES[cache_key] = module
    return module


def _generated(kind: str, struct: Struct, version: int, flexible: bool) -> Any:
    """The generated `read_v<version>` / `write_v<version>` of `struct` (cached)."""
    cache_key = (kind, struct, version, flexible)
    fn = _GENERATED.get(cache_key)
    if fn is None:
        module = _module(kind, struct)
        fn = getattr(module, f"{'read' if kind == 'readers' else 'write'}_v{version}", None)
        flexible_from = module.FLEXIBLE_FROM
        if fn is None or flexible != (flexible_from is not None and version >= flexible_from):
            raise LookupError(
                f"no generated {kind[:-1]} for {struct.name} v{version}"
                f"{' (flexible)' if flexible else ''}: its declaration has no such version"
            )
        _GENERATED[cache_key] = fn
    return fn


def get_reader(struct: Struct, version: int, flexible: bool) -> Reader:
    """The reader for `struct` at `version` (cached): C when built, else Python."""
    cache_key = (struct, version, flexible)
    fn = _READERS.get(cache_key)
    if fn is None:
        fn = get_py_reader(struct, version, flexible)
        ext = native.get()
        if ext is not None:
            try:
                program = c_program(struct, version, flexible)
            except Unsupported:
                pass
            else:
                fn = ext.Reader(program, fn, flexible)
        _READERS[cache_key] = fn
    return fn


def get_py_reader(struct: Struct, version: int, flexible: bool) -> Reader:
    """The pure-Python reader for `struct` at `version` (generated)."""
    return _generated("readers", struct, version, flexible)


def read_message(
    msg: Message,
    version: int,
    buf: bytes,
    pos: int = 0,
    end: int | None = None,
) -> tuple[dict[str, Any], int]:
    """Read `msg` at `version` from buf[pos:end]; returns (fields, position after)."""
    fn = get_reader(msg.struct, version, msg.flexible(version))
    return fn(buf, pos, len(buf) if end is None else end)


# ---------------------------------------------------------------- program for the C reader


class Unsupported(Exception):
    """A table the C reader does not cover (float64): the Python reader is used alone."""


def c_program(struct: Struct, version: int, flexible: bool) -> tuple[Any, ...]:
    """`struct` at `version` as the C reader's program: (plain ops, ((tag, op), ...)), generated
    with the readers (kgroup.offsets.generated.programs); Unsupported where there is none."""
    from kgroup.offsets.generated import programs

    versions = programs.PROGRAMS.get(struct.path)
    if versions is None or version not in versions:
        raise LookupError(
            f"no generated program for {struct.name} v{version} "
            f"({struct.path or 'declaration built in code'}): run `make protocol`"
        )
    flexible_from = programs.FLEXIBLE_FROM[struct.path]
    if flexible != (flexible_from is not None and version >= flexible_from):
        raise LookupError(f"{struct.name} v{version} is {'not ' if flexible else ''}flexible")
    program = versions[version]
    if program is None:
        raise Unsupported(f"{struct.name} v{version}")
    return program


# ---------------------------------------------------------------- writer


def write_message(msg: Message, version: int, values: dict[str, Any], out: bytearray) -> None:
    """Append `values` (snake_case keys, as the reader returns them; uuids as text or bytes)
    encoded as `msg` v`version`, by the generated lenient writer: absent keys take their
    defaults, keys of fields the version lacks are dropped, tagged fields are written when not
    their default, `_tag<N>` keys are written back; a None is written as null even where Kafka
    allows none (test data for the decoder's strictness)."""
    _generated("writers", msg.struct, version, msg.flexible(version))(values, out)


def encode_message(msg: Message, version: int, values: dict[str, Any]) -> bytes:
    out = bytearray()
    write_message(msg, version, values, out)
    return bytes(out)
