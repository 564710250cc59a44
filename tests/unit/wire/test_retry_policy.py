"""The retry table (kgroup.core.wire.retry_policy) against the rules of Kafka's clients, the
backoff and deadline, the lost-connection hint, and `sandbox seed` on a just-started broker."""

from __future__ import annotations

import time

import pytest

from kgroup.core.config import ClusterConfig
from kgroup.core.errors import KafkaOperationError, SafetyRefusal, UnreachableError
from kgroup.core.models import CommittedOffset, TopicPartition
from kgroup.core.wire.client import WireClient
from kgroup.core.wire.connection import BrokerConnection, BrokerTimeout, ConnectionLost, Security
from kgroup.core.wire.error_codes import (
    COORDINATOR_LOAD_IN_PROGRESS,
    COORDINATOR_NOT_AVAILABLE,
    GROUP_AUTHORIZATION_FAILED,
    GROUP_ID_NOT_FOUND,
    ILLEGAL_GENERATION,
    NON_EMPTY_GROUP,
    NOT_COORDINATOR,
    REBALANCE_IN_PROGRESS,
    UNKNOWN_MEMBER_ID,
    UNSTABLE_OFFSET_COMMIT,
)
from kgroup.core.wire.group_calls import encode_describe_groups_request
from kgroup.core.wire.retry_policy import RULES, Action, Retries, action, failure_action
from kgroup.protocol import messages as api_table
from tests.unit.wire.fakebroker import FakeBroker
from tests.unit.wire.fakecluster import FakeCluster

NEW, IN_PLACE, FATAL = Action.NEW_COORDINATOR, Action.IN_PLACE, Action.FATAL
LOAD, NOT_AVAILABLE, NOT_COORD = (
    COORDINATOR_LOAD_IN_PROGRESS,
    COORDINATOR_NOT_AVAILABLE,
    NOT_COORDINATOR,
)

# Each group API kgroup sends, with what Kafka's client class does per code (read from
# apache/kafka: admin/internals/*Handler.java handleError, CoordinatorStrategy, KafkaAdminClient,
# consumer/internals/AbstractCoordinator and ConsumerCoordinator response handlers).
KAFKA = {
    "FindCoordinator": {LOAD: IN_PLACE, NOT_AVAILABLE: IN_PLACE, NOT_COORD: FATAL},
    "ListGroups": {LOAD: IN_PLACE, NOT_AVAILABLE: IN_PLACE, NOT_COORD: FATAL},
    "OffsetFetch": {
        LOAD: IN_PLACE,
        NOT_AVAILABLE: NEW,
        NOT_COORD: NEW,
        UNSTABLE_OFFSET_COMMIT: IN_PLACE,
        GROUP_AUTHORIZATION_FAILED: FATAL,
    },
    "OffsetCommit": {
        LOAD: IN_PLACE,
        REBALANCE_IN_PROGRESS: IN_PLACE,
        NOT_AVAILABLE: NEW,
        NOT_COORD: NEW,
        UNKNOWN_MEMBER_ID: FATAL,
        GROUP_AUTHORIZATION_FAILED: FATAL,
    },
    "OffsetCommit (member)": {
        LOAD: IN_PLACE,
        NOT_COORD: NEW,
        REBALANCE_IN_PROGRESS: FATAL,
        ILLEGAL_GENERATION: FATAL,
    },
    "DescribeGroups": {
        LOAD: IN_PLACE,
        NOT_AVAILABLE: NEW,
        NOT_COORD: NEW,
        GROUP_ID_NOT_FOUND: FATAL,
    },
    "ConsumerGroupDescribe": {LOAD: IN_PLACE, NOT_COORD: NEW, GROUP_ID_NOT_FOUND: FATAL},
    "OffsetDelete": {LOAD: IN_PLACE, NOT_COORD: NEW, NON_EMPTY_GROUP: FATAL},
    "DeleteGroups": {LOAD: IN_PLACE, NOT_COORD: NEW, NON_EMPTY_GROUP: FATAL},
    "JoinGroup": {LOAD: IN_PLACE, NOT_AVAILABLE: NEW, NOT_COORD: NEW},
    "SyncGroup": {NOT_COORD: NEW, REBALANCE_IN_PROGRESS: FATAL},
    "Heartbeat": {NOT_COORD: NEW, NOT_AVAILABLE: NEW},
    "LeaveGroup": {NOT_COORD: FATAL, LOAD: FATAL},
}


@pytest.mark.parametrize(("api", "code", "expected"), [
    (api, code, expected) for api, codes in KAFKA.items() for code, expected in codes.items()
])  # fmt: skip
def test_each_api_retries_what_kafkas_client_retries(api: str, code: int, expected) -> None:
    assert action(api, code) is expected


def test_the_table_covers_every_group_api_and_names_its_source() -> None:
    assert set(RULES) == set(KAFKA)
    for rule in RULES.values():
        assert rule.source.split("/")[0] in ("admin", "consumer"), rule.source


def test_failures_raised_instead_of_answered() -> None:
    lost = ConnectionLost("broker x closed the connection before answering JoinGroup")
    assert failure_action("JoinGroup", lost) is NEW
    assert failure_action("JoinGroup", UnreachableError("connection refused by x")) is NEW
    repeated = ConnectionLost("closed again")
    repeated.repeated = True
    assert failure_action("JoinGroup", repeated) is FATAL
    assert failure_action("JoinGroup", BrokerTimeout("no answer")) is FATAL
    tagged = KafkaOperationError("cannot join (NOT_COORDINATOR)")
    tagged.kafka_error = "NOT_COORDINATOR"  # type: ignore[attr-defined]
    assert failure_action("JoinGroup", tagged) is NEW
    assert failure_action("JoinGroup", SafetyRefusal("group is not empty")) is FATAL


def test_backoff_doubles_from_100_ms_to_1_s_with_jitter() -> None:
    retries = Retries(30)
    seen = []
    for attempts in range(1, 8):
        retries.attempts = attempts
        seen.append(retries.backoff_s())
    bases = [0.1, 0.2, 0.4, 0.8, 1.0, 1.0, 1.0]
    assert all(0.8 * b <= s <= 1.2 * b for s, b in zip(seen, bases, strict=True))


def test_retries_end_at_the_deadline_with_the_last_error_saying_so() -> None:
    retries = Retries(0.3, initial_s=0.02)
    started = time.monotonic()
    error = KafkaOperationError("cannot describe group g: NOT_COORDINATOR")
    while retries.wait(error):
        pass
    assert 0.2 < time.monotonic() - started < 0.35
    final = retries.expired(error)
    assert final.message.startswith("cannot describe group g: NOT_COORDINATOR (still failing")
    assert "--timeout 0.3" in final.message
    assert retries.expired(final).message == final.message  # said once


# --- the hint of a lost connection -------------------------------------------------------------


def lost_on(offered: tuple[int, int], version: int) -> ConnectionLost:
    broker = FakeBroker(lambda api, v, body: b"DROP")
    broker.versions[api_table.DESCRIBE_GROUPS.key] = offered
    try:
        connection = BrokerConnection(
            "127.0.0.1", broker.port, security=Security(), ssl_context=None,
            client_id="t", timeout_s=2,
        ).open()  # fmt: skip
        with pytest.raises(ConnectionLost) as caught:
            connection.call(
                api_table.DESCRIBE_GROUPS, version, encode_describe_groups_request(version, ["g"])
            )
        connection.close()
        return caught.value
    finally:
        broker.close()


def test_a_closed_connection_says_the_broker_went_away_when_the_version_is_offered() -> None:
    lost = lost_on((0, 5), 5)
    assert "closed the connection before answering DescribeGroups" in lost.message
    assert lost.hint is not None and "may have stopped or restarted" in lost.hint
    assert "version" not in lost.hint


def test_the_version_hint_only_when_api_versions_does_not_offer_it() -> None:
    lost = lost_on((0, 3), 5)
    assert lost.hint is not None
    assert "offers versions 0-3 of DescribeGroups, not v5" in lost.hint
    assert "does not implement this request version" in lost.hint


# --- sandbox seed on a just-started broker -----------------------------------------------------


def test_seed_commits_through_not_coordinator_on_a_just_started_broker(monkeypatch) -> None:
    """Kafka answers NOT_COORDINATOR until the __consumer_offsets partition of the group has a
    leader; `sandbox seed` ran into it at once (exit 1). Now the commit is retried."""
    from kgroup.core import clients
    from kgroup.core.admin import GroupAdmin
    from kgroup.sandbox import seed

    cluster = FakeCluster(topics={"orders": 3, "payments": 2}, log_end=0)
    cluster.script[(api_table.OFFSET_COMMIT.key, seed.EMPTY_GROUP)] = [NOT_COORD, NOT_COORD, LOAD]
    monkeypatch.setattr(clients, "create_topics", lambda admin, topics: [])
    monkeypatch.setattr(clients, "produce_one_per_request", lambda admin, records: 0)
    try:
        admin = GroupAdmin(ClusterConfig(cluster.address, timeout_s=10))
        seed.seed(admin)
        admin.close()
    finally:
        cluster.close()
    assert cluster.committed(seed.EMPTY_GROUP) == {
        (tp.topic, tp.partition): offset for tp, offset in seed.EMPTY_GROUP_OFFSETS.items()
    }
    assert cluster.script[(api_table.OFFSET_COMMIT.key, seed.EMPTY_GROUP)] == []


def test_commit_after_a_lost_connection_is_sent_again_to_the_new_coordinator() -> None:
    """AdminApiDriver.onFailure: a disconnect unmaps the group; the same absolute offsets are
    committed on the coordinator it moved to."""
    cluster = FakeCluster(topics={"t": 1}, coordinators={"g": 2}, move_after_s=0.3)
    cluster.kill_on[(api_table.OFFSET_COMMIT.key, "g")] = (3, 0)
    try:
        with WireClient(ClusterConfig(cluster.address, timeout_s=10)) as client:
            client.commit_offsets("g", {TopicPartition("t", 0): CommittedOffset(7)})
    finally:
        cluster.close()
    assert cluster.committed("g") == {("t", 0): 7}
    assert cluster.coordinator_of("g") == 3


def test_live_coordinators_are_asked_once_while_a_dead_ones_groups_wait_for_the_move() -> None:
    cluster = FakeCluster(
        topics={"t": 1},
        offsets={g: {("t", 0): 1} for g in ("a", "b", "c")},
        coordinators={"a": 1, "b": 2, "c": 3},
        move_after_s=0.6,
    )
    cluster.kill(2, move_to={"b": 3})
    try:
        with WireClient(ClusterConfig(cluster.address, timeout_s=10)) as client:
            client.retry_backoff_s = 0.02
            started = time.monotonic()
            offsets = client.committed_offsets(["a", "b", "c"])
            elapsed = time.monotonic() - started
    finally:
        cluster.close()
    assert all(
        o == {TopicPartition("t", 0): CommittedOffset(1, None, "")} for o in offsets.values()
    )
    assert 0.6 <= elapsed < 3
    fetches = {n.node_id: n.received.count((api_table.OFFSET_FETCH.key, 8)) for n in cluster.nodes}
    assert fetches[1] == 1  # a: answered in the first round, never asked again
    assert fetches[3] == 2  # c in the first round; b once it moved there
