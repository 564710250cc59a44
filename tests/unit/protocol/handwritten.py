"""The hand-written request encoders and response decoders kgroup used before the declarations
(`kgroup.protocol`), kept as an independent oracle: the parity tests check that the adapters
write and read the same bytes as these did, one layout function per message with each field's
version range next to it, as in Kafka's JSON specs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from kgroup.core.wire import member_protocol
from kgroup.core.wire.error_codes import NONE
from kgroup.core.wire.results import (
    FETCH_MAX_BYTES,
    FETCH_MAX_WAIT_MS,
    KEY_TYPE_GROUP,
    READ_UNCOMMITTED,
    CoordinatorResult,
    FetchedGroup,
    FetchedOffset,
    FetchedPartition,
    FetchPosition,
    ListedOffset,
)
from kgroup.protocol.messages import (
    API_VERSIONS,
    DESCRIBE_CONFIGS,
    DESCRIBE_GROUPS,
    FETCH,
    FIND_COORDINATOR,
    JOIN_GROUP,
    LEAVE_GROUP,
    LIST_GROUPS,
    LIST_OFFSETS,
    METADATA,
    OFFSET_COMMIT,
    OFFSET_DELETE,
    OFFSET_FETCH,
    SASL_AUTHENTICATE,
    SYNC_GROUP,
)
from tests.unit.wire.wirecodec import ProtocolError, Reader, Writer

# The result types the hand-written decoders returned, which kgroup no longer has (its wire
# client reads the generated message classes).


class ApiVersionsResult(NamedTuple):
    error_code: int
    versions: dict[int, tuple[int, int]]


class MetadataBroker(NamedTuple):
    node_id: int
    host: str
    port: int
    rack: str | None


class MetadataPartition(NamedTuple):
    error_code: int
    partition: int
    leader_id: int
    leader_epoch: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    offline: tuple[int, ...] = ()


class MetadataTopic(NamedTuple):
    error_code: int
    name: str | None
    topic_id: bytes | None  # the 16 raw bytes (v10+), None before v10
    is_internal: bool
    partitions: list[MetadataPartition]


class MetadataResult(NamedTuple):
    brokers: list[MetadataBroker]
    controller_id: int
    topics: list[MetadataTopic]
    cluster_id: str | None = None


class DescribedMember(NamedTuple):
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    metadata: bytes
    assignment: bytes


class DescribedGroup(NamedTuple):
    error_code: int
    group_id: str
    state: str
    protocol_type: str
    protocol_data: str
    members: list[DescribedMember]
    authorized_operations: int | None = None


class ConsumerGroupMember(NamedTuple):
    """A member of a KIP-848 consumer group as ConsumerGroupDescribe reports it."""

    member_id: str
    instance_id: str | None
    rack_id: str | None
    member_epoch: int
    client_id: str
    client_host: str
    subscribed_topic_names: tuple[str, ...]
    subscribed_topic_regex: str | None
    assignment: tuple[tuple[str, int], ...]
    target_assignment: tuple[tuple[str, int], ...]
    member_type: int = -1  # 1+ (KIP-1099): -1 unknown, 0 classic member, 1 consumer member


class ConsumerGroupDescribed(NamedTuple):
    """One group of a ConsumerGroupDescribe response."""

    error_code: int
    error_message: str | None
    group_id: str
    state: str
    group_epoch: int
    assignment_epoch: int
    assignor: str
    members: tuple[ConsumerGroupMember, ...]


class OffsetDeleteResult(NamedTuple):
    """OffsetDeleteResponse: the group-level error and (topic, partition, error) per partition."""

    error_code: int
    partitions: list[tuple[str, int, int]]


class DescribedConfig(NamedTuple):
    """One configuration entry of a resource (sensitive values come back null)."""

    name: str
    value: str | None
    read_only: bool
    source: int  # DescribeConfigsResponse ConfigSource: 1 topic, 4 static broker, 5 default ...
    sensitive: bool


class DescribedResource(NamedTuple):
    """One resource of a DescribeConfigsResponse: its error or its configuration entries."""

    error_code: int
    error_message: str | None
    resource_type: int
    resource_name: str
    configs: tuple[DescribedConfig, ...]


class JoinResult(NamedTuple):
    """JoinGroupResponse: the generation, the leader, and (for the leader) every member."""

    error_code: int
    generation: int
    protocol_name: str | None
    leader: str
    member_id: str
    members: tuple[tuple[str, bytes], ...]  # (member id, metadata); empty unless leader


class ListedGroup(NamedTuple):
    group_id: str
    protocol_type: str
    state: str | None
    type: str | None


class ListGroupsResult(NamedTuple):
    error_code: int
    groups: list[ListedGroup]


class SaslAuthenticateResult(NamedTuple):
    error_code: int
    error_message: str | None
    auth_bytes: bytes


# --- ConsumerProtocol member metadata and assignment, as this reader gives them ------------------
# Plain values of its own (kgroup's shape is the generated classes behind a version,
# `kgroup.core.wire.member_protocol.Versioned`; `versioned` turns one into the other).


@dataclass(frozen=True)
class Subscription:
    """ConsumerProtocolSubscription v0-v3 (newer versions: the known prefix)."""

    version: int
    topics: list[str]
    user_data: bytes | None = None
    owned_partitions: list[tuple[str, int]] = field(default_factory=list)
    generation_id: int = -1
    rack_id: str | None = None


@dataclass(frozen=True)
class Assignment:
    """ConsumerProtocolAssignment v0-v3 (newer versions: the known prefix)."""

    version: int
    partitions: list[tuple[str, int]]
    user_data: bytes | None = None


def versioned(value: Subscription | Assignment) -> member_protocol.Versioned:
    """The same subscription or assignment in kgroup's shape."""
    if isinstance(value, Assignment):
        return member_protocol.Versioned(
            value.version, member_protocol.assignment(value.partitions, value.user_data)
        )
    message = member_protocol.subscription(
        value.topics, value.user_data, value.owned_partitions, value.generation_id, value.rack_id
    )
    return member_protocol.Versioned(value.version, message)


# --- ApiVersions v0 (to negotiate) ---------------------------------------------------------------


def encode_api_versions_request(version: int = 0) -> bytes:
    """ApiVersionsRequest v0: an empty body."""
    if version != 0:
        raise ValueError("kgroup sends ApiVersions v0 only")
    return b""


def decode_api_versions_response(body: bytes, version: int = 0) -> ApiVersionsResult:
    reader = Reader(body, flexible=API_VERSIONS.flexible(version))
    error_code = reader.int16("ErrorCode")  # 0+

    def api_key(r: Reader) -> tuple[int, int, int]:
        key = r.int16("ApiKeys.ApiKey")  # 0+
        low = r.int16("ApiKeys.MinVersion")  # 0+
        high = r.int16("ApiKeys.MaxVersion")  # 0+
        r.tagged_fields()
        return key, low, high

    keys = reader.array(api_key, "ApiKeys")  # 0+
    if version >= 1:
        reader.int32("ThrottleTimeMs")  # 1+
    reader.tagged_fields()
    return ApiVersionsResult(error_code, {key: (low, high) for key, low, high in keys})


def encode_metadata_request(version: int = 1, *, all_topics: bool = False) -> bytes:
    """MetadataRequest v1-v12: brokers only (Topics = []) or every topic (Topics = null).

    Topics are never asked for by name: a broker that auto-creates topics on metadata requests
    would create a mistyped name. AllowAutoTopicCreation (4+) is false all the same, and no
    authorized operations are asked for (8+).
    """
    if version not in METADATA.versions:
        raise ValueError(
            f"kgroup sends Metadata v{min(METADATA.versions)}-v{max(METADATA.versions)}"
        )
    writer = Writer(flexible=METADATA.flexible(version))
    # Topics 0+: null means all topics from v1; [] means none.
    writer.nullable_array(None if all_topics else [], Writer.string)
    if version >= 4:
        writer.boolean(False)  # AllowAutoTopicCreation 4+
    if 8 <= version <= 10:
        writer.boolean(False)  # IncludeClusterAuthorizedOperations 8-10
    if version >= 8:
        writer.boolean(False)  # IncludeTopicAuthorizedOperations 8+
    writer.tagged_fields()
    return writer.getvalue()


def decode_metadata_response(body: bytes, version: int = 1) -> MetadataResult:
    reader = Reader(body, flexible=METADATA.flexible(version))
    if version >= 3:
        reader.int32("ThrottleTimeMs")  # 3+

    def int32s(r: Reader, name: str) -> tuple[int, ...]:
        return tuple(r.array(lambda x: x.int32(name), name))

    def broker(r: Reader) -> MetadataBroker:
        result = MetadataBroker(
            node_id=r.int32("Brokers.NodeId"),  # 0+
            host=r.string("Brokers.Host"),  # 0+
            port=r.int32("Brokers.Port"),  # 0+
            rack=r.nullable_string("Brokers.Rack"),  # 1+
        )
        r.tagged_fields()
        return result

    def partition(r: Reader) -> MetadataPartition:
        error_code = r.int16("Partitions.ErrorCode")  # 0+
        index = r.int32("Partitions.PartitionIndex")  # 0+
        leader = r.int32("Partitions.LeaderId")  # 0+
        epoch = r.int32("Partitions.LeaderEpoch") if version >= 7 else -1  # 7+
        replicas = int32s(r, "Partitions.ReplicaNodes")  # 0+
        isr = int32s(r, "Partitions.IsrNodes")  # 0+
        offline = int32s(r, "Partitions.OfflineReplicas") if version >= 5 else ()  # 5+
        r.tagged_fields()
        return MetadataPartition(error_code, index, leader, epoch, replicas, isr, offline)

    def topic(r: Reader) -> MetadataTopic:
        error_code = r.int16("Topics.ErrorCode")  # 0+
        name = r.nullable_string("Topics.Name")  # 0+, nullable 12+
        if name is None and version < 12:
            raise ProtocolError("null topic name before v12", position=r.pos, field="Topics.Name")
        topic_id = r.uuid("Topics.TopicId") if version >= 10 else None  # 10+
        is_internal = r.boolean("Topics.IsInternal")  # 1+
        partitions = r.array(partition, "Topics.Partitions")  # 0+
        if version >= 8:
            r.int32("Topics.TopicAuthorizedOperations")  # 8+
        r.tagged_fields()
        return MetadataTopic(error_code, name, topic_id, is_internal, partitions)

    brokers = reader.array(broker, "Brokers")  # 0+
    cluster_id = reader.nullable_string("ClusterId") if version >= 2 else None  # 2+
    controller_id = reader.int32("ControllerId")  # 1+
    topics = reader.array(topic, "Topics")  # 0+
    if 8 <= version <= 10:
        reader.int32("ClusterAuthorizedOperations")  # 8-10
    reader.tagged_fields()
    return MetadataResult(brokers, controller_id, topics, cluster_id)


def encode_list_offsets_request(
    version: int,
    topics: Sequence[tuple[str, Sequence[tuple[int, int]]]],
    isolation_level: int = READ_UNCOMMITTED,
) -> bytes:
    """ListOffsetsRequest v1-v8 as a consumer sends it (ReplicaId -1).

    `topics` is [(topic, [(partition, timestamp), ...]), ...]; the timestamp is a time in ms or
    EARLIEST_TIMESTAMP / LATEST_TIMESTAMP. IsolationLevel exists from v2; CurrentLeaderEpoch
    (4+) is sent as -1: no fencing, the broker answers for its current leader epoch.
    """
    if version not in LIST_OFFSETS.versions:
        raise ValueError(
            f"kgroup sends ListOffsets v{min(LIST_OFFSETS.versions)}-v{max(LIST_OFFSETS.versions)}"
        )
    if version < 2 and isolation_level != READ_UNCOMMITTED:
        raise ValueError("ListOffsets v1 has no isolation level")
    writer = Writer(flexible=LIST_OFFSETS.flexible(version))
    writer.int32(-1)  # ReplicaId 0+
    if version >= 2:
        writer.int8(isolation_level)  # IsolationLevel 2+

    def partition(w: Writer, item: tuple[int, int]) -> None:
        w.int32(item[0])  # PartitionIndex 0+
        if version >= 4:
            w.int32(-1)  # CurrentLeaderEpoch 4+
        w.int64(item[1])  # Timestamp 0+
        w.tagged_fields()

    def topic(w: Writer, item: tuple[str, Sequence[tuple[int, int]]]) -> None:
        w.string(item[0])  # Name 0+
        w.array(item[1], partition)  # Partitions 0+
        w.tagged_fields()

    writer.array(topics, topic)  # Topics 0+
    writer.tagged_fields()
    return writer.getvalue()


def decode_list_offsets_response(body: bytes, version: int) -> list[ListedOffset]:
    reader = Reader(body, flexible=LIST_OFFSETS.flexible(version))
    if version >= 2:
        reader.int32("ThrottleTimeMs")  # 2+

    def topic(r: Reader) -> list[ListedOffset]:
        name = r.string("Topics.Name")  # 0+

        def partition(p: Reader) -> ListedOffset:
            index = p.int32("Partitions.PartitionIndex")  # 0+
            error_code = p.int16("Partitions.ErrorCode")  # 0+
            timestamp = p.int64("Partitions.Timestamp")  # 1+
            offset = p.int64("Partitions.Offset")  # 1+
            epoch = p.int32("Partitions.LeaderEpoch") if version >= 4 else -1  # 4+
            p.tagged_fields()
            return ListedOffset(name, index, error_code, timestamp, offset, epoch)

        partitions = r.array(partition, "Topics.Partitions")  # 0+
        r.tagged_fields()
        return partitions

    topics = reader.array(topic, "Topics")  # 0+
    reader.tagged_fields()
    return [p for t in topics for p in t]


def encode_find_coordinator_request(version: int, keys: Sequence[str]) -> bytes:
    """FindCoordinatorRequest: v4 carries many keys (KIP-699); v1-v3 exactly one."""
    writer = Writer(flexible=FIND_COORDINATOR.flexible(version))
    if version >= 4:
        writer.int8(KEY_TYPE_GROUP)  # KeyType 1+
        writer.array(keys, Writer.string)  # CoordinatorKeys 4+
    else:
        if len(keys) != 1:
            raise ValueError(f"FindCoordinator v{version} takes exactly one key")
        writer.string(keys[0])  # Key 0-3
        writer.int8(KEY_TYPE_GROUP)  # KeyType 1+
    writer.tagged_fields()
    return writer.getvalue()


def decode_find_coordinator_response(
    body: bytes, version: int, keys: Sequence[str]
) -> list[CoordinatorResult]:
    """Results per key; v1-v3 answers for the one key of the request."""
    reader = Reader(body, flexible=FIND_COORDINATOR.flexible(version))
    reader.int32("ThrottleTimeMs")  # 1+
    if version >= 4:

        def coordinator(r: Reader) -> CoordinatorResult:
            result = CoordinatorResult(
                key=r.string("Coordinators.Key"),  # 4+
                node_id=r.int32("Coordinators.NodeId"),  # 4+
                host=r.string("Coordinators.Host"),  # 4+
                port=r.int32("Coordinators.Port"),  # 4+
                error_code=r.int16("Coordinators.ErrorCode"),  # 4+
                error_message=r.nullable_string("Coordinators.ErrorMessage"),  # 4+
            )
            r.tagged_fields()
            return result

        results = reader.array(coordinator, "Coordinators")
    else:
        error_code = reader.int16("ErrorCode")  # 0-3
        error_message = reader.nullable_string("ErrorMessage")  # 1-3
        node_id = reader.int32("NodeId")  # 0-3
        host = reader.string("Host")  # 0-3
        port = reader.int32("Port")  # 0-3
        results = [CoordinatorResult(keys[0], node_id, host, port, error_code, error_message)]
    reader.tagged_fields()
    return results


def encode_describe_groups_request(version: int, group_ids: Sequence[str]) -> bytes:
    writer = Writer(flexible=DESCRIBE_GROUPS.flexible(version))
    writer.array(group_ids, Writer.string)  # Groups 0+
    if version >= 3:
        writer.boolean(False)  # IncludeAuthorizedOperations 3+
    writer.tagged_fields()
    return writer.getvalue()


def decode_describe_groups_response(body: bytes, version: int) -> list[DescribedGroup]:
    reader = Reader(body, flexible=DESCRIBE_GROUPS.flexible(version))
    if version >= 1:
        reader.int32("ThrottleTimeMs")  # 1+

    def member(r: Reader) -> DescribedMember:
        member_id = r.string("Members.MemberId")  # 0+
        instance = r.nullable_string("Members.GroupInstanceId") if version >= 4 else None  # 4+
        result = DescribedMember(
            member_id=member_id,
            group_instance_id=instance,
            client_id=r.string("Members.ClientId"),  # 0+
            client_host=r.string("Members.ClientHost"),  # 0+
            metadata=r.bytes_("Members.MemberMetadata"),  # 0+
            assignment=r.bytes_("Members.MemberAssignment"),  # 0+
        )
        r.tagged_fields()
        return result

    def group(r: Reader) -> DescribedGroup:
        error_code = r.int16("Groups.ErrorCode")  # 0+
        group_id = r.string("Groups.GroupId")  # 0+
        state = r.string("Groups.GroupState")  # 0+
        protocol_type = r.string("Groups.ProtocolType")  # 0+
        protocol_data = r.string("Groups.ProtocolData")  # 0+
        members = r.array(member, "Groups.Members")  # 0+
        operations = r.int32("Groups.AuthorizedOperations") if version >= 3 else None  # 3+
        r.tagged_fields()
        return DescribedGroup(
            error_code, group_id, state, protocol_type, protocol_data, members, operations
        )

    groups = reader.array(group, "Groups")  # 0+
    reader.tagged_fields()
    return groups


def encode_consumer_group_describe_request(version: int, group_ids: Sequence[str]) -> bytes:
    writer = Writer(flexible=True)
    writer.array(group_ids, Writer.string)  # GroupIds 0+
    writer.boolean(False)  # IncludeAuthorizedOperations 0+
    writer.tagged_fields()
    return writer.getvalue()


def _cg_assignment(r: Reader) -> tuple[tuple[str, int], ...]:
    def topic(t: Reader) -> list[tuple[str, int]]:
        t.uuid("TopicPartitions.TopicId")  # 0+
        name = t.string("TopicPartitions.TopicName")  # 0+
        partitions = t.array(lambda x: x.int32("Partitions"), "TopicPartitions.Partitions")
        t.tagged_fields()
        return [(name, p) for p in partitions]

    pairs = [pair for chunk in r.array(topic, "Assignment.TopicPartitions") for pair in chunk]
    r.tagged_fields()
    return tuple(sorted(pairs))


def decode_consumer_group_describe_response(
    body: bytes, version: int
) -> list[ConsumerGroupDescribed]:
    reader = Reader(body, flexible=True)
    reader.int32("ThrottleTimeMs")  # 0+

    def member(r: Reader) -> ConsumerGroupMember:
        result = ConsumerGroupMember(
            member_id=r.string("Members.MemberId"),  # 0+
            instance_id=r.nullable_string("Members.InstanceId"),  # 0+
            rack_id=r.nullable_string("Members.RackId"),  # 0+
            member_epoch=r.int32("Members.MemberEpoch"),  # 0+
            client_id=r.string("Members.ClientId"),  # 0+
            client_host=r.string("Members.ClientHost"),  # 0+
            subscribed_topic_names=tuple(
                r.array(lambda x: x.string("SubscribedTopicNames"), "Members.SubscribedTopicNames")
            ),  # 0+
            subscribed_topic_regex=r.nullable_string("Members.SubscribedTopicRegex"),  # 0+
            assignment=_cg_assignment(r),  # 0+
            target_assignment=_cg_assignment(r),  # 0+
            member_type=r.int8("Members.MemberType") if version >= 1 else -1,  # 1+
        )
        r.tagged_fields()
        return result

    def group(r: Reader) -> ConsumerGroupDescribed:
        error_code = r.int16("Groups.ErrorCode")  # 0+
        error_message = r.nullable_string("Groups.ErrorMessage")  # 0+
        group_id = r.string("Groups.GroupId")  # 0+
        state = r.string("Groups.GroupState")  # 0+
        group_epoch = r.int32("Groups.GroupEpoch")  # 0+
        assignment_epoch = r.int32("Groups.AssignmentEpoch")  # 0+
        assignor = r.string("Groups.AssignorName")  # 0+
        members = tuple(r.array(member, "Groups.Members"))  # 0+
        r.int32("Groups.AuthorizedOperations")  # 0+
        r.tagged_fields()
        return ConsumerGroupDescribed(
            error_code,
            error_message,
            group_id,
            state,
            group_epoch,
            assignment_epoch,
            assignor,
            members,
        )

    groups = reader.array(group, "Groups")  # 0+
    reader.tagged_fields()
    return groups


# --- OffsetCommit v2-v8 --------------------------------------------------------------------------


def encode_offset_commit_request(
    version: int,
    group_id: str,
    offsets: Sequence[tuple[str, int, int, int, str | None]],
    *,
    generation: int = -1,
    member_id: str = "",
) -> bytes:
    """OffsetCommitRequest; by default an administrative commit: generation -1 and no member
    id, as Kafka's Admin.alterConsumerGroupOffsets sends it (AlterConsumerGroupOffsetsHandler);
    the coordinator refuses that (UNKNOWN_MEMBER_ID) while the group has members. A member's
    commit (`generation`, `member_id`) is accepted only for the group's current generation.

    `offsets`: (topic, partition, offset, leader epoch or -1, metadata), in the order to send.
    v2-v4 carry RetentionTimeMs (-1: the broker's default); v6+ the leader epoch; v7+ the
    group instance id (null here); v8 is flexible.
    """
    writer = Writer(flexible=OFFSET_COMMIT.flexible(version))
    writer.string(group_id)  # GroupId
    writer.int32(generation)  # GenerationIdOrMemberEpoch 1+
    writer.string(member_id)  # MemberId 1+
    if version >= 7:
        writer.nullable_string(None)  # GroupInstanceId 7+
    if 2 <= version <= 4:
        writer.int64(-1)  # RetentionTimeMs 2-4
    topics: dict[str, list[tuple[int, int, int, str | None]]] = {}
    for topic, partition, offset, epoch, metadata in offsets:
        topics.setdefault(topic, []).append((partition, offset, epoch, metadata))

    def partition(w: Writer, row: tuple[int, int, int, str | None]) -> None:
        index, offset, epoch, metadata = row
        w.int32(index)  # PartitionIndex
        w.int64(offset)  # CommittedOffset
        if version >= 6:
            w.int32(epoch)  # CommittedLeaderEpoch 6+
        w.nullable_string(metadata)  # CommittedMetadata
        w.tagged_fields()

    def topic(w: Writer, item: tuple[str, list[tuple[int, int, int, str | None]]]) -> None:
        w.string(item[0])  # Name
        w.array(item[1], partition)  # Partitions
        w.tagged_fields()

    writer.array(list(topics.items()), topic)  # Topics
    writer.tagged_fields()
    return writer.getvalue()


def decode_offset_commit_response(body: bytes, version: int) -> list[tuple[str, int, int]]:
    """(topic, partition, error code) for every partition of the request."""
    reader = Reader(body, flexible=OFFSET_COMMIT.flexible(version))
    if version >= 3:
        reader.int32("ThrottleTimeMs")  # 3+

    def topic(r: Reader) -> list[tuple[str, int, int]]:
        name = r.string("Topics.Name")

        def partition(p: Reader) -> tuple[str, int, int]:
            index = p.int32("Partitions.PartitionIndex")
            code = p.int16("Partitions.ErrorCode")
            p.tagged_fields()
            return name, index, code

        rows = r.array(partition, "Topics.Partitions")
        r.tagged_fields()
        return rows

    topics = reader.array(topic, "Topics")
    reader.tagged_fields()
    return [row for rows in topics for row in rows]


def encode_offset_delete_request(
    version: int, group_id: str, partitions: Sequence[tuple[str, int]]
) -> bytes:
    """OffsetDeleteRequest v0: the group and its (topic, partition)s, topics in first-seen
    order. The coordinator deletes the committed offsets of an empty group, and of an active
    consumer group those of topics it is not subscribed to (GroupCoordinator, KIP-496)."""
    if version not in OFFSET_DELETE.versions:
        raise ValueError("kgroup sends OffsetDelete v0 only")
    by_topic: dict[str, list[int]] = {}
    for topic, partition in partitions:
        by_topic.setdefault(topic, []).append(partition)

    def topic(w: Writer, item: tuple[str, list[int]]) -> None:
        w.string(item[0])  # Topics.Name 0+
        w.array(item[1], Writer.int32)  # Topics.Partitions[].PartitionIndex 0+

    writer = Writer()
    writer.string(group_id)  # GroupId 0+
    writer.array(list(by_topic.items()), topic)  # Topics 0+
    return writer.getvalue()


def decode_offset_delete_response(body: bytes, version: int) -> OffsetDeleteResult:
    reader = Reader(body, flexible=OFFSET_DELETE.flexible(version))
    error_code = reader.int16("ErrorCode")  # 0+
    reader.int32("ThrottleTimeMs")  # 0+

    def topic(r: Reader) -> list[tuple[str, int, int]]:
        name = r.string("Topics.Name")  # 0+

        def partition(p: Reader) -> tuple[str, int, int]:
            index = p.int32("Partitions.PartitionIndex")  # 0+
            code = p.int16("Partitions.ErrorCode")  # 0+
            p.tagged_fields()
            return name, index, code

        rows = r.array(partition, "Topics.Partitions")  # 0+
        r.tagged_fields()
        return rows

    topics = reader.array(topic, "Topics")  # 0+
    reader.tagged_fields()
    return OffsetDeleteResult(error_code, [row for rows in topics for row in rows])


def encode_describe_configs_request(
    version: int, resources: Sequence[tuple[int, str, Sequence[str] | None]]
) -> bytes:
    """DescribeConfigsRequest v1-v2: (resource type, name, keys or None for all) per resource,
    synonyms not asked for."""
    if version not in DESCRIBE_CONFIGS.versions:
        raise ValueError("kgroup sends DescribeConfigs v1-v2 only")

    def resource(w: Writer, item: tuple[int, str, Sequence[str] | None]) -> None:
        kind, name, keys = item
        w.int8(kind)  # Resources.ResourceType 0+
        w.string(name)  # Resources.ResourceName 0+
        w.nullable_array(keys, Writer.string)  # Resources.ConfigurationKeys 0+, nullable 0+

    writer = Writer()
    writer.array(resources, resource)  # Resources 0+
    writer.boolean(False)  # IncludeSynonyms 1+
    return writer.getvalue()


def decode_describe_configs_response(body: bytes, version: int) -> list[DescribedResource]:
    reader = Reader(body, flexible=DESCRIBE_CONFIGS.flexible(version))
    reader.int32("ThrottleTimeMs")  # 0+

    def synonym(r: Reader) -> None:
        r.string("Synonyms.Name")  # 1+
        r.nullable_string("Synonyms.Value")  # 1+
        r.int8("Synonyms.Source")  # 1+

    def config(r: Reader) -> DescribedConfig:
        name = r.string("Configs.Name")  # 0+
        value = r.nullable_string("Configs.Value")  # 0+
        read_only = r.boolean("Configs.ReadOnly")  # 0+
        source = r.int8("Configs.ConfigSource")  # 1+
        sensitive = r.boolean("Configs.IsSensitive")  # 0+
        r.array(synonym, "Configs.Synonyms")  # 1+
        return DescribedConfig(name, value, read_only, source, sensitive)

    def result(r: Reader) -> DescribedResource:
        code = r.int16("Results.ErrorCode")  # 0+
        message = r.nullable_string("Results.ErrorMessage")  # 0+
        kind = r.int8("Results.ResourceType")  # 0+
        name = r.string("Results.ResourceName")  # 0+
        configs = r.array(config, "Results.Configs")  # 0+
        return DescribedResource(code, message, kind, name, tuple(configs))

    results = reader.array(result, "Results")  # 0+
    reader.expect_end("DescribeConfigsResponse")
    return results


def encode_join_group_request(
    version: int,
    group_id: str,
    member_id: str,
    *,
    session_timeout_ms: int,
    rebalance_timeout_ms: int,
    protocol_type: str,
    protocols: Sequence[tuple[str, bytes]],
    reason: str | None = None,
) -> bytes:
    writer = Writer(flexible=JOIN_GROUP.flexible(version))
    writer.string(group_id)  # GroupId
    writer.int32(session_timeout_ms)  # SessionTimeoutMs
    writer.int32(rebalance_timeout_ms)  # RebalanceTimeoutMs 1+
    writer.string(member_id)  # MemberId
    if version >= 5:
        writer.nullable_string(None)  # GroupInstanceId 5+

    def protocol(w: Writer, item: tuple[str, bytes]) -> None:
        w.string(item[0])  # Name
        w.bytes_(item[1])  # Metadata
        w.tagged_fields()

    writer.string(protocol_type)  # ProtocolType
    writer.array(protocols, protocol)  # Protocols
    if version >= 8:
        writer.nullable_string(reason)  # Reason 8+
    writer.tagged_fields()
    return writer.getvalue()


def decode_join_group_response(body: bytes, version: int) -> JoinResult:
    reader = Reader(body, flexible=JOIN_GROUP.flexible(version))
    reader.int32("ThrottleTimeMs")  # 2+
    error_code = reader.int16("ErrorCode")
    generation = reader.int32("GenerationId")
    if version >= 7:
        reader.nullable_string("ProtocolType")  # 7+
        protocol_name = reader.nullable_string("ProtocolName")  # nullable 7+
    else:
        protocol_name = reader.string("ProtocolName")
    leader = reader.string("Leader")
    if version >= 9:
        reader.boolean("SkipAssignment")  # 9+
    member_id = reader.string("MemberId")

    def member(r: Reader) -> tuple[str, bytes]:
        mid = r.string("Members.MemberId")
        if version >= 5:
            r.nullable_string("Members.GroupInstanceId")  # 5+
        metadata = r.bytes_("Members.Metadata")
        r.tagged_fields()
        return mid, metadata

    members = tuple(reader.array(member, "Members"))
    reader.tagged_fields()
    return JoinResult(error_code, generation, protocol_name, leader, member_id, members)


def encode_sync_group_request(
    version: int,
    group_id: str,
    generation: int,
    member_id: str,
    *,
    protocol_type: str,
    protocol_name: str | None,
    assignments: Sequence[tuple[str, bytes]],
) -> bytes:
    writer = Writer(flexible=SYNC_GROUP.flexible(version))
    writer.string(group_id)  # GroupId
    writer.int32(generation)  # GenerationId
    writer.string(member_id)  # MemberId
    if version >= 3:
        writer.nullable_string(None)  # GroupInstanceId 3+
    if version >= 5:
        writer.nullable_string(protocol_type)  # ProtocolType 5+
        writer.nullable_string(protocol_name)  # ProtocolName 5+

    def assignment(w: Writer, item: tuple[str, bytes]) -> None:
        w.string(item[0])  # MemberId
        w.bytes_(item[1])  # Assignment
        w.tagged_fields()

    writer.array(assignments, assignment)  # Assignments
    writer.tagged_fields()
    return writer.getvalue()


def decode_sync_group_response(body: bytes, version: int) -> tuple[int, bytes]:
    """(error code, this member's assignment bytes)."""
    reader = Reader(body, flexible=SYNC_GROUP.flexible(version))
    reader.int32("ThrottleTimeMs")  # 1+
    error_code = reader.int16("ErrorCode")
    if version >= 5:
        reader.nullable_string("ProtocolType")  # 5+
        reader.nullable_string("ProtocolName")  # 5+
    assignment = reader.bytes_("Assignment")
    reader.tagged_fields()
    return error_code, assignment


def encode_leave_group_request(
    version: int, group_id: str, member_id: str, reason: str | None = None
) -> bytes:
    writer = Writer(flexible=LEAVE_GROUP.flexible(version))
    writer.string(group_id)  # GroupId
    if version <= 2:
        writer.string(member_id)  # MemberId 0-2
    else:

        def identity(w: Writer, mid: str) -> None:
            w.string(mid)  # MemberId
            w.nullable_string(None)  # GroupInstanceId
            if version >= 5:
                w.nullable_string(reason)  # Reason 5+
            w.tagged_fields()

        writer.array([member_id], identity)  # Members 3+
    writer.tagged_fields()
    return writer.getvalue()


def decode_leave_group_response(body: bytes, version: int) -> int:
    """The first error: the top-level code, else the member's (v3+)."""
    reader = Reader(body, flexible=LEAVE_GROUP.flexible(version))
    reader.int32("ThrottleTimeMs")  # 1+
    error_code = reader.int16("ErrorCode")
    codes: list[int] = []
    if version >= 3:

        def member(r: Reader) -> int:
            r.string("Members.MemberId")
            r.nullable_string("Members.GroupInstanceId")
            code = r.int16("Members.ErrorCode")
            r.tagged_fields()
            return code

        codes = reader.array(member, "Members")
    reader.tagged_fields()
    return error_code or next((c for c in codes if c), 0)


def encode_offset_fetch_request(
    version: int, group_ids: Sequence[str], require_stable: bool = False
) -> bytes:
    """OffsetFetchRequest for every partition of each group (Topics = null).

    v8 carries many groups (KIP-709); v2-v7 exactly one. v0-v1 cannot ask for all partitions
    (null topics came in v2), so they are not offered.
    """
    writer = Writer(flexible=OFFSET_FETCH.flexible(version))
    if version >= 8:

        def group(w: Writer, group_id: str) -> None:
            w.string(group_id)  # groupId 8+
            w.nullable_array(None, Writer.string)  # Topics 8+ (null)
            w.tagged_fields()

        writer.array(group_ids, group)  # Groups 8+
    else:
        if len(group_ids) != 1:
            raise ValueError(f"OffsetFetch v{version} takes exactly one group")
        writer.string(group_ids[0])  # GroupId 0-7
        writer.nullable_array(None, Writer.string)  # Topics 0-7 (null)
    if version >= 7:
        writer.boolean(require_stable)  # RequireStable 7+
    writer.tagged_fields()
    return writer.getvalue()


def decode_offset_fetch_response(
    body: bytes, version: int, group_ids: Sequence[str]
) -> list[FetchedGroup]:
    """Per-group results; v2-v7 answers for the one group of the request."""
    reader = Reader(body, flexible=OFFSET_FETCH.flexible(version))
    if version >= 3:
        reader.int32("ThrottleTimeMs")  # 3+

    def topic(r: Reader) -> list[FetchedOffset]:
        name = r.string("Topics.Name")

        def partition(p: Reader) -> FetchedOffset:
            index = p.int32("Partitions.PartitionIndex")
            offset = p.int64("Partitions.CommittedOffset")
            epoch = p.int32("Partitions.CommittedLeaderEpoch") if version >= 5 else -1  # 5+
            metadata = p.nullable_string("Partitions.Metadata")
            error_code = p.int16("Partitions.ErrorCode")
            p.tagged_fields()
            return FetchedOffset(name, index, offset, epoch, metadata, error_code)

        partitions = r.array(partition, "Topics.Partitions")
        r.tagged_fields()
        return partitions

    if version >= 8:

        def group(r: Reader) -> FetchedGroup:
            group_id = r.string("Groups.groupId")  # 8+
            topics = r.array(topic, "Groups.Topics")  # 8+
            error_code = r.int16("Groups.ErrorCode")  # 8+
            r.tagged_fields()
            return FetchedGroup(group_id, error_code, [p for t in topics for p in t])

        groups = reader.array(group, "Groups")
    else:
        topics = reader.array(topic, "Topics")  # 0-7
        error_code = reader.int16("ErrorCode")  # 2-7
        groups = [FetchedGroup(group_ids[0], error_code, [p for t in topics for p in t])]
    reader.tagged_fields()
    return groups


def encode_list_groups_request(
    version: int, states: Iterable[str] = (), types: Iterable[str] = ()
) -> bytes:
    """ListGroupsRequest; filters exist from v4 (states, KIP-518) and v5 (types, KIP-848)."""
    writer = Writer(flexible=LIST_GROUPS.flexible(version))
    if version >= 4:
        writer.array(sorted(states), Writer.string)  # StatesFilter 4+
    if version >= 5:
        writer.array(sorted(types), Writer.string)  # TypesFilter 5+
    writer.tagged_fields()
    return writer.getvalue()


def decode_list_groups_response(body: bytes, version: int) -> ListGroupsResult:
    reader = Reader(body, flexible=LIST_GROUPS.flexible(version))
    if version >= 1:
        reader.int32("ThrottleTimeMs")  # 1+
    error_code = reader.int16("ErrorCode")  # 0+

    def group(r: Reader) -> ListedGroup:
        group_id = r.string("Groups.GroupId")  # 0+
        protocol_type = r.string("Groups.ProtocolType")  # 0+
        state = r.string("Groups.GroupState") if version >= 4 else None  # 4+
        group_type = r.string("Groups.GroupType") if version >= 5 else None  # 5+
        r.tagged_fields()
        return ListedGroup(group_id, protocol_type, state, group_type)

    groups = reader.array(group, "Groups")  # 0+
    reader.tagged_fields()
    return ListGroupsResult(error_code, groups)


# --- SaslHandshake v1 and SaslAuthenticate v0-v2 -------------------------------------------------


def encode_sasl_handshake_request(mechanism: str) -> bytes:
    return Writer().string(mechanism).getvalue()  # Mechanism 0+


def decode_sasl_handshake_response(body: bytes) -> tuple[int, list[str]]:
    reader = Reader(body)
    error_code = reader.int16("ErrorCode")  # 0+
    mechanisms = reader.array(lambda r: r.string(), "Mechanisms")  # 0+
    return error_code, mechanisms


def encode_sasl_authenticate_request(version: int, auth_bytes: bytes) -> bytes:
    writer = Writer(flexible=SASL_AUTHENTICATE.flexible(version))
    writer.bytes_(auth_bytes)  # AuthBytes 0+
    writer.tagged_fields()
    return writer.getvalue()


def decode_sasl_authenticate_response(body: bytes, version: int) -> SaslAuthenticateResult:
    reader = Reader(body, flexible=SASL_AUTHENTICATE.flexible(version))
    error_code = reader.int16("ErrorCode")  # 0+
    error_message = reader.nullable_string("ErrorMessage")  # 0+
    auth_bytes = reader.bytes_("AuthBytes")  # 0+
    if version >= 1:
        reader.int64("SessionLifetimeMs")  # 1+
    reader.tagged_fields()
    return SaslAuthenticateResult(error_code, error_message, auth_bytes)


def _topic_partitions(reader: Reader, field_name: str) -> list[tuple[str, int]]:
    def entry(r: Reader) -> list[tuple[str, int]]:
        topic = r.string(f"{field_name}.Topic")
        return [(topic, p) for p in r.array(lambda x: x.int32(), f"{field_name}.Partitions")]

    return [tp for chunk in reader.array(entry, field_name) for tp in chunk]


def decode_subscription(data: bytes) -> Subscription:
    """Member metadata of a `consumer` group (an int16 version, then the classic encoding).

    Kafka's ConsumerProtocol reads a newer version with the newest layout it knows, as the spec
    promises new versions only append fields; so does this.
    """
    reader = Reader(data)
    version = reader.int16("Subscription.Version")
    if version < 0:
        raise ProtocolError(
            f"negative subscription version {version}", position=0, field="Subscription.Version"
        )
    topics = reader.array(lambda r: r.string(), "Topics")  # 0+
    user_data = reader.nullable_bytes("UserData")  # 0+
    owned: list[tuple[str, int]] = []
    generation_id = -1
    rack_id = None
    if version >= 1:
        owned = _topic_partitions(reader, "OwnedPartitions")  # 1+
    if version >= 2:
        generation_id = reader.int32("GenerationId")  # 2+ (KIP-792)
    if version >= 3:
        rack_id = reader.nullable_string("RackId")  # 3+ (KIP-881)
    return Subscription(version, topics, user_data, owned, generation_id, rack_id)


def decode_assignment(data: bytes) -> Assignment:
    """Member assignment of a `consumer` group (an int16 version, then the classic encoding)."""
    reader = Reader(data)
    version = reader.int16("Assignment.Version")
    if version < 0:
        raise ProtocolError(
            f"negative assignment version {version}", position=0, field="Assignment.Version"
        )
    partitions = _topic_partitions(reader, "AssignedPartitions")  # 0+
    user_data = reader.nullable_bytes("UserData")  # 0+
    return Assignment(version, partitions, user_data)


def encode_subscription(sub: Subscription) -> bytes:
    """The inverse of `decode_subscription` (tests and fakes)."""
    writer = Writer().int16(sub.version)
    writer.array(sub.topics, Writer.string)
    writer.nullable_bytes(sub.user_data)
    if sub.version >= 1:
        _write_topic_partitions(writer, sub.owned_partitions)
    if sub.version >= 2:
        writer.int32(sub.generation_id)
    if sub.version >= 3:
        writer.nullable_string(sub.rack_id)
    return writer.getvalue()


def encode_assignment(assignment: Assignment) -> bytes:
    """The inverse of `decode_assignment` (tests and fakes)."""
    writer = Writer().int16(assignment.version)
    _write_topic_partitions(writer, assignment.partitions)
    writer.nullable_bytes(assignment.user_data)
    return writer.getvalue()


def _write_topic_partitions(writer: Writer, pairs: Iterable[tuple[str, int]]) -> None:
    by_topic: dict[str, list[int]] = {}
    for topic, partition in pairs:
        by_topic.setdefault(topic, []).append(partition)

    def entry(w: Writer, item: tuple[str, list[int]]) -> None:
        w.string(item[0])
        w.array(item[1], Writer.int32)

    writer.array(by_topic.items(), entry)


def encode_fetch_request(
    version: int,
    positions: Sequence[FetchPosition],
    *,
    isolation_level: int = READ_UNCOMMITTED,
    max_wait_ms: int = FETCH_MAX_WAIT_MS,
    min_bytes: int = 0,
    max_bytes: int = FETCH_MAX_BYTES,
    rack_id: str = "",
) -> bytes:
    """FetchRequest v4-v11 as a consumer without a fetch session sends it. Partitions go in the
    order given (v3+: the broker fills the response in request order); topics are grouped in
    order of first appearance."""
    if version not in FETCH.versions:
        raise ValueError(f"kgroup sends Fetch v{min(FETCH.versions)}-v{max(FETCH.versions)}")
    by_topic: dict[str, list[FetchPosition]] = {}
    for position in positions:
        by_topic.setdefault(position.topic, []).append(position)
    writer = Writer()
    writer.int32(-1)  # ReplicaId 0+: a consumer
    writer.int32(max_wait_ms)  # MaxWaitMs 0+
    writer.int32(min_bytes)  # MinBytes 0+
    writer.int32(max_bytes)  # MaxBytes 3+
    writer.int8(isolation_level)  # IsolationLevel 4+
    if version >= 7:
        writer.int32(0)  # SessionId 7+: no session
        writer.int32(-1)  # SessionEpoch 7+: FINAL_EPOCH, a full request that opens none

    def partition(w: Writer, p: FetchPosition) -> None:
        w.int32(p.partition)  # PartitionIndex 0+
        if version >= 9:
            w.int32(-1)  # CurrentLeaderEpoch 9+
        w.int64(p.offset)  # FetchOffset 0+
        if version >= 5:
            w.int64(-1)  # LogStartOffset 5+: followers only
        w.int32(p.max_bytes)  # MaxBytes 0+

    def topic(w: Writer, item: tuple[str, list[FetchPosition]]) -> None:
        w.string(item[0])  # Name 0+
        w.array(item[1], partition)  # FetchPartitions 0+

    writer.array(by_topic.items(), topic)  # Topics 0+
    if version >= 7:
        writer.array((), topic)  # Forgotten 7+: none
    if version >= 11:
        writer.string(rack_id)  # RackId 11+
    return writer.getvalue()


def decode_fetch_response(body: bytes, version: int) -> tuple[int, list[FetchedPartition]]:
    """(top-level ErrorCode, partitions) of a FetchResponse v4-v11; ErrorCode is 0 before v7."""
    reader = Reader(body)
    reader.int32("ThrottleTimeMs")  # 1+
    error_code = reader.int16("ErrorCode") if version >= 7 else NONE  # 7+
    if version >= 7:
        reader.int32("SessionId")  # 7+

    def aborted(r: Reader) -> tuple[int, int]:
        producer_id = r.int64("AbortedTransactions.ProducerId")  # 4+
        return producer_id, r.int64("AbortedTransactions.FirstOffset")  # 4+

    def topic(r: Reader) -> list[FetchedPartition]:
        name = r.string("Responses.Topic")  # 0+

        def partition(p: Reader) -> FetchedPartition:
            index = p.int32("Partition")  # 0+
            code = p.int16("ErrorCode")  # 0+
            high_watermark = p.int64("HighWatermark")  # 0+
            last_stable = p.int64("LastStableOffset")  # 4+
            log_start = p.int64("LogStartOffset") if version >= 5 else -1  # 5+
            transactions = p.nullable_array(aborted, "AbortedTransactions")  # 4+
            if version >= 11:
                p.int32("PreferredReadReplica")  # 11+ (KIP-392; -1 without a rack selector)
            records = p.nullable_bytes("RecordSet") or b""  # 0+
            return FetchedPartition(
                name,
                index,
                code,
                high_watermark,
                last_stable,
                log_start,
                tuple(transactions) if transactions is not None else None,
                records,
            )

        return r.array(partition, "PartitionResponses")  # 0+

    topics = reader.array(topic, "Responses")  # 0+
    reader.expect_end()
    return error_code, [p for t in topics for p in t]
