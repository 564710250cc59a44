"""Every `__consumer_offsets` record type: its id, its key and value declarations, and the
embedded protocols the values carry.

Source of truth: Kafka's JSON message definitions,
`group-coordinator/src/main/resources/common/message/*.json` (3.5+; `core/.../message/` 2.8-3.4;
Scala `GroupMetadataManager` schemas before that), and
`clients/src/main/resources/common/message/ConsumerProtocol{Subscription,Assignment}.json`;
Kafka Connect's `ConnectProtocol` / `IncrementalCooperativeConnectProtocol`. Summarised in
OFFSETS_FORMAT.md §2-4. The layouts themselves are JSON in that schema language, one file per
message, in `kgroup.protocol.definitions` (`coordinator/<Name>Key.json` and `<Name>Value.json`,
earlier layouts in `coordinator/kafka-X.Y/`, `embedded/`): a new Kafka version means editing
lines there. The consumer protocol and the sticky assignors' user data are bound in
`kgroup.protocol.consumer_protocol` (the wire APIs carry the same bytes) and re-exported.

Field names keep Kafka's spelling; the decoder prints them in snake_case (`commitTimestamp` ->
`commit_timestamp`, `GroupId` -> `group_id`), the naming of CLI.md "decode output records".
kgroup.protocol's generic reader and writer (through `codec.py`) walk these declarations; there
is no per-version parser.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# The declaration model is kgroup.protocol's: the same tables drive the wire codec, this decoder
# and the C fast path. The consumer embedded protocol is declared once, with the wire APIs that
# carry it.
from kgroup.protocol.consumer_protocol import (  # noqa: F401 (re-exported)
    CONSUMER_PROTOCOL_ASSIGNMENT,
    CONSUMER_PROTOCOL_SUBSCRIPTION,
    COOPERATIVE_STICKY_USER_DATA,
    STICKY_USER_DATA,
)
from kgroup.protocol.definitions import load
from kgroup.protocol.model import (  # noqa: F401 (re-exported)
    NULL,
    Array,
    Field,
    FieldType,
    Message,
    Struct,
    snake,
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


def _record_type(
    type_id: int, stem: str, status: str, key: str = "", earlier: tuple[str, ...] = ()
) -> RecordType:
    """The record type `stem` (Kafka's `<stem>Key.json` and `<stem>Value.json`; `key` names
    another key file), with the value's earlier layouts in `coordinator/<label>/`."""
    return RecordType(
        type_id,
        snake(stem),
        load(f"coordinator/{key or stem + 'Key'}"),
        load(f"coordinator/{stem}Value"),
        "offset" if type_id in (0, 1) else "group",
        status,
        tuple((label, load(f"coordinator/{label}/{stem}Value")) for label in earlier),
    )


# Keys are never flexible and are always written at version 0 of their struct (since 4.1 the
# int16 prefix is the record type `apiKey`; before, it was called the key version). An earlier
# layout has the same type id and value version but other bytes: tried when the current layout
# does not parse exactly (early-access/preview schemas, best effort; OFFSETS_FORMAT.md §2, §3.3).
_RECORD_TYPES = (
    _record_type(0, "OffsetCommit", "0.8.2 only writer", key="LegacyOffsetCommitKey"),
    _record_type(1, "OffsetCommit", "0.9+"),
    _record_type(2, "GroupMetadata", "0.9+ classic groups"),
    _record_type(3, "ConsumerGroupMetadata", "KIP-848"),
    _record_type(
        4, "ConsumerGroupPartitionMetadata", "KIP-848; deprecated 4.1", earlier=("kafka-3.7",)
    ),
    _record_type(5, "ConsumerGroupMemberMetadata", "KIP-848"),
    _record_type(6, "ConsumerGroupTargetAssignmentMetadata", "KIP-848"),
    _record_type(7, "ConsumerGroupTargetAssignmentMember", "KIP-848"),
    _record_type(8, "ConsumerGroupCurrentMemberAssignment", "KIP-848"),
    _record_type(9, "ShareGroupPartitionMetadata", "KIP-932; 3.9/4.0 only", earlier=("kafka-3.9",)),
    _record_type(10, "ShareGroupMemberMetadata", "KIP-932"),
    _record_type(11, "ShareGroupMetadata", "KIP-932", earlier=("kafka-4.0",)),
    _record_type(12, "ShareGroupTargetAssignmentMetadata", "KIP-932, 4.0+"),
    _record_type(13, "ShareGroupTargetAssignmentMember", "KIP-932, 4.0+"),
    _record_type(14, "ShareGroupCurrentMemberAssignment", "KIP-932, 4.0+"),
    _record_type(15, "ShareGroupStatePartitionMetadata", "KIP-932, 4.0+", earlier=("kafka-4.0",)),
    _record_type(16, "ConsumerGroupRegularExpression", "KIP-848 regex subscriptions, 4.0+"),
    _record_type(17, "StreamsGroupMetadata", "KIP-1071, 4.1+"),
    _record_type(18, "StreamsGroupPartitionMetadata", "trunk only, never released"),
    _record_type(19, "StreamsGroupMemberMetadata", "KIP-1071, 4.1+"),
    _record_type(20, "StreamsGroupTargetAssignmentMetadata", "KIP-1071, 4.1+"),
    _record_type(21, "StreamsGroupTargetAssignmentMember", "KIP-1071, 4.1+"),
    _record_type(22, "StreamsGroupCurrentMemberAssignment", "KIP-1071, 4.1+"),
    _record_type(23, "StreamsGroupTopology", "KIP-1071, 4.1+"),
    _record_type(24, "StreamsGroupTargetAssignmentResolvedTopicIds", "KIP-1071, trunk only"),
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

# Every key and value also by its Kafka name in capitals: OFFSET_COMMIT_KEY, OFFSET_COMMIT_VALUE,
# GROUP_METADATA_VALUE, CONSUMER_GROUP_MEMBER_METADATA_VALUE, ...
globals().update(
    {snake(msg.name).upper(): msg for rt in _RECORD_TYPES for msg in (rt.key, rt.value)}
)

# ====================================================================== embedded: Kafka Connect
# Kafka Connect: `ConnectProtocol` (v0, protocol "default") and
# `IncrementalCooperativeConnectProtocol` (v1 "compatible", v2 "sessioned"); int16 version prefix
# like ConsumerProtocol.
CONNECT_METADATA = load("embedded/ConnectProtocolMetadata")
CONNECT_ASSIGNMENT = load("embedded/ConnectProtocolAssignment")

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
