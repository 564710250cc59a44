"""Reading and writing the tables of `schema.py`: kgroup.protocol's generic codec with the
options of `__consumer_offsets`, and the program the compiled fast path runs.

Source of truth: Kafka's message generator (`MessageDataGenerator`): how a versioned field list
becomes bytes in classic and flexible versions, including tagged-field sections (KIP-482).
OFFSETS_FORMAT.md §1. The rules live in `kgroup.protocol.reader` / `writer`, which compile a
table at a version once into straight-line Python; this module only chooses the options the
decoder prints with: uuids as Kafka's base64 text, fields a version lacks left out (no
defaults filled in), errors raised as `wire.DecodeError` naming the field and the byte in the
words `kgroup decode` has always used (`_Wording`).

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

from collections.abc import Callable
from typing import Any

from kgroup.offsets import native, opcodes
from kgroup.offsets.schema import Array, Message, Struct
from kgroup.offsets.wire import DecodeError
from kgroup.protocol import reader as _reader
from kgroup.protocol import writer as _writer
from kgroup.protocol.model import java_name
from kgroup.protocol.types import ErrorClass, Wording

Reader = Callable[[bytes, int, int], tuple[dict[str, Any], int]]

_READERS: dict[tuple[Any, ...], Reader] = {}


class _Wording(Wording):
    """`kgroup decode`'s error texts, unchanged by the switch to kgroup.protocol: a field is
    named as Kafka's generated code names it (`ownedPartitions`), fixed-width fields read at
    once are named together (`offset..metadata`), a short read says "truncated", Kafka's own
    sentences ("non-nullable field ...") stand alone at the byte after the length, invalid
    UTF-8 stays Python's UnicodeDecodeError (the decoder words it)."""

    def label(self, path: str, name: str) -> str:
        return java_name(name)

    def truncated(self, size: int, left: int) -> str:
        return "truncated"

    def truncated_length(self, size: int, left: int) -> str:
        return "truncated length"

    def truncated_data(self, size: int, left: int) -> str:
        return f"{size} bytes run past the end"

    def group_label(self, path: str, first: str, last: str) -> str | None:
        return f"{java_name(first)}..{java_name(last)}"

    def bad_utf8(
        self, exc: UnicodeDecodeError, start: int, label: str, error: ErrorClass
    ) -> Exception:
        return exc  # decode.py words it ("invalid UTF-8 (<reason>)")

    def at(self, start: int, after: int, label: str, kafka_text: bool) -> tuple[int, str | None]:
        return after, None if kafka_text else label


WORDING = _Wording()


def get_reader(struct: Struct, version: int, flexible: bool) -> Reader:
    """The compiled reader for `struct` at `version` (cached): C when built, else Python."""
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
    """The pure-Python reader for `struct` at `version` (kgroup.protocol's, cached there)."""
    return _reader.get_reader(
        struct,
        version,
        flexible,
        uuid_as_text=True,
        defaults=False,
        error=DecodeError,
        wording=WORDING,
    )


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
    encoded as `msg` v`version`, by kgroup.protocol's writer: absent keys take their defaults,
    keys of fields the version lacks are dropped, tagged fields are written when not their
    default, `_tag<N>` keys are written back; a None is written as null even where Kafka
    allows none (test data for the decoder's strictness)."""
    flexible = msg.flexible(version)
    _writer.get_writer(msg.struct, version, flexible, lenient=True)(values, out)


def encode_message(msg: Message, version: int, values: dict[str, Any]) -> bytes:
    out = bytearray()
    write_message(msg, version, values, out)
    return bytes(out)
