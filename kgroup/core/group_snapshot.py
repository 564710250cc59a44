"""A live group's members and topic metadata, as `simulate-assign --from-group` needs them.

Source of truth: DescribeGroups{Request,Response}.json (classic groups: member id,
group.instance.id, MemberMetadata and MemberAssignment bytes, returned by Kafka only while the
group is Stable), ConsumerGroupDescribe (KIP-848 `consumer` groups: members with their
subscribed topic names and regex, rack, assignment and target assignment; through librdkafka,
which leaves out subscriptions, where kgroup's wire client is off), DescribeTopics through
librdkafka (partition counts, replica racks, topic ids).

Decoding the members' bytes into an assignor's input is the assign engine's job
(`kgroup.assign.from_group`); this module only fetches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgroup.core.acl import missing_groups
from kgroup.core.errors import KafkaOperationError, NotFoundError
from kgroup.core.models import GroupDescription, GroupSnapshot
from kgroup.core.topic_regex import topics_matching

if TYPE_CHECKING:
    from kgroup.core.admin import GroupAdmin


def snapshot_group(admin: GroupAdmin, group_id: str) -> GroupSnapshot:
    """Describe `group_id` and fetch the metadata of every topic its members subscribe to or
    are assigned.

    Raises NotFoundError for a group the cluster does not know (GROUP_ID_NOT_FOUND, Dead, or an
    ambiguous Empty answer ListGroups does not list: `kgroup.core.acl.missing_groups`). A group
    that exists with no members is returned as it is (the caller decides).
    """
    described = admin.describe_groups([group_id]).get(group_id)
    if described is None:
        described = GroupDescription(group_id, "Unknown")
    if described.error is not None:
        if described.error_code == "GROUP_ID_NOT_FOUND" or "GROUP_ID_NOT_FOUND" in described.error:
            raise _missing(group_id)
        raise KafkaOperationError(described.error)
    if described.state == "Dead":
        raise _missing(group_id)
    via = "librdkafka"
    if admin.wire is not None:
        via = "DescribeGroups" if described.type == "classic" else "ConsumerGroupDescribe"
    if not described.members:
        committed = admin.committed_offsets_many([group_id]).get(group_id)
        if isinstance(committed, NotFoundError) or group_id in missing_groups(
            admin, {group_id: described}, {group_id: committed}
        ):
            raise _missing(group_id)
        return GroupSnapshot(described, {}, via)
    # Ask for all topics first (one Metadata request, never by name): brokers that auto-create
    # topics on metadata requests must not create a topic only a subscription names.
    existing = admin.topics(include_internal=True)
    wanted: set[str] = set()
    for member in described.members:
        wanted.update(member.subscription or ())
        if member.subscribed_topic_regex:
            wanted.update(topics_matching(member.subscribed_topic_regex, existing) or ())
        wanted.update(tp.topic for tp in member.assignment)
        wanted.update(tp.topic for tp in member.target_assignment or ())
    details = admin.topic_details(sorted(wanted & set(existing)))
    return GroupSnapshot(described, dict(sorted(details.items())), via)


def _missing(group_id: str) -> NotFoundError:
    return NotFoundError(
        f"group {group_id} does not exist",
        hint="check the name with `kgroup list`",
    )
