"""Declarative tables for every `__consumer_offsets` key and value, and the embedded protocols.

Source of truth: Kafka's JSON message definitions,
`group-coordinator/src/main/resources/common/message/*.json` (3.5+; `core/.../message/` 2.8-3.4;
Scala `GroupMetadataManager` schemas before that), and
`clients/src/main/resources/common/message/ConsumerProtocol{Subscription,Assignment}.json`;
Kafka Connect's `ConnectProtocol` / `IncrementalCooperativeConnectProtocol`. Summarised in
OFFSETS_FORMAT.md §2-4. The consumer protocol and the sticky assignors' user data are declared in
`kgroup.protocol.consumer_protocol` (the wire APIs carry the same bytes) and re-exported.

One table per message, one line per field, with its version range, exactly as the JSON files
have them: a new Kafka version means editing lines here. Field names keep Kafka's spelling; the
decoder prints them in snake_case (`commitTimestamp` -> `commit_timestamp`, `GroupId` ->
`group_id`), the naming of CLI.md "decode output records". kgroup.protocol's generic reader and
writer (through `codec.py`) walk these tables; there is no per-version parser.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# The declaration model (Struct, Array, Field, Message, f, struct, arr, message, ...) is
# kgroup.protocol's: the same tables drive the wire codec, this decoder and the C fast path. The
# consumer embedded protocol is declared once, with the wire APIs that carry it.
from kgroup.protocol.consumer_protocol import (  # noqa: F401 (re-exported)
    CONSUMER_PROTOCOL_ASSIGNMENT,
    CONSUMER_PROTOCOL_SUBSCRIPTION,
    COOPERATIVE_STICKY_USER_DATA,
    STICKY_USER_DATA,
)
from kgroup.protocol.consumer_protocol import (
    TOPIC_PARTITION as CONSUMER_TOPIC_PARTITION,  # noqa: F401 (re-exported)
)
from kgroup.protocol.model import (  # noqa: F401 (re-exported)
    NULL,
    OPEN,
    PRIMITIVES,
    Array,
    Field,
    FieldType,
    Message,
    Struct,
    arr,
    f,
    message,
    parse_versions,
    snake,
    struct,
)

# ====================================================================== keys
# Keys are never flexible and are always written at version 0 of their struct (since 4.1 the
# int16 prefix is the record type `apiKey`; before, it was called the key version).


def _group_key(name: str) -> Message:
    return message(name, "0", None, f("GroupId", "string"))


def _member_key(name: str) -> Message:
    return message(name, "0", None, f("GroupId", "string"), f("MemberId", "string"))


OFFSET_COMMIT_KEY_FIELDS = (f("group", "string"), f("topic", "string"), f("partition", "int32"))
LEGACY_OFFSET_COMMIT_KEY = Message("LegacyOffsetCommitKey", (0, 0), None, OFFSET_COMMIT_KEY_FIELDS)
OFFSET_COMMIT_KEY = Message("OffsetCommitKey", (0, 0), None, OFFSET_COMMIT_KEY_FIELDS)
GROUP_METADATA_KEY = message("GroupMetadataKey", "0", None, f("group", "string"))

# ====================================================================== T 0/1 offset commits

OFFSET_COMMIT_VALUE = message(
    "OffsetCommitValue",
    "0-4",
    "4+",  # KIP-915 (3.5): v4 flexible so later additions are tagged
    f("offset", "int64"),
    f("leaderEpoch", "int32", "3+", default=-1, note="KIP-320, Kafka 2.1"),
    f("metadata", "string"),
    f("commitTimestamp", "int64"),
    f("expireTimestamp", "int64", "1", default=-1, note="explicit retention (pre-2.1 / v1 only)"),
    f("topicId", "uuid", "4+", tag=0, default="AAAAAAAAAAAAAAAAAAAAAA", note="KIP-848, 4.1"),
)

# ====================================================================== T 2 classic groups

MEMBER_METADATA = struct(
    "MemberMetadata",
    f("memberId", "string"),
    f("groupInstanceId", "string", "3+", nullable="3+", note="KIP-345 static membership, 2.3"),
    f("clientId", "string"),
    f("clientHost", "string"),
    f("rebalanceTimeout", "int32", "1+", default=-1, note="0.10.1"),
    f("sessionTimeout", "int32"),
    f("subscription", "bytes"),
    f("assignment", "bytes"),
)

GROUP_METADATA_VALUE = message(
    "GroupMetadataValue",
    "0-4",
    "4+",  # KIP-915; v4 defined but not written by any release yet
    f("protocolType", "string"),
    f("generation", "int32"),
    # 0.9.0.0 declared these non-nullable; every later version allows null (Empty groups).
    f("protocol", "string", nullable="0+"),
    f("leader", "string", nullable="0+"),
    f("currentStateTimestamp", "int64", "2+", default=-1, note="Kafka 2.1"),
    f("members", arr(MEMBER_METADATA)),
)

# ====================================================================== T 3-8, 16 KIP-848

TOPIC_METADATA = struct(
    "TopicMetadata",
    f("TopicId", "uuid"),
    f("TopicName", "string"),
    f("NumPartitions", "int32"),
    f(
        "PartitionMetadata",
        arr(struct("PartitionMetadata", f("Partition", "int32"), f("Racks", arr("string")))),
    ),
)

CONSUMER_GROUP_METADATA_VALUE = message(
    "ConsumerGroupMetadataValue",
    "0",
    "0+",
    f("Epoch", "int32"),
    f("MetadataHash", "int64", tag=0, default=0, note="KIP-1101, 4.1"),
)

CONSUMER_GROUP_PARTITION_METADATA_VALUE = message(
    "ConsumerGroupPartitionMetadataValue",
    "0",
    "0+",
    f("Topics", arr(TOPIC_METADATA)),
    note="deprecated in 4.1 (KIP-1101 metadata hash)",
)

CONSUMER_GROUP_MEMBER_METADATA_VALUE = message(
    "ConsumerGroupMemberMetadataValue",
    "0",
    "0+",
    f("InstanceId", "string", nullable="0+"),
    f("RackId", "string", nullable="0+"),
    f("ClientId", "string"),
    f("ClientHost", "string"),
    f("SubscribedTopicNames", arr("string")),
    f("SubscribedTopicRegex", "string", nullable="0+"),
    f("RebalanceTimeoutMs", "int32", default=-1),
    f("ServerAssignor", "string", nullable="0+"),
    f(
        "ClassicMemberMetadata",
        struct(
            "ClassicMemberMetadata",
            f("SessionTimeoutMs", "int32"),
            f(
                "SupportedProtocols",
                arr(struct("ClassicProtocol", f("Name", "string"), f("Metadata", "bytes"))),
            ),
        ),
        nullable="0+",
        tag=0,
        default=NULL,
        note="members that joined a consumer group with the classic protocol (3.8)",
    ),
)

CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE = message(
    "ConsumerGroupTargetAssignmentMetadataValue",
    "0",
    "0+",
    f("AssignmentEpoch", "int32"),
    f("AssignmentTimestamp", "int64", tag=0, default=0, note="KIP-1263, 4.3"),
)

TOPIC_PARTITIONS = struct("TopicPartition", f("TopicId", "uuid"), f("Partitions", arr("int32")))

CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE = message(
    "ConsumerGroupTargetAssignmentMemberValue",
    "0",
    "0+",
    f("TopicPartitions", arr(TOPIC_PARTITIONS)),
)

TOPIC_PARTITIONS_WITH_EPOCHS = struct(
    "TopicPartitions",
    f("TopicId", "uuid"),
    f("Partitions", arr("int32")),
    f(
        "AssignmentEpochs",
        arr("int32"),
        nullable="0+",
        tag=0,
        default=NULL,
        note="per-partition epoch, 4.3",
    ),
)

CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE = message(
    "ConsumerGroupCurrentMemberAssignmentValue",
    "0",
    "0+",
    f("MemberEpoch", "int32"),
    f("PreviousMemberEpoch", "int32"),
    f("State", "int8", note="0 STABLE, 1 UNREVOKED_PARTITIONS, 2 UNRELEASED_PARTITIONS, 127"),
    f("AssignedPartitions", arr(TOPIC_PARTITIONS_WITH_EPOCHS)),
    f("PartitionsPendingRevocation", arr(TOPIC_PARTITIONS_WITH_EPOCHS)),
)

CONSUMER_GROUP_REGULAR_EXPRESSION_VALUE = message(
    "ConsumerGroupRegularExpressionValue",
    "0",
    "0+",
    f("Topics", arr("string")),
    f("Version", "int64"),
    f("Timestamp", "int64"),
)

# ====================================================================== T 9-15 KIP-932 share groups

SHARE_GROUP_PARTITION_METADATA_VALUE = message(
    "ShareGroupPartitionMetadataValue",
    "0",
    "0+",
    f("Topics", arr(TOPIC_METADATA)),
    note="4.0 only; removed in 4.1",
)

SHARE_GROUP_MEMBER_METADATA_VALUE = message(
    "ShareGroupMemberMetadataValue",
    "0",
    "0+",
    f("RackId", "string", nullable="0+"),
    f("ClientId", "string"),
    f("ClientHost", "string"),
    f("SubscribedTopicNames", arr("string")),
)

SHARE_GROUP_METADATA_VALUE = message(
    "ShareGroupMetadataValue",
    "0",
    "0+",
    f("Epoch", "int32"),
    f("MetadataHash", "int64", note="non-tagged, added in 4.1"),
)

SHARE_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE = message(
    "ShareGroupTargetAssignmentMetadataValue",
    "0",
    "0+",
    f("AssignmentEpoch", "int32"),
    f("AssignmentTimestamp", "int64", tag=0, default=0, note="4.3"),
)

SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE = message(
    "ShareGroupTargetAssignmentMemberValue",
    "0",
    "0+",
    f("TopicPartitions", arr(TOPIC_PARTITIONS)),
)

SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE = message(
    "ShareGroupCurrentMemberAssignmentValue",
    "0",
    "0+",
    f("MemberEpoch", "int32"),
    f("PreviousMemberEpoch", "int32"),
    f("State", "int8"),
    f("AssignedPartitions", arr(TOPIC_PARTITIONS)),
)

TOPIC_PARTITIONS_INFO = struct(
    "TopicPartitionsInfo",
    f("TopicId", "uuid"),
    f("TopicName", "string"),
    f("Partitions", arr("int32")),
)
TOPIC_INFO = struct("TopicInfo", f("TopicId", "uuid"), f("TopicName", "string"))

SHARE_GROUP_STATE_PARTITION_METADATA_VALUE = message(
    "ShareGroupStatePartitionMetadataValue",
    "0",
    "0+",
    f("InitializingTopics", arr(TOPIC_PARTITIONS_INFO), note="4.1"),
    f("InitializedTopics", arr(TOPIC_PARTITIONS_INFO)),
    f("DeletingTopics", arr(TOPIC_INFO)),
)

# ====================================================================== T 16-23 KIP-1071 streams

KEY_VALUE = struct("KeyValue", f("Key", "string"), f("Value", "string"))

STREAMS_GROUP_METADATA_VALUE = message(
    "StreamsGroupMetadataValue",
    "0",
    "0+",
    f("Epoch", "int32"),
    f("MetadataHash", "int64"),
    f("ValidatedTopologyEpoch", "int32", tag=0, default=-1, note="4.2"),
    f("LastAssignmentConfigs", arr(KEY_VALUE), nullable="0+", tag=1, default=NULL, note="4.2"),
    f("StoredDescriptionTopologyEpoch", "int32", tag=2, default=-1, note="trunk"),
    f("FailedDescriptionTopologyEpoch", "int32", tag=3, default=-1, note="trunk"),
)

STREAMS_GROUP_PARTITION_METADATA_VALUE = message(
    "StreamsGroupPartitionMetadataValue",
    "0",
    "0+",
    f("Topics", arr(TOPIC_METADATA)),
    note="trunk Dec 2024 - Jun 2025 only, never released",
)

STREAMS_GROUP_MEMBER_METADATA_VALUE = message(
    "StreamsGroupMemberMetadataValue",
    "0",
    "0+",
    f("InstanceId", "string", nullable="0+"),
    f("RackId", "string", nullable="0+"),
    f("ClientId", "string"),
    f("ClientHost", "string"),
    f("RebalanceTimeoutMs", "int32", default=-1),
    f("TopologyEpoch", "int32"),
    f("ProcessId", "string"),
    f(
        "UserEndpoint",
        struct("Endpoint", f("Host", "string"), f("Port", "uint16")),
        nullable="0+",
    ),
    f("ClientTags", arr(KEY_VALUE)),
)

STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE = message(
    "StreamsGroupTargetAssignmentMetadataValue",
    "0",
    "0+",
    f("AssignmentEpoch", "int32"),
    f("AssignmentTimestamp", "int64", tag=0, default=0, note="4.3"),
)

TASK_IDS = struct("TaskIds", f("SubtopologyId", "string"), f("Partitions", arr("int32")))

STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE = message(
    "StreamsGroupTargetAssignmentMemberValue",
    "0",
    "0+",
    f("ActiveTasks", arr(TASK_IDS)),
    f("StandbyTasks", arr(TASK_IDS)),
    f("WarmupTasks", arr(TASK_IDS)),
)

TASK_IDS_WITH_EPOCHS = struct(
    "TaskIds",
    f("SubtopologyId", "string"),
    f("Partitions", arr("int32")),
    f("AssignmentEpochs", arr("int32"), nullable="0+", tag=0, default=NULL, note="4.2"),
)

STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE = message(
    "StreamsGroupCurrentMemberAssignmentValue",
    "0",
    "0+",
    f("MemberEpoch", "int32"),
    f("PreviousMemberEpoch", "int32"),
    f("State", "int8", note="1 STABLE, 2 UNREVOKED_TASKS, 3 UNRELEASED_TASKS, 127 UNKNOWN"),
    f("ActiveTasks", arr(TASK_IDS_WITH_EPOCHS)),
    f("StandbyTasks", arr(TASK_IDS_WITH_EPOCHS)),
    f("WarmupTasks", arr(TASK_IDS_WITH_EPOCHS)),
    f("ActiveTasksPendingRevocation", arr(TASK_IDS_WITH_EPOCHS)),
    f("StandbyTasksPendingRevocation", arr(TASK_IDS_WITH_EPOCHS)),
    f("WarmupTasksPendingRevocation", arr(TASK_IDS_WITH_EPOCHS)),
)

TOPIC_CONFIG = struct("TopicConfig", f("key", "string"), f("value", "string"))
STREAMS_TOPIC_INFO = struct(
    "TopicInfo",
    f("Name", "string"),
    f("Partitions", "int32"),
    f("ReplicationFactor", "int16"),
    f("TopicConfigs", arr(TOPIC_CONFIG)),
)

STREAMS_GROUP_TOPOLOGY_VALUE = message(
    "StreamsGroupTopologyValue",
    "0",
    "0+",
    f("Epoch", "int32"),
    f(
        "Subtopologies",
        arr(
            struct(
                "Subtopology",
                f("SubtopologyId", "string"),
                f("SourceTopics", arr("string")),
                f("SourceTopicRegex", arr("string")),
                f("StateChangelogTopics", arr(STREAMS_TOPIC_INFO)),
                f("RepartitionSinkTopics", arr("string")),
                f("RepartitionSourceTopics", arr(STREAMS_TOPIC_INFO)),
                f(
                    "CopartitionGroups",
                    arr(
                        struct(
                            "CopartitionGroup",
                            f("SourceTopics", arr("int16")),
                            f("SourceTopicRegex", arr("int16")),
                            f("RepartitionSourceTopics", arr("int16")),
                        )
                    ),
                ),
            )
        ),
    ),
)

STREAMS_GROUP_TARGET_ASSIGNMENT_RESOLVED_TOPIC_IDS_VALUE = message(
    "StreamsGroupTargetAssignmentResolvedTopicIdsValue",
    "0",
    "0+",
    f("AssignmentEpoch", "int32"),
    f(
        "ResolvedTopicIdsBySubtopology",
        arr(struct("ResolvedTopicIds", f("SubtopologyId", "string"), f("TopicIds", arr("uuid")))),
    ),
    note="trunk (apiKey 24), not in a release yet",
)

# ====================================================================== earlier layouts
# Same type id and value version, different bytes: tried when the current layout does not
# parse exactly. Early-access/preview schemas, decoded best effort (OFFSETS_FORMAT.md §2, §3.3).

SHARE_GROUP_METADATA_VALUE_4_0 = message(
    "ShareGroupMetadataValue", "0", "0+", f("Epoch", "int32"), note="Kafka 4.0 layout"
)
SHARE_GROUP_STATE_PARTITION_METADATA_VALUE_4_0 = message(
    "ShareGroupStatePartitionMetadataValue",
    "0",
    "0+",
    f("InitializedTopics", arr(TOPIC_PARTITIONS_INFO)),
    f("DeletingTopics", arr(TOPIC_INFO)),
    note="Kafka 4.0 layout",
)
SHARE_GROUP_PARTITION_METADATA_VALUE_3_9 = message(
    "ShareGroupPartitionMetadataValue",
    "0",
    "0+",
    f("InitializedTopics", arr(TOPIC_PARTITIONS_INFO)),
    f("DeletingTopics", arr(TOPIC_INFO)),
    note="Kafka 3.9 early-access layout",
)
CONSUMER_GROUP_PARTITION_METADATA_VALUE_3_7 = message(
    "ConsumerGroupPartitionMetadataValue",
    "0",
    "0+",
    f("Epoch", "int32"),
    f("Topics", arr(TOPIC_METADATA)),
    note="Kafka 3.7 early-access layout",
)


# ====================================================================== registry


@dataclass(frozen=True)
class RecordType:
    """A record type id with its key and value tables (pairs from Kafka's `apiKey`)."""

    type_id: int
    name: str
    key: Message
    value: Message
    family: str  # "offset" or "group"
    status: str = ""
    alternates: tuple[tuple[str, Message], ...] = field(default=())


def _rt(
    type_id: int,
    name: str,
    key: Message,
    value: Message,
    status: str = "",
    alternates: tuple[tuple[str, Message], ...] = (),
) -> RecordType:
    family = "offset" if type_id in (0, 1) else "group"
    return RecordType(type_id, name, key, value, family, status, alternates)


_RECORD_TYPES = (
    _rt(0, "offset_commit", LEGACY_OFFSET_COMMIT_KEY, OFFSET_COMMIT_VALUE, "0.8.2 only writer"),
    _rt(1, "offset_commit", OFFSET_COMMIT_KEY, OFFSET_COMMIT_VALUE, "0.9+"),
    _rt(2, "group_metadata", GROUP_METADATA_KEY, GROUP_METADATA_VALUE, "0.9+ classic groups"),
    _rt(
        3,
        "consumer_group_metadata",
        _group_key("ConsumerGroupMetadataKey"),
        CONSUMER_GROUP_METADATA_VALUE,
        "KIP-848",
    ),
    _rt(
        4,
        "consumer_group_partition_metadata",
        _group_key("ConsumerGroupPartitionMetadataKey"),
        CONSUMER_GROUP_PARTITION_METADATA_VALUE,
        "KIP-848; deprecated 4.1",
        (("kafka-3.7", CONSUMER_GROUP_PARTITION_METADATA_VALUE_3_7),),
    ),
    _rt(
        5,
        "consumer_group_member_metadata",
        _member_key("ConsumerGroupMemberMetadataKey"),
        CONSUMER_GROUP_MEMBER_METADATA_VALUE,
        "KIP-848",
    ),
    _rt(
        6,
        "consumer_group_target_assignment_metadata",
        _group_key("ConsumerGroupTargetAssignmentMetadataKey"),
        CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE,
        "KIP-848",
    ),
    _rt(
        7,
        "consumer_group_target_assignment_member",
        _member_key("ConsumerGroupTargetAssignmentMemberKey"),
        CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE,
        "KIP-848",
    ),
    _rt(
        8,
        "consumer_group_current_member_assignment",
        _member_key("ConsumerGroupCurrentMemberAssignmentKey"),
        CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE,
        "KIP-848",
    ),
    _rt(
        9,
        "share_group_partition_metadata",
        _group_key("ShareGroupPartitionMetadataKey"),
        SHARE_GROUP_PARTITION_METADATA_VALUE,
        "KIP-932; 3.9/4.0 only",
        (("kafka-3.9", SHARE_GROUP_PARTITION_METADATA_VALUE_3_9),),
    ),
    _rt(
        10,
        "share_group_member_metadata",
        _member_key("ShareGroupMemberMetadataKey"),
        SHARE_GROUP_MEMBER_METADATA_VALUE,
        "KIP-932",
    ),
    _rt(
        11,
        "share_group_metadata",
        _group_key("ShareGroupMetadataKey"),
        SHARE_GROUP_METADATA_VALUE,
        "KIP-932",
        (("kafka-4.0", SHARE_GROUP_METADATA_VALUE_4_0),),
    ),
    _rt(
        12,
        "share_group_target_assignment_metadata",
        _group_key("ShareGroupTargetAssignmentMetadataKey"),
        SHARE_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE,
        "KIP-932, 4.0+",
    ),
    _rt(
        13,
        "share_group_target_assignment_member",
        _member_key("ShareGroupTargetAssignmentMemberKey"),
        SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE,
        "KIP-932, 4.0+",
    ),
    _rt(
        14,
        "share_group_current_member_assignment",
        _member_key("ShareGroupCurrentMemberAssignmentKey"),
        SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE,
        "KIP-932, 4.0+",
    ),
    _rt(
        15,
        "share_group_state_partition_metadata",
        _group_key("ShareGroupStatePartitionMetadataKey"),
        SHARE_GROUP_STATE_PARTITION_METADATA_VALUE,
        "KIP-932, 4.0+",
        (("kafka-4.0", SHARE_GROUP_STATE_PARTITION_METADATA_VALUE_4_0),),
    ),
    _rt(
        16,
        "consumer_group_regular_expression",
        message(
            "ConsumerGroupRegularExpressionKey",
            "0",
            None,
            f("GroupId", "string"),
            f("RegularExpression", "string"),
        ),
        CONSUMER_GROUP_REGULAR_EXPRESSION_VALUE,
        "KIP-848 regex subscriptions, 4.0+",
    ),
    _rt(
        17,
        "streams_group_metadata",
        _group_key("StreamsGroupMetadataKey"),
        STREAMS_GROUP_METADATA_VALUE,
        "KIP-1071, 4.1+",
    ),
    _rt(
        18,
        "streams_group_partition_metadata",
        _group_key("StreamsGroupPartitionMetadataKey"),
        STREAMS_GROUP_PARTITION_METADATA_VALUE,
        "trunk only, never released",
    ),
    _rt(
        19,
        "streams_group_member_metadata",
        _member_key("StreamsGroupMemberMetadataKey"),
        STREAMS_GROUP_MEMBER_METADATA_VALUE,
        "KIP-1071, 4.1+",
    ),
    _rt(
        20,
        "streams_group_target_assignment_metadata",
        _group_key("StreamsGroupTargetAssignmentMetadataKey"),
        STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE,
        "KIP-1071, 4.1+",
    ),
    _rt(
        21,
        "streams_group_target_assignment_member",
        _member_key("StreamsGroupTargetAssignmentMemberKey"),
        STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE,
        "KIP-1071, 4.1+",
    ),
    _rt(
        22,
        "streams_group_current_member_assignment",
        _member_key("StreamsGroupCurrentMemberAssignmentKey"),
        STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE,
        "KIP-1071, 4.1+",
    ),
    _rt(
        23,
        "streams_group_topology",
        _group_key("StreamsGroupTopologyKey"),
        STREAMS_GROUP_TOPOLOGY_VALUE,
        "KIP-1071, 4.1+",
    ),
    _rt(
        24,
        "streams_group_target_assignment_resolved_topic_ids",
        _group_key("StreamsGroupTargetAssignmentResolvedTopicIdsKey"),
        STREAMS_GROUP_TARGET_ASSIGNMENT_RESOLVED_TOPIC_IDS_VALUE,
        "KIP-1071, trunk only",
    ),
)


def _index(types: tuple[RecordType, ...]) -> dict[int, RecordType]:
    out: dict[int, RecordType] = {}
    for rt in types:
        if rt.type_id in out:
            raise ValueError(f"duplicate record type {rt.type_id}")
        out[rt.type_id] = rt
    return out


RECORD_TYPES: dict[int, RecordType] = _index(_RECORD_TYPES)
RECORD_TYPE_NAMES: frozenset[str] = frozenset(rt.name for rt in _RECORD_TYPES)

# ====================================================================== embedded: Kafka Connect
# `ConnectProtocol` (v0, protocol "default") and `IncrementalCooperativeConnectProtocol`
# (v1 "compatible", v2 "sessioned"); int16 version prefix like ConsumerProtocol.

CONNECT_TASKS = struct("ConnectorTasks", f("connector", "string"), f("tasks", arr("int32")))

CONNECT_METADATA = message(
    "ConnectProtocolMetadata",
    "0-2",
    None,
    f("url", "string"),
    f("configOffset", "int64"),
    f("allocation", "bytes", "1+", nullable="1+", note="KIP-415: the previous assignment"),
)

CONNECT_ASSIGNMENT = message(
    "ConnectProtocolAssignment",
    "0-2",
    None,
    f("error", "int16"),
    f("leader", "string"),
    f("leaderUrl", "string"),
    f("configOffset", "int64"),
    f("assignment", arr(CONNECT_TASKS)),
    f("revoked", arr(CONNECT_TASKS), "1+", note="KIP-415"),
    f("delay", "int32", "1+"),
)

# ====================================================================== control records (§6.1)

CONTROL_TYPES = {
    0: "ABORT",
    1: "COMMIT",
    2: "LEADER_CHANGE",
    3: "SNAPSHOT_HEADER",
    4: "SNAPSHOT_FOOTER",
    5: "KRAFT_VERSION",
    6: "KRAFT_VOTERS",
}
