"""The inverse of the decoder: coordinator records, batches and legacy message sets as bytes.

Source of truth: the same as the decoder (Kafka's JSON message specs, `DefaultRecordBatch`,
`LegacyRecord`, `compress/*`); OFFSETS_FORMAT.md §1-6. Used to build test fixtures, sample
data and benchmark input, so it can also write what Kafka writes on purpose badly: LZ4 with the
magic-0 header checksum (KAFKA-3160), xerial snappy framing, zstd frames without content size.
"""

from __future__ import annotations

import base64
import struct
import zlib
from collections.abc import Iterable, Sequence
from typing import Any

from kgroup.offsets import layouts, records, schema, wire
from kgroup.offsets.schema import RECORD_TYPES

# ---------------------------------------------------------------- coordinator key/value


def encode_key(type_id: int, fields: dict[str, Any]) -> bytes:
    """int16 record type + the key struct (always version 0, never flexible)."""
    rt = RECORD_TYPES[type_id]
    out = bytearray(wire.INT16.pack(type_id))
    layouts.write_message(rt.key, 0, fields, out)
    return bytes(out)


def encode_value(type_id: int, version: int, fields: dict[str, Any] | None) -> bytes | None:
    """int16 value version + the value struct; None (a tombstone) stays None.

    For group metadata (T 2), members' `subscription`/`assignment` may be given as the dicts the
    decoder returns; they are encoded with the group's protocol type.
    """
    if fields is None:
        return None
    rt = RECORD_TYPES[type_id]
    if type_id == 2 and fields.get("members"):
        fields = dict(fields)
        ptype = fields.get("protocol_type")
        fields["members"] = [
            {
                **m,
                "subscription": _embedded_bytes(ptype, m.get("subscription"), True),
                "assignment": _embedded_bytes(ptype, m.get("assignment"), False),
            }
            for m in fields["members"]
        ]
    out = bytearray(wire.INT16.pack(version))
    layouts.write_message(rt.value, version, fields, out)
    return bytes(out)


def _embedded_bytes(ptype: str | None, value: Any, subscription: bool) -> bytes | None:
    if value is None or isinstance(value, bytes | bytearray):
        return None if value is None else bytes(value)
    if "raw_base64" in value:
        raw = value["raw_base64"]
        return raw if isinstance(raw, bytes) else base64.b64decode(raw)
    if not value:
        return b""
    if ptype == "connect":
        msg = schema.CONNECT_METADATA if subscription else schema.CONNECT_ASSIGNMENT
    else:
        msg = (
            schema.CONSUMER_PROTOCOL_SUBSCRIPTION
            if subscription
            else schema.CONSUMER_PROTOCOL_ASSIGNMENT
        )
    return encode_versioned(msg, value)


def encode_versioned(msg: schema.Message, fields: dict[str, Any]) -> bytes:
    """int16 version prefix + `msg` at that version (ConsumerProtocol, Connect protocol)."""
    version = int(fields.get("version", msg.valid[1]))
    body = {k: v for k, v in fields.items() if k != "version"}
    if msg is schema.CONNECT_METADATA and isinstance(body.get("allocation"), dict):
        body["allocation"] = encode_versioned(schema.CONNECT_ASSIGNMENT, body["allocation"])
    out = bytearray(wire.INT16.pack(version))
    layouts.write_message(msg, min(version, msg.valid[1]), body, out)
    return bytes(out)


def encode_subscription(fields: dict[str, Any]) -> bytes:
    return encode_versioned(schema.CONSUMER_PROTOCOL_SUBSCRIPTION, fields)


def encode_assignment(fields: dict[str, Any]) -> bytes:
    return encode_versioned(schema.CONSUMER_PROTOCOL_ASSIGNMENT, fields)


def encode_sticky_user_data(previous: list[dict[str, Any]], generation: int | None) -> bytes:
    """StickyAssignor user data: V1 with a generation, V0 without."""
    version = 0 if generation is None else 1
    values = {"previous_assignment": previous, "generation": generation}
    return layouts.encode_message(schema.STICKY_USER_DATA, version, values)


def control_key(marker: str) -> bytes:
    """Control record key: version 0 + type (0 ABORT, 1 COMMIT)."""
    ctype = {"ABORT": 0, "COMMIT": 1}[marker]
    return struct.pack(">hh", 0, ctype)


def end_txn_marker(coordinator_epoch: int) -> bytes:
    """EndTxnMarker value: version 0 + coordinatorEpoch."""
    return struct.pack(">hi", 0, coordinator_epoch)


# ---------------------------------------------------------------- compression


def compress(codec_id: int, data: bytes, magic: int = 2) -> bytes:
    """Compress the way Kafka's producer streams do (see module docstring)."""
    if codec_id == 0:
        return data
    if codec_id == 1:
        import gzip

        return gzip.compress(data, mtime=0)
    import cramjam

    if codec_id == 2:  # xerial snappy-java framing, one chunk per 32 KiB block
        out = bytearray(records.XERIAL_MAGIC + struct.pack(">ii", 1, 1))
        for i in range(0, max(len(data), 1), 32768):
            block = bytes(cramjam.snappy.compress_raw(data[i : i + 32768]))
            out += struct.pack(">i", len(block)) + block
        return bytes(out)
    if codec_id == 3:  # LZ4 frame: FLG 0x60 (v1, independent blocks), BD 0x40 (64 KiB)
        descriptor = bytes([0x60, 0x40])
        checked = records.LZ4_MAGIC + descriptor if magic == 0 else descriptor  # KAFKA-3160
        out = bytearray(records.LZ4_MAGIC + descriptor)
        out.append((records.xxh32(checked) >> 8) & 0xFF)
        for i in range(0, len(data), 65536):
            chunk = data[i : i + 65536]
            block = bytes(cramjam.lz4.compress_block(chunk, store_size=False))
            if len(block) >= len(chunk):
                out += struct.pack("<I", len(chunk) | 0x80000000) + chunk
            else:
                out += struct.pack("<I", len(block)) + block
        out += b"\x00\x00\x00\x00"
        return bytes(out)
    if codec_id == 4:  # streaming compressor: the frame declares no content size
        comp = cramjam.zstd.Compressor()
        comp.compress(data)
        return bytes(comp.finish())
    raise ValueError(f"unknown codec {codec_id}")


# ---------------------------------------------------------------- magic 2 batches


def encode_record_v2(
    offset_delta: int,
    timestamp_delta: int,
    key: bytes | None,
    value: bytes | None,
    headers: Sequence[tuple[str, bytes | None]] = (),
) -> bytes:
    """One DefaultRecord (length-prefixed, zig-zag varints)."""
    body = bytearray(b"\x00")
    wire.write_varint(body, timestamp_delta)
    wire.write_varint(body, offset_delta)
    wire.write_varint_bytes(body, key)
    wire.write_varint_bytes(body, value)
    wire.write_varint(body, len(headers))
    for hkey, hval in headers:
        wire.write_varint_bytes(body, hkey.encode())
        wire.write_varint_bytes(body, hval)
    out = bytearray()
    wire.write_varint(out, len(body))
    return bytes(out + body)


def encode_batch(
    entries: Iterable[tuple[bytes | None, bytes | None]],
    *,
    base_offset: int,
    timestamp: int,
    codec_id: int = 0,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    transactional: bool = False,
    control: bool = False,
    log_append_time: bool = False,
    partition_leader_epoch: int = 0,
    offset_deltas: Sequence[int] | None = None,
    timestamp_deltas: Sequence[int] | None = None,
) -> bytes:
    """A magic-2 batch of (key, value) records with a correct CRC-32C."""
    entries = list(entries)
    deltas = list(offset_deltas) if offset_deltas is not None else list(range(len(entries)))
    tdeltas = list(timestamp_deltas) if timestamp_deltas is not None else [0] * len(entries)
    body = b"".join(
        encode_record_v2(d, t, k, v) for (k, v), d, t in zip(entries, deltas, tdeltas, strict=True)
    )
    payload = compress(codec_id, body, 2)
    attributes = codec_id
    if log_append_time:
        attributes |= records.TIMESTAMP_TYPE_BIT
    if transactional:
        attributes |= records.TRANSACTIONAL_BIT
    if control:
        attributes |= records.CONTROL_BIT
    last_delta = deltas[-1] if deltas else 0
    max_ts = timestamp + (max(tdeltas) if tdeltas else 0)
    after_crc = (
        struct.pack(
            ">hiqqqhii",
            attributes,
            last_delta,
            timestamp,
            max_ts,
            producer_id,
            producer_epoch,
            base_sequence,
            len(entries),
        )
        + payload
    )
    crc = records.crc32c(after_crc)
    length = 4 + 1 + 4 + len(after_crc)
    head = struct.pack(">qiibI", base_offset, length, partition_leader_epoch, 2, crc)
    return head + after_crc


def encode_control_batch(
    marker: str,
    *,
    base_offset: int,
    timestamp: int,
    producer_id: int,
    producer_epoch: int,
    coordinator_epoch: int = 0,
) -> bytes:
    """A transaction marker batch (COMMIT or ABORT) as the transaction coordinator writes it."""
    return encode_batch(
        [(control_key(marker), end_txn_marker(coordinator_epoch))],
        base_offset=base_offset,
        timestamp=timestamp,
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        transactional=True,
        control=True,
    )


# ---------------------------------------------------------------- legacy magic 0/1


def encode_legacy_message(
    magic: int,
    key: bytes | None,
    value: bytes | None,
    *,
    timestamp: int = -1,
    attributes: int = 0,
) -> bytes:
    """A LegacyRecord body: crc, magic, attributes, [timestamp], key, value (CRC-32)."""
    body = bytearray(struct.pack(">bb", magic, attributes))
    if magic == 1:
        body += struct.pack(">q", timestamp)
    wire.write_bytes32(body, key)
    wire.write_bytes32(body, value)
    crc = zlib.crc32(body)
    return struct.pack(">I", crc) + bytes(body)


def encode_legacy_entry(offset: int, message: bytes) -> bytes:
    return struct.pack(">qi", offset, len(message)) + message


def encode_legacy_set(
    entries: Sequence[tuple[bytes | None, bytes | None]],
    *,
    magic: int,
    base_offset: int,
    timestamp: int = -1,
    codec_id: int = 0,
    log_append_time: bool = False,
) -> bytes:
    """A magic 0/1 message set; with a codec, one wrapper holding the compressed inner set.

    Inner offsets: absolute for magic 0, relative 0..n-1 for magic 1 with the wrapper carrying
    the absolute offset of the last inner message (KIP-31).
    """
    if codec_id == 0:
        return b"".join(
            encode_legacy_entry(
                base_offset + i, encode_legacy_message(magic, k, v, timestamp=timestamp)
            )
            for i, (k, v) in enumerate(entries)
        )
    inner = b"".join(
        encode_legacy_entry(
            (base_offset + i) if magic == 0 else i,
            encode_legacy_message(magic, k, v, timestamp=timestamp),
        )
        for i, (k, v) in enumerate(entries)
    )
    attributes = codec_id | (records.TIMESTAMP_TYPE_BIT if log_append_time else 0)
    wrapper = encode_legacy_message(
        magic, None, compress(codec_id, inner, magic), timestamp=timestamp, attributes=attributes
    )
    return encode_legacy_entry(base_offset + len(entries) - 1, wrapper)


# ---------------------------------------------------------------- convenience


def offset_commit(
    group: str,
    topic: str,
    partition: int,
    offset: int,
    *,
    version: int = 3,
    commit_timestamp: int = 0,
    leader_epoch: int = -1,
    metadata: str = "",
    expire_timestamp: int = -1,
    topic_id: str | None = None,
) -> tuple[bytes, bytes]:
    """(key, value) of an OffsetCommit record as a broker writes it."""
    key = encode_key(1, {"group": group, "topic": topic, "partition": partition})
    fields: dict[str, Any] = {
        "offset": offset,
        "leader_epoch": leader_epoch,
        "metadata": metadata,
        "commit_timestamp": commit_timestamp,
        "expire_timestamp": expire_timestamp,
    }
    if topic_id is not None:
        fields["topic_id"] = topic_id
    value = encode_value(1, version, fields)
    assert value is not None
    return key, value
