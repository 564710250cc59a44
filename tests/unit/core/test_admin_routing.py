"""GroupAdmin's choice of request for each kind of group (no broker: a stand-in wire client)."""

from __future__ import annotations

from kgroup.core.admin import GroupAdmin
from kgroup.core.config import ClusterConfig
from kgroup.core.models import GroupDescription, MemberDescription, TopicPartition


class StandInWire:
    """Answers as a broker would: classic groups via DescribeGroups, KIP-848 groups only via
    ConsumerGroupDescribe (DescribeGroups says GROUP_ID_NOT_FOUND for them)."""

    def __init__(self) -> None:
        self.consumer_asked: list[str] = []
        self.typed_asked: list[tuple[str, str]] = []

    def describe_groups(self, ids):
        return {
            g: GroupDescription(g, "Stable", members=(MemberDescription("c1"),))
            if g == "classic-g"
            else GroupDescription(g, "Unknown", error="not found", error_code="GROUP_ID_NOT_FOUND")
            for g in ids
        }

    def _describe_each(self, ids, work, group_type):
        """ShareGroupDescribe / StreamsGroupDescribe (kgroup.core.wire.share_groups,
        streams_groups): no group here is a share or streams group."""
        self.typed_asked.extend((group_type, g) for g in ids)
        return {
            g: GroupDescription(
                g, "Unknown", type=group_type, error="not found", error_code="GROUP_ID_NOT_FOUND"
            )
            for g in ids
        }

    def describe_consumer_groups(self, ids):
        self.consumer_asked.extend(ids)
        return {
            g: GroupDescription(
                g,
                "Stable",
                type="consumer",
                group_epoch=4,
                assignment_epoch=4,
                members=(
                    MemberDescription(
                        "m1", member_epoch=4, target_assignment=(TopicPartition("t", 0),)
                    ),
                ),
            )
            if g == "new-g"
            else GroupDescription(
                g, "Unknown", type="consumer", error="not found", error_code="GROUP_ID_NOT_FOUND"
            )
            for g in ids
        }


def test_kip848_groups_are_described_with_consumer_group_describe() -> None:
    admin = GroupAdmin(ClusterConfig("h:1"))
    wire = StandInWire()
    admin._wire, admin._wire_checked = wire, True
    described = admin.describe_groups(["classic-g", "new-g", "ghost"])
    assert wire.consumer_asked == ["new-g", "ghost"]  # only what DescribeGroups did not know
    assert described["classic-g"].type == "classic"
    assert described["new-g"].type == "consumer" and described["new-g"].group_epoch == 4
    assert described["new-g"].members[0].target_assignment == (TopicPartition("t", 0),)
    assert described["ghost"].error_code == "GROUP_ID_NOT_FOUND"
    # a group no API knows is asked last as a share group, then as a streams group
    assert wire.typed_asked == [("share", "ghost"), ("streams", "ghost")]
