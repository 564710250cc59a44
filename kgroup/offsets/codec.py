"""The generic table-driven reader and writer for the message tables in `schema.py`.

Source of truth: Kafka's message generator (`MessageDataGenerator`): how a versioned field list
becomes bytes in classic and flexible versions, including tagged-field sections (KIP-482).
OFFSETS_FORMAT.md §1.

Reading: for each (struct, version, flexible) the table is compiled once into a small
Python function (straight-line `struct.unpack_from` calls, consecutive fixed-width fields merged
into one precompiled `Struct`). This is the fast path the decoder needs to read hundreds of
thousands of records a second; it is generated from the tables, so there is still exactly one
place that knows the layouts. Every bounds check names the field and byte position.

When the compiled extension is built (`native.py`), each reader is wrapped in a
`_speedups.Reader` that runs a program compiled from the same tables (`c_program`) and hands
the bytes to the Python reader whenever it gives up, so errors always come from the Python
code below.

Strictness is Kafka's generated `read` methods' (`MessageDataGenerator`, issue #13): every
field of the version is required; a negative length or count is null where the field is
nullable and "non-nullable field <name> was serialized as null" where it is not; a string
longer than 0x7fff "had invalid length"; array elements are never null; compact lengths and
tag counts are Java ints. The caller decides about trailing bytes (Kafka ignores them).

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
    """The pure-Python reader for `struct` at `version` (cached)."""
    cache_key = (struct, version, flexible)
    fn = _PY_READERS.get(cache_key)
    if fn is None:
        fn = _Compiler(version, flexible).compile(struct)
        _PY_READERS[cache_key] = fn
    return fn


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


# ---------------------------------------------------------------- names and varints


def java_name(name: str) -> str:
    """A field's name as Kafka's generated code spells it in errors (`camelCaseName()`)."""
    return name[:1].lower() + name[1:]


def read_uvarint32(buf: bytes, pos: int, end: int, field: str, minus: int = 0) -> tuple[int, int]:
    """Kafka's `readUnsignedVarint()` as a Java int (bits above 32 dropped, 2**31 and above
    negative), minus `minus` with Java's int wrap-around; returns (value, new position)."""
    value, pos = wire.read_uvarint(buf, pos, end, field)
    value = ((value & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000 - minus
    return ((value & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000, pos


# ---------------------------------------------------------------- compiler


class _Compiler:
    """Turns a Struct at one version into Python source, then into a function."""

    def __init__(self, version: int, flexible: bool) -> None:
        self.version = version
        self.flexible = flexible
        self.ns: dict[str, Any] = {
            "DecodeError": DecodeError,
            "_uv": wire.read_uvarint,
            "_uv32": read_uvarint32,
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
            if _is_fixed(fd):
                group = [fd]
                while True:
                    j = i + len(group)
                    if j >= len(plain) or not _is_fixed(plain[j]):
                        break
                    group.append(plain[j])
                i += len(group)
                nxt = plain[i] if i < len(plain) else None
                if nxt is not None and not self.flexible and nxt.type in ("string", "bytes"):
                    # fold the next field's length prefix into the same unpack call
                    n = self._fixed_group(body, group, "    ", nxt)
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
        self, body: list[str], group: list[Field], ind: str, prefix_of: Field | None = None
    ) -> str | None:
        """Emit one unpack for consecutive fixed-width fields (plus an optional length prefix
        of a following classic string/bytes field); returns the length variable if any."""
        fmt = ">" + "".join(_FIXED[fd.type][0] for fd in group)  # type: ignore[index]
        size = sum(_FIXED[fd.type][1] for fd in group)  # type: ignore[index]
        names = [self._name("v") for _ in group]
        length_var = None
        if prefix_of is not None:
            length_var = self._name("n")
            fmt += "i" if prefix_of.type == "bytes" else "h"
            size += 4 if prefix_of.type == "bytes" else 2
        sname = self._name("_S")
        self.ns[sname] = _struct.Struct(fmt).unpack_from
        last = group[-1] if prefix_of is None else prefix_of
        label = group[0].name if group[0] is last else f"{group[0].name}..{last.name}"
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
        """Emit code reading a length into `var`: classic int16/int32, or compact N+1 -> N
        (as a Java int: `readUnsignedVarint() - 1`, so a varint of 2**31 or more is negative)."""
        if self.flexible:
            body.append(f"{ind}if p >= e: raise DecodeError('truncated length', p, {label!r})")
            body.append(f"{ind}{var} = b[p]")
            body.append(f"{ind}if {var} < 128: p += 1; {var} -= 1")
            body.append(f"{ind}else: {var}, p = _uv32(b, p, e, {label!r}, 1)")
        else:
            size, reader = (4, "_I32") if wide else (2, "_I16")
            body.append(
                f"{ind}if p + {size} > e: raise DecodeError('truncated length', p, {label!r})"
            )
            body.append(f"{ind}{var}, = {reader}(b, p)")
            body.append(f"{ind}p += {size}")

    def _null(self, body: list[str], target: str, ind: str, name: str, nullable: bool) -> None:
        """A negative length: null where the field is nullable, else Kafka's generated reader's
        error (`MessageDataGenerator.generateVariableLengthReader`)."""
        if nullable:
            body.append(f"{ind}{target} = None")
        else:
            text = f"non-nullable field {name} was serialized as null"
            body.append(f"{ind}raise DecodeError({text!r}, p)")

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
        name: str | None = None,
    ) -> None:
        label = fd.name
        name = name or java_name(fd.name)
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
            self._null(body, target, ind + "    ", name, nullable)
            body.append(f"{ind}else:")
            if typ == "string":
                text = f"string field {name} had invalid length %d"
                body.append(f"{ind}    if {n} > 0x7FFF: raise DecodeError({text!r} % {n}, p)")
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
            self._null(body, target, ind + "    ", name, nullable)
            body.append(f"{ind}else:")
            inner = ind + "    "
            body.append(
                f"{inner}if {n} > e - p: raise DecodeError('Tried to allocate a collection of "
                f"size %d, but there are only %d bytes remaining.' % ({n}, e - p), p, {label!r})"
            )
            el = typ.of
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
            body.append(f"{inner}{lst} = []")
            body.append(f"{inner}for _ in range({n}):")
            if isinstance(el, Struct):
                sub = self._function(el)
                body.append(f"{inner}    x, p = {sub}(b, p, e)")
                body.append(f"{inner}    {lst}.append(x)")
            else:
                # elements are never nullable (Kafka: `Versions.NONE`, "<name> element")
                self._read_value(
                    body, fd, el, "x", inner + "    ", nullable=False, name=f"{name} element"
                )
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
        # a Java int: a count of 2**31 or more is negative, and Kafka's loop reads no field
        body.append("    else: nt, p = _uv32(b, p, e, '_tagged')")
        body.append("    if nt > 0:")
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
# Opcodes and fixed kinds: keep in step with _speedups.c. An op is (opcode, key, argument,
# nullable): `nullable` says whether a negative length/count is null (else the C code gives up
# and the Python reader raises Kafka's "non-nullable field ... was serialized as null").

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
        nullable = fd.nullable_in(version)
        if fd.tag is not None and flexible:
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
        if typ in _KINDS:
            return (_OP_FIXED, key, _KINDS[typ], False)
        if typ == "string":
            return (_OP_STR, key, None, nullable)
        if typ == "bytes":
            return (_OP_BYTES, key, None, nullable)
        raise Unsupported(typ)
    if isinstance(typ, Array):
        el = typ.of
        if isinstance(el, str) and el in _KINDS and el != "uuid":
            return (_OP_ARRAY_FIXED, key, _KINDS[el], nullable)
        # elements are never nullable (structs have no null marker)
        return (_OP_ARRAY, key, _c_op(None, el, version, flexible, False, False), nullable)
    if isinstance(typ, Struct):
        marker = _NULL_NONE
        if nullable:
            marker = _NULL_VARINT if tagged else _NULL_BYTE
        return (_OP_STRUCT, key, (marker, c_program(typ, version, flexible)), nullable)
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
