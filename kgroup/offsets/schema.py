"""Every `__consumer_offsets` record type: its id, its key and value declarations, and the
embedded protocols the values carry.

Source of truth: Kafka's JSON message definitions,
`group-coordinator/src/main/resources/common/message/*.json` (3.5+; `core/.../message/` 2.8-3.4;
Scala `GroupMetadataManager` schemas before that), and
`clients/src/main/resources/common/message/ConsumerProtocol{Subscription,Assignment}.json`;
Kafka Connect's `ConnectProtocol` / `IncrementalCooperativeConnectProtocol`. Summarised in
OFFSETS_FORMAT.md §2-4. The layouts themselves are JSON in that schema language, one file per
message, under kgroup/protocol/definitions/ (`coordinator/<Name>Key.json` and
`<Name>Value.json`, earlier layouts in `coordinator/kafka-X.Y/`, `embedded/`): a new Kafka
version means editing lines there and running `make protocol`. They are build input: the
declarations used here are their generated Python (`kgroup.protocol.declarations`). The
consumer protocol and the sticky assignors' user data are bound in
`kgroup.protocol.member_messages` (the wire APIs carry the same bytes) and re-exported.

Field names keep Kafka's spelling; the decoder prints them in snake_case (`commitTimestamp` ->
`commit_timestamp`, `GroupId` -> `group_id`), the naming of CLI.md "decode output records".
The readers and writers of `layouts.py` and the C reader's programs are generated from these
declarations (scripts/gen_offsets_codec.py, committed under `kgroup.offsets.generated`); nothing
is written by hand per version, nothing is compiled when kgroup runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from kgroup.protocol.declarations import declaration

# The declaration model is kgroup.protocol's: the same tables drive the wire codec, this decoder
# and the C fast path. The consumer embedded protocol is declared once, with the wire APIs that
# carry it.
from kgroup.protocol.member_messages import (  # noqa: F401 (re-exported)
    CONSUMER_PROTOCOL_ASSIGNMENT,
    CONSUMER_PROTOCOL_SUBSCRIPTION,
    COOPERATIVE_STICKY_USER_DATA,
    STICKY_USER_DATA,
)
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
    """A record type id with its key and value declarations (pairs from Kafka's `apiKey`): Kafka's
    `<stem>Key` (or `key_file`) and `<stem>Value` in `coordinator/`, built on first use from
    their generated Python, and the value's earlier layouts, `coordinator/<label>/<stem>Value`
    for each label."""

    type_id: int
    stem: str
    status: str
    key_file: str = ""
    earlier: tuple[str, ...] = ()

    @cached_property
    def name(self) -> str:
        """The record type's name in decode output (`offset_commit`, `group_metadata`, ...)."""
        return snake(self.stem)

    @property
    def family(self) -> str:
        """The record family: "offset" for types 0 and 1, else "group"."""
        return "offset" if self.type_id in (0, 1) else "group"

    @property
    def key_path(self) -> str:
        return f"coordinator/{self.key_file or self.stem + 'Key'}"

    @property
    def value_path(self) -> str:
        return f"coordinator/{self.stem}Value"

    @cached_property
    def key(self) -> Message:
        return declaration(self.key_path)

    @cached_property
    def value(self) -> Message:
        return declaration(self.value_path)

    @cached_property
    def alternates(self) -> tuple[tuple[str, Message], ...]:
        return tuple(
            (label, declaration(f"coordinator/{label}/{self.stem}Value")) for label in self.earlier
        )


# Keys are never flexible and are always written at version 0 of their struct (since 4.1 the
# int16 prefix is the record type `apiKey`; before, it was called the key version). An earlier
# layout has the same type id and value version but other bytes: tried when the current layout
# does not parse exactly (early-access/preview schemas, best effort; OFFSETS_FORMAT.md §2, §3.3).
_RECORD_TYPES = (
    RecordType(0, "OffsetCommit", "0.8.2 only writer", key_file="LegacyOffsetCommitKey"),
    RecordType(1, "OffsetCommit", "0.9+"),
    RecordType(2, "GroupMetadata", "0.9+ classic groups"),
    RecordType(3, "ConsumerGroupMetadata", "KIP-848"),
    RecordType(
        4, "ConsumerGroupPartitionMetadata", "KIP-848; deprecated 4.1", earlier=("kafka-3.7",)
    ),
    RecordType(5, "ConsumerGroupMemberMetadata", "KIP-848"),
    RecordType(6, "ConsumerGroupTargetAssignmentMetadata", "KIP-848"),
    RecordType(7, "ConsumerGroupTargetAssignmentMember", "KIP-848"),
    RecordType(8, "ConsumerGroupCurrentMemberAssignment", "KIP-848"),
    RecordType(9, "ShareGroupPartitionMetadata", "KIP-932; 3.9/4.0 only", earlier=("kafka-3.9",)),
    RecordType(10, "ShareGroupMemberMetadata", "KIP-932"),
    RecordType(11, "ShareGroupMetadata", "KIP-932", earlier=("kafka-4.0",)),
    RecordType(12, "ShareGroupTargetAssignmentMetadata", "KIP-932, 4.0+"),
    RecordType(13, "ShareGroupTargetAssignmentMember", "KIP-932, 4.0+"),
    RecordType(14, "ShareGroupCurrentMemberAssignment", "KIP-932, 4.0+"),
    RecordType(
        15,
        "ShareGroupStatePartitionMetadata",
        "KIP-932, 4.0+",
        earlier=("kafka-4.0", "kafka-trunk"),
    ),
    RecordType(16, "ConsumerGroupRegularExpression", "KIP-848 regex subscriptions, 4.0+"),
    RecordType(17, "StreamsGroupMetadata", "KIP-1071, 4.1+"),
    RecordType(18, "StreamsGroupPartitionMetadata", "trunk only, never released"),
    RecordType(19, "StreamsGroupMemberMetadata", "KIP-1071, 4.1+"),
    RecordType(20, "StreamsGroupTargetAssignmentMetadata", "KIP-1071, 4.1+"),
    RecordType(21, "StreamsGroupTargetAssignmentMember", "KIP-1071, 4.1+"),
    RecordType(22, "StreamsGroupCurrentMemberAssignment", "KIP-1071, 4.1+"),
    RecordType(23, "StreamsGroupTopology", "KIP-1071, 4.1+"),
    RecordType(24, "StreamsGroupTargetAssignmentResolvedTopicIds", "KIP-1071, trunk only"),
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

# Every key and value also by its Kafka name in capitals (OFFSET_COMMIT_KEY, OFFSET_COMMIT_VALUE,
# GROUP_METADATA_VALUE, ...): the path of its declaration, built by __getattr__ on first use.
DECLARATIONS: dict[str, str] = {
    snake(path.rsplit("/", 1)[1]).upper(): path
    for rt in _RECORD_TYPES
    for path in (rt.key_path, rt.value_path)
}


def __getattr__(attribute: str) -> Message:
    path = DECLARATIONS.get(attribute)
    if path is None:
        raise AttributeError(f"module {__name__!r} has no attribute {attribute!r}")
    return declaration(path)


# ====================================================================== embedded: Kafka Connect
# Kafka Connect: `ConnectProtocol` (v0, protocol "default") and
# `IncrementalCooperativeConnectProtocol` (v1 "compatible", v2 "sessioned"); int16 version prefix
# like ConsumerProtocol.
CONNECT_METADATA = declaration("embedded/ConnectProtocolMetadata")
CONNECT_ASSIGNMENT = declaration("embedded/ConnectProtocolAssignment")

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
