"""DescribeLogDirs v1-v4 bytes (Kafka's DescribeLogDirs{Request,Response}.json, field by field,
written by hand) and `partition_sizes` against scripted brokers."""

from __future__ import annotations

import struct

import pytest

from kgroup.core.config import ClusterConfig
from kgroup.core.errors import AuthorizationError, KafkaOperationError
from kgroup.core.models import TopicPartition
from kgroup.core.wire.client import WireClient
from kgroup.core.wire.error_codes import CLUSTER_AUTHORIZATION_FAILED
from kgroup.core.wire.log_dirs import (
    WIRE_API,
    decode_describe_log_dirs_response,
    encode_describe_log_dirs_request,
    partition_sizes,
)
from kgroup.protocol import messages as api_table
from tests.unit.wire.fakebroker import FULL_VERSIONS, FakeBroker, FakePartition, FakeTopic
from tests.unit.wire.fakebroker import metadata_body as fake_metadata

TP = TopicPartition


def s(text: str) -> bytes:
    """A non-flexible STRING: int16 length, UTF-8 bytes."""
    raw = text.encode()
    return struct.pack(">h", len(raw)) + raw


def cs(text: str) -> bytes:
    """A COMPACT_STRING: unsigned varint length + 1 (all lengths here fit one byte)."""
    raw = text.encode()
    return bytes([len(raw) + 1]) + raw


def i16(v: int) -> bytes:
    return struct.pack(">h", v)


def i32(v: int) -> bytes:
    return struct.pack(">i", v)


def i64(v: int) -> bytes:
    return struct.pack(">q", v)


# --- request -----------------------------------------------------------------------------------


def test_request_v1_groups_partitions_by_topic() -> None:
    expected = (
        i32(2)  # Topics: 2 entries
        + s("orders")  # Topic
        + i32(2)  # Partitions: 2
        + i32(0)
        + i32(3)
        + s("audit")
        + i32(1)
        + i32(1)
    )
    got = encode_describe_log_dirs_request(1, [TP("orders", 0), TP("audit", 1), TP("orders", 3)])
    assert got == expected


def test_request_v4_is_compact_with_tag_sections() -> None:
    expected = (
        b"\x02"  # Topics: compact array of 1 (n + 1)
        + cs("orders")
        + b"\x03"  # Partitions: compact array of 2
        + i32(0)
        + i32(1)
        + b"\x00"  # DescribableLogDirTopic tagged fields
        + b"\x00"  # request tagged fields
    )
    assert encode_describe_log_dirs_request(4, [TP("orders", 0), TP("orders", 1)]) == expected


def test_request_refuses_v0() -> None:
    with pytest.raises(ValueError, match="v1-v4"):
        encode_describe_log_dirs_request(0, [TP("t", 0)])


# --- response ----------------------------------------------------------------------------------


def partition_v1(index: int, size: int, lag: int = 0, future: bool = False) -> bytes:
    return i32(index) + i64(size) + i64(lag) + (b"\x01" if future else b"\x00")


def response_v1() -> bytes:
    return (
        i32(0)  # ThrottleTimeMs
        + i32(2)  # Results: 2 log dirs
        + i16(0)  # ErrorCode
        + s("/data/a")  # LogDir
        + i32(1)  # Topics: 1
        + s("orders")
        + i32(2)  # Partitions: 2
        + partition_v1(0, 1_000)
        + partition_v1(1, 1_900, lag=5)
        + i16(0)
        + s("/data/b")
        + i32(1)
        + s("orders")
        + i32(1)
        + partition_v1(1, 2_000, future=True)  # being moved to /data/b: not the current log
    )


def test_response_v1_sizes_of_current_replicas_only() -> None:
    answer = decode_describe_log_dirs_response(response_v1(), 1)
    assert answer.error_code == 0
    assert answer.sizes == {TP("orders", 0): 1_000, TP("orders", 1): 1_900}
    assert answer.failed_dirs == ()


def response_v34(
    version: int, top_error: int = 0, dir_error: int = 0, size: int = 123_456_789_012
) -> bytes:
    """A v3 or v4 answer: v4 adds TotalBytes and UsableBytes to each log directory."""
    totals = (
        (i64(1_919_445_725_184) + i64(1_879_107_272_704), i64(-1) + i64(-1))
        if version >= 4
        else (b"", b"")
    )
    return (
        i32(0)  # ThrottleTimeMs
        + i16(top_error)  # ErrorCode 3+
        + b"\x03"  # Results: compact array of 2
        + i16(0)
        + cs("/data/a")
        + b"\x02"  # Topics: 1
        + cs("orders")
        + b"\x02"  # Partitions: 1
        + i32(7)  # PartitionIndex
        + i64(size)  # PartitionSize
        + i64(0)  # OffsetLag
        + b"\x00"  # IsFutureKey
        + b"\x00"  # partition tagged fields
        + b"\x00"  # topic tagged fields
        + totals[0]  # TotalBytes, UsableBytes 4+
        + b"\x00"  # result tagged fields
        + i16(dir_error)  # second log dir: offline (KAFKA_STORAGE_ERROR) when asked
        + cs("/data/b")
        + b"\x01"  # Topics: empty
        + totals[1]
        + b"\x00"
        + b"\x00"  # response tagged fields
    )


def test_response_v4_reads_sizes_past_the_disk_totals() -> None:
    answer = decode_describe_log_dirs_response(response_v34(4, dir_error=56), 4)
    assert answer.sizes == {TP("orders", 7): 123_456_789_012}
    assert answer.failed_dirs == (("/data/b", 56),)


def test_response_v3_layout_has_no_disk_totals() -> None:
    answer = decode_describe_log_dirs_response(response_v34(3), 3)
    assert answer.sizes == {TP("orders", 7): 123_456_789_012}
    # read as v4, the same bytes run short: the versions differ
    from kgroup.core.wire.frames import ProtocolError

    with pytest.raises(ProtocolError):
        decode_describe_log_dirs_response(response_v34(3), 4)


# --- the client against scripted brokers ------------------------------------------------------


@pytest.fixture(autouse=True)
def _fake_brokers_know_the_api(monkeypatch: pytest.MonkeyPatch) -> None:
    """FakeBroker picks header layouts from the wire client's API table, which does not list
    DescribeLogDirs (sent by kgroup.core.wire.log_dirs): show it for these tests."""
    monkeypatch.setitem(api_table.APIS, WIRE_API.key, WIRE_API)


class Cluster:
    """Two scripted brokers; orders:0 leads on broker 1, orders:1 and audit:0 on broker 2."""

    def __init__(self, answers: dict[int, bytes], versions: dict[int, tuple[int, int]]) -> None:
        self.asked: dict[int, list[tuple[int, bytes]]] = {1: [], 2: []}
        self.brokers: dict[int, FakeBroker] = {}
        for node in (1, 2):
            table = dict(FULL_VERSIONS)
            if node in versions:
                table[WIRE_API.key] = versions[node]
            broker = FakeBroker(handler=self.handler(node, answers), versions=table, node_id=node)
            self.brokers[node] = broker

    def handler(self, node: int, answers: dict[int, bytes]):
        def handle(key: int, version: int, body: bytes) -> bytes:
            if key == api_table.METADATA.key:
                topics = [
                    FakeTopic("orders", (FakePartition(0, 1), FakePartition(1, 2))),
                    FakeTopic("audit", (FakePartition(0, 2),)),
                ]
                brokers = [(n, "127.0.0.1", b.port) for n, b in sorted(self.brokers.items())]
                return fake_metadata(brokers, version, topics)
            assert key == WIRE_API.key
            self.asked[node].append((version, body))
            return answers[node]

        return handle

    def close(self) -> None:
        for broker in self.brokers.values():
            broker.close()


def sizes(cluster: Cluster, tps: list[TopicPartition]):
    with WireClient(ClusterConfig(cluster.brokers[1].address, timeout_s=5)) as client:
        return partition_sizes(client, tps)


def v1_answer(*entries: tuple[str, int, int]) -> bytes:
    by_topic: dict[str, list[tuple[int, int]]] = {}
    for topic, index, size in entries:
        by_topic.setdefault(topic, []).append((index, size))
    raw = i32(0) + i32(1) + i16(0) + s("/data") + i32(len(by_topic))
    for topic, parts in by_topic.items():
        raw += s(topic) + i32(len(parts)) + b"".join(partition_v1(i, z) for i, z in parts)
    return raw


def test_one_request_per_leader_and_sizes_from_each() -> None:
    answers = {
        1: v1_answer(("orders", 0, 4_000)),
        2: v1_answer(("orders", 1, 5_000), ("audit", 0, 6_000)),
    }
    cluster = Cluster(answers, {1: (1, 1), 2: (1, 1)})
    try:
        got = sizes(cluster, [TP("orders", 0), TP("orders", 1), TP("audit", 0)])
    finally:
        cluster.close()
    assert got == {TP("orders", 0): 4_000, TP("orders", 1): 5_000, TP("audit", 0): 6_000}
    assert cluster.asked[1] == [(1, i32(1) + s("orders") + i32(1) + i32(0))]
    # broker 2 gets both of its partitions in one request (topics sorted, audit first)
    assert cluster.asked[2] == [
        (1, i32(2) + s("audit") + i32(1) + i32(0) + s("orders") + i32(1) + i32(1))
    ]


def test_highest_common_version_and_per_broker_failures() -> None:
    denied = i32(0) + i16(CLUSTER_AUTHORIZATION_FAILED) + b"\x01" + b"\x00"  # v3, no results
    cluster = Cluster({1: b"", 2: denied}, {2: (0, 3)})  # broker 1 lacks the API
    try:
        got = sizes(cluster, [TP("orders", 0), TP("orders", 1)])
    finally:
        cluster.close()
    assert cluster.asked[1] == []
    assert [v for v, _ in cluster.asked[2]] == [3]
    assert isinstance(got[TP("orders", 0)], KafkaOperationError)
    assert "does not answer DescribeLogDirs" in got[TP("orders", 0)].one_line()
    denied_error = got[TP("orders", 1)]
    assert isinstance(denied_error, AuthorizationError)
    assert "Describe on Cluster:kafka-cluster" in denied_error.one_line()


def test_partition_the_broker_does_not_list_is_an_error_naming_the_acl() -> None:
    # Kafka before v3 answers an unauthorized client with an empty list and no error
    cluster = Cluster({1: i32(0) + i32(0), 2: i32(0) + i32(0)}, {1: (1, 1), 2: (1, 1)})
    try:
        got = sizes(cluster, [TP("orders", 0)])
    finally:
        cluster.close()
    error = got[TP("orders", 0)]
    assert isinstance(error, KafkaOperationError)
    assert "did not report the size of orders:0" in error.one_line()
    assert "Describe on Cluster" in error.one_line()
