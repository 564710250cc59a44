"""Primitive encodings of Kafka's protocol and record formats: fixed ints, varints, strings, uuids.

Source of truth: Kafka's `ByteUtils` (unsigned varints, zig-zag varints/varlongs), the record
formats' int32-prefixed bytes (`LegacyRecord`) and `Uuid.toString` (unpadded base64url).
OFFSETS_FORMAT.md §1. The message layouts themselves are read and written by kgroup.protocol.

Readers work on `bytes` with an explicit position and end and raise `DecodeError` naming the
field and byte position. Writers append to a `bytearray`. Nothing here does I/O.
"""

from __future__ import annotations

import struct

from kgroup.core.errors import CorruptInputError
from kgroup.protocol.types import uuid_bytes, uuid_text

INT16 = struct.Struct(">h")
INT32 = struct.Struct(">i")
INT64 = struct.Struct(">q")

ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA"


class DecodeError(CorruptInputError):
    """Bytes that do not follow the format: names the field and the byte position.

    `position` is relative to the buffer being decoded (a key, a value, a batch); callers add
    the file position when they know it.
    """

    def __init__(self, reason: str, position: int | None = None, field: str | None = None) -> None:
        where = f" at byte {position}" if position is not None else ""
        what = f"{field}: " if field else ""
        super().__init__(f"{what}{reason}{where}", position=position)
        self.reason = reason
        self.field = field


# Kafka's Uuid text (base64url, no padding) and back: kgroup.protocol's, under the names the
# offsets code and tests use.
uuid_to_str = uuid_text
uuid_from_str = uuid_bytes


# ---------------------------------------------------------------- varints


def _read_base128(
    buf: bytes, pos: int, end: int, field: str, kind: str, max_bytes: int
) -> tuple[int, int]:
    """The raw bits of a `kind` varint of at most `max_bytes` bytes at `pos` (7 bits a byte,
    least significant first, high bit = more follows); returns (bits, new position)."""
    value = 0
    shift = 0
    while True:
        if pos >= end:
            raise DecodeError(f"truncated {kind}", pos, field)
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos
        shift += 7
        if shift >= 7 * max_bytes:
            raise DecodeError(f"{kind} longer than {max_bytes} bytes", pos, field)


def read_uvarint(buf: bytes, pos: int, end: int, field: str = "varint") -> tuple[int, int]:
    """Unsigned varint (at most 5 bytes, 32 bits) at `pos`; returns (value, new position)."""
    return _read_base128(buf, pos, end, field, "unsigned varint", 5)


def read_varint(buf: bytes, pos: int, end: int, field: str = "varint") -> tuple[int, int]:
    """Zig-zag signed varint/varlong (record format) at `pos`; returns (value, new position)."""
    value, pos = _read_base128(buf, pos, end, field, "varint", 10)
    return (value >> 1) ^ -(value & 1), pos


def write_uvarint(out: bytearray, value: int) -> None:
    """Append an unsigned varint."""
    if value < 0:
        raise ValueError("unsigned varint cannot be negative")
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def write_varint(out: bytearray, value: int) -> None:
    """Append a zig-zag signed varint/varlong (64-bit)."""
    write_uvarint(out, ((value << 1) ^ (value >> 63)) & 0xFFFFFFFFFFFFFFFF)


def write_varint_bytes(out: bytearray, value: bytes | None) -> None:
    """Append record-format bytes (a record's key, value or header value): zig-zag varint
    length, -1 = null, then the bytes."""
    if value is None:
        write_varint(out, -1)
        return
    write_varint(out, len(value))
    out += value


def uvarint_bytes(value: int) -> bytes:
    """An unsigned varint as bytes."""
    out = bytearray()
    write_uvarint(out, value)
    return bytes(out)


def varint_bytes(value: int) -> bytes:
    """A zig-zag varint as bytes."""
    out = bytearray()
    write_varint(out, value)
    return bytes(out)


# ---------------------------------------------------------------- classic strings/bytes


def read_bytes32(buf: bytes, pos: int, end: int, field: str = "bytes") -> tuple[bytes | None, int]:
    """Classic bytes: int32 length (-1 = null) then the bytes."""
    if pos + 4 > end:
        raise DecodeError("truncated bytes length", pos, field)
    (n,) = INT32.unpack_from(buf, pos)
    pos += 4
    if n < 0:
        if n == -1:
            return None, pos
        raise DecodeError(f"negative bytes length {n}", pos - 4, field)
    if pos + n > end:
        raise DecodeError(f"{n} bytes run past the end", pos, field)
    return bytes(buf[pos : pos + n]), pos + n


def write_bytes32(out: bytearray, value: bytes | None) -> None:
    """Append classic bytes (None = null)."""
    if value is None:
        out += b"\xff\xff\xff\xff"
        return
    out += INT32.pack(len(value))
    out += value
