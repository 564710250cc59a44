"""The dict codec the tests read and write any declaration with: decode/encode on the
generator's source (scripts/gen_offsets_codec.py) built with the wire's options, an
implementation of Kafka's rules independent of the generated classes (the run-time
`kgroup.protocol.dicts` it replaces is gone: kgroup compiles no code at run time).

Decoded messages are dicts with snake_case keys; arrays are lists, structs dicts, uuids 16 raw
bytes (or Kafka's base64 text with `uuid_as_text=True`). Unknown tagged fields are kept as
`_tag<N>: bytes` and written back. With `defaults=True` (the default) a field absent from the
version read, or a tagged field not sent, holds its declared default; `defaults=False` leaves
such fields out. Bytes after the message are an error (`trailing="error"`), kept as `_trailing`
(`"keep"`) or ignored (`"ignore"`).
"""

from __future__ import annotations

import struct as _struct
from functools import cache
from typing import Any

from kgroup.protocol.model import Message, Struct
from kgroup.protocol.types import (
    ProtocolError,
    ProtocolWriteError,
    Trailing,
    TrailingBytesError,
    truncated,
)
from scripts.gen_offsets_codec import build_reader, build_writer


@cache
def get_reader(
    struct: Struct, version: int, flexible: bool, *, uuid_as_text: bool, defaults: bool
) -> Any:
    return build_reader(struct, version, flexible, uuid_as_text=uuid_as_text, defaults=defaults)


@cache
def get_writer(struct: Struct, version: int, flexible: bool) -> Any:
    return build_writer(struct, version, flexible)


__all__ = [
    "MessageReader",
    "MessageWriter",
    "ProtocolError",
    "ProtocolWriteError",
    "Trailing",
    "TrailingBytesError",
    "decode",
    "decode_versioned",
    "encode",
    "encode_versioned",
]


def decode(
    msg: Message,
    version: int,
    data: bytes,
    *,
    trailing: Trailing = "error",
    uuid_as_text: bool = False,
    defaults: bool = True,
    pos: int = 0,
    end: int | None = None,
) -> dict[str, Any]:
    """Read `msg` v`version` from data[pos:end], which must hold exactly one message unless
    `trailing` says otherwise."""
    if not msg.supports(version):
        raise ProtocolError(
            f"{msg.name} has no version {version} (valid {msg.valid[0]}-{msg.valid[1]})",
            position=pos,
            field=msg.name,
        )
    if not isinstance(data, bytes):
        data = bytes(data)
    stop = len(data) if end is None else end
    fn = get_reader(
        msg.struct, version, msg.flexible(version), uuid_as_text=uuid_as_text, defaults=defaults
    )
    values, p = fn(data, pos, stop)
    if p != stop:
        if trailing == "error":
            raise TrailingBytesError(
                f"{stop - p} unexpected trailing bytes after {msg.name} v{version}",
                position=p,
                field=msg.name,
            )
        if trailing == "keep":
            values["_trailing"] = data[p:stop]
    return values


def decode_versioned(
    msg: Message,
    data: bytes,
    *,
    trailing: Trailing = "ignore",
    uuid_as_text: bool = False,
    defaults: bool = True,
) -> dict[str, Any]:
    """A message behind an int16 version (ConsumerProtocol, Connect), read as Kafka's
    `ConsumerProtocol.deserializeSubscription` does: a version below the declaration's is an
    error, a newer one is read with the newest known layout, and the bytes after the layout are
    not looked at (`trailing="ignore"`; a version newer than the declaration always ignores
    them). The result has the version sent under `version`."""
    if len(data) < 2:
        raise truncated(0, len(data), 2, "Version")
    (version,) = _struct.unpack_from(">h", data, 0)
    if version < msg.valid[0]:
        raise ProtocolError(
            f"unsupported {msg.name} version {version}", position=0, field="Version"
        )
    layout = min(version, msg.valid[1])
    if version > msg.valid[1]:
        trailing = "ignore"
    values = decode(
        msg,
        layout,
        data,
        pos=2,
        trailing=trailing,
        uuid_as_text=uuid_as_text,
        defaults=defaults,
    )
    values["version"] = version
    return values


class MessageReader:
    """A reader bound to one declaration and version (the compiled code is shared)."""

    def __init__(
        self,
        msg: Message,
        version: int,
        *,
        trailing: Trailing = "error",
        uuid_as_text: bool = False,
        defaults: bool = True,
    ) -> None:
        self.msg = msg
        self.version = version
        self.options = {"trailing": trailing, "uuid_as_text": uuid_as_text, "defaults": defaults}

    def read(self, data: bytes, pos: int = 0, end: int | None = None) -> dict[str, Any]:
        return decode(self.msg, self.version, data, pos=pos, end=end, **self.options)  # type: ignore[arg-type]


# ---------------------------------------------------------------- writing messages


def encode(msg: Message, version: int, values: dict[str, Any]) -> bytes:
    """`values` (snake_case keys, as `decode` returns them) as `msg` v`version`; absent keys
    take their defaults."""
    if not msg.supports(version):
        raise ProtocolWriteError(f"{msg.name} has no version {version}")
    out = bytearray()
    try:
        get_writer(msg.struct, version, msg.flexible(version))(values, out)
    except (_struct.error, TypeError, AttributeError) as exc:
        raise ProtocolWriteError(f"cannot write {msg.name} v{version}: {exc}") from exc
    return bytes(out)


def encode_versioned(msg: Message, version: int, values: dict[str, Any]) -> bytes:
    """The int16 version, then `msg` in that version's layout (a version newer than the
    declaration: the newest known layout, as `decode_versioned` reads it)."""
    return _struct.pack(">h", version) + encode(msg, min(version, msg.valid[1]), values)


class MessageWriter:
    """A writer bound to one declaration and version."""

    def __init__(self, msg: Message, version: int) -> None:
        self.msg = msg
        self.version = version

    def write(self, values: dict[str, Any]) -> bytes:
        return encode(self.msg, self.version, values)
