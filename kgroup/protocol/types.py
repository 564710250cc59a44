"""Primitive types of Kafka's message formats: fixed-width layouts, varints, uuids, defaults,
and the errors of the generated readers and writers (scripts/gen_offsets_codec.py).

Source of truth: Kafka's `ByteUtils` (unsigned varints), the generated message classes
(`MessageDataGenerator`: defaults, Java-int lengths) and `Uuid.toString` (base64url, no padding).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any, Literal

from kgroup.protocol.errors import ProtocolError, ProtocolWriteError, TrailingBytesError
from kgroup.protocol.model import NULL, Array, Field, Struct
from kgroup.protocol.runtime import uvarint as encode_uvarint

# re-exported
__all__ = ["ProtocolError", "ProtocolWriteError", "TrailingBytesError", "encode_uvarint"]

Trailing = Literal["error", "keep", "ignore"]


FIXED = {
    "int8": ("b", 1),
    "int16": ("h", 2),
    "uint16": ("H", 2),
    "int32": ("i", 4),
    "int64": ("q", 8),
    "float64": ("d", 8),
    "bool": ("?", 1),
    "uuid": ("16s", 16),
}
ZERO_UUID = bytes(16)


# ---------------------------------------------------------------- errors and varints


# Readers raise `error(reason, position=..., field=...)`: ProtocolError for the wire, or any class
# with that signature (kgroup.offsets.wire.DecodeError for `__consumer_offsets` records).
ErrorClass = Callable[..., Exception]


class Wording:
    """How a reader words its errors; the rules are the reader's, not this class's.

    The default is the wire client's: labels are field paths as Kafka's JSON spells them
    (`Groups.Members.MemberId`), truncations say "needs N bytes, M left". A reader with other
    established texts (`kgroup decode`'s) overrides these methods.
    """

    def label(self, path: str, name: str) -> str:
        """The label of field `name` inside `path` (the enclosing labels, each ending in ".")."""
        return path + name

    def truncated(self, size: int, left: int) -> str:
        """A fixed-width field (or marker) of `size` bytes with `left` bytes left."""
        return f"needs {size} bytes, {left} left"

    def truncated_length(self, size: int, left: int) -> str:
        """A length or count prefix that does not fit."""
        return self.truncated(size, left)

    def truncated_data(self, size: int, left: int) -> str:
        """The `size` bytes of a string, bytes or fixed-width array that do not fit."""
        return self.truncated(size, left)

    def group_label(self, path: str, first: str, last: str) -> str | None:
        """The label of consecutive fixed-width fields read at once, or None to name the one
        that does not fit (the default)."""
        return None

    def bad_utf8(
        self, exc: UnicodeDecodeError, start: int, label: str, error: ErrorClass
    ) -> Exception:
        """The error for a string read at `start` that is not UTF-8 (`exc`: Python's)."""
        return error("string is not UTF-8", position=start, field=label)

    def at(self, start: int, after: int, label: str, kafka_text: bool) -> tuple[int, str | None]:
        """(position, label) of an error about a length read at `start` (`after`: past it);
        `kafka_text`: the reason is Kafka's own sentence, which names the field already."""
        return start, label


WIRE = Wording()


def truncated(
    p: int,
    e: int,
    size: int,
    label: str,
    error: ErrorClass = ProtocolError,
    words: Callable[[int, int], str] = WIRE.truncated,
) -> Exception:
    return error(words(size, max(e - p, 0)), position=p, field=label)


def after_length(
    reason: str,
    start: int,
    after: int,
    label: str,
    kafka_text: bool,
    error: ErrorClass = ProtocolError,
    wording: Wording = WIRE,
) -> Exception:
    """An error about a length or count read at `start` (`after`: past it): a null where none
    is allowed, an over-long string, a collection longer than the bytes left."""
    p, field = wording.at(start, after, label, kafka_text)
    return error(reason, position=p, field=field)


def read_uvarint(
    b: bytes, p: int, e: int, label: str, error: ErrorClass = ProtocolError
) -> tuple[int, int]:
    """Kafka's `readUnsignedVarint()`: at most 5 bytes; returns (value, new position)."""
    start = p
    value = 0
    shift = 0
    while True:
        if p >= e:
            raise error("varint runs past the end", position=start, field=label)
        byte = b[p]
        p += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, p
        shift += 7
        if shift > 28:
            raise error("varint longer than 5 bytes", position=start, field=label)


def read_uvarint32(
    b: bytes, p: int, e: int, label: str, minus: int = 0, error: ErrorClass = ProtocolError
) -> tuple[int, int]:
    """An unsigned varint as a Java int (2**31 and above negative), minus `minus`, wrapped."""
    value, p = read_uvarint(b, p, e, label, error)
    value = ((value & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000 - minus
    return ((value & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000, p


def uuid_text(raw: bytes) -> str:
    """16 raw bytes as Kafka prints a Uuid (`Uuid.toString`: base64url without padding)."""
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def uuid_bytes(value: bytes | str) -> bytes:
    """A uuid given as 16 bytes, Kafka's base64 text or the 36-character hex form."""
    if isinstance(value, bytes | bytearray):
        raw = bytes(value)
    elif len(value) == 36 and value.count("-") == 4:
        raw = bytes.fromhex(value.replace("-", ""))
    else:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    if len(raw) != 16:
        raise ProtocolWriteError(f"not a uuid: {value!r}")
    return raw


def default_value(fd: Field, *, uuid_as_text: bool = False) -> Any:
    """The value of `fd` when absent: its declared default, else the type's zero value."""
    if fd.default is NULL:
        return None
    typ = fd.type
    if fd.default is not None:
        if typ == "uuid":
            raw = uuid_bytes(fd.default)  # type: ignore[arg-type]
            return uuid_text(raw) if uuid_as_text else raw
        return fd.default
    if isinstance(typ, Array):
        return []
    if isinstance(typ, Struct):
        return {
            sub.key: default_value(sub, uuid_as_text=uuid_as_text) for sub in typ.fields if sub.key
        }
    if typ == "string":
        return ""
    if typ == "bytes":
        return b""
    if typ == "uuid":
        return uuid_text(ZERO_UUID) if uuid_as_text else ZERO_UUID
    if typ == "bool":
        return False
    if typ == "float64":
        return 0.0
    return 0


def is_fixed(fd: Field) -> bool:
    return isinstance(fd.type, str) and fd.type in FIXED


def bulk_fixed(typ: object) -> bool:
    """Whether `struct` reads and writes values of `typ` as they are, many in one call (an
    array's elements, the writer's runs of fields): fixed-width types but uuid, whose `16s`
    takes no repeat count and which the writer converts from text one by one."""
    return isinstance(typ, str) and typ in FIXED and typ != "uuid"
