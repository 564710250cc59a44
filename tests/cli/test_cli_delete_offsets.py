"""`kgroup delete-offsets` through a real `kgroup` process against a scripted coordinator.

The scripted cluster (tests/unit/wire/fakegroups.py) answers OffsetDelete as Kafka's group
coordinator does (KIP-496): an empty group loses the offsets asked for; an active consumer
group loses those of topics it is not subscribed to and keeps the others
(GROUP_SUBSCRIBED_TO_TOPIC). The same behaviour on real Kafka is tested in
tests/integration/core/test_delete.py (real_kafka: tansu does not implement OffsetDelete).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.helpers import run_kgroup
from tests.unit.wire.fakegroups import GroupsCluster


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


@pytest.fixture()
def cluster(tmp_path) -> Iterator[GroupsCluster]:
    made = GroupsCluster(
        topics={"orders": 2, "audit": 1},
        offsets={"billing": {("orders", 0): 5, ("orders", 1): 6, ("audit", 0): 7}},
    )
    yield made
    made.close()


def delete_offsets(cluster: GroupsCluster, tmp_path, *args: str, expect: int = 0):
    return run_kgroup(
        "-b",
        cluster.address,
        "--timeout",
        "10",
        "delete-offsets",
        *args,
        env={"XDG_CONFIG_HOME": str(tmp_path)},  # no protected-groups file of the user
        expect=expect,
    )


def test_empty_group_offsets_are_deleted_and_reported(cluster, tmp_path) -> None:
    result = delete_offsets(
        cluster, tmp_path, "billing", "--topic", "orders:1", "--topic", "audit", "-o", "json"
    )
    assert json.loads(result.stdout) == {
        "schema_version": 1,
        "group": "billing",
        "partitions": [
            {"group": "billing", "topic": t, "partition": p, "status": "deleted", "message": None}
            for t, p in (("audit", 0), ("orders", 1))
        ],
    }
    assert cluster.committed("billing") == {("orders", 0): 5}
    assert result.stderr == ""


def test_active_group_loses_offsets_of_topics_it_does_not_consume(cluster, tmp_path) -> None:
    """Kafka's rule (KIP-496), not kgroup's former blanket refusal of active groups."""
    cluster.subscribed["billing"] = {"orders"}
    delete_offsets(cluster, tmp_path, "billing", "--topic", "audit")
    assert cluster.committed("billing") == {("orders", 0): 5, ("orders", 1): 6}


def test_subscribed_topic_of_an_active_group_is_refused_with_exit_4(cluster, tmp_path) -> None:
    cluster.subscribed["billing"] = {"orders"}
    result = delete_offsets(
        cluster, tmp_path, "billing", "--topic", "orders", "--topic", "audit", expect=4
    )
    line = one_line(result.stderr)
    assert (
        "group billing is subscribed to topic orders: Kafka refuses to delete its offsets while "
        "members consume it" in line
    )
    assert "2 of 3 partitions" in line
    table = {tuple(row.split()[1:4]) for row in result.stdout.strip().splitlines()[1:]}
    assert table == {
        ("audit", "0", "deleted"),
        ("orders", "0", "refused"),
        ("orders", "1", "refused"),
    }
    # The broker deleted what it may and kept the rest, as Kafka does.
    assert cluster.committed("billing") == {("orders", 0): 5, ("orders", 1): 6}


def test_active_group_of_another_protocol_is_refused_with_exit_4(cluster, tmp_path) -> None:
    cluster.non_consumer_active.add("billing")
    result = delete_offsets(cluster, tmp_path, "billing", "--topic", "audit", expect=4)
    assert "NON_EMPTY_GROUP" in one_line(result.stderr)
    assert result.stdout == ""
    assert len(cluster.committed("billing")) == 3


def test_group_authorization_failure_is_one_line_naming_the_acl(cluster, tmp_path) -> None:
    cluster.group_errors["billing"] = 30  # GROUP_AUTHORIZATION_FAILED
    result = delete_offsets(cluster, tmp_path, "billing", "--topic", "audit", expect=1)
    assert "Delete on Group:billing" in one_line(result.stderr)


def test_partitions_without_an_offset_are_reported_and_not_sent(cluster, tmp_path) -> None:
    cluster.offsets["billing"] = {("orders", 0): 5}
    result = delete_offsets(cluster, tmp_path, "billing", "--topic", "orders", "-o", "json")
    statuses = [(r["partition"], r["status"]) for r in json.loads(result.stdout)["partitions"]]
    assert statuses == [(0, "deleted"), (1, "no_offset")]
    assert cluster.deletes == [("billing", [("orders", 0)])]


def test_broker_without_offset_delete_fails_in_one_line(tmp_path) -> None:
    cluster = GroupsCluster(
        topics={"orders": 1}, offsets={"billing": {("orders", 0): 1}}, offer_offset_delete=False
    )
    try:
        result = delete_offsets(cluster, tmp_path, "billing", "--topic", "orders", expect=1)
    finally:
        cluster.close()
    line = one_line(result.stderr)
    assert "OffsetDelete" in line and "unexpected" not in line


def test_configuration_the_wire_client_cannot_serve_is_named_at_once(tmp_path) -> None:
    """librdkafka 2.16 has no OffsetDelete call: say why kgroup's own client cannot be used,
    before any broker is asked anything (127.0.0.1:1 would exit 6)."""
    result = run_kgroup(
        "-b",
        "127.0.0.1:1",
        "--timeout",
        "5",
        "-X",
        "broker.address.family=v4",
        "delete-offsets",
        "billing",
        "--topic",
        "orders",
        env={"XDG_CONFIG_HOME": str(tmp_path)},
        expect=1,
    )
    line = one_line(result.stderr)
    assert "broker.address.family=v4" in line and "OffsetDelete" in line
    assert "AttributeError" not in line and "unexpected" not in line
    assert result.seconds < 5
