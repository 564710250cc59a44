"""Streams groups (KIP-1071) over the wire: StreamsGroupDescribe (89).

A streams group commits offsets like a consumer group (OffsetCommit / OffsetFetch), so its
offsets and lag are read as theirs; what only StreamsGroupDescribe says is the topology (its
epoch and subtopologies, each with its source topics) and each member's tasks: a task is a
subtopology and a partition number, and an active task processes that partition of every source
topic of its subtopology (KIP-1071). Members' assignments are given here as those source topic
partitions, so that `describe` names the owner of each partition, and their tasks as text
(`0:0,1;1:2`: subtopology, then partitions; standby and warm-up tasks after `standby=` and
`warmup=`).

A broker without the API (every Kafka before 4.1, or 4.1 with streams groups not enabled): an
error for each group tagged UNSUPPORTED_VERSION, never "does not exist".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from kgroup.core.models import BrokerNode, GroupDescription, TopicPartition
from kgroup.core.wire import typed_calls
from kgroup.core.wire.convert import typed_group_description, typed_member
from kgroup.protocol.messages.streams_groups import STREAMS_GROUP_DESCRIBE

if TYPE_CHECKING:
    from kgroup.core.wire.client import WireClient
    from kgroup.protocol.generated.wire import streams_group_describe_response as sgd_res

# StreamsGroup.StreamsGroupState's names as StreamsGroupDescribe spells them (toString)
_STATES = {
    "empty": "Empty",
    "not_ready": "NotReady",
    "assigning": "Assigning",
    "reconciling": "Reconciling",
    "stable": "Stable",
    "dead": "Dead",
}


def tasks_text(assignment: sgd_res.Assignment) -> str:
    """A member's tasks: `0:0,1;1:2`, then ` standby=...` and ` warmup=...` when it has any."""

    def one(tasks: Iterable[sgd_res.TaskIds]) -> str:
        return ";".join(
            f"{t.subtopology_id}:{','.join(str(p) for p in sorted(t.partitions))}"
            for t in sorted(tasks, key=lambda t: t.subtopology_id)
        )

    text = one(assignment.active_tasks)
    for kind, tasks in (("standby", assignment.standby_tasks), ("warmup", assignment.warmup_tasks)):
        if tasks:
            text += f" {kind}={one(tasks)}"
    return text


def _partitions(
    assignment: sgd_res.Assignment, sources: dict[str, list[str]]
) -> tuple[TopicPartition, ...]:
    """The source topic partitions of a member's active tasks."""
    return tuple(
        sorted(
            {
                TopicPartition(topic, p)
                for task in assignment.active_tasks
                for topic in sources.get(task.subtopology_id, ())
                for p in task.partitions
            }
        )
    )


def to_streams_group_description(
    group: sgd_res.DescribedGroup, node: BrokerNode
) -> GroupDescription:
    """One group of a StreamsGroupDescribe answer as a GroupDescription (type `streams`)."""
    topology = group.topology
    sources = {
        s.subtopology_id: list(s.source_topics)
        for s in (topology.subtopologies if topology is not None else None) or ()
    }
    subscription = tuple(sorted({t for topics in sources.values() for t in topics}))
    members = (
        typed_member(
            mb,
            group_instance_id=mb.instance_id,
            assignment=_partitions(mb.assignment, sources),
            target_assignment=_partitions(mb.target_assignment, sources),
            subscription=subscription,
            member_type="classic" if mb.is_classic else "streams",
            tasks=tasks_text(mb.assignment),
        )
        for mb in group.members
    )
    epoch = topology.epoch if topology is not None else None
    return typed_group_description(
        "streams", group, group.group_state, _STATES, node, members, topology_epoch=epoch
    )


def describe_streams_groups(
    client: WireClient, group_ids: Iterable[str]
) -> dict[str, GroupDescription]:
    """Describe streams groups: one StreamsGroupDescribe per coordinator."""
    from kgroup.protocol.generated.wire import streams_group_describe_request as sgd_req

    return typed_calls.describe_groups(
        client,
        group_ids,
        STREAMS_GROUP_DESCRIBE,
        lambda groups: sgd_req.StreamsGroupDescribeRequest(groups),
        to_streams_group_description,
        typed_calls.needs(
            STREAMS_GROUP_DESCRIBE,
            "KIP-1071 streams groups: Kafka 4.1+ with the streams rebalance protocol enabled",
            "describe streams groups",
            "streams groups need Kafka 4.1 or later with streams groups enabled",
        ),
        "streams",
    )
