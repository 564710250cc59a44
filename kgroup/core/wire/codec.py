"""Framing and headers of Kafka requests and responses; no message layout.

Source of truth: RequestHeader.json (v1, or v2 in flexible versions: adds a tag section, ClientId
stays a classic nullable string) and ResponseHeader.json (v0, or v1 with a tag section) in
apache/kafka, declared in `kgroup.protocol.messages.headers` and written and read by the generic
codec; which header version an API uses is `kgroup.protocol.model.Api`'s rule. A frame is an
int32 size then the header and body. `ProtocolError` (bytes that break the protocol) lives in
`kgroup.protocol.types` and is re-exported here for the wire client's callers.
"""

from __future__ import annotations

import struct

from kgroup.protocol.codec import encode
from kgroup.protocol.messages.headers import REQUEST_HEADER, RESPONSE_HEADER
from kgroup.protocol.reader import get_reader
from kgroup.protocol.types import ProtocolError

__all__ = ["ProtocolError", "decode_response_header", "encode_request_header", "frame"]

_I32 = struct.Struct(">i")
_RESPONSE_HEADERS = {
    flexible: get_reader(RESPONSE_HEADER.struct, int(flexible), flexible)
    for flexible in (False, True)
}


def encode_request_header(
    api_key: int, api_version: int, correlation_id: int, client_id: str | None, *, flexible: bool
) -> bytes:
    """Request header v1 (classic) or v2 (flexible)."""
    values = {
        "request_api_key": api_key,
        "request_api_version": api_version,
        "correlation_id": correlation_id,
        "client_id": client_id,
    }
    return encode(REQUEST_HEADER, 2 if flexible else 1, values)


def decode_response_header(data: bytes, *, flexible: bool) -> tuple[int, int]:
    """(correlation_id, body offset) of response header v0 or v1 (unknown tags skipped)."""
    values, pos = _RESPONSE_HEADERS[flexible](data, 0, len(data))
    return values["correlation_id"], pos


def frame(payload: bytes) -> bytes:
    """A size-prefixed frame as sent on the wire (int32 length, then the payload)."""
    return _I32.pack(len(payload)) + payload
