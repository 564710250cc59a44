"""Streams groups (KIP-1071, early access in Kafka 4.1) through a real `kgroup` process.

A scripted coordinator (tests/unit/wire/fakeshare.py) answers as Kafka 4.1 does: ListGroups v5
lists them with type `streams`, DescribeGroups and ConsumerGroupDescribe do not know them,
StreamsGroupDescribe v0 (decoded and encoded from kgroup's declaration of Kafka's JSON) gives
their topology, members and tasks; their offsets are committed offsets (OffsetFetch,
OffsetCommit). Before, kgroup said such a group did not exist.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.helpers import run_kgroup
from tests.unit.wire.fakeshare import FakeStreamsGroup, FakeStreamsMember, ShareCluster

MEMBER = FakeStreamsMember("s-m1", active=(("0", (0, 1)), ("1", (2,))), standby=(("0", (2,)),))


def make(**extra) -> ShareCluster:
    return ShareCluster(
        topics={"orders": 3, "payments": 3},
        offsets={"app": {("orders", 0): 4, ("payments", 2): 1}, "app2": {("orders", 0): 2}},
        streams_groups={
            "app": FakeStreamsGroup(
                subtopologies={"0": ("orders",), "1": ("payments",)},
                members=(MEMBER,),
                topology_epoch=2,
            ),
            "app2": FakeStreamsGroup(subtopologies={"0": ("orders",)}),
        },
        **extra,
    )


@pytest.fixture
def cluster() -> Iterator[ShareCluster]:
    made = make()
    yield made
    made.close()


def kgroup(cluster: ShareCluster, tmp_path, *args: str, expect: int = 0):
    return run_kgroup(
        "-b",
        cluster.address,
        "--timeout",
        "10",
        *args,
        env={"XDG_CONFIG_HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path)},
        expect=expect,
    )


def test_list_shows_streams_groups_with_state_and_members(cluster, tmp_path) -> None:
    doc = json.loads(kgroup(cluster, tmp_path, "list", "--type", "streams", "-o", "json").stdout)
    rows = {r["group"]: r for r in doc["groups"]}
    assert (rows["app"]["state"], rows["app"]["members"], rows["app"]["type"]) == (
        "Stable",
        1,
        "streams",
    )
    assert (rows["app2"]["state"], rows["app2"]["members"]) == ("Empty", 0)


def test_describe_offsets_with_task_owners(cluster, tmp_path) -> None:
    out = json.loads(kgroup(cluster, tmp_path, "describe", "app", "-o", "json").stdout)
    (group,) = out["groups"]
    assert group["type"] == "streams" and not group["error"]
    rows = {(r["topic"], r["partition"]): r for r in group["partitions"]}
    assert rows[("orders", 0)]["lag"] == 6 and rows[("orders", 0)]["consumer_id"] == "s-m1"
    # task 1_2 (subtopology 1, partition 2) processes payments:2
    assert rows[("payments", 2)]["consumer_id"] == "s-m1"
    assert rows[("orders", 2)]["consumer_id"] is None  # standby tasks own nothing


def test_describe_members_with_tasks(cluster, tmp_path) -> None:
    out = json.loads(kgroup(cluster, tmp_path, "describe", "app", "--members", "-o", "json").stdout)
    (member,) = out["groups"][0]["members"]
    assert member["tasks"] == "0:0,1;1:2 standby=0:2"
    assert member["member_type"] == "streams" and member["member_epoch"] == 4


def test_describe_state_with_topology_epoch(cluster, tmp_path) -> None:
    out = json.loads(kgroup(cluster, tmp_path, "describe", "app", "--state", "-o", "json").stdout)
    (group,) = out["groups"]
    assert (group["state"], group["type"], group["topology_epoch"]) == ("Stable", "streams", 2)
    assert (group["group_epoch"], group["assignment_epoch"]) == (4, 4)


def test_reset_an_empty_streams_group_and_refuse_an_active_one(cluster, tmp_path) -> None:
    kgroup(
        cluster,
        tmp_path,
        "reset-offsets",
        "app2",
        "--topic",
        "orders:0",
        "--to-offset",
        "1",
        "--execute",
    )
    assert cluster.offsets["app2"] == {("orders", 0): 1}
    refused = kgroup(
        cluster,
        tmp_path,
        "reset-offsets",
        "app",
        "--all-topics",
        "--to",
        "earliest",
        "--execute",
        expect=4,
    )
    assert "s-m1" in refused.stderr and cluster.offsets["app"][("orders", 0)] == 4


def test_delete_an_empty_streams_group(cluster, tmp_path) -> None:
    out = json.loads(kgroup(cluster, tmp_path, "delete", "app2", "-o", "json").stdout)
    assert [(r["group"], r["status"]) for r in out["groups"]] == [("app2", "deleted")]
    assert "app2" not in cluster.streams_groups


def test_broker_without_streams_group_describe_says_so_in_one_line(tmp_path) -> None:
    made = make(streams_api=False)
    try:
        result = kgroup(made, tmp_path, "describe", "app", expect=1)
    finally:
        made.close()
    text = result.stdout + result.stderr
    assert "does not offer StreamsGroupDescribe v0" in text
    assert "does not exist" not in text and "Traceback" not in text
