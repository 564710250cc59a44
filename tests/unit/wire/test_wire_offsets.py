"""WireClient topic metadata and ListOffsets against scripted brokers: leaders, retries, errors.

The cluster: broker 1 (rack "r1") and broker 2 (no rack); topic "t" with partitions 0 and 2 led
by broker 1 and partition 1 led by broker 2; topic "u" with one partition led by broker 2. Every
log of "t" and "u" holds offsets 10 .. 19 (record i written at time 1000 + i); by timestamp the
answer is the first offset written at or after the time, -1 after the last, as Kafka answers.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kgroup.core.config import ClusterConfig
from kgroup.core.errors import AuthorizationError, KafkaOperationError, NotFoundError
from kgroup.core.models import OffsetAtTime, TopicPartition
from kgroup.core.wire.client import (
    EARLIEST,
    LAST_STABLE,
    LATEST,
    OffsetQuery,
    WireClient,
    kafka_error_of,
)
from kgroup.core.wire.error_codes import (
    LEADER_NOT_AVAILABLE,
    NOT_LEADER_OR_FOLLOWER,
    TOPIC_AUTHORIZATION_FAILED,
    UNKNOWN_TOPIC_OR_PARTITION,
)
from kgroup.protocol import messages as api_table
from tests.unit.wire.fakebroker import (
    FULL_VERSIONS,
    FakeBroker,
    FakePartition,
    FakeTopic,
    list_offsets_body,
    metadata_body,
    read_list_offsets_request,
)

T0, T1, T2 = (TopicPartition("t", p) for p in (0, 1, 2))
U0 = TopicPartition("u", 0)
TOPIC_ID = bytes(range(16))


class Cluster:
    def __init__(self, versions: dict[int, tuple[int, int]] | None = None) -> None:
        # partition -> leader node id, as Metadata reports it (tests move leaders).
        self.leaders = {T0: 1, T1: 2, T2: 1, U0: 2}
        self.metadata_requests: list[tuple[int, bytes]] = []
        # (node, partition) -> error codes to answer, one per request, before answering right.
        self.errors: dict[tuple[int, TopicPartition], list[int]] = {}
        self.asked: list[tuple[int, int, list[tuple[str, int, int]]]] = []  # node, isolation
        self.last_stable = 15
        self.brokers = [
            FakeBroker(self.handler_for(node), versions=dict(versions or FULL_VERSIONS))
            for node in (1, 2)
        ]

    def close(self) -> None:
        for broker in self.brokers:
            broker.close()

    def config(self) -> ClusterConfig:
        return ClusterConfig(self.brokers[0].address, timeout_s=5.0)

    def topics(self) -> list[FakeTopic]:
        by_topic: dict[str, list[FakePartition]] = {}
        for tp, leader in sorted(self.leaders.items()):
            by_topic.setdefault(tp.topic, []).append(FakePartition(tp.partition, leader, (1, 2)))
        return [
            FakeTopic(name, tuple(parts), TOPIC_ID if name == "t" else bytes(16))
            for name, parts in by_topic.items()
        ]

    def handler_for(self, node: int):
        def handler(api: int, version: int, body: bytes) -> bytes:
            if api == api_table.METADATA.key:
                self.metadata_requests.append((version, body))
                brokers = [
                    (1, "127.0.0.1", self.brokers[0].port, "r1"),
                    (2, "127.0.0.1", self.brokers[1].port, None),
                ]
                return metadata_body(brokers, version, self.topics())
            if api == api_table.LIST_OFFSETS.key:
                return self.list_offsets(node, version, body)
            raise AssertionError(f"unexpected api {api}")

        return handler

    def list_offsets(self, node: int, version: int, body: bytes) -> bytes:
        isolation, items = read_list_offsets_request(body, version)
        self.asked.append((node, isolation, items))
        answers = []
        for topic, partition, timestamp in items:
            tp = TopicPartition(topic, partition)
            pending = self.errors.get((node, tp))
            if pending:
                answers.append((topic, partition, pending.pop(0), -1, -1))
            elif self.leaders[tp] != node:
                answers.append((topic, partition, NOT_LEADER_OR_FOLLOWER, -1, -1))
            elif timestamp == -2:
                answers.append((topic, partition, 0, -1, 10))
            elif timestamp == -1:
                answers.append((topic, partition, 0, -1, self.last_stable if isolation else 20))
            elif timestamp > 1009:
                answers.append((topic, partition, 0, -1, -1))
            else:
                first = max(timestamp, 1000)
                answers.append((topic, partition, 0, first, 10 + first - 1000))
        return list_offsets_body(version, answers)


@pytest.fixture()
def cluster() -> Iterator[Cluster]:
    c = Cluster()
    yield c
    c.close()


def test_topics_from_one_all_topics_metadata_request(cluster: Cluster) -> None:
    with WireClient(cluster.config()) as client:
        topics = client.topics()
        counts = dict(client.request_counts)
    assert sorted(topics) == ["t", "u"]
    assert topics["t"].partitions == 3
    # Kafka prints a topic id as unpadded base64url of its 16 bytes: 00 01 .. 0f.
    assert topics["t"].topic_id == "AAECAwQFBgcICQoLDA0ODw"
    assert topics["u"].topic_id is None  # the all-zero id: none
    # Replicas on brokers 1 and 2; only broker 1 has a rack.
    assert topics["t"].replica_racks == (("r1",), ("r1",), ("r1",))
    assert counts == {"ApiVersions": 1, "Metadata": 1}
    # Metadata v12: Topics null (all topics), AllowAutoTopicCreation false, no authorized ops.
    assert cluster.metadata_requests == [(12, bytes.fromhex("00000000"))]


def test_topics_always_ask_the_cluster_and_list_offsets_reuse_the_answer(cluster: Cluster) -> None:
    with WireClient(cluster.config()) as client:
        client.topics()
        cluster.leaders[TopicPartition("new", 0)] = 1  # a topic created since
        assert sorted(client.topics()) == ["new", "t", "u"]
        client.list_offsets([TopicPartition("new", 0)], [LATEST])
        assert client.request_counts["Metadata"] == 2


def test_topics_skip_topics_the_broker_reports_with_an_error(cluster: Cluster) -> None:
    original = cluster.topics

    def with_broken() -> list[FakeTopic]:
        return [*original(), FakeTopic("broken", (), error=LEADER_NOT_AVAILABLE)]

    cluster.topics = with_broken  # type: ignore[method-assign]
    with WireClient(cluster.config()) as client:
        assert sorted(client.topics()) == ["t", "u"]


def test_watermarks_one_request_per_leader_and_query(cluster: Cluster) -> None:
    with WireClient(cluster.config()) as client:
        client.topics()
        earliest, latest, stable = client.list_offsets(
            [T0, T1, T2, U0], [EARLIEST, LATEST, LAST_STABLE]
        )
        counts = dict(client.request_counts)
    assert earliest == {tp: OffsetAtTime(10, None) for tp in (T0, T1, T2, U0)}
    assert latest == {tp: OffsetAtTime(20, None) for tp in (T0, T1, T2, U0)}
    assert stable == {tp: OffsetAtTime(15, None) for tp in (T0, T1, T2, U0)}
    # The metadata of topics() is reused; 2 leaders x 3 queries.
    assert counts == {"ApiVersions": 2, "Metadata": 1, "ListOffsets": 6}
    by_node = {(node, isolation, tuple(items)) for node, isolation, items in cluster.asked}
    assert (1, 0, (("t", 0, -2), ("t", 2, -2))) in by_node
    assert (2, 0, (("t", 1, -2), ("u", 0, -2))) in by_node
    assert (1, 1, (("t", 0, -1), ("t", 2, -1))) in by_node  # read_committed: IsolationLevel 1
    assert (2, 0, (("t", 1, -1), ("u", 0, -1))) in by_node


def test_offsets_for_times_are_the_brokers_answers(cluster: Cluster) -> None:
    with WireClient(cluster.config()) as client:
        (at,) = client.list_offsets([T0, T1], [OffsetQuery(1003)])
        (after,) = client.list_offsets([T0], [OffsetQuery(5000)])
    assert at == {T0: OffsetAtTime(13, 1003), T1: OffsetAtTime(13, 1003)}
    assert after == {T0: OffsetAtTime(-1, None)}  # after the last record: -1, passed through


def test_a_moved_leader_is_found_again_after_one_metadata_refresh(cluster: Cluster) -> None:
    with WireClient(cluster.config()) as client:
        client.topics()
        cluster.leaders[T1] = 1  # broker 2 now answers NOT_LEADER_OR_FOLLOWER for t:1
        (latest,) = client.list_offsets([T0, T1], [LATEST])
        counts = dict(client.request_counts)
    assert latest == {T0: OffsetAtTime(20, None), T1: OffsetAtTime(20, None)}
    assert counts["Metadata"] == 2
    # First round to both leaders (in parallel), then t:1 again at its new leader.
    assert sorted(cluster.asked[:2]) == [(1, 0, [("t", 0, -1)]), (2, 0, [("t", 1, -1)])]
    assert cluster.asked[2:] == [(1, 0, [("t", 1, -1)])]


def test_leader_not_available_is_asked_again_until_a_leader_answers(cluster: Cluster) -> None:
    cluster.errors[(1, T0)] = [LEADER_NOT_AVAILABLE, LEADER_NOT_AVAILABLE]
    with WireClient(cluster.config()) as client:
        client.retry_backoff_s = 0.01
        (latest,) = client.list_offsets([T0], [LATEST])
        assert client.request_counts["Metadata"] == 3  # refreshed before each new try
    assert latest == {T0: OffsetAtTime(20, None)}


def test_leader_not_available_until_the_timeout_fails_naming_the_error(cluster: Cluster) -> None:
    cluster.errors[(1, T0)] = [LEADER_NOT_AVAILABLE] * 1000
    config = cluster.config()
    config = ClusterConfig(config.bootstrap_servers, timeout_s=0.5)
    with WireClient(config) as client:
        client.retry_backoff_s = 0.01
        with pytest.raises(KafkaOperationError, match="LEADER_NOT_AVAILABLE") as caught:
            client.list_offsets([T0], [LATEST])
        assert client.request_counts["Metadata"] > 2
    assert "t:0" in caught.value.message and "still failing after" in caught.value.message


def test_unknown_partition_is_not_found(cluster: Cluster) -> None:
    cluster.errors[(1, T0)] = [UNKNOWN_TOPIC_OR_PARTITION]
    with WireClient(cluster.config()) as client, pytest.raises(NotFoundError) as caught:
        client.list_offsets([T0], [EARLIEST])
    assert kafka_error_of(caught.value) == "UNKNOWN_TOPIC_OR_PARTITION"
    assert caught.value.exit_code == 3


def test_a_topic_missing_from_cached_metadata_is_looked_up_once_more(cluster: Cluster) -> None:
    with WireClient(cluster.config()) as client:
        client.topics()
        with pytest.raises(NotFoundError, match="no such topic or partition"):
            client.list_offsets([TopicPartition("nope", 0)], [EARLIEST])
        assert client.request_counts["Metadata"] == 2
        # A partition past the topic's count is as unknown as a topic that does not exist.
        with pytest.raises(NotFoundError):
            client.list_offsets([TopicPartition("t", 7)], [EARLIEST])
    assert cluster.asked == []  # nothing was sent for partitions without a leader
    # Never asked by name: every Metadata request is the all-topics one.
    assert {body for _, body in cluster.metadata_requests} == {bytes.fromhex("00000000")}


def test_topic_authorization_failure_names_the_acl(cluster: Cluster) -> None:
    cluster.errors[(2, U0)] = [TOPIC_AUTHORIZATION_FAILED]
    with WireClient(cluster.config()) as client, pytest.raises(AuthorizationError) as caught:
        client.list_offsets([T0, U0], [LATEST])
    assert "Describe on Topic:u" in (caught.value.hint or "")
    assert "TOPIC_AUTHORIZATION_FAILED" in caught.value.message


@pytest.mark.parametrize(
    ("metadata", "list_offsets"), [((0, 8), (0, 5)), ((0, 4), (0, 2)), ((0, 12), (0, 7))]
)
def test_older_versions_classic_and_flexible(
    metadata: tuple[int, int], list_offsets: tuple[int, int]
) -> None:
    versions = dict(FULL_VERSIONS)
    versions[api_table.METADATA.key] = metadata
    versions[api_table.LIST_OFFSETS.key] = list_offsets
    cluster = Cluster(versions)
    try:
        with WireClient(cluster.config()) as client:
            assert client.topics()["t"].partitions == 3
            earliest, stable = client.list_offsets([T0, U0], [EARLIEST, LAST_STABLE])
    finally:
        cluster.close()
    assert earliest == {T0: OffsetAtTime(10, None), U0: OffsetAtTime(10, None)}
    assert stable == {T0: OffsetAtTime(15, None), U0: OffsetAtTime(15, None)}
    assert cluster.metadata_requests[0][0] == metadata[1]
    assert {v for api, v in cluster.brokers[0].received if api == api_table.LIST_OFFSETS.key} == {
        list_offsets[1]
    }


def test_list_offsets_v1_cannot_read_the_last_stable_offset() -> None:
    versions = dict(FULL_VERSIONS)
    versions[api_table.LIST_OFFSETS.key] = (0, 1)
    cluster = Cluster(versions)
    try:
        with WireClient(cluster.config()) as client:
            (latest,) = client.list_offsets([T0], [LATEST])
            assert latest == {T0: OffsetAtTime(20, None)}
            with pytest.raises(KafkaOperationError, match="read_committed needs v2"):
                client.list_offsets([T0], [LAST_STABLE])
    finally:
        cluster.close()


def test_no_partitions_sends_nothing(cluster: Cluster) -> None:
    with WireClient(cluster.config()) as client:
        assert client.list_offsets([], [EARLIEST, LATEST]) == [{}, {}]
        assert dict(client.request_counts) == {}
