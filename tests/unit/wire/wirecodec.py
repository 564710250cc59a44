"""Kafka primitive types for the test fakes: a hand-written `Reader`/`Writer` (classic and
compact encodings picked by a `flexible` flag, tag sections kept raw) and the broker's side of the
headers. kgroup itself reads and writes through the declarations of `kgroup.protocol`; the fakes
keep this independent implementation so that the wire tests do not check the codec against itself.

Source of truth: the Kafka protocol guide (https://kafka.apache.org/protocol, "Protocol Primitive
Types"), RequestHeader.json and ResponseHeader.json in apache/kafka.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

from kgroup.core.wire.frames import ProtocolError

T = TypeVar("T")

_I8 = struct.Struct(">b")
_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")
_U32 = struct.Struct(">I")


class Reader:
    """A cursor over a byte string; every read checks bounds and names the field on failure."""

    __slots__ = ("data", "flexible", "pos")

    def __init__(self, data: bytes, *, flexible: bool = False, pos: int = 0) -> None:
        self.data = data
        self.flexible = flexible
        self.pos = pos

    # -- fixed width ---------------------------------------------------------------------------

    def _take(self, size: int, field: str) -> bytes:
        end = self.pos + size
        if size < 0 or end > len(self.data):
            raise ProtocolError(
                f"needs {size} bytes, {len(self.data) - self.pos} left",
                position=self.pos,
                field=field,
            )
        chunk = self.data[self.pos : end]
        self.pos = end
        return chunk

    def _fixed(self, packer: struct.Struct, field: str) -> int:
        pos = self.pos
        end = pos + packer.size
        if end > len(self.data):
            raise ProtocolError(
                f"needs {packer.size} bytes, {len(self.data) - pos} left",
                position=pos,
                field=field,
            )
        self.pos = end
        return int(packer.unpack_from(self.data, pos)[0])

    def int8(self, field: str = "int8") -> int:
        return self._fixed(_I8, field)

    def boolean(self, field: str = "bool") -> bool:
        return self.int8(field) != 0

    def int16(self, field: str = "int16") -> int:
        return self._fixed(_I16, field)

    def int32(self, field: str = "int32") -> int:
        return self._fixed(_I32, field)

    def int64(self, field: str = "int64") -> int:
        return self._fixed(_I64, field)

    def uint32(self, field: str = "uint32") -> int:
        return self._fixed(_U32, field)

    def uuid(self, field: str = "uuid") -> bytes:
        return self._take(16, field)

    # -- varints ---------------------------------------------------------------------------------

    def uvarint(self, field: str = "uvarint") -> int:
        """Unsigned LEB128 varint of at most 5 bytes (Kafka's unsigned varint is 32-bit)."""
        start = self.pos
        if start < len(self.data) and self.data[start] < 0x80:  # the common one-byte case
            self.pos = start + 1
            return self.data[start]
        value = 0
        shift = 0
        while True:
            if self.pos >= len(self.data):
                raise ProtocolError("varint runs past the end", position=start, field=field)
            byte = self.data[self.pos]
            self.pos += 1
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return value
            shift += 7
            if shift > 28:
                raise ProtocolError("varint longer than 5 bytes", position=start, field=field)

    def varint(self, field: str = "varint") -> int:
        """Signed zig-zag varint."""
        raw = self.uvarint(field)
        return (raw >> 1) ^ -(raw & 1)

    # -- lengths ---------------------------------------------------------------------------------

    def _length(self, field: str, *, wide: bool = False) -> int:
        """Length prefix; -1 means null. Compact lengths are stored as length + 1."""
        if self.flexible:
            return self.uvarint(field) - 1
        return self.int32(field) if wide else self.int16(field)

    # -- strings and bytes -----------------------------------------------------------------------

    def nullable_string(self, field: str = "string") -> str | None:
        start = self.pos
        length = self._length(field)
        if length < -1:
            raise ProtocolError(f"negative string length {length}", position=start, field=field)
        if length == -1:
            return None
        raw = self._take(length, field)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError(
                f"string is not UTF-8 ({exc.reason})", position=start, field=field
            ) from None

    def string(self, field: str = "string") -> str:
        start = self.pos
        value = self.nullable_string(field)
        if value is None:
            raise ProtocolError("null in a non-nullable string", position=start, field=field)
        return value

    def nullable_bytes(self, field: str = "bytes") -> bytes | None:
        start = self.pos
        length = self._length(field, wide=True)
        if length < -1:
            raise ProtocolError(f"negative bytes length {length}", position=start, field=field)
        if length == -1:
            return None
        return self._take(length, field)

    def bytes_(self, field: str = "bytes") -> bytes:
        start = self.pos
        value = self.nullable_bytes(field)
        if value is None:
            raise ProtocolError("null in non-nullable bytes", position=start, field=field)
        return value

    # -- arrays ----------------------------------------------------------------------------------

    def nullable_array(self, item: Callable[[Reader], T], field: str = "array") -> list[T] | None:
        start = self.pos
        length = self._length(field, wide=True)
        if length < -1:
            raise ProtocolError(f"negative array length {length}", position=start, field=field)
        if length == -1:
            return None
        if length > len(self.data) - self.pos:  # every element takes at least one byte
            raise ProtocolError(
                f"array of {length} elements cannot fit in {len(self.data) - self.pos} bytes",
                position=start,
                field=field,
            )
        return [item(self) for _ in range(length)]

    def array(self, item: Callable[[Reader], T], field: str = "array") -> list[T]:
        start = self.pos
        value = self.nullable_array(item, field)
        if value is None:
            raise ProtocolError("null in a non-nullable array", position=start, field=field)
        return value

    # -- tagged fields ---------------------------------------------------------------------------

    def tagged_fields(self, field: str = "tagged fields") -> dict[int, bytes]:
        """A tag section (flexible versions only): tag -> raw value bytes, unknown tags kept."""
        if not self.flexible:
            return {}
        start = self.pos
        count = self.uvarint(field)
        tags: dict[int, bytes] = {}
        last = -1
        for _ in range(count):
            tag = self.uvarint(field)
            if tag <= last:
                raise ProtocolError(
                    f"tag {tag} out of order or repeated", position=start, field=field
                )
            last = tag
            size = self.uvarint(field)
            tags[tag] = self._take(size, f"{field} (tag {tag})")
        return tags

    def remaining(self) -> int:
        return len(self.data) - self.pos

    def expect_end(self, field: str = "message") -> None:
        if self.pos != len(self.data):
            raise ProtocolError(
                f"{len(self.data) - self.pos} unexpected trailing bytes",
                position=self.pos,
                field=field,
            )


class Writer:
    """Builds a message body; `flexible` selects compact encodings as in `Reader`."""

    __slots__ = ("buf", "flexible")

    def __init__(self, *, flexible: bool = False) -> None:
        self.buf = bytearray()
        self.flexible = flexible

    def getvalue(self) -> bytes:
        return bytes(self.buf)

    def int8(self, value: int) -> Writer:
        self.buf += _I8.pack(value)
        return self

    def boolean(self, value: bool) -> Writer:
        return self.int8(1 if value else 0)

    def int16(self, value: int) -> Writer:
        self.buf += _I16.pack(value)
        return self

    def int32(self, value: int) -> Writer:
        self.buf += _I32.pack(value)
        return self

    def int64(self, value: int) -> Writer:
        self.buf += _I64.pack(value)
        return self

    def uvarint(self, value: int) -> Writer:
        self.buf += encode_uvarint(value)
        return self

    def varint(self, value: int) -> Writer:
        self.buf += encode_varint(value)
        return self

    def _length(self, length: int, *, wide: bool = False) -> None:
        if self.flexible:
            self.uvarint(length + 1)
        elif wide:
            self.int32(length)
        else:
            self.int16(length)

    def nullable_string(self, value: str | None) -> Writer:
        if value is None:
            self._length(-1)
            return self
        raw = value.encode("utf-8")
        if not self.flexible and len(raw) > 0x7FFF:
            raise ValueError(f"string of {len(raw)} bytes is longer than int16 allows")
        self._length(len(raw))
        self.buf += raw
        return self

    def string(self, value: str) -> Writer:
        return self.nullable_string(value)

    def nullable_bytes(self, value: bytes | None) -> Writer:
        if value is None:
            self._length(-1, wide=True)
            return self
        self._length(len(value), wide=True)
        self.buf += value
        return self

    def bytes_(self, value: bytes) -> Writer:
        return self.nullable_bytes(value)

    def nullable_array(
        self, items: Iterable[T] | None, item: Callable[[Writer, T], object]
    ) -> Writer:
        if items is None:
            self._length(-1, wide=True)
            return self
        values = list(items)
        self._length(len(values), wide=True)
        for value in values:
            item(self, value)
        return self

    def array(self, items: Iterable[T], item: Callable[[Writer, T], object]) -> Writer:
        return self.nullable_array(items, item)

    def tagged_fields(self, tags: Mapping[int, bytes] | None = None) -> Writer:
        """A tag section (no-op in non-flexible versions); tags are written in ascending order."""
        if not self.flexible:
            return self
        items = sorted((tags or {}).items())
        self.uvarint(len(items))
        for tag, value in items:
            self.uvarint(tag)
            self.uvarint(len(value))
            self.buf += value
        return self


def encode_uvarint(value: int) -> bytes:
    """Unsigned LEB128 of a value in 0 .. 2**32 - 1."""
    if value < 0 or value > 0xFFFFFFFF:
        raise ValueError(f"unsigned varint out of range: {value}")
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def encode_varint(value: int) -> bytes:
    """Zig-zag signed varint of a 32-bit value."""
    if value < -(2**31) or value >= 2**31:
        raise ValueError(f"varint out of range: {value}")
    return encode_uvarint(((value << 1) ^ (value >> 31)) & 0xFFFFFFFF)


# --- headers (the broker side, for the fakes) ------------------------------------------------


def decode_request_header(data: bytes, *, flexible: bool) -> tuple[int, int, int, str | None, int]:
    """(api_key, api_version, correlation_id, client_id, body offset) of a framed-less request."""
    reader = Reader(data)
    api_key = reader.int16("request_api_key")
    api_version = reader.int16("request_api_version")
    correlation_id = reader.int32("correlation_id")
    client_id = reader.nullable_string("client_id")
    if flexible:
        reader.flexible = True
        reader.tagged_fields("request header tagged fields")
    return api_key, api_version, correlation_id, client_id, reader.pos


def encode_response_header(correlation_id: int, *, flexible: bool) -> bytes:
    """Response header v0 or v1 (for tests and fakes)."""
    return _I32.pack(correlation_id) + (b"\x00" if flexible else b"")
