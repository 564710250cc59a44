"""Topic metadata and ListOffsets through the wire client and through librdkafka, on the session's
real broker: both paths of GroupAdmin must give the same answers.

The topic has 5, 3 and 0 records (partitions 0, 1, 2), produced one per request, so its
watermarks are known by hand: log start 0, log end 5, 3, 0. Offsets for times are compared
between the paths rather than to hand-written values: tansu looks times up by its write time,
not the record timestamps (TEST_ENVIRONMENT.md), and both clients must simply say what the
broker says.
"""

from __future__ import annotations

import json
import time

import pytest

from kgroup.core.admin import GroupAdmin
from kgroup.core.config import ClusterConfig
from kgroup.core.errors import KgroupError, NotFoundError
from kgroup.core.models import TopicPartition, Watermarks
from tests.helpers import commit_offsets, make_topic, run_kgroup

pytestmark = pytest.mark.integration

BASE_MS = 1_767_225_600_000
RECORDS = [5, 3, 0]


@pytest.fixture()
def seeded(kafka_broker, unique):
    topic = f"paths-{unique}"
    make_topic(kafka_broker.bootstrap, topic, RECORDS, base_timestamp_ms=BASE_MS)
    config = ClusterConfig(bootstrap_servers=kafka_broker.bootstrap, timeout_s=15)
    wire = GroupAdmin(config)
    rdkafka = GroupAdmin(config, use_wire=False)
    assert wire.wire is not None and rdkafka.wire is None
    yield topic, wire, rdkafka
    wire.close()
    rdkafka.close()


def partitions(topic: str) -> list[TopicPartition]:
    return [TopicPartition(topic, p) for p in range(len(RECORDS))]


def test_topics_and_topic_details_are_the_same(seeded) -> None:
    topic, wire, rdkafka = seeded
    by_wire = wire.topics(include_internal=True)
    assert by_wire[topic].partitions == 3
    assert by_wire == rdkafka.topics(include_internal=True)
    assert wire.topics() == rdkafka.topics()
    details = wire.topic_details([topic])
    assert details == rdkafka.topic_details([topic])
    assert details[topic].partitions == 3


def test_watermarks_are_the_same_and_as_produced(seeded) -> None:
    topic, wire, rdkafka = seeded
    tps = partitions(topic)
    expected = {
        tp: Watermarks(log_start=0, log_end=count) for tp, count in zip(tps, RECORDS, strict=True)
    }
    assert wire.watermarks(tps) == expected
    assert rdkafka.watermarks(tps) == expected
    # No transactions on this topic: the last stable offset is the log end.
    committed = {
        tp: Watermarks(log_start=0, log_end=count, last_stable=count)
        for tp, count in zip(tps, RECORDS, strict=True)
    }
    assert wire.watermarks(tps, read_committed=True) == committed
    assert rdkafka.watermarks(tps, read_committed=True) == committed


def test_offsets_for_times_are_the_same(seeded) -> None:
    topic, wire, rdkafka = seeded
    tps = partitions(topic)
    now = int(time.time() * 1000)
    for spec in ("earliest", "latest", 0, BASE_MS, BASE_MS + 2 * 60_000, now + 86_400_000):
        by_wire = wire.list_offsets(tps, spec)
        by_rdkafka = rdkafka.list_offsets(tps, spec)
        assert by_wire == by_rdkafka, spec
        assert set(by_wire) == set(tps)


def test_a_partition_past_the_topic_fails_on_both_paths(seeded) -> None:
    topic, wire, rdkafka = seeded
    missing = [TopicPartition(topic, 9)]
    with pytest.raises(NotFoundError, match="UNKNOWN_TOPIC_OR_PARTITION"):
        wire.list_offsets(missing, "latest")
    # librdkafka finds no leader for it and says so (_NOENT), which kgroup maps to a plain
    # failure: no path returns an offset for a partition that does not exist.
    with pytest.raises(KgroupError):
        rdkafka.list_offsets(missing, "latest")


def test_describe_does_not_load_librdkafka(kafka_broker, seeded, unique) -> None:
    topic, _wire, _rdkafka = seeded
    group = f"paths-g-{unique}"
    commit_offsets(kafka_broker.bootstrap, group, {(topic, 0): 2, (topic, 1): 3})
    result = run_kgroup(
        "-b",
        kafka_broker.bootstrap,
        "describe",
        group,
        "-o",
        "json",
        env={"PYTHONPROFILEIMPORTTIME": "1"},
    )
    imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()}
    assert "kgroup.core.wire.client" in imported  # the import log is there
    assert not {name for name in imported if name.startswith("confluent_kafka")}
    (entry,) = json.loads(result.stdout)["groups"]
    assert [(p["partition"], p["lag"]) for p in entry["partitions"]] == [(0, 3), (1, 0)]
