"""The wire client's answers as kgroup's models (`kgroup.core.models`), and the models as
request rows: committed offsets, group descriptions (DescribeGroups, with the consumer
protocol's subscription and assignment bytes decoded; ConsumerGroupDescribe, KIP-848), topic ids.
The answers are the generated response classes (`kgroup.protocol.generated.wire`), read as they
come, except OffsetFetch's (`results.FetchedGroup`, made for describe's hot path). Pure: no I/O.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable, Mapping
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Protocol

from kgroup.core.errors import KgroupError
from kgroup.core.models import (
    BrokerNode,
    CommittedOffset,
    GroupDescription,
    MemberDescription,
    TopicPartition,
    committed_offset,
)
from kgroup.core.wire.error_codes import NONE
from kgroup.core.wire.frames import ProtocolError
from kgroup.core.wire.kafka_errors import (
    Retry,
    coordinator_failure,
    group_error,
    partition_error,
)
from kgroup.core.wire.member_protocol import decode_assignment, decode_subscription, pairs
from kgroup.core.wire.results import FetchedGroup, FetchedOffset

if TYPE_CHECKING:
    from kgroup.protocol.generated.wire import consumer_group_describe_response as cgd_res
    from kgroup.protocol.generated.wire import describe_groups_response as dg_res


def topic_id_text(raw: bytes | None) -> str | None:
    """Kafka's printed form of a topic id (Uuid.toString: unpadded base64url of the 16 bytes);
    None for a missing or all-zero id (Uuid.ZERO_UUID: the broker has none)."""
    if raw is None or raw == bytes(16):
        return None
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def rack_of(node: BrokerNode | None) -> str | None:
    """The broker's rack; None for an unknown broker or one without a rack."""
    return node.rack if node is not None else None


def commit_rows(
    offsets: Mapping[TopicPartition, CommittedOffset],
) -> list[tuple[str, int, int, int, str]]:
    """OffsetCommit rows (topic, partition, offset, leader epoch or -1, metadata), sorted."""
    return [
        (
            tp.topic,
            tp.partition,
            value.offset,
            value.leader_epoch if value.leader_epoch is not None else -1,
            value.metadata or "",
        )
        for tp, value in sorted(offsets.items())
    ]


def to_committed_offsets(
    group: FetchedGroup,
) -> dict[TopicPartition, CommittedOffset] | KgroupError | Retry:
    """One group's OffsetFetch answer as offsets, an error, or a retriable error."""
    if group.error_code != NONE:
        return coordinator_failure(
            group.error_code,
            group_error(group.error_code, group.group_id, "fetch the committed offsets"),
        )
    for item in group.partitions:
        if item.error_code != NONE:
            tp = TopicPartition(item.topic, item.partition)
            return coordinator_failure(
                item.error_code, partition_error(item.error_code, group.group_id, tp)
            )
    # sorted by (topic, partition) tuples, compared in C (TopicPartition's order is Python's)
    shared = _PARTITIONS.get  # partition_of's lookup, without its frame for a known partition
    return {
        (shared((item.topic, item.partition)) or partition_of(item.topic, item.partition)): (
            committed_offset(
                item.offset,
                item.leader_epoch if item.leader_epoch >= 0 else None,
                item.metadata or "",
            )
        )
        for item in sorted(group.partitions, key=_position)
        if item.offset >= 0  # -1: no committed offset for this partition
    }


# One TopicPartition per partition of the cluster, shared by every group's offsets: a fleet's
# 10,000 groups commit the same few hundred partitions, and a shared key is found by identity
# (no Python-level __eq__) in the dicts the engines join on. Bounded by the cluster's size.
_PARTITIONS: dict[tuple[str, int], TopicPartition] = {}
_PARTITIONS_MAX = 1_000_000


def partition_of(topic: str, partition: int) -> TopicPartition:
    """The shared TopicPartition of (`topic`, `partition`)."""
    key = (topic, partition)
    tp = _PARTITIONS.get(key)
    if tp is None:
        if len(_PARTITIONS) >= _PARTITIONS_MAX:
            _PARTITIONS.clear()
        tp = _PARTITIONS[key] = TopicPartition(topic, partition)
    return tp


#: a FetchedOffset's (topic, partition), made in C (no Python frame a partition)
_position: Callable[[FetchedOffset], tuple[str, int]] = itemgetter(0, 1)


def to_group_description(
    group: dg_res.DescribedGroup, coordinator: BrokerNode | None
) -> GroupDescription:
    """A DescribeGroups answer as a GroupDescription (consumer protocol bytes decoded)."""
    members = sorted(
        (to_member(member, group.protocol_type) for member in group.members),
        key=lambda member: member.member_id,
    )
    return GroupDescription(
        group_id=group.group_id,
        state=group.group_state or "Unknown",
        type="classic",
        # "" (a group only committing offsets, Kafka's isSimpleConsumerGroup): no protocol type
        protocol_type=group.protocol_type or None,
        assignor=group.protocol_data or None,
        coordinator=coordinator,
        members=tuple(members),
    )


# KIP-848 state names as ConsumerGroupDescribe spells them -> the names kgroup shows.
_CONSUMER_GROUP_STATES = {
    "empty": "Empty",
    "assigning": "Assigning",
    "reconciling": "Reconciling",
    "stable": "Stable",
    "dead": "Dead",
}


# ConsumerGroupDescribeResponse v1 MemberType (KIP-1099): -1 unknown, 0 classic, 1 consumer
_MEMBER_TYPES = {0: "classic", 1: "consumer"}


class _TypedGroup(Protocol):
    group_id: str
    group_epoch: int
    assignment_epoch: int


class _TypedMember(Protocol):
    member_id: str
    client_id: str
    client_host: str
    rack_id: str | None
    member_epoch: int


def typed_member(member: _TypedMember, **fields: Any) -> MemberDescription:
    """A member of a group of a type with its own describe API: its id, client, host, rack and
    epoch, and `fields`."""
    return MemberDescription(
        member_id=member.member_id,
        client_id=member.client_id or None,
        host=member.client_host or None,
        rack=member.rack_id,
        member_epoch=member.member_epoch,
        **fields,
    )


def typed_group_description(
    group_type: str,
    group: _TypedGroup,
    state: str,
    states: Mapping[str, str],
    coordinator: BrokerNode | None,
    members: Iterable[MemberDescription],
    **fields: Any,
) -> GroupDescription:
    """A group of a type with its own describe API (`consumer`, `share`, `streams`): its state
    as kgroup names it (`states`, by the answer's lower-case name), its epochs, its members by
    id, and `fields`."""
    return GroupDescription(
        group_id=group.group_id,
        state=states.get(state.lower(), state or "Unknown"),
        type=group_type,
        protocol_type=group_type,
        coordinator=coordinator,
        members=tuple(sorted(members, key=lambda member: member.member_id)),
        group_epoch=group.group_epoch,
        assignment_epoch=group.assignment_epoch,
        **fields,
    )


def _assigned(assignment: cgd_res.Assignment) -> tuple[TopicPartition, ...]:
    """A ConsumerGroupDescribe assignment's partitions, sorted."""
    pairs = sorted(
        (t.topic_name, partition) for t in assignment.topic_partitions for partition in t.partitions
    )
    return tuple(TopicPartition(t, p) for t, p in pairs)


def to_consumer_group_description(
    group: cgd_res.DescribedGroup, coordinator: BrokerNode | None
) -> GroupDescription:
    """A ConsumerGroupDescribe answer as a GroupDescription (type `consumer`)."""
    members = (
        typed_member(
            member,
            group_instance_id=member.instance_id,
            assignment=_assigned(member.assignment),
            target_assignment=_assigned(member.target_assignment),
            subscription=tuple(sorted(member.subscribed_topic_names)),
            subscribed_topic_regex=member.subscribed_topic_regex or None,
            member_type=_MEMBER_TYPES.get(member.member_type),
        )
        for member in group.members
    )
    return typed_group_description(
        "consumer",
        group,
        group.group_state,
        _CONSUMER_GROUP_STATES,
        coordinator,
        members,
        assignor=group.assignor_name or None,
    )


def to_member(member: dg_res.DescribedGroupMember, protocol_type: str) -> MemberDescription:
    """A described member; its subscription and assignment decoded for `consumer` groups.

    Bytes that do not decode are kept raw, with no subscription or assignment.
    """
    assignment: tuple[TopicPartition, ...] = ()
    subscription: tuple[str, ...] | None = None
    rack: str | None = None
    if protocol_type == "consumer":
        if member.member_metadata:
            try:
                decoded = decode_subscription(member.member_metadata).message
                subscription = tuple(sorted(decoded.topics))
                rack = decoded.rack_id
            except ProtocolError:
                pass
        if member.member_assignment:
            try:
                assigned = decode_assignment(member.member_assignment).message
                assignment = tuple(
                    sorted({TopicPartition(t, p) for t, p in pairs(assigned.assigned_partitions)})
                )
            except ProtocolError:
                pass
    return MemberDescription(
        member_id=member.member_id,
        group_instance_id=member.group_instance_id,
        client_id=member.client_id or None,
        host=member.client_host or None,
        assignment=assignment,
        subscription=subscription,
        rack=rack,
        raw_metadata=member.member_metadata or None,
        raw_assignment=member.member_assignment or None,
    )
