"""WireClient.next_records against scripted brokers: what a consumer gets next at each offset.

The cluster: broker 1 leads "t" partitions 0 and 2, broker 2 leads "t" partition 1. Each test
writes the partitions' logs as Kafka stores them (magic-2 batches made by kgroup.offsets.encode),
and the brokers answer Fetch as Kafka's ReplicaManager does: from the batch holding the fetch
offset, whole batches up to the partition's byte limit (KIP-74: the first partition of a response
gets its first batch whole, the others get the bytes that fit, a partial batch), up to the high
watermark or, with read_committed, the last stable offset, and OFFSET_OUT_OF_RANGE below the log
start. Expected answers are written from the logs by hand.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from kgroup.core.config import ClusterConfig
from kgroup.core.errors import AuthorizationError, KafkaOperationError
from kgroup.core.models import NextRecord, TopicPartition
from kgroup.core.wire.client import WireClient
from kgroup.core.wire.error_codes import (
    NOT_LEADER_OR_FOLLOWER,
    OFFSET_OUT_OF_RANGE,
    TOPIC_AUTHORIZATION_FAILED,
)
from kgroup.core.wire.results import EARLIEST_TIMESTAMP, READ_COMMITTED
from kgroup.offsets.encode import encode_batch, encode_control_batch
from kgroup.protocol import messages as api_table
from tests.unit.wire.fakebroker import (
    FakeBroker,
    FakePartition,
    FakeTopic,
    FetchAnswer,
    FetchAsked,
    fetch_body,
    list_offsets_body,
    metadata_body,
    read_fetch_request,
    read_list_offsets_request,
)

T0, T1, T2 = (TopicPartition("t", p) for p in (0, 1, 2))


@dataclass
class Log:
    batches: list[tuple[int, int, bytes]] = field(default_factory=list)  # base, last, bytes
    log_start: int = 0
    last_stable: int | None = None  # None: the high watermark
    aborted: tuple[tuple[int, int], ...] = ()

    @property
    def high_watermark(self) -> int:
        return self.batches[-1][1] + 1 if self.batches else self.log_start

    def add(self, batch: bytes, base: int, count: int = 1) -> Log:
        self.batches.append((base, base + count - 1, batch))
        return self


def records(base: int, timestamps: list[int], **kwargs: object) -> bytes:
    """A batch of len(timestamps) records from `base`, record i written at timestamps[i]."""
    return encode_batch(
        [(None, b"v")] * len(timestamps),
        base_offset=base,
        timestamp=timestamps[0],
        timestamp_deltas=[t - timestamps[0] for t in timestamps],
        **kwargs,  # type: ignore[arg-type]
    )


def marker(kind: str, base: int, producer_id: int) -> bytes:
    return encode_control_batch(
        kind, base_offset=base, timestamp=9, producer_id=producer_id, producer_epoch=0
    )


class Cluster:
    def __init__(self) -> None:
        self.leaders = {T0: 1, T1: 2, T2: 1}
        self.logs: dict[TopicPartition, Log] = {tp: Log() for tp in self.leaders}
        self.errors: dict[tuple[int, TopicPartition], list[int]] = {}
        self.skip: dict[TopicPartition, int] = {}  # answers with no bytes first (tansu)
        self.fetches: list[tuple[int, int, list[FetchAsked]]] = []  # node, isolation, asked
        self.metadata_requests = 0
        self.brokers = [FakeBroker(self.handler_for(node)) for node in (1, 2)]

    def close(self) -> None:
        for broker in self.brokers:
            broker.close()

    def client(self, timeout_s: float = 5.0) -> WireClient:
        client = WireClient(ClusterConfig(self.brokers[0].address, timeout_s=timeout_s))
        client.retry_backoff_s = 0.01
        return client

    def handler_for(self, node: int):
        def handler(api: int, version: int, body: bytes) -> bytes:
            if api == api_table.METADATA.key:
                self.metadata_requests += 1
                brokers = [
                    (n, "127.0.0.1", b.port) for n, b in zip((1, 2), self.brokers, strict=True)
                ]
                by_topic: dict[str, list[FakePartition]] = {}
                for tp, leader in sorted(self.leaders.items()):
                    by_topic.setdefault(tp.topic, []).append(
                        FakePartition(tp.partition, leader, (1, 2))
                    )
                topics = [FakeTopic(name, tuple(parts)) for name, parts in by_topic.items()]
                return metadata_body(brokers, version, topics)
            if api == api_table.LIST_OFFSETS.key:
                _isolation, items = read_list_offsets_request(body, version)
                assert all(timestamp == EARLIEST_TIMESTAMP for _, _, timestamp in items)
                answers = [
                    (topic, p, 0, -1, self.logs[TopicPartition(topic, p)].log_start)
                    for topic, p, _ in items
                ]
                return list_offsets_body(version, answers)
            if api == api_table.FETCH.key:
                return self.fetch(node, version, body)
            raise AssertionError(f"unexpected api {api}")

        return handler

    def fetch(self, node: int, version: int, body: bytes) -> bytes:
        isolation, max_wait, asked = read_fetch_request(body, version)
        assert max_wait > 0  # tansu answers MaxWaitMs 0 with nothing at all
        self.fetches.append((node, isolation, asked))
        answers = []
        first_with_data = True
        for item in asked:
            tp = TopicPartition(item.topic, item.partition)
            log = self.logs[tp]
            pending = self.errors.get((node, tp))
            if pending:
                answers.append(FetchAnswer(item.topic, item.partition, error=pending.pop(0)))
                continue
            if self.leaders[tp] != node:
                answers.append(
                    FetchAnswer(item.topic, item.partition, error=NOT_LEADER_OR_FOLLOWER)
                )
                continue
            end = log.high_watermark
            stable = log.last_stable if log.last_stable is not None else end
            if item.offset < log.log_start or item.offset > end:
                answers.append(FetchAnswer(item.topic, item.partition, error=OFFSET_OUT_OF_RANGE))
                continue
            upper = stable if isolation == READ_COMMITTED else end
            data = b""
            if self.skip.get(tp, 0) > 0:
                self.skip[tp] -= 1
            else:
                for _base, last, batch in log.batches:
                    if last < item.offset or _base >= upper:
                        continue
                    if len(data) + len(batch) > item.max_bytes:
                        if not data and first_with_data:
                            data = batch  # KIP-74: one whole batch for the first partition
                        else:
                            data += batch[: item.max_bytes - len(data)]  # a partial batch
                        break
                    data += batch
            if data:
                first_with_data = False
            answers.append(
                FetchAnswer(
                    item.topic,
                    item.partition,
                    records=data,
                    high_watermark=end,
                    last_stable=stable,
                    log_start=log.log_start,
                    aborted=log.aborted if isolation == READ_COMMITTED else None,
                )
            )
        return fetch_body(version, answers)


@pytest.fixture()
def cluster() -> Iterator[Cluster]:
    c = Cluster()
    yield c
    c.close()


def consumable(timestamp: int | None) -> NextRecord:
    return NextRecord(consumable=True, timestamp=timestamp)


NOTHING = NextRecord(consumable=False)


def test_every_offset_of_a_partition_comes_from_one_fetch_per_leader(cluster: Cluster) -> None:
    cluster.logs[T0].add(records(0, [100, 101, 102]), 0, 3).add(
        records(3, [103, 104, 105, 106]), 3, 4
    )
    cluster.logs[T1].add(records(0, [200, 201]), 0, 2)
    # 50 groups at five offsets of t:0 and the end of t:1
    positions = [(T0, offset) for offset in (0, 1, 4, 6, 7) for _ in range(10)] + [(T1, 2)]
    with cluster.client() as client:
        found = client.next_records(positions)
        assert client.request_counts["Fetch"] == 2  # one per leader, one round
    assert found == {
        (T0, 0): consumable(100),
        (T0, 1): consumable(101),
        (T0, 4): consumable(104),
        (T0, 6): consumable(106),
        (T0, 7): NOTHING,  # the log end: nothing left to consume
        (T1, 2): NOTHING,
    }
    asked = sorted(
        (node, [(a.topic, a.partition, a.offset) for a in items])
        for node, _, items in cluster.fetches
    )
    assert asked == [(1, [("t", 0, 0)]), (2, [("t", 1, 2)])]  # each partition once, lowest offset


def test_offsets_beyond_the_first_answer_take_another_round(cluster: Cluster) -> None:
    big = [records(i * 10, [1000 + i * 10 + k for k in range(10)]) for i in range(4)]
    for i, batch in enumerate(big):
        cluster.logs[T0].add(batch, i * 10, 10)
    limit = 2 * len(big[0])  # two batches per answer
    with cluster.client() as client:
        found = client.next_records([(T0, 5), (T0, 35)], max_bytes_per_partition=limit)
        assert client.request_counts["Fetch"] == 2
    assert found == {(T0, 5): consumable(1005), (T0, 35): consumable(1035)}
    assert [items[0].offset for _, _, items in cluster.fetches] == [5, 35]


def test_inside_a_compressed_batch_and_across_compacted_gaps(cluster: Cluster) -> None:
    cluster.logs[T0].add(records(0, [100, 101, 102, 103, 104], codec_id=1), 0, 5)  # gzip
    compacted = encode_batch(
        [(b"k", b"v"), (b"k2", b"v")],
        base_offset=5,
        timestamp=105,
        offset_deltas=[0, 3],  # offsets 6 and 7 removed by compaction
        timestamp_deltas=[0, 3],
    )
    cluster.logs[T0].add(compacted, 5, 4)
    with cluster.client() as client:
        found = client.next_records([(T0, 2), (T0, 6)])
    # a consumer at 2 skips the batch's records 0-1; at 6 (gone) it gets offset 8
    assert found == {(T0, 2): consumable(102), (T0, 6): consumable(108)}


def test_transaction_markers_are_never_delivered(cluster: Cluster) -> None:
    txn = {"producer_id": 7, "producer_epoch": 0, "transactional": True}
    cluster.logs[T0].add(records(0, [500], **txn), 0).add(marker("COMMIT", 1, 7), 1).add(
        records(2, [502]), 2
    ).add(records(3, [503], **txn), 3).add(marker("COMMIT", 4, 7), 4)
    with cluster.client() as client:
        found = client.next_records([(T0, 0), (T0, 1), (T0, 4)])
    # a position on a marker gets the record after it; a marker alone before the end: nothing
    assert found == {(T0, 0): consumable(500), (T0, 1): consumable(502), (T0, 4): NOTHING}


def test_aborted_records_are_skipped_with_read_committed_only(cluster: Cluster) -> None:
    def txn(pid: int) -> dict[str, object]:
        return {"producer_id": pid, "producer_epoch": 0, "transactional": True}

    log = cluster.logs[T0]
    log.add(records(0, [600], **txn(7)), 0)  # aborted below
    log.add(records(1, [601], **txn(8)), 1)  # committed below
    log.add(records(2, [602], **txn(7)), 2)  # aborted below
    log.add(marker("ABORT", 3, 7), 3)
    log.add(marker("COMMIT", 4, 8), 4)
    log.add(records(5, [605], **txn(7)), 5)  # a new transaction of producer 7: committed
    log.add(marker("COMMIT", 6, 7), 6)
    log.aborted = ((7, 0),)
    positions = [(T0, 0), (T0, 2), (T0, 6)]
    with cluster.client() as client:
        committed = client.next_records(positions, read_committed=True)
        uncommitted = client.next_records(positions)
    assert committed == {(T0, 0): consumable(601), (T0, 2): consumable(605), (T0, 6): NOTHING}
    assert uncommitted == {(T0, 0): consumable(600), (T0, 2): consumable(602), (T0, 6): NOTHING}
    assert [isolation for _, isolation, _ in cluster.fetches] == [1, 0]


def test_read_committed_stops_at_the_last_stable_offset(cluster: Cluster) -> None:
    txn = {"producer_id": 7, "producer_epoch": 0, "transactional": True}
    cluster.logs[T0].add(records(0, [700]), 0).add(records(1, [701], **txn), 1)
    cluster.logs[T0].last_stable = 1  # producer 7's transaction is still open
    with cluster.client() as client:
        assert client.next_records([(T0, 1)], read_committed=True) == {(T0, 1): NOTHING}
        assert client.next_records([(T0, 1)]) == {(T0, 1): consumable(701)}


def test_a_deleted_position_gets_the_first_record_that_still_exists(cluster: Cluster) -> None:
    cluster.logs[T0].add(records(5, [805, 806]), 5, 2)
    cluster.logs[T0].log_start = 5  # offsets 0-4 deleted
    with cluster.client() as client:
        found = client.next_records([(T0, 2), (T0, 6)])
        assert client.request_counts["ListOffsets"] == 1
    assert found == {(T0, 2): consumable(805), (T0, 6): consumable(806)}
    assert [items[0].offset for _, _, items in cluster.fetches] == [2, 5]


def test_a_moved_leader_is_found_after_a_metadata_refresh(cluster: Cluster) -> None:
    cluster.logs[T1].add(records(0, [900]), 0)
    with cluster.client() as client:
        client.metadata()
        cluster.leaders[T1] = 1  # broker 2 now answers NOT_LEADER_OR_FOLLOWER
        found = client.next_records([(T1, 0)])
    assert found == {(T1, 0): consumable(900)}
    assert [node for node, _, _ in cluster.fetches] == [2, 1]
    assert cluster.metadata_requests == 2


def test_a_topic_newer_than_the_cached_metadata_is_looked_up_once_more(cluster: Cluster) -> None:
    u0 = TopicPartition("u", 0)
    with cluster.client() as client:
        client.metadata()
        cluster.leaders[u0] = 2  # created after the client read the metadata
        cluster.logs[u0] = Log().add(records(0, [950]), 0)
        assert client.next_records([(u0, 0)]) == {(u0, 0): consumable(950)}
    assert cluster.metadata_requests == 2


def test_a_batch_larger_than_the_limit_is_fetched_alone(cluster: Cluster) -> None:
    cluster.logs[T0].add(records(0, [3000]), 0).add(records(1, [3001]), 1)
    cluster.logs[T2].add(records(0, [1000] * 50), 0, 50)
    limit = 100  # one small batch and part of the next
    with cluster.client() as client:
        found = client.next_records([(T0, 0), (T0, 1), (T2, 0)], max_bytes_per_partition=limit)
        assert client.request_counts["Fetch"] == 3
    assert found == {
        (T0, 0): consumable(3000),
        (T0, 1): consumable(3001),
        (T2, 0): consumable(1000),
    }
    # round 1: t:0 first in the response got one batch, t:2 part of its batch; round 2: t:2
    # in a request of its own, first in its response, gets the whole batch (KIP-74)
    asked = [[(a.partition, a.offset) for a in items] for _, _, items in cluster.fetches]
    assert asked == [[(0, 0), (2, 0)], [(2, 0)], [(0, 1)]]


def test_partitions_answered_without_bytes_are_asked_again(cluster: Cluster) -> None:
    cluster.logs[T0].add(records(0, [1100]), 0)
    cluster.skip[T0] = 2  # as tansu does when its wait runs out before it reaches a partition
    with cluster.client() as client:
        assert client.next_records([(T0, 0)]) == {(T0, 0): consumable(1100)}
        assert client.request_counts["Fetch"] == 3


def test_nothing_within_the_limits_is_left_out(cluster: Cluster) -> None:
    cluster.logs[T0].add(records(0, [1200]), 0)
    cluster.logs[T2].add(records(0, [1300]), 0)
    cluster.skip[T0] = 10**6  # never answered
    with cluster.client(timeout_s=0.5) as client:
        assert client.next_records([(T0, 0), (T2, 0)]) == {(T2, 0): consumable(1300)}


def test_not_authorized_to_read_names_the_acl(cluster: Cluster) -> None:
    cluster.errors[(1, T0)] = [TOPIC_AUTHORIZATION_FAILED]
    with cluster.client() as client, pytest.raises(AuthorizationError) as raised:
        client.next_records([(T0, 0)])
    assert "not authorized to read a record of t:0" in raised.value.message
    assert raised.value.hint == "ask for an ACL granting Read on Topic:t"


def test_a_batch_that_cannot_be_read_is_a_one_line_error(cluster: Cluster) -> None:
    batch = bytearray(records(0, [1400]))
    batch[16] = 7  # magic 7: no such record format
    cluster.logs[T0].add(bytes(batch), 0)
    with cluster.client() as client, pytest.raises(KafkaOperationError) as raised:
        client.next_records([(T0, 0)])
    assert (
        raised.value.message == "cannot read the records the broker sent for t:0: unknown magic 7"
    )
    assert raised.value.hint is not None and "compression.type" in raised.value.hint


def test_no_positions_send_nothing(cluster: Cluster) -> None:
    with cluster.client() as client:
        assert client.next_records([]) == {}
        assert client.request_counts["Fetch"] == 0
