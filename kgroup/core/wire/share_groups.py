"""Share groups (KIP-932) over the wire: describe, start offsets, alter and delete them.

Sent through a WireClient's coordinator plumbing (one request per coordinator, retried once
when the coordinator moved), encoded and decoded with the generic dict codec
(`kgroup.protocol.dicts`) from the declarations
of `kgroup.protocol.messages.share_groups`. What Kafka does, from its sources:

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
from typing import TYPE_CHECKING, Any

from kgroup.core.errors import KgroupError, SafetyRefusal
from kgroup.core.models import (
    BrokerNode,
    CommittedOffset,
    GroupDescription,
    MemberDescription,
    TopicPartition,
)
from kgroup.core.wire import messages as m
from kgroup.core.wire.frames import translated
from kgroup.core.wire.kafka_errors import (
    Retry,
    coordinator_failure,
    group_error,
    missing_answer,
    tagged,
    unsupported_api,
)
from kgroup.protocol import dicts
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

Offsets = dict[TopicPartition, CommittedOffset]

# ShareGroup.ShareGroupState's names as ShareGroupDescribe spells them (toString)
_STATES = {"empty": "Empty", "stable": "Stable", "dead": "Dead", "unknown": "Unknown"}

_WHY = {
    SHARE_GROUP_DESCRIBE.key: "describe share groups",
    DESCRIBE_SHARE_GROUP_OFFSETS.key: "read share-group start offsets",
    ALTER_SHARE_GROUP_OFFSETS.key: "reset share-group start offsets",
    DELETE_SHARE_GROUP_OFFSETS.key: "delete share-group start offsets",
}


def missing_api(connection: BrokerConnection, api: Api) -> KgroupError | None:
    """The one-line error for a broker that does not offer `api` at a version kgroup speaks."""
    if connection.version_for(api) is not None:
        return None
    versions = ",".join(f"v{v}" for v in api.versions)
    return unsupported_api(
        f"broker {connection.address} does not offer {api.name} {versions} (KIP-932 share "
        f"groups: Kafka 4.1+ with share.version=1), so kgroup cannot {_WHY[api.key]}",
        hint="share groups need Kafka 4.1 or later with share groups enabled",
    )


def _call(connection: BrokerConnection, api: Api, values: dict[str, Any]) -> dict[str, Any]:
    version = connection.version_for(api)
    assert version is not None
    body = connection.call(api, version, dicts.encode(api.request, version, values))
    return translated(dicts.decode)(api.response, version, body, trailing="ignore")


# -- ShareGroupDescribe --------------------------------------------------------------------------


def to_share_group_description(group: dict[str, Any], node: BrokerNode) -> GroupDescription:
    """One group of a ShareGroupDescribe answer as a GroupDescription (type `share`)."""
    members = tuple(
        sorted(
            (
                MemberDescription(
                    member_id=member["member_id"],
                    client_id=member["client_id"] or None,
                    host=member["client_host"] or None,
                    assignment=tuple(
                        sorted(
                            TopicPartition(tp["topic_name"], p)
                            for tp in member["assignment"]["topic_partitions"]
                            for p in tp["partitions"]
                        )
                    ),
                    subscription=tuple(sorted(member["subscribed_topic_names"])),
                    rack=member["rack_id"],
                    member_epoch=member["member_epoch"],
                )
                for member in group["members"]
            ),
            key=lambda item: item.member_id,
        )
    )
    state = group["group_state"]
    return GroupDescription(
        group_id=group["group_id"],
        state=_STATES.get(state.lower(), state or "Unknown"),
        type="share",
        protocol_type="share",
        assignor=group["assignor_name"] or None,
        coordinator=node,
        members=members,
        group_epoch=group["group_epoch"],
        assignment_epoch=group["assignment_epoch"],
    )


def describe_share_groups(
    client: WireClient, group_ids: Iterable[str]
) -> dict[str, GroupDescription]:
    """Describe share groups: one ShareGroupDescribe per coordinator. A group that fails
    carries its error (GROUP_ID_NOT_FOUND for a group that is not a share group)."""

    def work(
        connection: BrokerConnection, node: BrokerNode, groups: list[str]
    ) -> dict[str, GroupDescription | KgroupError | Retry]:
        missing = missing_api(connection, SHARE_GROUP_DESCRIBE)
        if missing is not None:
            return dict.fromkeys(groups, missing)
        answer = _call(connection, SHARE_GROUP_DESCRIBE, {"group_ids": groups})
        out: dict[str, GroupDescription | KgroupError | Retry] = {}
        for group in answer["groups"]:
            code = group["error_code"]
            if code == m.NONE:
                out[group["group_id"]] = to_share_group_description(group, node)
            else:
                error = group_error(code, group["group_id"], "describe", group["error_message"])
                out[group["group_id"]] = coordinator_failure(code, error)
        return out

    return client._describe_each(group_ids, work, "share")


# -- DescribeShareGroupOffsets -------------------------------------------------------------------


def share_group_offsets(
    client: WireClient, group_ids: Iterable[str]
) -> dict[str, Offsets | KgroupError]:
    """Each share group's start offsets, as committed offsets (partitions where the group holds
    no state are left out): one DescribeShareGroupOffsets per coordinator, all topics."""
    wanted = list(dict.fromkeys(group_ids))
    if not wanted:
        return {}

    def work(
        connection: BrokerConnection, node: BrokerNode, groups: list[str]
    ) -> dict[str, Offsets | KgroupError | Retry]:
        missing = missing_api(connection, DESCRIBE_SHARE_GROUP_OFFSETS)
        if missing is not None:
            return dict.fromkeys(groups, missing)
        request = {"groups": [{"group_id": g, "topics": None} for g in groups]}
        answer = _call(connection, DESCRIBE_SHARE_GROUP_OFFSETS, request)
        out: dict[str, Offsets | KgroupError | Retry] = {}
        for group in answer["groups"]:
            out[group["group_id"]] = _start_offsets(group)
        return out

    results, _ = client._per_coordinator(wanted, work)
    return {g: results[g] for g in wanted}  # type: ignore[misc]


def _start_offsets(group: dict[str, Any]) -> Offsets | KgroupError | Retry:
    group_id = group["group_id"]
    code = group["error_code"]
    if code != m.NONE:
        error = group_error(
            code, group_id, "read the share-partition start offsets", group["error_message"]
        )
        return coordinator_failure(code, error)
    offsets: Offsets = {}
    for topic in group["topics"]:
        for p in topic["partitions"]:
            tp = TopicPartition(topic["topic_name"], p["partition_index"])
            if p["error_code"] != m.NONE:
                return group_error(
                    p["error_code"],
                    group_id,
                    f"read the share-partition start offset of {tp}",
                    p["error_message"],
                )
            if p["start_offset"] < 0:
                continue  # no state for the partition: Kafka's tool prints "-"
            epoch = p["leader_epoch"]
            offsets[tp] = CommittedOffset(p["start_offset"], epoch if epoch >= 0 else None)
    return offsets


# -- AlterShareGroupOffsets ----------------------------------------------------------------------


def _non_empty(group_id: str, action: str, kind: str = "a share group") -> KgroupError:
    consumers = "share consumers" if kind == "a share group" else "consumers"
    return tagged(
        SafetyRefusal(
            f"group {group_id} has active members: Kafka {action} {kind} only while it "
            "is empty (NON_EMPTY_GROUP)",
            hint=f"stop the group's {consumers} first",
        ),
        "NON_EMPTY_GROUP",
    )


def alter_share_group_offsets(
    client: WireClient, group_id: str, offsets: Mapping[TopicPartition, int]
) -> None:
    """Set the group's start offsets in one AlterShareGroupOffsets request to its coordinator;
    raises the first partition's error (NON_EMPTY_GROUP as a SafetyRefusal)."""
    by_topic: dict[str, list[dict[str, int]]] = {}
    for tp, offset in sorted(offsets.items()):
        by_topic.setdefault(tp.topic, []).append(
            {"partition_index": tp.partition, "start_offset": offset}
        )
    request = {
        "group_id": group_id,
        "topics": [{"topic_name": t, "partitions": ps} for t, ps in by_topic.items()],
    }

    def work(
        connection: BrokerConnection, node: BrokerNode, groups: list[str]
    ) -> dict[str, bool | KgroupError | Retry]:
        missing = missing_api(connection, ALTER_SHARE_GROUP_OFFSETS)
        if missing is not None:
            return {group_id: missing}
        answer = _call(connection, ALTER_SHARE_GROUP_OFFSETS, request)
        # Kafka 4.1 puts a group's error (NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND, NOT_COORDINATOR...)
        # in the top-level ErrorCode, as AlterShareGroupOffsetsHandler reads it first
        code = answer["error_code"]
        if code == m.NON_EMPTY_GROUP:
            return {group_id: _non_empty(group_id, "resets the start offsets of")}
        if code != m.NONE:
            error = group_error(code, group_id, "reset the start offsets", answer["error_message"])
            return {group_id: coordinator_failure(code, error)}
        answered = set()
        for topic in answer["responses"]:
            for p in topic["partitions"]:
                tp = TopicPartition(topic["topic_name"], p["partition_index"])
                answered.add(tp)
                code = p["error_code"]
                if code == m.NON_EMPTY_GROUP:
                    return {group_id: _non_empty(group_id, "resets the start offsets of")}
                if code != m.NONE:
                    error = group_error(
                        code, group_id, f"reset the start offset of {tp}", p["error_message"]
                    )
                    return {group_id: coordinator_failure(code, error)}
        unanswered = sorted(set(offsets) - answered)
        if unanswered:
            return {
                group_id: missing_answer(
                    f"the coordinator of group {group_id} did not answer for {unanswered[0]}"
                )
            }
        return {group_id: True}

    results, _ = client._per_coordinator([group_id], work)
    outcome = results[group_id]
    if isinstance(outcome, KgroupError):
        raise outcome


# -- DeleteShareGroupOffsets ---------------------------------------------------------------------


def delete_share_group_offsets(
    client: WireClient, group_id: str, topics: Sequence[str]
) -> dict[str, KgroupError | None]:
    """Drop the group's state of `topics` (DeleteShareGroupOffsets works per topic): topic ->
    None (deleted) or its error. Group-level errors are raised."""
    names = sorted(set(topics))
    if not names:
        return {}

    def work(
        connection: BrokerConnection, node: BrokerNode, groups: list[str]
    ) -> dict[str, dict[str, KgroupError | None] | KgroupError | Retry]:
        missing = missing_api(connection, DELETE_SHARE_GROUP_OFFSETS)
        if missing is not None:
            return {group_id: missing}
        request = {"group_id": group_id, "topics": [{"topic_name": t} for t in names]}
        answer = _call(connection, DELETE_SHARE_GROUP_OFFSETS, request)
        code = answer["error_code"]
        if code == m.NON_EMPTY_GROUP:
            return {group_id: _non_empty(group_id, "deletes the start offsets of")}
        if code != m.NONE:
            error = group_error(code, group_id, "delete the start offsets", answer["error_message"])
            return {group_id: coordinator_failure(code, error)}
        per_topic: dict[str, KgroupError | None] = {}
        for topic in answer["responses"]:  # Kafka 4.1: one ErrorCode per topic
            per_topic[topic["topic_name"]] = (
                group_error(
                    topic["error_code"],
                    group_id,
                    f"delete the start offsets of topic {topic['topic_name']}",
                    topic["error_message"],
                )
                if topic["error_code"] != m.NONE
                else None
            )
        return {group_id: per_topic}

    results, _ = client._per_coordinator([group_id], work)
    outcome = results[group_id]
    if isinstance(outcome, KgroupError):
        raise outcome
    assert isinstance(outcome, dict)
    return {
        t: outcome.get(t, missing_answer(f"the coordinator did not answer for topic {t}"))
        for t in names
    }
