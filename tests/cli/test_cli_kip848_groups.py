"""KIP-848 `consumer` groups as Kafka 4.x serves them, through a real `kgroup` process.

No broker here runs the consumer protocol (tansu does not implement KIP-848), so a scripted
coordinator (tests/unit/wire/fakegroups.py) answers as Kafka 4.1 does: ListGroups v5 gives the
group type, DescribeGroups (v0-v5) answers a consumer group as Dead with no error (or
GROUP_ID_NOT_FOUND), and ConsumerGroupDescribe gives its members, epochs and assignments.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.helpers import run_kgroup
from tests.unit.wire.fakegroups import FakeConsumerGroup, FakeMember, GroupsCluster

MEMBERS = (
    FakeMember(
        "m-aaaa",
        member_epoch=2,
        client_id="rdkafka-1",
        client_host="/10.0.0.7",
        rack_id="rack-a",
        subscribed=("orders",),
        assignment=(("orders", 0), ("orders", 1)),
        target=(("orders", 0), ("orders", 1)),
    ),
    FakeMember(
        "m-bbbb",
        member_epoch=2,
        client_id="rdkafka-2",
        client_host="/10.0.0.8",
        subscribed=("orders",),
        regex="orders.*",
        assignment=(("orders", 2),),
        target=(("orders", 2),),
    ),
)


@pytest.fixture(params=["dead", "not_found"])
def cluster(request) -> Iterator[GroupsCluster]:
    made = GroupsCluster(
        topics={"orders": 3},
        offsets={
            "shipping2": {("orders", 0): 4, ("orders", 1): 5, ("orders", 2): 6},
            "billing": {("orders", 0): 7},
        },
        consumer_groups={"shipping2": FakeConsumerGroup(MEMBERS, group_epoch=2)},
        describe_groups_answer=request.param,
    )
    yield made
    made.close()


def kgroup(cluster: GroupsCluster, tmp_path, *args: str, expect: int = 0):
    return run_kgroup(
        "-b",
        cluster.address,
        "--timeout",
        "10",
        *args,
        env={"XDG_CONFIG_HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path)},
        expect=expect,
    )


def test_describe_offsets_of_a_consumer_group(cluster, tmp_path) -> None:
    out = json.loads(kgroup(cluster, tmp_path, "describe", "shipping2", "-o", "json").stdout)
    (group,) = out["groups"]
    assert not group.get("error")
    rows = {(r["topic"], r["partition"]): r for r in group["partitions"]}
    assert rows[("orders", 0)]["consumer_id"] == "m-aaaa"
    assert rows[("orders", 0)]["client_id"] == "rdkafka-1"
    assert rows[("orders", 0)]["host"] == "/10.0.0.7"
    assert rows[("orders", 2)]["consumer_id"] == "m-bbbb"
    assert rows[("orders", 2)]["lag"] == 4


def test_describe_members_with_assignments(cluster, tmp_path) -> None:
    result = kgroup(cluster, tmp_path, "describe", "shipping2", "--members", "--assignments")
    assert "m-aaaa" in result.stdout and "m-bbbb" in result.stdout
    assert "orders:0,1" in result.stdout
    assert "does not exist" not in result.stdout + result.stderr


def test_describe_state_of_a_consumer_group(cluster, tmp_path) -> None:
    out = kgroup(cluster, tmp_path, "describe", "shipping2", "--state", "-o", "json").stdout
    text = json.dumps(json.loads(out))
    assert "Stable" in text and "uniform" in text and "consumer" in text
    assert "Dead" not in text


def test_list_shows_the_consumer_group_stable_with_its_type(cluster, tmp_path) -> None:
    rows = json.loads(kgroup(cluster, tmp_path, "list", "-o", "json").stdout)
    rows = rows["groups"] if isinstance(rows, dict) else rows
    by_group = {r["group"]: r for r in rows}
    assert by_group["shipping2"]["state"] == "Stable"
    assert by_group["shipping2"]["type"] == "consumer"
    assert by_group["shipping2"]["members"] == 2
    assert by_group["billing"]["type"] == "classic"


def test_list_type_filter(cluster, tmp_path) -> None:
    rows = json.loads(kgroup(cluster, tmp_path, "list", "--type", "consumer", "-o", "json").stdout)
    rows = rows["groups"] if isinstance(rows, dict) else rows
    assert [r["group"] for r in rows] == ["shipping2"]


def test_describe_all_groups_describes_the_consumer_group(cluster, tmp_path) -> None:
    out = json.loads(kgroup(cluster, tmp_path, "describe", "--all-groups", "-o", "json").stdout)
    groups = {g["group"]: g for g in out["groups"]}
    assert set(groups) == {"billing", "shipping2"}
    assert not groups["shipping2"].get("error")


def test_reset_offsets_refuses_active_consumer_group(cluster, tmp_path) -> None:
    result = kgroup(
        cluster,
        tmp_path,
        "reset-offsets",
        "shipping2",
        "--topic",
        "orders",
        "--to",
        "earliest",
        "--execute",
        expect=4,
    )
    assert "m-aaaa" in result.stderr and "active member" in result.stderr


def test_all_groups_with_a_group_gone_after_listing_is_a_partial_failure(tmp_path) -> None:
    """A listed group that cannot be described carries its error; the others are described and
    the exit code says partial failure (1), not "not found" (3)."""
    made = GroupsCluster(
        topics={"orders": 3},
        offsets={"billing": {("orders", 0): 7}},
        consumer_groups={"shipping2": FakeConsumerGroup(MEMBERS)},
        listed_only={"gone"},
    )
    try:
        result = kgroup(made, tmp_path, "describe", "--all-groups", "-o", "json", expect=1)
    finally:
        made.close()
    groups = {g["group"]: g for g in json.loads(result.stdout)["groups"]}
    assert set(groups) == {"billing", "gone", "shipping2"}
    assert "does not exist" in groups["gone"]["error"]
    assert not groups["billing"].get("error") and not groups["shipping2"].get("error")
    assert len(result.stderr.strip().splitlines()) == 1 and "gone" in result.stderr


# Kafka 4.1's ConsumerGroupDescribe v1 reports each member's subscribed topic names, its regex
# (resolved by the coordinator with RE2J `matches()` over every topic: a whole-name match), its
# rack and its type (KIP-1099: 0 a classic member in a consumer group, 1 a consumer member).
SUBSCRIBERS = (
    FakeMember(
        "m-aaaa",
        rack_id="rack-a",
        subscribed=("orders", "payments"),
        assignment=(("orders", 0), ("orders", 1)),
        target=(("orders", 0), ("orders", 1)),
        member_type=0,
    ),
    FakeMember(
        "m-bbbb",
        regex="orders.*",
        assignment=(("orders", 2),),
        target=(("orders", 2),),
    ),
)


@pytest.fixture
def subscribers() -> Iterator[GroupsCluster]:
    made = GroupsCluster(
        topics={"orders": 3, "payments": 2, "orders-eu": 1, "archive-orders": 1},
        offsets={"mixed": {("orders", 0): 4}},
        consumer_groups={"mixed": FakeConsumerGroup(SUBSCRIBERS)},
    )
    yield made
    made.close()


def test_describe_members_shows_subscriptions_regex_rack_and_member_type(
    subscribers, tmp_path
) -> None:
    out = kgroup(subscribers, tmp_path, "describe", "mixed", "--members", "-o", "json").stdout
    (group,) = json.loads(out)["groups"]
    members = {m["consumer_id"]: m for m in group["members"]}
    assert members["m-aaaa"]["subscribed_topics"] == ["orders", "payments"]
    assert members["m-aaaa"]["subscribed_topic_regex"] is None
    assert members["m-aaaa"]["rack"] == "rack-a"
    assert members["m-aaaa"]["member_type"] == "classic"
    assert members["m-bbbb"]["subscribed_topics"] == []
    assert members["m-bbbb"]["subscribed_topic_regex"] == "orders.*"
    assert members["m-bbbb"]["member_type"] == "consumer"
    table = kgroup(subscribers, tmp_path, "describe", "mixed", "--members", "--assignments").stdout
    assert "orders,payments" in table and "/orders.*/" in table
    assert "classic" in table and "consumer" in table


def test_simulate_assign_from_a_consumer_group_uses_its_subscriptions(
    subscribers, tmp_path
) -> None:
    """Before, every member was taken to subscribe to the topics of the group's assignments
    (orders only): payments, and orders-eu behind m-bbbb's regex, were never assigned."""
    result = kgroup(subscribers, tmp_path, "simulate-assign", "--from-group", "mixed", "-o", "json")
    (strategy,) = json.loads(result.stdout)["strategies"]
    assert strategy["strategy"] == "uniform"
    final = strategy["steps"][-1]["assignment"]
    owner = {f"{t}-{p}": member for member, tps in final.items() for t, p in tps}
    assert owner["payments-0"] == owner["payments-1"] == "m-aaaa"
    assert owner["orders-eu-0"] == "m-bbbb"  # matched by the regex
    assert "archive-orders-0" not in owner  # a whole-name match, as RE2J matches()
    assert {owner[f"orders-{p}"] for p in range(3)} <= {"m-aaaa", "m-bbbb"}
    assert "not report" not in result.stderr


def test_delete_offsets_of_a_consumer_group_follows_the_coordinator(tmp_path) -> None:
    """Kafka's ConsumerGroup refuses OffsetDelete for a topic a member subscribes to
    (GROUP_SUBSCRIBED_TO_TOPIC) and deletes the others; kgroup sends it as is, with no
    DescribeGroups pre-check (which answers Dead for such a group)."""
    made = GroupsCluster(
        topics={"orders": 3, "payments": 2},
        offsets={"mixed": {("orders", 0): 4, ("payments", 0): 3}},
        consumer_groups={"mixed": FakeConsumerGroup(SUBSCRIBERS)},
        subscribed={"mixed": {"orders"}},
    )
    try:
        kgroup(made, tmp_path, "delete-offsets", "mixed", "--topic", "payments")
        refused = kgroup(made, tmp_path, "delete-offsets", "mixed", "--topic", "orders", expect=4)
        assert made.committed("mixed") == {("orders", 0): 4}
    finally:
        made.close()
    assert "group mixed is subscribed to topic orders" in refused.stderr
