"""WireClient against the session's real broker (tansu, Kafka in Docker, or KGROUP_TEST_BOOTSTRAP).

Cluster state is built with librdkafka (confluent_kafka): 200 groups with commits and no members
(AlterConsumerGroupOffsets), and one group with a live member. Expected offsets are the ones
committed here, written down before the client under test runs.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from kgroup.core.clients import KAFKA_MEMBER_SETTINGS, TANSU_MEMBER_SETTINGS
from kgroup.core.config import ClusterConfig
from kgroup.core.errors import UnreachableError
from kgroup.core.models import CommittedOffset, TopicPartition
from kgroup.core.wire.client import WireClient

pytestmark = pytest.mark.integration

GROUPS = 200


@dataclass
class Seeded:
    topic: str
    empty_groups: list[str]
    committed: dict[str, dict[TopicPartition, int]]
    active_group: str
    member_id: str
    member_client_id: str


def expected_offsets(index: int, topic: str) -> dict[TopicPartition, int]:
    # Partition 2 never gets a commit, so it must not appear in the answer.
    return {TopicPartition(topic, 0): index, TopicPartition(topic, 1): 1000 + index}


class Member(threading.Thread):
    """A real consumer that joins, commits, and stays in the group until stopped."""

    def __init__(self, bootstrap: str, group: str, topic: str, settings: dict[str, int]) -> None:
        super().__init__(daemon=True)
        self.conf = {
            "bootstrap.servers": bootstrap,
            "group.id": group,
            "client.id": "wire-member",
            "enable.auto.commit": False,
            **settings,
        }
        self.topic = topic
        self.joined = threading.Event()
        self.stop = threading.Event()
        self.member_id = ""
        self.error: BaseException | None = None

    def run(self) -> None:
        from confluent_kafka import Consumer
        from confluent_kafka import TopicPartition as RdTopicPartition

        try:
            consumer = Consumer(self.conf)
            consumer.subscribe([self.topic])
            deadline = time.monotonic() + 30
            while not consumer.assignment() and time.monotonic() < deadline:
                consumer.poll(0.1)
            consumer.commit(offsets=[RdTopicPartition(self.topic, 0, 3)], asynchronous=False)
            self.member_id = consumer.memberid() or ""
            self.joined.set()
            while not self.stop.is_set():
                consumer.poll(0.1)
            consumer.close()
        except BaseException as exc:  # reported by the fixture
            self.error = exc
            self.joined.set()


@pytest.fixture(scope="module")
def seeded(kafka_broker) -> Iterator[Seeded]:
    import uuid

    from confluent_kafka import ConsumerGroupTopicPartitions
    from confluent_kafka import TopicPartition as RdTopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic

    unique = uuid.uuid4().hex[:8]
    topic = f"wire-{unique}"
    admin = AdminClient({"bootstrap.servers": kafka_broker.bootstrap})
    admin.create_topics([NewTopic(topic, 3, 1)])[topic].result(30)
    empty_groups = [f"wire-{unique}-{i:03d}" for i in range(GROUPS)]
    committed: dict[str, dict[TopicPartition, int]] = {}
    futures = []
    for index, group in enumerate(empty_groups):
        offsets = expected_offsets(index, topic)
        committed[group] = offsets
        request = [RdTopicPartition(tp.topic, tp.partition, off) for tp, off in offsets.items()]
        futures += admin.alter_consumer_group_offsets(
            [ConsumerGroupTopicPartitions(group, request)], request_timeout=30
        ).values()
    for future in futures:
        future.result()
    settings = TANSU_MEMBER_SETTINGS if kafka_broker.is_tansu else KAFKA_MEMBER_SETTINGS
    active_group = f"wire-{unique}-active"
    member = Member(kafka_broker.bootstrap, active_group, topic, dict(settings))
    member.start()
    member.joined.wait(40)
    if member.error is not None:
        raise member.error
    assert member.member_id, "the member did not join"
    try:
        yield Seeded(topic, empty_groups, committed, active_group, member.member_id, "wire-member")
    finally:
        member.stop.set()
        member.join(10)


def client_for(bootstrap: str, timeout_s: float = 15.0) -> WireClient:
    return WireClient(ClusterConfig(bootstrap_servers=bootstrap, timeout_s=timeout_s))


def test_list_groups_finds_every_group(kafka_broker, seeded: Seeded) -> None:
    with client_for(kafka_broker.bootstrap) as client:
        listed = client.list_groups()
        counts = dict(client.request_counts)
    names = [g.group_id for g in listed]
    assert set(seeded.empty_groups) | {seeded.active_group} <= set(names)
    assert names == sorted(names)
    assert counts["ListGroups"] == len(client.brokers())


def test_describe_groups_states_and_member_in_one_request(kafka_broker, seeded: Seeded) -> None:
    wanted = [*seeded.empty_groups, seeded.active_group]
    with client_for(kafka_broker.bootstrap) as client:
        described = client.describe_groups(wanted)
        counts = dict(client.request_counts)
        coordinators = {d.coordinator for d in described.values()}
    assert list(described) == wanted
    active = described[seeded.active_group]
    assert active.error is None
    assert active.state == "Stable"
    assert [member.member_id for member in active.members] == [seeded.member_id]
    for group in seeded.empty_groups:
        assert described[group].state == "Empty", group
        assert described[group].members == ()
        assert described[group].error is None
    # One DescribeGroups and one FindCoordinator per coordinator: not per group.
    assert counts["DescribeGroups"] == len(coordinators)
    assert counts["FindCoordinator"] == 1


@pytest.mark.real_kafka
def test_describe_decodes_member_client_and_assignment(kafka_broker, seeded: Seeded) -> None:
    with client_for(kafka_broker.bootstrap) as client:
        active = client.describe_groups([seeded.active_group])[seeded.active_group]
    (member,) = active.members
    assert member.client_id == seeded.member_client_id
    assert member.host
    assert active.protocol_type == "consumer"
    assert active.assignor in ("range", "roundrobin", "cooperative-sticky")
    assert member.subscription == (seeded.topic,)
    assert member.assignment == tuple(TopicPartition(seeded.topic, p) for p in range(3))


def test_committed_offsets_of_200_groups_in_one_request(kafka_broker, seeded: Seeded) -> None:
    with client_for(kafka_broker.bootstrap) as client:
        offsets = client.committed_offsets([*seeded.empty_groups, seeded.active_group])
        counts = dict(client.request_counts)
        coordinators = {node for node in client.find_coordinators(seeded.empty_groups).values()}
    for group in seeded.empty_groups:
        expected = {tp: CommittedOffset(offset) for tp, offset in seeded.committed[group].items()}
        assert offsets[group] == expected, group
    assert offsets[seeded.active_group] == {
        TopicPartition(seeded.topic, 0): CommittedOffset(
            3, offsets[seeded.active_group][TopicPartition(seeded.topic, 0)].leader_epoch
        )
    }
    assert counts["OffsetFetch"] == len(coordinators)
    assert counts["FindCoordinator"] == 1


def test_matches_librdkafka_for_committed_offsets(kafka_broker, seeded: Seeded) -> None:
    from tests.helpers import admin_for

    admin = admin_for(kafka_broker.bootstrap)
    sample = seeded.empty_groups[:3]
    with client_for(kafka_broker.bootstrap) as client:
        ours = client.committed_offsets(sample)
    for group in sample:
        assert ours[group] == admin.committed_offsets(group)


def test_unknown_group_has_no_offsets(kafka_broker, seeded: Seeded) -> None:
    with client_for(kafka_broker.bootstrap) as client:
        assert client.committed_offsets([f"{seeded.topic}-never"]) == {f"{seeded.topic}-never": {}}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_closed_port_fails_fast_naming_the_address() -> None:
    bootstrap = f"127.0.0.1:{free_port()}"
    started = time.monotonic()
    with client_for(bootstrap, 1.0) as client, pytest.raises(UnreachableError) as caught:
        client.describe_groups(["g"])
    assert time.monotonic() - started < 2.0
    assert bootstrap in caught.value.message
    assert caught.value.exit_code == 6


def test_silent_listener_fails_within_the_timeout() -> None:
    # Accepts TCP connections (the kernel backlog does) but never answers a request.
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        bootstrap = f"127.0.0.1:{listener.getsockname()[1]}"
        timeout_s = 1.0
        started = time.monotonic()
        with client_for(bootstrap, timeout_s) as client, pytest.raises(UnreachableError) as caught:
            client.committed_offsets(["g"])
        assert time.monotonic() - started < timeout_s + 1.0
    assert bootstrap in caught.value.message
