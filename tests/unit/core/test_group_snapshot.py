"""`snapshot_group`: what it asks the cluster for and when a group counts as missing."""

from __future__ import annotations

import pytest

from kgroup.core.errors import KafkaOperationError, NotFoundError
from kgroup.core.group_snapshot import snapshot_group
from kgroup.core.models import (
    CommittedOffset,
    GroupDescription,
    GroupListing,
    MemberDescription,
    TopicMetadata,
    TopicPartition,
)


class FakeAdmin:
    """The GroupAdmin calls snapshot_group makes, answered from fixed data, recorded."""

    def __init__(
        self, group: GroupDescription, offsets=None, topics=("t", "u"), wire=True, listed=()
    ):
        self.group = group
        self.listed = listed
        self.offsets = offsets or {}
        self.existing = {name: TopicMetadata(name, 3) for name in topics}
        self.wire = object() if wire else None
        self.detail_requests: list[list[str]] = []

    def describe_groups(self, ids):
        return {self.group.group_id: self.group}

    def list_groups(self):
        return [GroupListing(g, "Empty", "classic") for g in self.listed]

    def committed_offsets_many(self, ids):
        return {ids[0]: self.offsets}

    def topics(self, include_internal=False):
        return dict(self.existing)

    def topic_details(self, names):
        self.detail_requests.append(list(names))
        return {n: TopicMetadata(n, 3, topic_id=f"id-{n}") for n in names}


def test_dead_and_not_found_groups_exit_3() -> None:
    for group in (
        GroupDescription("g", "Dead"),
        GroupDescription("g", "Unknown", error="no such group", error_code="GROUP_ID_NOT_FOUND"),
    ):
        with pytest.raises(NotFoundError, match="group g does not exist"):
            snapshot_group(FakeAdmin(group), "g")


def test_other_describe_errors_are_kafka_errors() -> None:
    group = GroupDescription("g", "Unknown", error="not authorized", error_code="GROUP_AUTH")
    with pytest.raises(KafkaOperationError, match="not authorized"):
        snapshot_group(FakeAdmin(group), "g")


def test_empty_group_without_offsets_does_not_exist_with_offsets_is_returned() -> None:
    empty = GroupDescription("g", "Empty")
    with pytest.raises(NotFoundError):
        snapshot_group(FakeAdmin(empty), "g")  # not listed either: an unknown id (tansu)
    offsets = {TopicPartition("t", 0): CommittedOffset(5)}
    snapshot = snapshot_group(FakeAdmin(empty, offsets), "g")
    assert snapshot.group.members == () and snapshot.topics == {}


def test_empty_group_whose_offsets_are_hidden_exists() -> None:
    """Listed, or with a protocol type: it exists, its offsets may be on topics ACLs hide."""
    listed = snapshot_group(FakeAdmin(GroupDescription("g", "Empty"), listed=("g",)), "g")
    assert listed.group.state == "Empty"
    typed = GroupDescription("g", "Empty", protocol_type="consumer")
    assert snapshot_group(FakeAdmin(typed), "g").group.protocol_type == "consumer"


def test_topics_of_subscriptions_and_assignments_that_exist_are_described() -> None:
    group = GroupDescription(
        "g",
        "Stable",
        members=(
            MemberDescription(
                "c1", subscription=("t", "nope"), assignment=(TopicPartition("u", 1),)
            ),
        ),
    )
    admin = FakeAdmin(group)
    snapshot = snapshot_group(admin, "g")
    assert admin.detail_requests == [["t", "u"]]  # never a name that does not exist
    assert list(snapshot.topics) == ["t", "u"]
    assert snapshot.topics["t"].topic_id == "id-t"
    assert snapshot.via == "DescribeGroups"
    assert snapshot_group(FakeAdmin(group, wire=False), "g").via == "librdkafka"
