"""Share groups (KIP-932) as Kafka 4.1 serves them, through a real `kgroup` process.

No broker here has share groups (tansu has none of the APIs), so a scripted coordinator
(tests/unit/wire/fakeshare.py) answers as Kafka 4.1 does: ListGroups v5 lists them with type
`share`, DescribeGroups and ConsumerGroupDescribe do not know them, ShareGroupDescribe v1,
DescribeShareGroupOffsets v0, AlterShareGroupOffsets v0 and DeleteShareGroupOffsets v0 serve
them. Before this, kgroup listed such a group as Dead with 0 members and said it did not exist.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from kgroup.protocol.messages.share_groups import (
    ALTER_SHARE_GROUP_OFFSETS,
    DELETE_GROUPS,
    DELETE_SHARE_GROUP_OFFSETS,
)
from tests.helpers import run_kgroup
from tests.unit.wire.fakeshare import FakeShareGroup, FakeShareMember, ShareCluster

MEMBER = FakeShareMember(
    "m-share-1",
    client_id="share-consumer-1",
    client_host="/10.0.0.9",
    rack_id="rack-b",
    member_epoch=5,
    subscribed=("orders",),
    assignment=(("orders", 0), ("orders", 1), ("orders", 2)),
)


def make_cluster(**extra) -> ShareCluster:
    return ShareCluster(
        topics={"orders": 3},
        offsets={"billing": {("orders", 0): 7}},
        share_groups={
            "sg1": FakeShareGroup(
                members=(MEMBER,),
                group_epoch=3,
                assignment_epoch=2,
                start_offsets={("orders", 0): 4, ("orders", 1): -1},
            ),
            "sg2": FakeShareGroup(start_offsets={("orders", 2): 6, ("orders", 0): 1}),
        },
        **extra,
    )


@pytest.fixture
def cluster() -> Iterator[ShareCluster]:
    made = make_cluster()
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


def by_group(out: str) -> dict[str, dict]:
    doc = json.loads(out)
    rows = doc["groups"] if isinstance(doc, dict) else doc
    return {r["group"]: r for r in rows}


# -- list ------------------------------------------------------------------------------------


def test_list_shows_share_groups_with_their_real_state_and_members(cluster, tmp_path) -> None:
    rows = by_group(kgroup(cluster, tmp_path, "list", "--type", "share", "-o", "json").stdout)
    assert set(rows) == {"sg1", "sg2"}
    assert (rows["sg1"]["state"], rows["sg1"]["members"], rows["sg1"]["type"]) == (
        "Stable",
        1,
        "share",
    )
    assert (rows["sg2"]["state"], rows["sg2"]["members"]) == ("Empty", 0)
    assert rows["sg1"]["protocol_type"] == "share"


# -- describe ----------------------------------------------------------------------------------


def test_describe_shows_start_offsets_and_lag(cluster, tmp_path) -> None:
    out = json.loads(kgroup(cluster, tmp_path, "describe", "sg1", "-o", "json").stdout)
    (group,) = out["groups"]
    assert group["type"] == "share" and group["state"] == "Stable" and not group["error"]
    rows = {(r["topic"], r["partition"]): r for r in group["partitions"]}
    # start offset 4, log end 10: 6 records at or after the share-partition start offset
    assert rows[("orders", 0)]["current_offset"] == 4 and rows[("orders", 0)]["lag"] == 6
    # -1: the group holds no state for the partition (kafka-share-groups prints "-")
    assert rows[("orders", 1)]["current_offset"] is None and rows[("orders", 1)]["lag"] is None
    assert rows[("orders", 0)]["consumer_id"] == "m-share-1"
    assert group["total_lag"] == 6


def test_describe_without_listing_first_finds_the_share_group(cluster, tmp_path) -> None:
    result = kgroup(cluster, tmp_path, "describe", "sg1")
    assert "does not exist" not in result.stdout + result.stderr
    assert "m-share-1" in result.stdout


def test_describe_members_of_a_share_group(cluster, tmp_path) -> None:
    out = json.loads(kgroup(cluster, tmp_path, "describe", "sg1", "--members", "-o", "json").stdout)
    text = json.dumps(out)
    for expected in ("m-share-1", "share-consumer-1", "/10.0.0.9", "rack-b"):
        assert expected in text
    (group,) = out["groups"]
    (member,) = group["members"]
    assert member["member_epoch"] == 5
    assert member["subscribed_topics"] == ["orders"]


def test_describe_state_of_a_share_group(cluster, tmp_path) -> None:
    out = json.loads(kgroup(cluster, tmp_path, "describe", "sg1", "--state", "-o", "json").stdout)
    (group,) = out["groups"]
    assert (group["state"], group["type"], group["assignor"]) == ("Stable", "share", "simple")
    assert (group["group_epoch"], group["assignment_epoch"]) == (3, 2)
    assert group["coordinator"]["port"] == cluster.broker.port


def test_describe_all_groups_includes_share_groups(cluster, tmp_path) -> None:
    out = json.loads(kgroup(cluster, tmp_path, "describe", "--all-groups", "-o", "json").stdout)
    groups = {g["group"]: g for g in out["groups"]}
    assert {"billing", "sg1", "sg2"} <= set(groups)
    assert groups["sg2"]["type"] == "share" and not groups["sg2"]["error"]


# -- reset-offsets -------------------------------------------------------------------------------


def test_reset_a_share_group_to_earliest_executes_and_verifies(cluster, tmp_path) -> None:
    result = kgroup(
        cluster,
        tmp_path,
        "reset-offsets",
        "sg2",
        "--topic",
        "orders",
        "--to",
        "earliest",
        "--execute",
        "-o",
        "json",
    )
    assert cluster.share_groups["sg2"].start_offsets == {
        ("orders", 0): 0,
        ("orders", 1): 0,
        ("orders", 2): 0,
    }
    (alter,) = [req for api, req in cluster.requests if api == ALTER_SHARE_GROUP_OFFSETS.key]
    assert alter["group_id"] == "sg2"
    out = json.loads(result.stdout)
    text = json.dumps(out)
    assert "committed" in text and "NON_EMPTY_GROUP" in text  # the one-writer story, said
    backups = list(tmp_path.rglob("sg2-*.json"))
    assert len(backups) == 1
    (saved,) = json.loads(backups[0].read_text())["groups"]
    restores = {(r["topic"], r["partition"]): r["new_offset"] for r in saved["partitions"]}
    assert restores[("orders", 0)] == 1 and restores[("orders", 2)] == 6  # the start offsets


def test_reset_refuses_a_share_group_with_members(cluster, tmp_path) -> None:
    result = kgroup(
        cluster,
        tmp_path,
        "reset-offsets",
        "sg1",
        "--topic",
        "orders",
        "--to",
        "latest",
        "--execute",
        expect=4,
    )
    assert "m-share-1" in result.stderr and "active member" in result.stderr
    assert not [api for api, _ in cluster.requests if api == ALTER_SHARE_GROUP_OFFSETS.key]


@pytest.mark.parametrize(
    "strategy", [("--to-offset", "3"), ("--shift-by", "-2"), ("--by-duration", "1h")]
)
def test_reset_refuses_strategies_kafka_does_not_allow_for_share_groups(
    cluster, tmp_path, strategy
) -> None:
    result = kgroup(
        cluster, tmp_path, "reset-offsets", "sg2", "--topic", "orders", *strategy, expect=2
    )
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "share group" in lines[0] and "earliest, latest" in lines[0]


def test_reset_a_share_group_to_a_datetime(cluster, tmp_path) -> None:
    result = kgroup(
        cluster,
        tmp_path,
        "reset-offsets",
        "sg2",
        "--topic",
        "orders:2",
        "--to-datetime",
        "2026-01-01T00:00:00Z",
    )
    assert "sg2" in result.stdout and "Dry run" in result.stdout + result.stderr


# -- delete-offsets and delete -------------------------------------------------------------------


def test_delete_offsets_of_a_share_group(cluster, tmp_path) -> None:
    out = json.loads(
        kgroup(cluster, tmp_path, "delete-offsets", "sg2", "--topic", "orders", "-o", "json").stdout
    )
    statuses = {(r["topic"], r["partition"]): r["status"] for r in out["partitions"]}
    assert statuses[("orders", 0)] == statuses[("orders", 2)] == "deleted"
    assert cluster.share_groups["sg2"].start_offsets == {}
    (sent,) = [req for api, req in cluster.requests if api == DELETE_SHARE_GROUP_OFFSETS.key]
    assert sent == {"group_id": "sg2", "topics": [{"topic_name": "orders"}]}


def test_delete_offsets_refused_while_share_group_has_members(cluster, tmp_path) -> None:
    result = kgroup(cluster, tmp_path, "delete-offsets", "sg1", "--topic", "orders", expect=4)
    assert "NON_EMPTY_GROUP" in result.stdout + result.stderr
    assert cluster.share_groups["sg1"].start_offsets[("orders", 0)] == 4


def test_delete_offsets_of_some_partitions_is_refused_for_share_groups(cluster, tmp_path) -> None:
    result = kgroup(cluster, tmp_path, "delete-offsets", "sg2", "--topic", "orders:0", expect=2)
    assert "per topic" in result.stderr


# -- a broker without the share-group APIs --------------------------------------------------------


def test_broker_without_share_group_apis_says_so_in_one_line(tmp_path) -> None:
    made = make_cluster(share_apis=False)
    try:
        result = kgroup(made, tmp_path, "describe", "sg1", expect=1)
        assert "does not exist" not in result.stdout + result.stderr
        assert "does not offer ShareGroupDescribe" in result.stdout + result.stderr
        errors = [line for line in result.stderr.splitlines() if "error" in line]
        assert len(errors) <= 2  # the group's line and the summary, no traceback
        assert "Traceback" not in result.stderr
    finally:
        made.close()


def test_delete_an_empty_share_group(cluster, tmp_path) -> None:
    out = json.loads(kgroup(cluster, tmp_path, "delete", "sg2", "-o", "json").stdout)
    assert [(r["group"], r["status"]) for r in out["groups"]] == [("sg2", "deleted")]
    assert "sg2" not in cluster.share_groups
    (sent,) = [req for api, req in cluster.requests if api == DELETE_GROUPS.key]
    assert sent == {"groups_names": ["sg2"]}


def test_delete_refuses_a_share_group_with_members(cluster, tmp_path) -> None:
    result = kgroup(cluster, tmp_path, "delete", "sg1", expect=4)
    assert "m-share-1" in result.stdout + result.stderr
    assert "sg1" in cluster.share_groups
    assert not [api for api, _ in cluster.requests if api == DELETE_GROUPS.key]


# -- check ---------------------------------------------------------------------------------------


def test_check_says_share_groups_are_not_evaluated_by_burrows_rules(cluster, tmp_path) -> None:
    result = kgroup(
        cluster,
        tmp_path,
        "check",
        "sg2",
        "--window",
        "1s",
        "--samples",
        "2",
        "--no-lag-time",
        "-o",
        "json",
    )
    (group,) = json.loads(result.stdout)["groups"]
    assert group["status"] != "NOTFOUND"
    assert group["type"] == "share"
    assert "share group" in (group["reason"] or "") and "Burrow" in group["reason"]


def test_undo_restores_a_share_groups_start_offsets(cluster, tmp_path) -> None:
    kgroup(cluster, tmp_path, "reset-offsets", "sg2", "--all-topics", "--to", "latest", "--execute")
    assert cluster.share_groups["sg2"].start_offsets == {("orders", 0): 10, ("orders", 2): 10}
    kgroup(cluster, tmp_path, "undo", "sg2", "--execute")
    assert cluster.share_groups["sg2"].start_offsets == {("orders", 0): 1, ("orders", 2): 6}
