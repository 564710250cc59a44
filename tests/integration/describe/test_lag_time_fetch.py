"""The first unconsumed record (lag times) read with Fetch requests, on the session's real broker.

Twelve groups sit at twelve different offsets of the same two partitions. `describe --lag-time`
must give each group the age of the record at its own offset, with one Fetch request whatever
the number of groups (the librdkafka consumer did one assign/poll round per distinct offset),
and the wire path must give what librdkafka's consumer gives.

Record i of partition p has timestamp BASE + i minutes + p seconds (tests.helpers.make_topic).
"""

from __future__ import annotations

import json
import re
import time

import pytest

from kgroup.core.admin import GroupAdmin
from kgroup.core.config import ClusterConfig
from kgroup.core.models import NextRecord, TopicPartition
from tests.helpers import commit_offsets, make_topic, run_kgroup

pytestmark = pytest.mark.integration

BASE_MS = 1_767_225_600_000
RECORDS = 12


def record_time(offset: int, partition: int) -> int:
    return BASE_MS + offset * 60_000 + partition * 1000


@pytest.fixture()
def spread(kafka_broker, unique):
    """Topic of 2 partitions x 12 records; group i committed offset i on both partitions."""
    topic = f"lagfetch-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [RECORDS, RECORDS], base_timestamp_ms=BASE_MS)
    prefix = f"lagfetch-g-{unique}"
    for i in range(RECORDS):
        commit_offsets(kafka_broker.bootstrap, f"{prefix}-{i:02d}", {(topic, 0): i, (topic, 1): i})
    return kafka_broker.bootstrap, topic, prefix


def test_each_group_gets_the_age_of_its_own_first_unconsumed_record(spread) -> None:
    bootstrap, topic, prefix = spread
    before = int(time.time() * 1000)
    result = run_kgroup(
        "-v", "-b", bootstrap, "describe", "--match", f"^{prefix}-", "--lag-time", "-o", "json"
    )
    after = int(time.time() * 1000)
    groups = json.loads(result.stdout)["groups"]
    assert [g["group"] for g in groups] == [f"{prefix}-{i:02d}" for i in range(RECORDS)]
    for i, entry in enumerate(groups):
        for p in entry["partitions"]:
            assert p["topic"] == topic and p["current_offset"] == i
            first = record_time(i, p["partition"])
            assert before - first <= p["lag_ms"] <= after - first, (i, p)
    requests = re.search(r"requests sent: (.*)", result.stderr)
    assert requests is not None, result.stderr
    assert "Fetch=1" in requests.group(1).split()  # one leader, one round, for 12 offsets


def test_wire_and_librdkafka_read_the_same_next_records(spread) -> None:
    bootstrap, topic, _prefix = spread
    positions = [
        (TopicPartition(topic, p), offset) for p in (0, 1) for offset in (0, 5, 11, RECORDS)
    ]
    config = ClusterConfig(bootstrap_servers=bootstrap, timeout_s=15)
    wire, rdkafka = GroupAdmin(config), GroupAdmin(config, use_wire=False)
    try:
        assert wire.wire is not None and rdkafka.wire is None
        by_wire = wire.next_records(positions)
        by_rdkafka = rdkafka.next_records(positions)
    finally:
        wire.close()
        rdkafka.close()
    expected = {
        (tp, offset): (
            NextRecord(consumable=True, timestamp=record_time(offset, tp.partition))
            if offset < RECORDS
            else NextRecord(consumable=False)  # the log end: nothing to consume
        )
        for tp, offset in positions
    }
    assert by_wire == expected
    assert by_rdkafka == expected


def test_transaction_markers_are_skipped_by_both_paths(kafka_broker, unique) -> None:
    """Offsets: 0-1 a committed transaction, 2 its COMMIT marker, 3 a plain record, 4 another
    committed transaction's record, 5 its marker; the log ends at 6. A consumer at a marker gets
    the next record; at the last marker it has nothing left. (tansu sends no AbortedTransactions,
    TEST_ENVIRONMENT.md, so aborted records are tested with scripted brokers.)"""
    from confluent_kafka import Producer

    from kgroup.core.clients import create_topics

    topic = f"lagfetch-txn-{unique}"
    bootstrap = kafka_broker.bootstrap
    config = ClusterConfig(bootstrap_servers=bootstrap, timeout_s=15)
    create_topics(GroupAdmin(config), {topic: 1})
    txn = Producer({"bootstrap.servers": bootstrap, "transactional.id": topic, "linger.ms": 0})
    plain = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0})
    txn.init_transactions(30)
    txn.begin_transaction()
    for timestamp in (BASE_MS, BASE_MS + 1):
        txn.produce(topic, value=b"t", partition=0, timestamp=timestamp)
        txn.flush(30)
    txn.commit_transaction(30)
    plain.produce(topic, value=b"p", partition=0, timestamp=BASE_MS + 3)
    plain.flush(30)
    txn.begin_transaction()
    txn.produce(topic, value=b"t", partition=0, timestamp=BASE_MS + 4)
    txn.flush(30)
    txn.commit_transaction(30)
    tp = TopicPartition(topic, 0)
    positions = [(tp, offset) for offset in range(7)]
    expected = {
        (tp, 0): NextRecord(consumable=True, timestamp=BASE_MS),
        (tp, 1): NextRecord(consumable=True, timestamp=BASE_MS + 1),
        (tp, 2): NextRecord(consumable=True, timestamp=BASE_MS + 3),  # the marker is skipped
        (tp, 3): NextRecord(consumable=True, timestamp=BASE_MS + 3),
        (tp, 4): NextRecord(consumable=True, timestamp=BASE_MS + 4),
        (tp, 5): NextRecord(consumable=False),  # a marker, then the end of the log
        (tp, 6): NextRecord(consumable=False),
    }
    wire, rdkafka = GroupAdmin(config), GroupAdmin(config, use_wire=False)
    try:
        for read_committed in (False, True):
            assert wire.next_records(positions, read_committed=read_committed) == expected
            assert rdkafka.next_records(positions, read_committed=read_committed) == expected
    finally:
        wire.close()
        rdkafka.close()
