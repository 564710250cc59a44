"""GroupAdmin.describe_groups picks the describe API by the group's type (ListGroups v5).

Against the scripted coordinator of tests/unit/wire/fakegroups.py, answering as Kafka 4.1 does.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kgroup.core.admin import GroupAdmin
from kgroup.core.config import ClusterConfig
from kgroup.core.models import TopicPartition
from kgroup.protocol import messages as api_table
from kgroup.protocol.model import Api
from tests.unit.wire.fakegroups import FakeConsumerGroup, FakeMember, GroupsCluster

MEMBER = FakeMember(
    "m-1",
    member_epoch=5,
    rack_id="r1",
    subscribed=("orders",),
    assignment=(("orders", 0),),
    target=(("orders", 0), ("orders", 1)),
)


@pytest.fixture()
def cluster() -> Iterator[GroupsCluster]:
    made = GroupsCluster(
        topics={"orders": 2},
        offsets={"billing": {("orders", 0): 1}},
        consumer_groups={"shipping2": FakeConsumerGroup((MEMBER,), group_epoch=5)},
    )
    yield made
    made.close()


def sent(cluster: GroupsCluster, api: Api) -> list[int]:
    return [version for key, version in cluster.broker.received if key == api.key]


def test_listed_consumer_group_is_described_with_consumer_group_describe_only(cluster) -> None:
    admin = GroupAdmin(ClusterConfig(cluster.address, timeout_s=5))
    try:
        listed = {g.group_id: g.type for g in admin.list_groups()}
        assert listed == {"billing": "classic", "shipping2": "consumer"}
        assert sent(cluster, api_table.LIST_GROUPS) == [5]
        described = admin.describe_groups(["shipping2", "billing"])
    finally:
        admin.close()
    assert list(described) == ["shipping2", "billing"]
    group = described["shipping2"]
    assert (group.type, group.state, group.assignor, group.group_epoch) == (
        "consumer",
        "Stable",
        "uniform",
        5,
    )
    (member,) = group.members
    assert member.member_epoch == 5 and member.rack == "r1"
    assert member.subscription == ("orders",)
    assert member.assignment == (TopicPartition("orders", 0),)
    assert member.target_assignment == (TopicPartition("orders", 0), TopicPartition("orders", 1))
    assert described["billing"].state == "Empty" and described["billing"].type == "classic"
    assert sent(cluster, api_table.CONSUMER_GROUP_DESCRIBE) == [1]  # v1, one request
    assert len(sent(cluster, api_table.DESCRIBE_GROUPS)) == 1  # for billing only


def test_unlisted_consumer_group_dead_in_describe_groups_is_asked_again(cluster) -> None:
    admin = GroupAdmin(ClusterConfig(cluster.address, timeout_s=5))
    try:
        described = admin.describe_groups(["shipping2", "nope"])
    finally:
        admin.close()
    assert described["shipping2"].state == "Stable" and len(described["shipping2"].members) == 1
    assert described["nope"].state == "Dead" and described["nope"].error is None
