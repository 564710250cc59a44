"""Reading and writing the tables of `schema.py`: the generated readers and writers of
`kgroup.offsets.generated`, and the program the compiled fast path runs.

Source of truth: Kafka's message generator (`MessageDataGenerator`): how a versioned field list
becomes bytes in classic and flexible versions, including tagged-field sections (KIP-482).
OFFSETS_FORMAT.md §1. scripts/gen_offsets_codec.py writes one straight-line Python function per
declaration and version, with the options the decoder prints with: uuids as Kafka's base64 text,
fields a version lacks left out (no defaults filled in), errors raised as `wire.DecodeError`
naming the field and the byte in the words `kgroup decode` has always used
(`kgroup.offsets.wording`). Nothing is compiled at run time: a declaration is found in the
generated index by its content (`fingerprint`).

Strictness is Kafka's generated `read` methods' (issue #13): every field of the version is
required; a negative length or count is null where the field is nullable and "non-nullable
field <name> was serialized as null" where it is not; a string longer than 0x7fff "had invalid
length"; array elements are never null; compact lengths and tag counts are Java ints; invalid
UTF-8 raises UnicodeDecodeError. The caller decides about trailing bytes (Kafka ignores them).
Unknown tagged fields are kept as `_tag<N>: bytes`, so data from a newer Kafka is not lost.

When the compiled extension is built (`native.py`), each reader is wrapped in a
`_speedups.Reader` that runs a program compiled from the same tables (`c_program`) and hands
the bytes to the Python reader whenever it gives up, so errors always come from the Python code.
"""

from __future__ import annotations

import importlib
import zlib
from collections.abc import Callable
from typing import Any

from kgroup.offsets import native, opcodes
from kgroup.offsets.schema import Array, Message, Struct
from kgroup.offsets.wording import WORDING as WORDING

Reader = Callable[[bytes, int, int], tuple[dict[str, Any], int]]
Writer = Callable[[dict[str, Any], bytearray], None]

_READERS: dict[tuple[Any, ...], Reader] = {}
_GENERATED: dict[tuple[str, Struct, int, bool], Any] = {}


def fingerprint(struct: Struct) -> str:
    """A declaration's content as a short key (its repr: every field, nested structs too):
    the generated index finds a table by it, whichever object holds it."""
    data = repr(struct).encode()
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


def _generated(kind: str, struct: Struct, version: int, flexible: bool) -> Any:
    """The generated `read_v<version>` / `write_v<version>` (kind "readers" or "writers") of
    `struct`, looked up once per table and version."""
    cache_key = (kind, struct, version, flexible)
    fn = _GENERATED.get(cache_key)
    if fn is None:
        package = importlib.import_module(f"kgroup.offsets.generated.{kind}")
        name = package.INDEX.get((fingerprint(struct), version, flexible))
        if name is None:
            raise LookupError(
                f"no generated {kind[:-1]} for {struct.name} v{version}"
                f"{' (flexible)' if flexible else ''}: run `make protocol` "
                "(scripts/gen_offsets_codec.py) after changing a declaration"
            )
        module = importlib.import_module(f"kgroup.offsets.generated.{kind}.{name}")
        fn = getattr(module, f"{'read' if kind == 'readers' else 'write'}_v{version}")
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
# An op is (opcode, key, argument, nullable): `nullable` says whether a negative length/count is
# null (else the C code gives up and the Python reader raises Kafka's "non-nullable field ... was
# serialized as null"). The opcodes, null markers and fixed kinds are generated with the C
# side's opcodes.h from one table (scripts/gen_protocol.py).


class Unsupported(Exception):
    """A table the C reader does not cover (float64): the Python reader is used alone."""


def c_program(struct: Struct, version: int, flexible: bool) -> tuple[Any, ...]:
    """`struct` at `version` as (plain ops, ((tag, op), ...)), in the order the Python reader
    reads them (tagged fields only in flexible versions)."""
    plain: list[tuple[Any, ...]] = []
    tagged: list[tuple[int, tuple[Any, ...]]] = []
    for fd in struct.fields:
        if not fd.present(version):
            continue
        if fd.flexible is not None:  # a field-level flexibleVersions (request headers only)
            raise Unsupported(fd.name)
        nullable = fd.nullable_in(version)
        if fd.tagged_in(version, flexible):
            tagged.append((fd.tag, _c_op(fd.key, fd.type, version, flexible, nullable, True)))
        else:
            plain.append(_c_op(fd.key, fd.type, version, flexible, nullable, False))
    tagged.sort(key=lambda item: item[0])
    return tuple(plain), tuple(tagged)


def _c_op(
    key: str | None, typ: Any, version: int, flexible: bool, nullable: bool, tagged: bool
) -> tuple:
    """One op (opcode, key, argument, nullable)."""
    if isinstance(typ, str):
        if typ in opcodes.KINDS:
            return (opcodes.OP_FIXED, key, opcodes.KINDS[typ], False)
        if typ == "string":
            return (opcodes.OP_STR, key, None, nullable)
        if typ == "bytes":
            return (opcodes.OP_BYTES, key, None, nullable)
        raise Unsupported(typ)
    if isinstance(typ, Array):
        el = typ.of
        if isinstance(el, str) and el in opcodes.KINDS and el != "uuid":
            return (opcodes.OP_ARRAY_FIXED, key, opcodes.KINDS[el], nullable)
        # elements are never nullable (structs have no null marker)
        return (opcodes.OP_ARRAY, key, _c_op(None, el, version, flexible, False, False), nullable)
    if isinstance(typ, Struct):
        marker = opcodes.NULL_NONE
        if nullable:
            marker = opcodes.NULL_VARINT if tagged else opcodes.NULL_BYTE
        return (opcodes.OP_STRUCT, key, (marker, c_program(typ, version, flexible)), nullable)
    raise Unsupported(repr(typ))


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
