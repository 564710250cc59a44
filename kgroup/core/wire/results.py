"""What the wire client's requests return, and the protocol constants it reasons with.

Plain data, no byte layout: the layouts are `kgroup.protocol`'s generated message classes, and
`cluster_calls`, `offset_calls`, `group_calls` and `member_protocol` map them to these types,
which are what the rest of kgroup reads (the answer of a call, not Kafka's message). Named
tuples: immutable, compared and hashed by value as frozen dataclasses are, and made at import
without the generated code each dataclass costs (~1.4 ms apiece). The constants cite their
Kafka class; error codes are `error_codes`.
"""

from __future__ import annotations

from typing import NamedTuple


class ApiVersionsResult(NamedTuple):
    error_code: int
    versions: dict[int, tuple[int, int]]


# --- Metadata v1-v12 ------------------------------------------------------------------------------


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


# --- ListOffsets v1-v8 ---------------------------------------------------------------------------

EARLIEST_TIMESTAMP = -2  # ListOffsetsRequest.EARLIEST_TIMESTAMP: the log start offset
LATEST_TIMESTAMP = -1  # ListOffsetsRequest.LATEST_TIMESTAMP: the log end (or last stable) offset
READ_UNCOMMITTED = 0  # IsolationLevel
READ_COMMITTED = 1


class ListedOffset(NamedTuple):
    topic: str
    partition: int
    error_code: int
    timestamp: int
    offset: int
    leader_epoch: int = -1


# --- FindCoordinator v1-v4 -----------------------------------------------------------------------

KEY_TYPE_GROUP = 0


class CoordinatorResult(NamedTuple):
    key: str
    node_id: int
    host: str
    port: int
    error_code: int
    error_message: str | None


# --- DescribeGroups v1-v5 ------------------------------------------------------------------------


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


# --- ConsumerGroupDescribe v0-v1 (KIP-848; ConsumerGroupDescribe{Request,Response}.json) ---------


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


# --- OffsetDelete v0 (KIP-496) -------------------------------------------------------------------


class OffsetDeleteResult(NamedTuple):
    """OffsetDeleteResponse: the group-level error and (topic, partition, error) per partition."""

    error_code: int
    partitions: list[tuple[str, int, int]]


# --- DescribeConfigs v1-v2 -----------------------------------------------------------------------

RESOURCE_TOPIC = 2  # org.apache.kafka.common.config.ConfigResource.Type.TOPIC


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


# --- JoinGroup v2-v9, SyncGroup v1-v5, LeaveGroup v1-v5 (classic group membership) ---------------
# Field layouts from Kafka's JoinGroup/SyncGroup/LeaveGroup{Request,Response}.json. kgroup joins a
# group only to fence it while it changes the group's offsets (kgroup.core.wire.fence).


class JoinResult(NamedTuple):
    """JoinGroupResponse: the generation, the leader, and (for the leader) every member."""

    error_code: int
    generation: int
    protocol_name: str | None
    leader: str
    member_id: str
    members: tuple[tuple[str, bytes], ...]  # (member id, metadata); empty unless leader


# --- OffsetFetch v2-v8 ---------------------------------------------------------------------------


class FetchedOffset(NamedTuple):
    """One partition of an OffsetFetch answer (a named tuple: as immutable as a frozen dataclass
    and ~5x cheaper to make; an OffsetFetch for a fleet carries 100,000 of them)."""

    topic: str
    partition: int
    offset: int
    leader_epoch: int
    metadata: str | None
    error_code: int


class FetchedGroup(NamedTuple):
    group_id: str
    error_code: int
    partitions: list[FetchedOffset]


# --- ListGroups v0-v5 ----------------------------------------------------------------------------


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


# --- Fetch v4-v11 (FetchRequest.json / FetchResponse.json) -------------------------------------
# A consumer's fetch without a fetch session (KIP-227: SessionId 0, SessionEpoch -1 = a full
# fetch request that opens no session), ReplicaId -1, CurrentLeaderEpoch -1 (KIP-320: no
# fencing). Used to read the first record a consumer would get at an offset.

FETCH_MAX_BYTES = 52428800  # ConsumerConfig fetch.max.bytes default (KIP-74)
# ConsumerConfig fetch.max.wait.ms default. With MinBytes 0 Kafka answers at once with what it
# has; tansu answers MaxWaitMs 0 with no partitions at all and fills partitions only until the
# wait runs out (TEST_ENVIRONMENT.md), so the wait must leave it time.
FETCH_MAX_WAIT_MS = 500


class FetchPosition(NamedTuple):
    """One partition to fetch: where from and at most how many bytes (KIP-74: the broker still
    returns the first batch whole when it is larger, for the first partition of a response)."""

    topic: str
    partition: int
    offset: int
    max_bytes: int


class FetchedPartition(NamedTuple):
    topic: str
    partition: int
    error_code: int
    high_watermark: int
    last_stable_offset: int  # -1 when unknown (4+)
    log_start_offset: int  # -1 when unknown or before v5
    # (producer id, first offset) of the aborted transactions in the fetched range (read_committed
    # only; None otherwise)
    aborted: tuple[tuple[int, int], ...] | None
    records: bytes
