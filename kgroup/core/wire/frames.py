"""Framing and headers of Kafka requests and responses, and the wire's protocol error.

Source of truth: RequestHeader.json (v1, or v2 in flexible versions: adds a tag section, ClientId
stays a classic nullable string) and ResponseHeader.json (v0, or v1 with a tag section) in
apache/kafka, written and read by their generated modules (`kgroup.protocol.generated.wire`);
which header version an API uses is `kgroup.protocol.model.Api`'s rule. A frame is an int32 size
then the header and body.

`kgroup.protocol` is a leaf and raises its own `ProtocolError`; the wire client's callers get
this module's `ProtocolError`, the same error as a `KafkaOperationError` (exit 1, with a hint):
`translated` turns one into the other where the wire client reads a broker's bytes.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

from kgroup.core.errors import KafkaOperationError
from kgroup.protocol import errors
from kgroup.protocol.generated.wire import request_header, response_header
from kgroup.protocol.runtime import Readable

__all__ = [
    "ProtocolError",
    "TrailingBytesError",
    "decode_response_header",
    "encode_request_header",
    "frame",
    "translated",
]

_I32 = struct.Struct(">i")
P = ParamSpec("P")
R = TypeVar("R")


class ProtocolError(KafkaOperationError, errors.ProtocolError):
    """A broker's bytes that break the protocol, as an error kgroup reports (exit 1)."""

    def __init__(self, reason: str, *, position: int, field: str = "") -> None:
        # both bases' attributes; Exception's init once (the bases' inits take other arguments)
        errors.ProtocolError.__init__(self, reason, position=position, field=field)
        self.hint = errors.ProtocolError.hint


class TrailingBytesError(ProtocolError, errors.TrailingBytesError):
    """Bytes left after a complete message."""


def _as_wire_error(exc: errors.ProtocolError) -> ProtocolError:
    if isinstance(exc, ProtocolError):
        return exc
    cls = TrailingBytesError if isinstance(exc, errors.TrailingBytesError) else ProtocolError
    return cls(exc.reason, position=exc.position, field=exc.field)


def translated(fn: Callable[P, R]) -> Callable[P, R]:
    """`fn` raising this module's ProtocolError where the protocol package raises its own."""

    @wraps(fn)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except errors.ProtocolError as exc:
            raise _as_wire_error(exc) from None

    return call


def encode_request_header(
    api_key: int, api_version: int, correlation_id: int, client_id: str | None, *, flexible: bool
) -> bytes:
    """Request header v1 (classic) or v2 (flexible)."""
    header = request_header.RequestHeader(api_key, api_version, correlation_id, client_id)
    return request_header.write(header, 2 if flexible else 1)


@translated
def decode_response_header(data: bytes, *, flexible: bool) -> tuple[int, int]:
    """(correlation_id, body offset) of response header v0 or v1 (unknown tags skipped)."""
    r = Readable(data)
    header = response_header.read_from(r, 1 if flexible else 0)
    return header.correlation_id, r.p


def frame(payload: bytes) -> bytes:
    """A size-prefixed frame as sent on the wire (int32 length, then the payload)."""
    return _I32.pack(len(payload)) + payload
