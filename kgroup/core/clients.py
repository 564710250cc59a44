"""Producer and group-member helpers the sandbox and the tests use to build real cluster state.

Everything here runs real librdkafka clients against a real broker: records are produced one
per request (tansu computes the log end wrongly for multi-record requests, TEST_ENVIRONMENT.md),
and a member joins its group for real and commits for real.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kgroup.core.admin import GroupAdmin
from kgroup.core.errors import KafkaOperationError, UnreachableError
from kgroup.core.models import TopicPartition

# tansu lets a consumer join only after session.timeout.ms / 2: these settings make a join take
# about a second there (TEST_ENVIRONMENT.md). Real Kafka refuses session timeouts below
# group.min.session.timeout.ms (6 s by default), so these apply to tansu only.
TANSU_MEMBER_SETTINGS = {
    "session.timeout.ms": 2000,
    "heartbeat.interval.ms": 500,
    "max.poll.interval.ms": 2000,
}
KAFKA_MEMBER_SETTINGS = {
    "session.timeout.ms": 10000,
    "heartbeat.interval.ms": 3000,
    "max.poll.interval.ms": 300000,
}


@dataclass(frozen=True)
class SeedRecord:
    """One record to produce at a known partition and timestamp (ms)."""

    topic: str
    partition: int
    timestamp_ms: int
    key: bytes | None
    value: bytes


def create_topics(admin: GroupAdmin, partitions: Mapping[str, int]) -> list[str]:
    """Create the topics that do not exist yet; returns the names created."""
    from confluent_kafka.admin import NewTopic

    existing = admin.topics(include_internal=True)
    wanted = [
        NewTopic(name, count, 1) for name, count in partitions.items() if name not in existing
    ]
    if not wanted:
        return []
    futures = admin.admin.create_topics(wanted, request_timeout=admin.timeout_s)
    created = []
    for name, future in futures.items():
        try:
            future.result()
            created.append(name)
        except Exception as exc:
            raise admin.error_for(exc, "create topic", name, acl=f"Create on Topic:{name}") from exc
    return created


def produce_one_per_request(admin: GroupAdmin, records: Iterable[SeedRecord]) -> int:
    """Produce each record in its own request (flush after each); returns the count."""
    from confluent_kafka import Producer

    producer = Producer(admin.client_conf(**{"linger.ms": 0, "enable.idempotence": False}))
    errors: list[str] = []

    def on_delivery(err, msg) -> None:
        if err is not None:
            errors.append(f"{msg.topic()}:{msg.partition()}: {err}")

    count = 0
    for record in records:
        producer.produce(
            record.topic,
            value=record.value,
            key=record.key,
            partition=record.partition,
            timestamp=record.timestamp_ms,
            on_delivery=on_delivery,
        )
        remaining = producer.flush(admin.timeout_s)
        if remaining:
            raise UnreachableError(
                f"cluster {admin.config.bootstrap_servers} did not acknowledge a "
                f"record within {admin.timeout_s:g} s"
            )
        count += 1
    if errors:
        raise KafkaOperationError(f"producing failed: {errors[0]}")
    return count


def commit_as_empty_group(
    admin: GroupAdmin, group: str, offsets: Mapping[TopicPartition, int]
) -> None:
    """Commit offsets for a group that has no members (a simple commit, no join)."""
    from kgroup.core.models import CommittedOffset

    admin.alter_offsets(group, {tp: CommittedOffset(offset) for tp, offset in offsets.items()})


def hold_membership(
    admin: GroupAdmin,
    group: str,
    topics: list[str],
    commit: Mapping[TopicPartition, int],
    *,
    engine: str = "tansu",
    protocol: str = "classic",
    client_id: str = "kgroup-sandbox-member",
    ready_file: str | None = None,
    join_timeout_s: float = 30.0,
) -> None:
    """Join `group`, commit `commit`, then stay a member without consuming (until killed).

    `protocol` "consumer" joins as a KIP-848 member (`group.protocol=consumer`): the broker
    assigns, and the classic session/heartbeat settings are not allowed there."""
    from confluent_kafka import Consumer
    from confluent_kafka import TopicPartition as RdTopicPartition

    if protocol == "consumer":
        settings: Mapping[str, object] = {"group.protocol": "consumer"}
    else:
        settings = TANSU_MEMBER_SETTINGS if engine == "tansu" else KAFKA_MEMBER_SETTINGS
    consumer = Consumer(
        admin.client_conf(
            **{
                "group.id": group,
                "client.id": client_id,
                "enable.auto.commit": False,
                "auto.offset.reset": "latest",
                **settings,
            }
        )
    )
    consumer.subscribe(topics)
    deadline = time.monotonic() + join_timeout_s
    while not consumer.assignment():
        consumer.poll(0.2)
        if time.monotonic() > deadline:
            raise KafkaOperationError(
                f"member did not join group {group} within {join_timeout_s} s"
            )
    consumer.pause(consumer.assignment())
    if commit:
        consumer.commit(
            offsets=[RdTopicPartition(tp.topic, tp.partition, off) for tp, off in commit.items()],
            asynchronous=False,
        )
    if ready_file:
        with open(ready_file, "w", encoding="utf-8") as handle:
            handle.write("ready\n")
    try:
        while True:
            consumer.poll(0.25)
            assigned = consumer.assignment()
            if assigned:
                consumer.pause(assigned)
    finally:
        consumer.close()
