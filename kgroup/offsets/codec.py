"""The generic table-driven reader and writer for the message tables in `schema.py`.

Source of truth: Kafka's message generator (`MessageDataGenerator`): how a versioned field list
becomes bytes in classic and flexible versions, including tagged-field sections (KIP-482).
OFFSETS_FORMAT.md §1.

Reading: for each (struct, version, flexible, lenient) the table is compiled once into a small
Python function (straight-line `struct.unpack_from` calls, consecutive fixed-width fields merged
into one precompiled `Struct`). This is the fast path the decoder needs to read hundreds of
thousands of records a second; it is generated from the tables, so there is still exactly one
place that knows the layouts. Every bounds check names the field and byte position.

When the compiled extension is built (`native.py`), each reader is wrapped in a
`_speedups.Reader` that runs a program compiled from the same tables (`c_program`) and hands
the bytes to the Python reader whenever it gives up, so errors always come from the Python
code below.

Writing walks the same tables directly (speed does not matter there).

Unknown tagged fields are kept as `_tag<N>: bytes`, so data from a newer Kafka is not lost.
"""

from __future__ import annotations

import struct as _struct
from collections.abc import Callable
from typing import Any

from kgroup.offsets import native, wire
from kgroup.offsets.schema import Array, Field, Message, Struct
from kgroup.offsets.wire import DecodeError

_FIXED = {
    "int8": ("b", 1),
    "int16": ("h", 2),
    "uint16": ("H", 2),
    "int32": ("i", 4),
    "int64": ("q", 8),
    "float64": ("d", 8),
    "bool": ("?", 1),
    "uuid": ("16s", 16),
}

Reader = Callable[[bytes, int, int], tuple[dict[str, Any], int]]

_READERS: dict[tuple[Any, ...], Reader] = {}
_PY_READERS: dict[tuple[Any, ...], Reader] = {}


def get_reader(struct: Struct, version: int, flexible: bool, lenient: bool = False) -> Reader:
    """The compiled reader for `struct` at `version` (cached): C when built, else Python."""
    cache_key = (struct, version, flexible, lenient)
    fn = _READERS.get(cache_key)
    if fn is None:
        fn = get_py_reader(struct, version, flexible, lenient)
        ext = native.get()
        if ext is not None:
            try:
                program = c_program(struct, version, flexible)
            except Unsupported:
                pass
            else:
                fn = ext.Reader(program, fn, flexible, lenient)
        _READERS[cache_key] = fn
    return fn


def get_py_reader(struct: Struct, version: int, flexible: bool, lenient: bool = False) -> Reader:
    """The pure-Python reader for `struct` at `version` (cached)."""
    cache_key = (struct, version, flexible, lenient)
    fn = _PY_READERS.get(cache_key)
    if fn is None:
        fn = _Compiler(version, flexible, lenient).compile(struct)
        _PY_READERS[cache_key] = fn
    return fn


def read_message(
    msg: Message,
    version: int,
    buf: bytes,
    pos: int = 0,
    end: int | None = None,
    *,
    lenient: bool = False,
) -> tuple[dict[str, Any], int]:
    """Read `msg` at `version` from buf[pos:end]; returns (fields, position after)."""
    fn = get_reader(msg.struct, version, msg.flexible(version), lenient)
    return fn(buf, pos, len(buf) if end is None else end)


# ---------------------------------------------------------------- compiler


class _Compiler:
    """Turns a Struct at one version into Python source, then into a function."""

    def __init__(self, version: int, flexible: bool, lenient: bool) -> None:
        self.version = version
        self.flexible = flexible
        self.lenient = lenient
        self.ns: dict[str, Any] = {
            "DecodeError": DecodeError,
            "_uv": wire.read_uvarint,
            "_uuid": wire.uuid_to_str,
            "_I16": wire.INT16.unpack_from,
            "_I32": wire.INT32.unpack_from,
            "_I8": wire.INT8.unpack_from,
            "_unpack": _struct.unpack_from,
        }
        self.counter = 0
        self.lines: list[str] = []

    def _name(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def compile(self, struct: Struct) -> Reader:
        fname = self._function(struct)
        src = "\n".join(self.lines)
        code = compile(src, f"<kgroup reader {struct.name} v{self.version}>", "exec")
        exec(code, self.ns)
        return self.ns[fname]

    # Each struct becomes one function `name(b, p, e) -> (dict, p)`.
    def _function(self, struct: Struct) -> str:
        fname = self._name(f"r_{struct.name}_")
        body: list[str] = ["    d = {}"]
        fields = [fd for fd in struct.fields if fd.present(self.version)]
        plain = [fd for fd in fields if fd.tag is None or not self.flexible]
        tagged = [fd for fd in fields if fd.tag is not None and self.flexible]
        i = 0
        while i < len(plain):
            fd = plain[i]
            if self.lenient:
                body.append("    if p == e: return d, p")
            if _is_fixed(fd):
                group = [fd]
                while not self.lenient:
                    j = i + len(group)
                    if j >= len(plain) or not _is_fixed(plain[j]):
                        break
                    group.append(plain[j])
                i += len(group)
                nxt = plain[i] if i < len(plain) else None
                if (
                    nxt is not None
                    and not self.flexible
                    and not self.lenient
                    and nxt.type in ("string", "bytes")
                ):
                    # fold the next field's length prefix into the same unpack call
                    n = self._fixed_group(body, group, "    ", nxt.type)
                    self._read_value(
                        body,
                        nxt,
                        nxt.type,
                        f"d[{nxt.key!r}]",
                        "    ",
                        nxt.nullable_in(self.version),
                        length_var=n,
                    )
                    i += 1
                else:
                    self._fixed_group(body, group, "    ")
                continue
            target = f"d[{fd.key!r}]"
            self._read_value(body, fd, fd.type, target, "    ", fd.nullable_in(self.version))
            i += 1
        if self.flexible:
            self._tag_section(body, tagged)
        body.append("    return d, p")
        self.lines.append(f"def {fname}(b, p, e):")
        self.lines.extend(body)
        self.lines.append("")
        return fname

    def _fixed_group(
        self, body: list[str], group: list[Field], ind: str, prefix_of: str | None = None
    ) -> str | None:
        """Emit one unpack for consecutive fixed-width fields (plus an optional length prefix
        of a following classic string/bytes field); returns the length variable if any."""
        fmt = ">" + "".join(_FIXED[fd.type][0] for fd in group)  # type: ignore[index]
        size = sum(_FIXED[fd.type][1] for fd in group)  # type: ignore[index]
        names = [self._name("v") for _ in group]
        length_var = None
        if prefix_of is not None:
            length_var = self._name("n")
            fmt += "i" if prefix_of == "bytes" else "h"
            size += 4 if prefix_of == "bytes" else 2
        sname = self._name("_S")
        self.ns[sname] = _struct.Struct(fmt).unpack_from
        label = group[0].name if len(group) == 1 else f"{group[0].name}..{group[-1].name}"
        body.append(f"{ind}if p + {size} > e: raise DecodeError('truncated', p, {label!r})")
        targets = names + ([length_var] if length_var else [])
        body.append(f"{ind}{', '.join(targets)}, = {sname}(b, p)")
        body.append(f"{ind}p += {size}")
        for fd, nm in zip(group, names, strict=True):
            if fd.type == "uuid":
                body.append(f"{ind}d[{fd.key!r}] = _uuid({nm})")
            else:
                body.append(f"{ind}d[{fd.key!r}] = {nm}")
        return length_var

    def _length(self, body: list[str], var: str, ind: str, label: str, wide: bool) -> None:
        """Emit code reading a length into `var`: classic int16/int32, or compact N+1 -> N."""
        if self.flexible:
            body.append(f"{ind}if p >= e: raise DecodeError('truncated length', p, {label!r})")
            body.append(f"{ind}{var} = b[p]")
            body.append(f"{ind}if {var} < 128: p += 1")
            body.append(f"{ind}else: {var}, p = _uv(b, p, e, {label!r})")
            body.append(f"{ind}{var} -= 1")
        else:
            size, reader = (4, "_I32") if wide else (2, "_I16")
            body.append(
                f"{ind}if p + {size} > e: raise DecodeError('truncated length', p, {label!r})"
            )
            body.append(f"{ind}{var}, = {reader}(b, p)")
            body.append(f"{ind}p += {size}")

    def _read_value(
        self,
        body: list[str],
        fd: Field,
        typ: Any,
        target: str,
        ind: str,
        nullable: bool,
        length_var: str | None = None,
        tagged: bool = False,
    ) -> None:
        label = fd.name
        if isinstance(typ, str):
            if typ in _FIXED:
                fmt, size = _FIXED[typ]
                sname = self._name("_S")
                self.ns[sname] = _struct.Struct(">" + fmt).unpack_from
                body.append(f"{ind}if p + {size} > e: raise DecodeError('truncated', p, {label!r})")
                conv = "_uuid(" if typ == "uuid" else "("
                body.append(f"{ind}{target} = {conv}{sname}(b, p)[0])")
                body.append(f"{ind}p += {size}")
                return
            if length_var is None:
                n = self._name("n")
                self._length(body, n, ind, label, wide=(typ == "bytes"))
            else:
                n = length_var
            empty = "''" if typ == "string" else "b''"
            body.append(f"{ind}if {n} == 0:")
            body.append(f"{ind}    {target} = {empty}")
            body.append(f"{ind}elif {n} < 0:")
            body.append(
                f"{ind}    if {n} != -1: "
                f"raise DecodeError('negative length %d' % {n}, p, {label!r})"
            )
            body.append(f"{ind}    {target} = None")
            body.append(f"{ind}else:")
            body.append(f"{ind}    q = p + {n}")
            body.append(
                f"{ind}    if q > e: raise DecodeError('%d bytes run past the end' % {n}, p, "
                f"{label!r})"
            )
            if typ == "string":
                body.append(f"{ind}    {target} = b[p:q].decode()")
            else:
                body.append(f"{ind}    {target} = bytes(b[p:q])")
            body.append(f"{ind}    p = q")
            return
        if isinstance(typ, Array):
            n = self._name("n")
            self._length(body, n, ind, label, wide=True)
            body.append(f"{ind}if {n} < 0:")
            body.append(
                f"{ind}    if {n} != -1: raise DecodeError('negative count %d' % {n}, p, {label!r})"
            )
            body.append(f"{ind}    {target} = None")
            body.append(f"{ind}else:")
            el = typ.of
            inner = ind + "    "
            if isinstance(el, str) and el in _FIXED and el != "uuid":
                fmt, size = _FIXED[el]
                body.append(f"{inner}q = p + {n} * {size}")
                body.append(
                    f"{inner}if q > e: raise DecodeError('array of %d runs past the end' % {n}, "
                    f"p, {label!r})"
                )
                body.append(f"{inner}{target} = list(_unpack('>%d{fmt}' % {n}, b, p))")
                body.append(f"{inner}p = q")
                return
            lst = self._name("a")
            body.append(
                f"{inner}if {n} > e - p: "
                f"raise DecodeError('count %d too large' % {n}, p, {label!r})"
            )
            body.append(f"{inner}{lst} = []")
            body.append(f"{inner}for _ in range({n}):")
            if isinstance(el, Struct):
                sub = self._function(el)
                body.append(f"{inner}    x, p = {sub}(b, p, e)")
                body.append(f"{inner}    {lst}.append(x)")
            else:
                self._read_value(body, fd, el, "x", inner + "    ", nullable=True)
                body.append(f"{inner}    {lst}.append(x)")
            body.append(f"{inner}{target} = {lst}")
            return
        if isinstance(typ, Struct):
            sub = self._function(typ)
            if nullable and tagged:
                # inside a tagged field Kafka writes an unsigned varint: 0 null, else present
                # (`MessageDataGenerator.generateStructReader`: `readUnsignedVarint() <= 0`)
                m = self._name("m")
                body.append(f"{ind}if p >= e: raise DecodeError('truncated', p, {label!r})")
                body.append(f"{ind}{m} = b[p]")
                body.append(f"{ind}if {m} < 128: p += 1")
                body.append(f"{ind}else: {m}, p = _uv(b, p, e, {label!r})")
                body.append(f"{ind}if {m} == 0:")
                body.append(f"{ind}    {target} = None")
                body.append(f"{ind}else:")
                body.append(f"{ind}    {target}, p = {sub}(b, p, e)")
            elif nullable:
                body.append(f"{ind}if p >= e: raise DecodeError('truncated', p, {label!r})")
                body.append(f"{ind}if b[p] >= 128:")
                body.append(f"{ind}    p += 1")
                body.append(f"{ind}    {target} = None")
                body.append(f"{ind}else:")
                body.append(f"{ind}    {target}, p = {sub}(b, p + 1, e)")
            else:
                body.append(f"{ind}{target}, p = {sub}(b, p, e)")
            return
        raise TypeError(f"unsupported type {typ!r}")

    def _tag_section(self, body: list[str], tagged: list[Field]) -> None:
        body.append("    if p >= e: raise DecodeError('missing tagged fields', p, '_tagged')")
        body.append("    nt = b[p]")
        body.append("    if nt < 128: p += 1")
        body.append("    else: nt, p = _uv(b, p, e, '_tagged')")
        body.append("    if nt:")
        body.append("        for _ in range(nt):")
        body.append("            tag, p = _uv(b, p, e, '_tag')")
        body.append("            size, p = _uv(b, p, e, '_tag')")
        body.append("            qt = p + size")
        body.append(
            "            if qt > e: raise DecodeError('tagged field %d runs past the end' % tag, "
            "p, '_tag')"
        )
        first = True
        for fd in sorted(tagged, key=lambda x: x.tag or 0):
            kw = "if" if first else "elif"
            first = False
            body.append(f"            {kw} tag == {fd.tag}:")
            body.append("                e0 = e")
            body.append("                e = qt")
            self._read_value(
                body,
                fd,
                fd.type,
                f"d[{fd.key!r}]",
                "                ",
                fd.nullable_in(self.version),
                tagged=True,
            )
            body.append("                e = e0")
            body.append(
                f"                if p != qt: raise DecodeError('tagged field size mismatch', p, "
                f"{fd.name!r})"
            )
        if first:
            body.append("            d['_tag%d' % tag] = bytes(b[p:qt])")
        else:
            body.append("            else:")
            body.append("                d['_tag%d' % tag] = bytes(b[p:qt])")
        body.append("            p = qt")


# ---------------------------------------------------------------- program for the C reader
# Opcodes and fixed kinds: keep in step with _speedups.c. An op is (opcode, key, argument).

_OP_FIXED, _OP_STR, _OP_BYTES, _OP_ARRAY_FIXED, _OP_ARRAY, _OP_STRUCT = 1, 2, 3, 4, 5, 6
# Null marker of a struct op: none, int8 (-1 null, 1 present; an untagged nullable struct) or
# unsigned varint (0 null, else present; a nullable struct inside a tagged field).
_NULL_NONE, _NULL_BYTE, _NULL_VARINT = 0, 1, 2
_KINDS = {"int8": 0, "int16": 1, "uint16": 2, "int32": 3, "int64": 4, "bool": 5, "uuid": 6}


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
        if fd.tag is not None and flexible:
            marker = _NULL_VARINT if fd.nullable_in(version) else _NULL_NONE
            tagged.append((fd.tag, _c_op(fd.key, fd.type, version, flexible, marker)))
        else:
            marker = _NULL_BYTE if fd.nullable_in(version) else _NULL_NONE
            plain.append(_c_op(fd.key, fd.type, version, flexible, marker))
    tagged.sort(key=lambda item: item[0])
    return tuple(plain), tuple(tagged)


def _c_op(key: str | None, typ: Any, version: int, flexible: bool, nullable: int) -> tuple:
    """One op; `nullable` is the null marker of a struct (`_NULL_*`), unused by other types."""
    if isinstance(typ, str):
        if typ in _KINDS:
            return (_OP_FIXED, key, _KINDS[typ])
        if typ == "string":
            return (_OP_STR, key, None)
        if typ == "bytes":
            return (_OP_BYTES, key, None)
        raise Unsupported(typ)
    if isinstance(typ, Array):
        el = typ.of
        if isinstance(el, str) and el in _KINDS and el != "uuid":
            return (_OP_ARRAY_FIXED, key, _KINDS[el])
        # elements: structs without a null marker, other types as the Python reader reads them
        marker = _NULL_NONE if isinstance(el, Struct) else _NULL_BYTE
        return (_OP_ARRAY, key, _c_op(None, el, version, flexible, marker))
    if isinstance(typ, Struct):
        return (_OP_STRUCT, key, (nullable, c_program(typ, version, flexible)))
    raise Unsupported(repr(typ))


def _is_fixed(fd: Field) -> bool:
    return isinstance(fd.type, str) and fd.type in _FIXED


# ---------------------------------------------------------------- writer


def write_message(msg: Message, version: int, values: dict[str, Any], out: bytearray) -> None:
    """Append `values` (snake_case keys, as the reader returns them) encoded as `msg` v`version`."""
    _write_struct(msg.struct, version, msg.flexible(version), values, out)


def encode_message(msg: Message, version: int, values: dict[str, Any]) -> bytes:
    out = bytearray()
    write_message(msg, version, values, out)
    return bytes(out)


def _write_struct(
    struct: Struct, version: int, flexible: bool, values: dict[str, Any], out: bytearray
) -> None:
    tagged: list[tuple[int, bytes]] = []
    for fd in struct.fields:
        if not fd.present(version):
            continue
        if fd.tag is not None and flexible:
            if fd.key in values and values[fd.key] != fd.default:
                payload = bytearray()
                _write_value(fd, fd.type, values[fd.key], version, True, payload, tagged=True)
                tagged.append((fd.tag, bytes(payload)))
            continue
        value = values.get(fd.key, _default_for(fd))
        _write_value(fd, fd.type, value, version, flexible, out, tagged=False)
    if flexible:
        for key, raw in values.items():
            if key.startswith("_tag") and key[4:].isdigit():
                tagged.append((int(key[4:]), bytes(raw)))
        tagged.sort()
        wire.write_uvarint(out, len(tagged))
        for tag, raw in tagged:
            wire.write_uvarint(out, tag)
            wire.write_uvarint(out, len(raw))
            out += raw


def _default_for(fd: Field) -> Any:
    if fd.default is not None:
        return fd.default
    if isinstance(fd.type, Array):
        return []
    if fd.type == "string":
        return ""
    if fd.type == "bytes":
        return b""
    if fd.type == "uuid":
        return wire.ZERO_UUID
    if isinstance(fd.type, Struct):
        return None
    return 0


def _write_value(
    fd: Field, typ: Any, value: Any, version: int, flexible: bool, out: bytearray, *, tagged: bool
) -> None:
    if isinstance(typ, str):
        if typ in _FIXED:
            if typ == "uuid":
                out += wire.uuid_from_str(value)
            else:
                out += _struct.pack(">" + _FIXED[typ][0], value)
        elif typ == "string":
            if flexible:
                wire.write_compact_string(out, value)
            else:
                wire.write_string16(out, value)
        elif typ == "bytes":
            if flexible:
                wire.write_compact_bytes(out, value)
            else:
                wire.write_bytes32(out, value)
        return
    if isinstance(typ, Array):
        if value is None:
            if flexible:
                out.append(0)
            else:
                out += b"\xff\xff\xff\xff"
            return
        if flexible:
            wire.write_uvarint(out, len(value) + 1)
        else:
            out += wire.INT32.pack(len(value))
        for item in value:
            if isinstance(typ.of, Struct):
                _write_struct(typ.of, version, flexible, item, out)
            else:
                _write_value(fd, typ.of, item, version, flexible, out, tagged=False)
        return
    if isinstance(typ, Struct):
        if fd.nullable_in(version):
            # tagged: unsigned varint 0 null / 1 present; untagged: int8 -1 / 1
            if value is None:
                out.append(0 if tagged else 0xFF)
                return
            out.append(1)
        _write_struct(typ, version, flexible, value or {}, out)
        return
    raise TypeError(f"unsupported type {typ!r}")
