"""WireClient.delete_offsets (OffsetDelete v0, KIP-496) against a scripted coordinator."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from kgroup.core.config import ClusterConfig
from kgroup.core.errors import (
    AuthorizationError,
    KafkaOperationError,
    NotFoundError,
    SafetyRefusal,
    UnreachableError,
)
from kgroup.core.models import TopicPartition
from kgroup.core.wire.client import WireClient, kafka_error_of
from kgroup.core.wire.error_codes import (
    COORDINATOR_LOAD_IN_PROGRESS,
    GROUP_AUTHORIZATION_FAILED,
    GROUP_ID_NOT_FOUND,
    INVALID_GROUP_ID,
    NON_EMPTY_GROUP,
    NOT_COORDINATOR,
)
from kgroup.protocol import messages as api_table
from tests.unit.wire.fakegroups import GroupsCluster

T0, T1, U0 = TopicPartition("t", 0), TopicPartition("t", 1), TopicPartition("u", 0)


@pytest.fixture()
def cluster() -> Iterator[GroupsCluster]:
    made = GroupsCluster(
        topics={"t": 2, "u": 1},
        offsets={"g": {("t", 0): 5, ("t", 1): 6, ("u", 0): 7}},
    )
    yield made
    made.close()


def client_for(cluster: GroupsCluster) -> WireClient:
    client = WireClient(ClusterConfig(cluster.address, timeout_s=5))
    client.retry_backoff_s = 0.01
    return client


def test_one_request_to_the_coordinator_deletes_every_partition(cluster: GroupsCluster) -> None:
    with client_for(cluster) as client:
        outcome = client.delete_offsets("g", [T1, U0, T0])
        counts = dict(client.request_counts)
    assert outcome == {T0: None, T1: None, U0: None}
    assert cluster.committed("g") == {}
    assert cluster.deletes == [("g", [("t", 0), ("t", 1), ("u", 0)])]  # sorted, one request
    assert counts == {"ApiVersions": 1, "FindCoordinator": 1, "OffsetDelete": 1}


def test_no_partitions_sends_nothing(cluster: GroupsCluster) -> None:
    with client_for(cluster) as client:
        assert client.delete_offsets("g", []) == {}
        assert dict(client.request_counts) == {}


def test_not_coordinator_finds_the_coordinator_again_and_retries_once(
    cluster: GroupsCluster,
) -> None:
    cluster.fail_once["g"] = NOT_COORDINATOR
    with client_for(cluster) as client:
        outcome = client.delete_offsets("g", [T0])
        counts = dict(client.request_counts)
    assert outcome == {T0: None}
    assert counts["FindCoordinator"] == 2 and counts["OffsetDelete"] == 2


def test_a_persistent_coordinator_error_is_retried_in_place_until_the_timeout(
    cluster: GroupsCluster,
) -> None:
    """COORDINATOR_LOAD_IN_PROGRESS: retried on the same coordinator (no new FindCoordinator),
    as DeleteConsumerGroupOffsetsHandler does, until --timeout; then the last error, saying so."""
    cluster.group_errors["g"] = COORDINATOR_LOAD_IN_PROGRESS
    client = WireClient(ClusterConfig(cluster.address, timeout_s=1))
    client.retry_backoff_s = 0.01
    started = time.monotonic()
    with client, pytest.raises(KafkaOperationError) as caught:
        client.delete_offsets("g", [T0])
    elapsed = time.monotonic() - started
    counts = dict(client.request_counts)
    assert kafka_error_of(caught.value) == "COORDINATOR_LOAD_IN_PROGRESS"
    assert "still failing after" in caught.value.message and "--timeout 1" in caught.value.message
    assert 0.9 < elapsed < 2.5
    assert len(cluster.deletes) > 5
    assert counts["FindCoordinator"] == 1


def test_subscribed_topic_is_refused_per_partition_the_others_deleted(
    cluster: GroupsCluster,
) -> None:
    cluster.subscribed["g"] = {"t"}
    with client_for(cluster) as client:
        outcome = client.delete_offsets("g", [T0, T1, U0])
    assert outcome[U0] is None
    for tp in (T0, T1):
        refusal = outcome[tp]
        assert isinstance(refusal, SafetyRefusal) and refusal.exit_code == 4
        assert "group g is subscribed to topic t: Kafka refuses" in refusal.message
        assert kafka_error_of(refusal) == "GROUP_SUBSCRIBED_TO_TOPIC"
    assert cluster.committed("g") == {("t", 0): 5, ("t", 1): 6}


@pytest.mark.parametrize(
    ("code", "kind", "exit_code", "text"),
    [
        (GROUP_ID_NOT_FOUND, NotFoundError, 3, "group g does not exist"),
        (NON_EMPTY_GROUP, SafetyRefusal, 4, "NON_EMPTY_GROUP"),
        (GROUP_AUTHORIZATION_FAILED, AuthorizationError, 1, "GROUP_AUTHORIZATION_FAILED"),
        (INVALID_GROUP_ID, KafkaOperationError, 1, "INVALID_GROUP_ID"),
    ],
)
def test_group_level_errors_are_raised(
    cluster: GroupsCluster, code: int, kind: type, exit_code: int, text: str
) -> None:
    cluster.group_errors["g"] = code
    with client_for(cluster) as client, pytest.raises(kind) as caught:
        client.delete_offsets("g", [T0])
    assert caught.value.exit_code == exit_code
    assert text in caught.value.message
    assert len(cluster.deletes) == 1  # not retried
    assert cluster.committed("g") == {("t", 0): 5, ("t", 1): 6, ("u", 0): 7}


def test_a_broker_without_offset_delete_is_named_and_asked_nothing() -> None:
    cluster = GroupsCluster(
        topics={"t": 1}, offsets={"g": {("t", 0): 1}}, offer_offset_delete=False
    )
    try:
        with client_for(cluster) as client, pytest.raises(KafkaOperationError) as caught:
            client.delete_offsets("g", [T0])
    finally:
        cluster.close()
    assert "OffsetDelete" in caught.value.message and "KIP-496" in caught.value.message
    assert cluster.deletes == []


def test_a_broker_that_drops_offset_delete_on_a_fresh_connection_too_is_not_retried_more() -> None:
    # What tansu does (TEST_ENVIRONMENT.md): it closes the connection instead of answering.
    cluster = GroupsCluster(topics={"t": 1}, offsets={"g": {("t", 0): 1}}, drop_offset_delete=True)
    try:
        with client_for(cluster) as client, pytest.raises(UnreachableError) as caught:
            client.delete_offsets("g", [T0])
    finally:
        cluster.close()
    assert "OffsetDelete" in caught.value.message
    assert (
        cluster.broker.received.count((api_table.OFFSET_DELETE.key, 0)) == 2
    )  # a fresh connection
    # the hint says what happened, not a guess about versions (ApiVersions offers v0)
    assert caught.value.hint is not None and "closed it again" in caught.value.hint
    assert "version" not in caught.value.hint
