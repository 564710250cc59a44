"""`kgroup simulate-assign --from-group` against the session's real broker.

Live members are real librdkafka consumers polling in threads. On tansu, DescribeGroups returns
member ids only (no subscription metadata or assignment bytes, TEST_ENVIRONMENT.md): what is
checked there is that the member is seen and that kgroup says plainly it has nothing to build a
scenario from. The full check of subscriptions and owned partitions needs Apache Kafka.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator

import pytest

from kgroup.core.clients import KAFKA_MEMBER_SETTINGS, TANSU_MEMBER_SETTINGS
from tests.helpers import admin_for, commit_offsets, make_topic, run_kgroup

pytestmark = pytest.mark.integration


class Member(threading.Thread):
    """A consumer that joins `group`, then keeps polling (staying a member) until stopped."""

    def __init__(self, bootstrap: str, group: str, topic: str, extra: dict) -> None:
        super().__init__(daemon=True)
        self.conf = {
            "bootstrap.servers": bootstrap,
            "group.id": group,
            "enable.auto.commit": False,
            **extra,
        }
        self.topic = topic
        self.joined = threading.Event()
        self.stop = threading.Event()
        self.member_id = ""
        self.assignment: set[tuple[str, int]] = set()
        self.error: BaseException | None = None

    def run(self) -> None:
        from confluent_kafka import Consumer

        try:
            consumer = Consumer(self.conf)
            consumer.subscribe([self.topic])
            deadline = time.monotonic() + 40
            while not consumer.assignment() and time.monotonic() < deadline:
                consumer.poll(0.1)
            self.member_id = consumer.memberid() or ""
            self.joined.set()
            while not self.stop.is_set():
                consumer.poll(0.1)
                self.assignment = {(tp.topic, tp.partition) for tp in consumer.assignment()}
            consumer.close()
        except BaseException as exc:  # reported by the test
            self.error = exc
            self.joined.set()


def start_members(kafka_broker, group: str, topic: str, count: int, extra=None) -> list[Member]:
    settings = TANSU_MEMBER_SETTINGS if kafka_broker.is_tansu else KAFKA_MEMBER_SETTINGS
    members = [
        Member(kafka_broker.bootstrap, group, topic, {**settings, **(extra or {})})
        for _ in range(count)
    ]
    for member in members:
        member.start()
    for member in members:
        member.joined.wait(45)
        if member.error is not None:
            raise member.error
        assert member.member_id, "the consumer did not join"
    return members


def stop_members(members: list[Member]) -> None:
    for member in members:
        member.stop.set()
    for member in members:
        member.join(15)


@pytest.fixture()
def one_member(kafka_broker, unique) -> Iterator[tuple[str, str, Member]]:
    topic = f"sim-{unique}"
    group = f"sim-g-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [1, 1, 1])
    members = start_members(kafka_broker, group, topic, 1)
    try:
        yield topic, group, members[0]
    finally:
        stop_members(members)


def test_active_member_is_seen_and_missing_metadata_is_said_plainly(
    kafka_broker, one_member
) -> None:
    from kgroup.core.group_snapshot import snapshot_group

    topic, group, member = one_member
    admin = admin_for(kafka_broker.bootstrap)
    try:
        snapshot = snapshot_group(admin, group)
    finally:
        admin.close()
    assert [m.member_id for m in snapshot.group.members] == [member.member_id]
    args = ("-b", kafka_broker.bootstrap, "-o", "json", "simulate-assign", "--from-group", group)
    if snapshot.group.members[0].raw_metadata is None:
        # The broker returned the member id only: nothing to build a scenario from.
        result = run_kgroup(*args, expect=1)
        assert result.stdout == ""
        (line,) = result.stderr.strip().splitlines()
        assert "returned no subscription data" in line
        assert member.member_id in line
        assert "--scenario" in line
    else:
        (doc,) = json.loads(run_kgroup(*args).stdout)["strategies"]
        (step,) = doc["steps"]
        assert step["assignment"] == {member.member_id: [[topic, 0], [topic, 1], [topic, 2]]}


def test_unknown_group_exits_3(kafka_broker, unique) -> None:
    result = run_kgroup(
        "-b", kafka_broker.bootstrap, "simulate-assign", "--from-group", f"nope-{unique}", expect=3
    )
    assert "does not exist" in result.stderr


def test_group_without_members_exits_3_with_a_hint(kafka_broker, unique) -> None:
    topic = f"sim-empty-{unique}"
    group = f"sim-empty-g-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [1, 1])
    commit_offsets(kafka_broker.bootstrap, group, {(topic, 0): 1})
    result = run_kgroup(
        "-b", kafka_broker.bootstrap, "simulate-assign", "--from-group", group, expect=3
    )
    assert "has no members" in result.stderr and "nothing to simulate" in result.stderr
    assert "--members" in result.stderr


@pytest.mark.real_kafka
def test_subscriptions_and_owned_partitions_of_real_consumers(kafka_broker, unique) -> None:
    from kgroup.assign.from_group import scenario_from_group
    from kgroup.core.group_snapshot import snapshot_group

    topic = f"sim-real-{unique}"
    group = f"sim-real-g-{unique}"
    make_topic(kafka_broker.bootstrap, topic, [1, 1, 1, 1])
    members = start_members(
        kafka_broker,
        group,
        topic,
        2,
        {"partition.assignment.strategy": "cooperative-sticky", "client.rack": "rack-a"},
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            held = [m.assignment for m in members]
            if all(held) and sum(len(h) for h in held) == 4:
                admin = admin_for(kafka_broker.bootstrap)
                try:
                    snapshot = snapshot_group(admin, group)
                finally:
                    admin.close()
                if snapshot.group.state == "Stable":
                    break
            time.sleep(0.5)
        else:
            pytest.fail("the two consumers did not settle on 4 partitions")
        built = scenario_from_group(snapshot)
        assert built.protocol == "cooperative-sticky" and built.strategy == "cooperative-sticky"
        by_id = {m.member_id: m for m in built.scenario.members}
        assert set(by_id) == {m.member_id for m in members}
        for member in members:
            meta = by_id[member.member_id]
            assert meta.topics == (topic,)
            assert meta.rack == "rack-a"  # client.rack, in subscription v3 (KIP-881)
            assert set(meta.owned) == member.assignment
        assert len({m.generation for m in built.scenario.members}) == 1
        assert built.scenario.topics[topic].partitions == 4

        doc = json.loads(
            run_kgroup(
                "-b", kafka_broker.bootstrap, "-o", "json", "simulate-assign", "--from-group", group
            ).stdout
        )
        (sim,) = doc["strategies"]
        assert sim["strategy"] == "cooperative-sticky"
        metrics = sim["steps"][0]["metrics"]
        # a balanced group at one generation: the next rebalance keeps every partition
        assert (metrics["previously_owned"], metrics["kept"], metrics["moved"]) == (4, 4, 0)
    finally:
        stop_members(members)
