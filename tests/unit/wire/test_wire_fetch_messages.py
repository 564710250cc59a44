"""Fetch v4-v11 encode/decode against bytes written by hand from Kafka's FetchRequest.json and
FetchResponse.json (field by field, in the order and widths the specs give)."""

from __future__ import annotations

import struct

import pytest

from kgroup.core.wire.error_codes import OFFSET_OUT_OF_RANGE, UNSUPPORTED_VERSION
from kgroup.core.wire.frames import ProtocolError
from kgroup.core.wire.offset_calls import decode_fetch_response, encode_fetch_request
from kgroup.core.wire.results import READ_COMMITTED, FetchedPartition, FetchPosition


def i8(v: int) -> bytes:
    return struct.pack(">b", v)


def i16(v: int) -> bytes:
    return struct.pack(">h", v)


def i32(v: int) -> bytes:
    return struct.pack(">i", v)


def i64(v: int) -> bytes:
    return struct.pack(">q", v)


def s(text: str) -> bytes:
    return i16(len(text)) + text.encode()


POSITIONS = [
    FetchPosition("orders", 0, 42, 65536),
    FetchPosition("orders", 3, 7, 65536),
    FetchPosition("audit", 1, 0, 1024),
]


def test_fetch_v4_request_bytes() -> None:
    expected = (
        i32(-1)  # ReplicaId: a consumer
        + i32(500)  # MaxWaitMs
        + i32(0)  # MinBytes
        + i32(52428800)  # MaxBytes 3+
        + i8(1)  # IsolationLevel 4+: READ_COMMITTED
        + i32(2)  # Topics
        + s("orders")
        + i32(2)  # FetchPartitions
        + i32(0)
        + i64(42)
        + i32(65536)
        + i32(3)
        + i64(7)
        + i32(65536)
        + s("audit")
        + i32(1)
        + i32(1)
        + i64(0)
        + i32(1024)
    )
    assert encode_fetch_request(4, POSITIONS, isolation_level=READ_COMMITTED) == expected


def test_fetch_v11_request_bytes_have_no_session_epochs_or_rack() -> None:
    expected = (
        i32(-1)  # ReplicaId
        + i32(500)  # MaxWaitMs
        + i32(0)  # MinBytes
        + i32(52428800)  # MaxBytes
        + i8(0)  # IsolationLevel: READ_UNCOMMITTED
        + i32(0)  # SessionId 7+: none
        + i32(-1)  # SessionEpoch 7+: FINAL_EPOCH, opens no session (KIP-227)
        + i32(1)
        + s("audit")
        + i32(1)
        + i32(1)  # PartitionIndex
        + i32(-1)  # CurrentLeaderEpoch 9+
        + i64(0)  # FetchOffset
        + i64(-1)  # LogStartOffset 5+
        + i32(1024)  # MaxBytes
        + i32(0)  # Forgotten 7+
        + s("")  # RackId 11+
    )
    assert encode_fetch_request(11, POSITIONS[2:]) == expected


def test_fetch_v5_request_has_log_start_but_no_session() -> None:
    body = encode_fetch_request(5, POSITIONS[2:])
    assert body == (
        i32(-1)
        + i32(500)
        + i32(0)
        + i32(52428800)
        + i8(0)
        + i32(1)
        + s("audit")
        + i32(1)
        + i32(1)
        + i64(0)
        + i64(-1)  # LogStartOffset 5+
        + i32(1024)
    )


@pytest.mark.parametrize("version", [3, 12, 13])
def test_fetch_versions_kgroup_does_not_speak_are_refused(version: int) -> None:
    with pytest.raises(ValueError, match="v4-v11"):
        encode_fetch_request(version, POSITIONS)


def test_fetch_v4_response_bytes() -> None:
    records = b"\x00" * 5
    body = (
        i32(0)  # ThrottleTimeMs
        + i32(1)  # Responses
        + s("orders")
        + i32(2)  # PartitionResponses
        + i32(0)  # Partition
        + i16(0)  # ErrorCode
        + i64(50)  # HighWatermark
        + i64(48)  # LastStableOffset 4+
        + i32(2)  # AbortedTransactions 4+
        + i64(9001)
        + i64(40)
        + i64(9002)
        + i64(44)
        + i32(len(records))  # RecordSet
        + records
        + i32(3)
        + i16(1)  # OFFSET_OUT_OF_RANGE
        + i64(-1)
        + i64(-1)
        + i32(-1)  # AbortedTransactions: null
        + i32(-1)  # RecordSet: null
    )
    code, partitions = decode_fetch_response(body, 4)
    assert code == 0
    assert partitions == [
        FetchedPartition("orders", 0, 0, 50, 48, -1, ((9001, 40), (9002, 44)), records),
        FetchedPartition("orders", 3, OFFSET_OUT_OF_RANGE, -1, -1, -1, None, b""),
    ]


def test_fetch_v11_response_bytes() -> None:
    body = (
        i32(0)  # ThrottleTimeMs
        + i16(0)  # ErrorCode 7+
        + i32(0)  # SessionId 7+
        + i32(1)
        + s("audit")
        + i32(1)
        + i32(1)
        + i16(0)
        + i64(10)  # HighWatermark
        + i64(10)  # LastStableOffset
        + i64(3)  # LogStartOffset 5+
        + i32(0)  # AbortedTransactions: empty
        + i32(-1)  # PreferredReadReplica 11+
        + i32(2)
        + b"\x01\x02"
    )
    code, partitions = decode_fetch_response(body, 11)
    assert (code, partitions) == (
        0,
        [FetchedPartition("audit", 1, 0, 10, 10, 3, (), b"\x01\x02")],
    )


def test_fetch_response_top_level_error_and_truncation() -> None:
    body = i32(0) + i16(UNSUPPORTED_VERSION) + i32(0) + i32(0)
    assert decode_fetch_response(body, 7) == (UNSUPPORTED_VERSION, [])
    with pytest.raises(ProtocolError):
        decode_fetch_response(body[:-2], 7)
