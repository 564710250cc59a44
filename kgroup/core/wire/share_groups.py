"""Share groups (KIP-932) over the wire: describe, start offsets, alter and delete them.

Sent through a WireClient's coordinator plumbing (one request per coordinator, retried when the
coordinator moved), as the generated message classes of the declarations of
`kgroup.protocol.messages.share_groups` (`kgroup.core.wire.typed_calls`). What Kafka does, from
its sources:

- A share group commits no offsets. Its share coordinator keeps, per share partition, the
  **start offset**: the earliest offset of the records the group is not done with (records after
  it may already be acknowledged; `SharePartitionOffsetInfo` of the Java admin client).
  DescribeShareGroupOffsets (90) returns it; -1 means the group holds no state for the
  partition (`ListShareGroupOffsetsHandler` maps it to none, `kafka-share-groups` prints `-`).
- AlterShareGroupOffsets (91) sets start offsets and DeleteShareGroupOffsets (92) drops a topic's
  state, both only while the group is empty (NON_EMPTY_GROUP otherwise; `GroupMetadataManager`).
- A broker without an API (Kafka before 4.1, or share groups off): one error for each group,
  tagged UNSUPPORTED_VERSION, never "does not exist".

Groups themselves, share groups included, are deleted by `kgroup.core.wire.delete_groups`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from kgroup.core.errors import KgroupError, SafetyRefusal
from kgroup.core.models import (
    BrokerNode,
    CommittedOffset,
    GroupDescription,
    TopicPartition,
)
from kgroup.core.wire import typed_calls
from kgroup.core.wire.convert import typed_group_description, typed_member
from kgroup.core.wire.error_codes import NON_EMPTY_GROUP, NONE
from kgroup.core.wire.kafka_errors import (
    Retry,
    coordinator_failure,
    group_error,
    missing_answer,
    tagged,
)
from kgroup.core.wire.typed_calls import by_group, exchange, guarded, per_coordinator
from kgroup.protocol.messages.share_groups import (
    ALTER_SHARE_GROUP_OFFSETS,
    DELETE_SHARE_GROUP_OFFSETS,
    DESCRIBE_SHARE_GROUP_OFFSETS,
    SHARE_GROUP_DESCRIBE,
)
from kgroup.protocol.model import Api

if TYPE_CHECKING:
    from kgroup.core.wire.client import WireClient
    from kgroup.core.wire.connection import BrokerConnection
    from kgroup.core.wire.typed_calls import Missing
    from kgroup.protocol.generated.wire import alter_share_group_offsets_response as asgo_res
    from kgroup.protocol.generated.wire import describe_share_group_offsets_response as dsgo_res
    from kgroup.protocol.generated.wire import share_group_describe_response as sgd_res

Offsets = dict[TopicPartition, CommittedOffset]

# ShareGroup.ShareGroupState's names as ShareGroupDescribe spells them (toString)
_STATES = {"empty": "Empty", "stable": "Stable", "dead": "Dead", "unknown": "Unknown"}

_WHY = {
    SHARE_GROUP_DESCRIBE.key: "describe share groups",
    DESCRIBE_SHARE_GROUP_OFFSETS.key: "read share-group start offsets",
    ALTER_SHARE_GROUP_OFFSETS.key: "reset share-group start offsets",
    DELETE_SHARE_GROUP_OFFSETS.key: "delete share-group start offsets",
}


def _needs(api: Api) -> Missing:
    return typed_calls.needs(
        api,
        "KIP-932 share groups: Kafka 4.1+ with share.version=1",
        _WHY[api.key],
        "share groups need Kafka 4.1 or later with share groups enabled",
    )


# -- ShareGroupDescribe --------------------------------------------------------------------------


def to_share_group_description(group: sgd_res.DescribedGroup, node: BrokerNode) -> GroupDescription:
    """One group of a ShareGroupDescribe answer as a GroupDescription (type `share`)."""
    members = (
        typed_member(
            member,
            assignment=tuple(
                sorted(
                    TopicPartition(tp.topic_name, p)
                    for tp in member.assignment.topic_partitions
                    for p in tp.partitions
                )
            ),
            subscription=tuple(sorted(member.subscribed_topic_names)),
        )
        for member in group.members
    )
    state, assignor = group.group_state, group.assignor_name or None
    return typed_group_description("share", group, state, _STATES, node, members, assignor=assignor)


def describe_share_groups(
    client: WireClient, group_ids: Iterable[str]
) -> dict[str, GroupDescription]:
    """Describe share groups: one ShareGroupDescribe per coordinator. A group that fails
    carries its error (GROUP_ID_NOT_FOUND for a group that is not a share group)."""
    from kgroup.protocol.generated.wire import share_group_describe_request as sgd_req

    return typed_calls.describe_groups(
        client,
        group_ids,
        SHARE_GROUP_DESCRIBE,
        lambda groups: sgd_req.ShareGroupDescribeRequest(groups),
        to_share_group_description,
        _needs(SHARE_GROUP_DESCRIBE),
        "share",
    )


# -- DescribeShareGroupOffsets -------------------------------------------------------------------


def share_group_offsets(
    client: WireClient, group_ids: Iterable[str]
) -> dict[str, Offsets | KgroupError]:
    """Each share group's start offsets, as committed offsets (partitions where the group holds
    no state are left out): one DescribeShareGroupOffsets per coordinator, all topics."""
    from kgroup.protocol.generated.wire import describe_share_group_offsets_request as dsgo_req

    def answer(
        connection: BrokerConnection, node: BrokerNode, groups: list[str]
    ) -> dict[str, Offsets | KgroupError | Retry]:
        request = dsgo_req.DescribeShareGroupOffsetsRequest(
            tuple(dsgo_req.DescribeShareGroupOffsetsRequestGroup(g, None) for g in groups)
        )
        described = exchange(connection, DESCRIBE_SHARE_GROUP_OFFSETS, request)
        return by_group(described.groups, "read the share-partition start offsets", _start_offsets)

    return per_coordinator(client, group_ids, _needs(DESCRIBE_SHARE_GROUP_OFFSETS), answer)


def _start_offsets(group: dsgo_res.DescribeShareGroupOffsetsResponseGroup) -> Offsets | KgroupError:
    offsets: Offsets = {}
    for topic in group.topics:
        for p in topic.partitions:
            tp = TopicPartition(topic.topic_name, p.partition_index)
            if p.error_code != NONE:
                return group_error(
                    p.error_code,
                    group.group_id,
                    f"read the share-partition start offset of {tp}",
                    p.error_message,
                )
            if p.start_offset < 0:
                continue  # no state for the partition: Kafka's tool prints "-"
            epoch = p.leader_epoch
            offsets[tp] = CommittedOffset(p.start_offset, epoch if epoch >= 0 else None)
    return offsets


# -- AlterShareGroupOffsets ----------------------------------------------------------------------


def _non_empty(group_id: str, action: str) -> KgroupError:
    return tagged(
        SafetyRefusal(
            f"group {group_id} has active members: Kafka {action} a share group only while it "
            "is empty (NON_EMPTY_GROUP)",
            hint="stop the group's share consumers first",
        ),
        "NON_EMPTY_GROUP",
    )


def _refused(
    code: int, message: str | None, group_id: str, operation: str, action: str
) -> KgroupError | Retry | None:
    """None for no error; NON_EMPTY_GROUP as a SafetyRefusal (Kafka `action` a share group only
    while it is empty); any other code as the error of `operation`, retried where it says so."""
    if code == NONE:
        return None
    if code == NON_EMPTY_GROUP:
        return _non_empty(group_id, action)
    return coordinator_failure(code, group_error(code, group_id, operation, message))


def alter_share_group_offsets(
    client: WireClient, group_id: str, offsets: Mapping[TopicPartition, int]
) -> None:
    """Set the group's start offsets in one AlterShareGroupOffsets request to its coordinator;
    raises the first partition's error (NON_EMPTY_GROUP as a SafetyRefusal)."""
    from kgroup.protocol.generated.wire import alter_share_group_offsets_request as asgo_req

    by_topic: dict[str, list[asgo_req.AlterShareGroupOffsetsRequestPartition]] = {}
    for tp, offset in sorted(offsets.items()):
        by_topic.setdefault(tp.topic, []).append(
            asgo_req.AlterShareGroupOffsetsRequestPartition(tp.partition, offset)
        )
    request = asgo_req.AlterShareGroupOffsetsRequest(
        group_id,
        tuple(
            asgo_req.AlterShareGroupOffsetsRequestTopic(t, tuple(ps)) for t, ps in by_topic.items()
        ),
    )

    def answer(
        connection: BrokerConnection, node: BrokerNode, groups: list[str]
    ) -> dict[str, bool | KgroupError | Retry]:
        altered = exchange(connection, ALTER_SHARE_GROUP_OFFSETS, request)
        return {group_id: _altered(altered, group_id, offsets)}

    client._for_group(group_id, guarded(_needs(ALTER_SHARE_GROUP_OFFSETS), answer))


def _altered(
    answer: asgo_res.AlterShareGroupOffsetsResponse,
    group_id: str,
    offsets: Mapping[TopicPartition, int],
) -> bool | KgroupError | Retry:
    """True when every partition of `offsets` was set, else the first error."""
    action = "resets the start offsets of"
    # Kafka 4.1 puts a group's error (NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND, NOT_COORDINATOR...)
    # in the top-level ErrorCode, as AlterShareGroupOffsetsHandler reads it first
    failed = _refused(
        answer.error_code, answer.error_message, group_id, "reset the start offsets", action
    )
    if failed is not None:
        return failed
    answered = set()
    for topic in answer.responses:
        for p in topic.partitions:
            tp = TopicPartition(topic.topic_name, p.partition_index)
            answered.add(tp)
            operation = f"reset the start offset of {tp}"
            failed = _refused(p.error_code, p.error_message, group_id, operation, action)
            if failed is not None:
                return failed
    unanswered = sorted(set(offsets) - answered)
    if unanswered:
        return missing_answer(
            f"the coordinator of group {group_id} did not answer for {unanswered[0]}"
        )
    return True


# -- DeleteShareGroupOffsets ---------------------------------------------------------------------


def delete_share_group_offsets(
    client: WireClient, group_id: str, topics: Sequence[str]
) -> dict[str, KgroupError | None]:
    """Drop the group's state of `topics` (DeleteShareGroupOffsets works per topic): topic ->
    None (deleted) or its error. Group-level errors are raised."""
    from kgroup.protocol.generated.wire import delete_share_group_offsets_request as dsgo_req

    names = sorted(set(topics))
    if not names:
        return {}
    request = dsgo_req.DeleteShareGroupOffsetsRequest(
        group_id, tuple(dsgo_req.DeleteShareGroupOffsetsRequestTopic(t) for t in names)
    )

    def answer(
        connection: BrokerConnection, node: BrokerNode, groups: list[str]
    ) -> dict[str, dict[str, KgroupError | None] | KgroupError | Retry]:
        deleted = exchange(connection, DELETE_SHARE_GROUP_OFFSETS, request)
        failed = _refused(
            deleted.error_code,
            deleted.error_message,
            group_id,
            "delete the start offsets",
            "deletes the start offsets of",
        )
        if failed is not None:
            return {group_id: failed}
        return {  # Kafka 4.1: one ErrorCode per topic
            group_id: {
                topic.topic_name: group_error(
                    topic.error_code,
                    group_id,
                    f"delete the start offsets of topic {topic.topic_name}",
                    topic.error_message,
                )
                if topic.error_code != NONE
                else None
                for topic in deleted.responses
            }
        }

    outcome = client._for_group(group_id, guarded(_needs(DELETE_SHARE_GROUP_OFFSETS), answer))
    return {
        t: outcome.get(t, missing_answer(f"the coordinator did not answer for topic {t}"))
        for t in names
    }
