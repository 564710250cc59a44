"""Bytes embedded in group metadata values: members' subscriptions and assignments, decoded
by their group's protocol type.

Source of truth: the Java `ConsumerProtocol` (a newer version read with the newest layout,
trailing bytes ignored, every field of that layout required), `StickyAssignor` /
`CooperativeStickyAssignor` user data, and Kafka Connect's `ConnectProtocol` /
`IncrementalCooperativeConnectProtocol`. OFFSETS_FORMAT.md §4. Bytes of an unknown
protocol are kept raw (base64 in the output); bytes that do not decode too, with the reason.
"""

from __future__ import annotations

from typing import Any

from kgroup.offsets import layouts, schema
from kgroup.offsets.schema import Message
from kgroup.offsets.wire import INT16, INT32, DecodeError


def expand_members(value: dict[str, Any]) -> None:
    """Decode each member's subscription/assignment bytes according to the protocol type."""
    members = value.get("members")
    if not members:
        return
    protocol_type = value.get("protocol_type")
    protocol = value.get("protocol")
    for m in members:
        m["subscription"] = decode_subscription(protocol_type, protocol, m.get("subscription"))
        m["assignment"] = decode_assignment(protocol_type, m.get("assignment"))


def _versioned(msg: Message, data: bytes) -> dict[str, Any]:
    """int16 version + `msg` read with the highest known layout, as `ConsumerProtocol` does:
    every field of that layout is required (a buffer underflow is a `SchemaException` there),
    trailing bytes are ignored. The consumer protocol tables are kgroup.protocol's (the wire
    client and `simulate-assign --from-group` read the same bytes with them), read by the
    generated readers through `layouts` (C when built)."""
    if len(data) < 2:
        raise DecodeError("shorter than its int16 version", 0, "version")
    version = INT16.unpack_from(data, 0)[0]
    reader = _EMBEDDED.get((msg, version))
    if reader is None:
        if version < 0:
            raise DecodeError(f"negative version {version}", 0, "version")
        read_version = min(version, msg.valid[1])
        reader = layouts.get_reader(msg.struct, read_version, msg.flexible(read_version))
        _EMBEDDED[(msg, version)] = reader
    fields, _pos = reader(data, 2, len(data))
    out: dict[str, Any] = {"version": version}
    out.update(fields)
    return out


_EMBEDDED: dict[tuple[Message, int], layouts.Reader] = {}


def _raw(data: bytes | None, error: str | None = None) -> dict[str, Any] | None:
    if data is None:
        return None
    out: dict[str, Any] = {"raw_base64": data}
    if error:
        out["error"] = error
    return out


def decode_subscription(
    protocol_type: str | None, protocol: str | None, data: bytes | None
) -> dict[str, Any] | None:
    """A member's metadata for the group's protocol, decoded when the protocol type is known."""
    if data is None:
        return None
    if not data and protocol_type in ("consumer", "connect"):
        return {}
    try:
        if protocol_type == "consumer":
            out = _versioned(schema.CONSUMER_PROTOCOL_SUBSCRIPTION, data)
            user_data = out.get("user_data")
            if user_data:
                decoded = decode_user_data(protocol, user_data)
                if decoded is not None:
                    out["user_data_decoded"] = decoded
            return out
        if protocol_type == "connect":
            out = _versioned(schema.CONNECT_METADATA, data)
            if out.get("allocation"):
                out["allocation"] = decode_assignment("connect", out["allocation"])
            return out
    except (DecodeError, UnicodeDecodeError) as exc:
        return _raw(data, str(exc))
    return _raw(data)


def decode_assignment(protocol_type: str | None, data: bytes | None) -> dict[str, Any] | None:
    """A member's assignment bytes, decoded when the protocol type is known."""
    if data is None:
        return None
    if not data and protocol_type in ("consumer", "connect"):
        return {}  # Empty/rebalancing groups store zero-length assignments
    try:
        if protocol_type == "consumer":
            return _versioned(schema.CONSUMER_PROTOCOL_ASSIGNMENT, data)
        if protocol_type == "connect":
            return _versioned(schema.CONNECT_ASSIGNMENT, data)
    except (DecodeError, UnicodeDecodeError) as exc:
        return _raw(data, str(exc))
    return _raw(data)


def decode_user_data(protocol: str | None, data: bytes) -> dict[str, Any] | None:
    """Assignor user data: sticky (V1 then V0) and cooperative-sticky (generation)."""
    if protocol == "sticky":
        for version in (1, 0):
            try:
                fields, pos = layouts.read_message(schema.STICKY_USER_DATA, version, data)
            except (DecodeError, UnicodeDecodeError):
                continue
            if pos == len(data):
                return fields
        return None
    if protocol == "cooperative-sticky" and len(data) == 4:
        return {"generation": INT32.unpack_from(data, 0)[0]}
    return None
