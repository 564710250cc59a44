"""The primitives the generated message modules (`kgroup.protocol.generated`) read and write with.

Source of truth: Kafka's `Readable`/`Writable` and `ByteUtils` (fixed-width big-endian numbers,
unsigned varints, classic int16/int32 or compact N+1 lengths, a negative length meaning null) and
the checks Kafka's generated `read` methods make, with Kafka's sentences: "non-nullable field X
was serialized as null", "string field X had invalid length N", "Tried to allocate a collection
of size N, but there are only M bytes remaining.". Every other reading error names the field
path as Kafka's JSON spells it (`Topics.Partitions.PartitionIndex`) and the byte position.

Imports nothing of kgroup but `kgroup.protocol.errors`: the protocol package is a leaf.
"""

from __future__ import annotations

import re as _re
import struct as _struct
from collections.abc import Sequence
from typing import Any

from kgroup.protocol.errors import ProtocolError, ProtocolWriteError

_I8 = _struct.Struct(">b")
_I16 = _struct.Struct(">h")
_U16 = _struct.Struct(">H")
_I32 = _struct.Struct(">i")
_I64 = _struct.Struct(">q")
_F64 = _struct.Struct(">d")

# writers: `out += I32(value)`
I8 = _I8.pack
I16 = _I16.pack
U16 = _U16.pack
I32 = _I32.pack
I64 = _I64.pack
F64 = _F64.pack
_read_i16 = _I16.unpack_from
_read_i32 = _I32.unpack_from
_read_i64 = _I64.unpack_from
ZERO_UUID = bytes(16)
_RUN_CODES = _re.compile(r"\d*[a-zA-Z?]")
ALLOCATE = "Tried to allocate a collection of size %d, but there are only %d bytes remaining."


_set = object.__setattr__  # how a generated __init__ sets the slots of an immutable object
_new = object.__new__  # how a generated reader makes one without __init__ (then `_setters`)


class Struct:
    """Base of the generated message classes: immutable, slotted, compared, hashed and printed
    field by field, in `_fields` order (Kafka's)."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    #: each field's slot descriptor `__set__`, in `_fields` order: the readers fill a new
    #: object through them (a C call a field, no attribute lookup, no `__init__` frame)
    _setters: tuple[Any, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._setters = tuple(getattr(cls, name).__set__ for name in cls._fields)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot set {name}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {name}")

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._values()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({inner})"


class Run:
    """Consecutive fixed-width fields read with one precompiled `struct.Struct`: its format
    (without the byte order) and each field's label, in order."""

    __slots__ = ("fields", "size", "unpack_from")

    def __init__(self, fmt: str, labels: tuple[str, ...]) -> None:
        st = _struct.Struct(">" + fmt)
        self.size = st.size
        self.unpack_from = st.unpack_from
        self.fields = tuple(
            (_struct.calcsize(">" + code), label)
            for code, label in zip(_RUN_CODES.findall(fmt), labels, strict=True)
        )


def java_name(label: str) -> str:
    """The last name of a field path as Kafka's generated code spells it (`memberId`)."""
    name = label.rsplit(".", 1)[-1]
    return name[:1].lower() + name[1:]


class Readable:
    """A position in `buf[pos:end]`; each method reads one value and moves past it."""

    __slots__ = ("b", "e", "p")

    def __init__(self, buf: bytes, pos: int = 0, end: int | None = None) -> None:
        self.b = buf if isinstance(buf, bytes) else bytes(buf)
        self.p = pos
        self.e = len(self.b) if end is None else end

    def _short(self, size: int, label: str) -> ProtocolError:
        return ProtocolError(
            f"needs {size} bytes, {max(self.e - self.p, 0)} left", position=self.p, field=label
        )

    def _fixed(self, st: _struct.Struct, label: str) -> object:
        p = self.p
        if p + st.size > self.e:
            raise self._short(st.size, label)
        self.p = p + st.size
        return st.unpack_from(self.b, p)[0]

    def run(self, run: Run) -> tuple:
        """The values of `run`'s fields at once; running short names the field that does."""
        p = self.p
        end = p + run.size
        if end > self.e:
            for size, label in run.fields:
                if p + size > self.e:
                    self.p = p
                    raise self._short(size, label)
                p += size
        self.p = end
        return run.unpack_from(self.b, p)

    # the common widths read in their own frame, not through `_fixed` (an int16 error code a
    # partition: 100,000 a fleet's OffsetFetch answers)
    def int8(self, label: str) -> int:
        return self._fixed(_I8, label)  # type: ignore[return-value]

    def int16(self, label: str) -> int:
        p = self.p
        if p + 2 > self.e:
            raise self._short(2, label)
        self.p = p + 2
        return _read_i16(self.b, p)[0]

    def uint16(self, label: str) -> int:
        return self._fixed(_U16, label)  # type: ignore[return-value]

    def int32(self, label: str) -> int:
        p = self.p
        if p + 4 > self.e:
            raise self._short(4, label)
        self.p = p + 4
        return _read_i32(self.b, p)[0]

    def int64(self, label: str) -> int:
        p = self.p
        if p + 8 > self.e:
            raise self._short(8, label)
        self.p = p + 8
        return _read_i64(self.b, p)[0]

    def float64(self, label: str) -> float:
        return self._fixed(_F64, label)  # type: ignore[return-value]

    def bool(self, label: str) -> bool:
        return self._fixed(_I8, label) != 0

    def uuid(self, label: str) -> bytes:
        p = self.p
        if p + 16 > self.e:
            raise self._short(16, label)
        self.p = p + 16
        return self.b[p : p + 16]

    def uvarint(self, label: str) -> int:
        """Kafka's `readUnsignedVarint()`: at most 5 bytes."""
        b, p, e = self.b, self.p, self.e
        start = p
        value = shift = 0
        while True:
            if p >= e:
                raise ProtocolError("varint runs past the end", position=start, field=label)
            byte = b[p]
            p += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                self.p = p
                return value
            shift += 7
            if shift > 28:
                raise ProtocolError("varint longer than 5 bytes", position=start, field=label)

    def _length(self, label: str, compact: bool, wide: bool) -> int:
        """A classic int16/int32 length or a compact N+1 (a Java int); negative: null."""
        if compact:
            value = self.uvarint(label) & 0xFFFFFFFF
            return ((value ^ 0x80000000) - 0x80000000) - 1
        return self._fixed(_I32 if wide else _I16, label)  # type: ignore[return-value]

    def _null(self, label: str, start: int, nullable: bool) -> None:
        if not nullable:
            raise ProtocolError(
                f"non-nullable field {java_name(label)} was serialized as null",
                position=start,
                field=label,
            )

    def string(self, label: str, compact: bool, nullable: bool = False) -> str | None:
        start, b, e = self.p, self.b, self.e
        # the usual lengths read inline: a compact one-byte N+1 (0: null; 0x80 and up: a
        # longer varint, read by _length) or an int16 (negative: null)
        if compact and start < e and b[start] < 0x80:
            p = start + 1
            end = start + b[start]  # before p: null
        elif not compact and start + 2 <= e:
            p = start + 2
            end = p + ((b[start] << 8) | b[start + 1]) if b[start] < 0x80 else start  # null
        else:
            n = self._length(label, compact, False)
            if n > 0x7FFF:
                raise ProtocolError(
                    f"string field {java_name(label)} had invalid length {n}",
                    position=start,
                    field=label,
                )
            p = self.p
            end = p + n
        if end > e:
            self.p = p
            raise self._short(end - p, label)
        if end < p:
            self.p = p
            self._null(label, start, nullable)
            return None
        self.p = end
        try:
            return b[p:end].decode()
        except UnicodeDecodeError:
            raise ProtocolError("string is not UTF-8", position=start, field=label) from None

    def bytes(self, label: str, compact: bool, nullable: bool = False) -> bytes | None:
        start = self.p
        n = self._length(label, compact, True)
        if n < 0:
            self._null(label, start, nullable)
            return None
        p = self.p
        if p + n > self.e:
            raise self._short(n, label)
        self.p = p + n
        return self.b[p : p + n]

    def count(self, label: str, compact: bool, nullable: bool = False) -> int:
        """An array's element count; -1 for a null array."""
        start = self.p
        n = self._length(label, compact, True)
        if n < 0:
            self._null(label, start, nullable)
            return -1
        if n > self.e - self.p:
            raise ProtocolError(ALLOCATE % (n, self.e - self.p), position=start, field=label)
        return n

    def fixed_array(self, fmt: str, size: int, n: int, label: str) -> tuple:
        """`n` fixed-width values at once (`fmt` a struct code)."""
        p = self.p
        if p + n * size > self.e:
            raise self._short(n * size, label)
        self.p = p + n * size
        return _struct.unpack_from(f">{n}{fmt}", self.b, p)

    def present(self, label: str, tagged: bool) -> bool:
        """A nullable struct's marker: an int8 (negative: null) or, inside a tagged field, an
        unsigned varint (0: null)."""
        if tagged:
            return self.uvarint(label) != 0
        return self._fixed(_I8, label) >= 0  # type: ignore[operator]

    def tags(self, label: str) -> tuple[tuple[int, bytes], ...]:
        """A tag section of tags kgroup does not know: (tag, raw bytes) in order."""
        p = self.p
        if p < self.e and self.b[p] == 0:  # the usual empty section
            self.p = p + 1
            return ()
        unknown = []
        for _ in range(self.tag_count(label)):
            tag, end = self.tag(label)
            unknown.append((tag, self.raw(end)))
        return tuple(unknown)

    def tag_count(self, label: str) -> int:
        value = self.uvarint(label) & 0xFFFFFFFF
        return (value ^ 0x80000000) - 0x80000000

    def tag(self, label: str) -> tuple[int, int]:
        """A tagged field's (tag, end position)."""
        tag = self.uvarint(label)
        size = self.uvarint(label)
        if self.p + size > self.e:
            raise self._short(size, f"{label}.{tag}")
        return tag, self.p + size

    def tag_end(self, end: int, label: str) -> None:
        if self.p != end:
            raise ProtocolError(
                f"tagged field ended at byte {self.p}, not {end}", position=self.p, field=label
            )

    def raw(self, end: int) -> bytes:
        p = self.p
        self.p = end
        return self.b[p:end]

    def done(self, name: str) -> None:
        """Raise unless every byte was read."""
        if self.p != self.e:
            raise ProtocolError(
                f"{self.e - self.p} unexpected trailing bytes after {name}",
                position=self.p,
                field=name,
            )


# ---------------------------------------------------------------- writing


def uvarint(value: int) -> bytes:
    """Unsigned LEB128 of a value in 0 .. 2**32 - 1 (`ByteUtils.writeUnsignedVarint`)."""
    if 0 <= value < 0x80:
        return bytes((value,))
    if value < 0 or value > 0xFFFFFFFF:
        raise ProtocolWriteError(f"unsigned varint out of range: {value}")
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _null(out: bytearray, compact: bool, wide: bool, nullable: bool, label: str) -> None:
    if not nullable:
        raise ProtocolWriteError(f"non-nullable field {label} cannot be null")
    out += b"\x00" if compact else (I32(-1) if wide else I16(-1))


def w_length(out: bytearray, n: int, compact: bool, wide: bool) -> None:
    out += uvarint(n + 1) if compact else (I32(n) if wide else I16(n))


def w_string(out: bytearray, value: str | None, compact: bool, nullable: bool, label: str) -> None:
    if value is None:
        _null(out, compact, False, nullable, label)
        return
    raw = value.encode()
    if len(raw) > 0x7FFF:
        raise ProtocolWriteError(f"string field {label} is longer than 32767 bytes")
    w_length(out, len(raw), compact, False)
    out += raw


def w_bytes(out: bytearray, value: bytes | None, compact: bool, nullable: bool, label: str) -> None:
    if value is None:
        _null(out, compact, True, nullable, label)
        return
    w_length(out, len(value), compact, True)
    out += value


def w_count(
    out: bytearray, value: Sequence[Any] | None, compact: bool, nullable: bool, label: str
) -> Sequence[Any]:
    """An array's count (or null); returns the elements to write after it."""
    if value is None:
        _null(out, compact, True, nullable, label)
        return ()
    w_length(out, len(value), compact, True)
    return value


def w_fixed_array(
    out: bytearray,
    value: Sequence[Any] | None,
    fmt: str,
    compact: bool,
    nullable: bool,
    label: str,
) -> None:
    """An array of fixed-width values (`fmt` a struct code), packed at once."""
    if value is None:
        _null(out, compact, True, nullable, label)
        return
    w_length(out, len(value), compact, True)
    out += _struct.pack(f">{len(value)}{fmt}", *value)


def w_uuid(value: bytes) -> bytes:
    if len(value) != 16:
        raise ProtocolWriteError(f"not a 16-byte uuid: {value!r}")
    return value


def w_tags(out: bytearray, tags: list[tuple[int, bytes]]) -> None:
    """A tag section: count, then (tag, size, bytes) in tag order."""
    tags.sort(key=lambda item: item[0])
    out += uvarint(len(tags))
    for tag, raw in tags:
        out += uvarint(tag)
        out += uvarint(len(raw))
        out += raw


def absent(name: str, version: int) -> ProtocolWriteError:
    """Kafka's error for a non-default value of a field the version lacks."""
    return ProtocolWriteError(f"Attempted to write a non-default {name} at version {version}")
