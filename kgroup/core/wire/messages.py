"""The APIs the wire client speaks: for each, its key and the versions kgroup sends
(`choose_version` picks one against a broker's ApiVersions answer).

The byte layouts are declarations in `kgroup.protocol.messages` (transcribed from Kafka's JSON
message specs, clients/src/main/resources/common/message/), read and written by one generic
codec; this module re-exports, under their historical names, the request encoders and response
decoders of `kgroup.protocol.adapters` and the result types and constants of
`kgroup.core.wire.results`, so callers write `messages.encode_x` / `messages.XResult`.
`tests/unit/protocol/test_protocol_declarations.py` keeps the two version tables in step.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgroup.core.wire.codec import ProtocolError
from kgroup.core.wire.results import (
    CLUSTER_AUTHORIZATION_FAILED,
    COORDINATOR_LOAD_IN_PROGRESS,
    COORDINATOR_NOT_AVAILABLE,
    EARLIEST_TIMESTAMP,
    ERROR_NAMES,
    FENCED_LEADER_EPOCH,
    FETCH_MAX_BYTES,
    FETCH_MAX_WAIT_MS,
    GROUP_AUTHORIZATION_FAILED,
    GROUP_ID_NOT_FOUND,
    GROUP_SUBSCRIBED_TO_TOPIC,
    ILLEGAL_GENERATION,
    INCONSISTENT_GROUP_PROTOCOL,
    INVALID_GROUP_ID,
    INVALID_SESSION_TIMEOUT,
    KEY_TYPE_GROUP,
    LATEST_TIMESTAMP,
    LEADER_NOT_AVAILABLE,
    MEMBER_ID_REQUIRED,
    NON_EMPTY_GROUP,
    NONE,
    NOT_COORDINATOR,
    NOT_LEADER_OR_FOLLOWER,
    OFFSET_NOT_AVAILABLE,
    OFFSET_OUT_OF_RANGE,
    READ_COMMITTED,
    READ_UNCOMMITTED,
    REBALANCE_IN_PROGRESS,
    REPLICA_NOT_AVAILABLE,
    RESOURCE_TOPIC,
    RETRIABLE_COORDINATOR_ERRORS,
    RETRIABLE_LEADER_ERRORS,
    SASL_AUTHENTICATION_FAILED,
    TOPIC_AUTHORIZATION_FAILED,
    UNKNOWN_LEADER_EPOCH,
    UNKNOWN_MEMBER_ID,
    UNKNOWN_TOPIC_OR_PARTITION,
    UNSTABLE_OFFSET_COMMIT,
    UNSUPPORTED_SASL_MECHANISM,
    UNSUPPORTED_VERSION,
    ApiVersionsResult,
    Assignment,
    ConsumerGroupDescribed,
    ConsumerGroupMember,
    CoordinatorResult,
    DescribedConfig,
    DescribedGroup,
    DescribedMember,
    DescribedResource,
    FetchedGroup,
    FetchedOffset,
    FetchedPartition,
    FetchPosition,
    JoinResult,
    ListedGroup,
    ListedOffset,
    ListGroupsResult,
    MetadataBroker,
    MetadataPartition,
    MetadataResult,
    MetadataTopic,
    OffsetDeleteResult,
    SaslAuthenticateResult,
    Subscription,
    error_name,
)
from kgroup.protocol.adapters import (
    decode_api_versions_response,
    decode_assignment,
    decode_consumer_group_describe_response,
    decode_describe_configs_response,
    decode_describe_groups_response,
    decode_fetch_response,
    decode_find_coordinator_response,
    decode_join_group_response,
    decode_leave_group_response,
    decode_list_groups_response,
    decode_list_offsets_response,
    decode_metadata_response,
    decode_offset_commit_response,
    decode_offset_delete_response,
    decode_offset_fetch_response,
    decode_sasl_authenticate_response,
    decode_sasl_handshake_response,
    decode_subscription,
    decode_sync_group_response,
    encode_api_versions_request,
    encode_assignment,
    encode_consumer_group_describe_request,
    encode_describe_configs_request,
    encode_describe_groups_request,
    encode_fetch_request,
    encode_find_coordinator_request,
    encode_join_group_request,
    encode_leave_group_request,
    encode_list_groups_request,
    encode_list_offsets_request,
    encode_metadata_request,
    encode_offset_commit_request,
    encode_offset_delete_request,
    encode_offset_fetch_request,
    encode_sasl_authenticate_request,
    encode_sasl_handshake_request,
    encode_subscription,
    encode_sync_group_request,
)

__all__ = [
    "APIS",
    "API_VERSIONS",
    "CLUSTER_AUTHORIZATION_FAILED",
    "CONSUMER_GROUP_DESCRIBE",
    "COORDINATOR_LOAD_IN_PROGRESS",
    "COORDINATOR_NOT_AVAILABLE",
    "DESCRIBE_CONFIGS",
    "DESCRIBE_GROUPS",
    "EARLIEST_TIMESTAMP",
    "ERROR_NAMES",
    "FENCED_LEADER_EPOCH",
    "FETCH",
    "FETCH_MAX_BYTES",
    "FETCH_MAX_WAIT_MS",
    "FIND_COORDINATOR",
    "GROUP_AUTHORIZATION_FAILED",
    "GROUP_ID_NOT_FOUND",
    "GROUP_SUBSCRIBED_TO_TOPIC",
    "ILLEGAL_GENERATION",
    "INCONSISTENT_GROUP_PROTOCOL",
    "INVALID_GROUP_ID",
    "INVALID_SESSION_TIMEOUT",
    "JOIN_GROUP",
    "KEY_TYPE_GROUP",
    "LATEST_TIMESTAMP",
    "LEADER_NOT_AVAILABLE",
    "LEAVE_GROUP",
    "LIST_GROUPS",
    "LIST_OFFSETS",
    "MEMBER_ID_REQUIRED",
    "METADATA",
    "NONE",
    "NON_EMPTY_GROUP",
    "NOT_COORDINATOR",
    "NOT_LEADER_OR_FOLLOWER",
    "OFFSET_COMMIT",
    "OFFSET_DELETE",
    "OFFSET_FETCH",
    "OFFSET_NOT_AVAILABLE",
    "OFFSET_OUT_OF_RANGE",
    "READ_COMMITTED",
    "READ_UNCOMMITTED",
    "REBALANCE_IN_PROGRESS",
    "REPLICA_NOT_AVAILABLE",
    "RESOURCE_TOPIC",
    "RETRIABLE_COORDINATOR_ERRORS",
    "RETRIABLE_LEADER_ERRORS",
    "SASL_AUTHENTICATE",
    "SASL_AUTHENTICATION_FAILED",
    "SASL_HANDSHAKE",
    "SYNC_GROUP",
    "TOPIC_AUTHORIZATION_FAILED",
    "UNKNOWN_LEADER_EPOCH",
    "UNKNOWN_MEMBER_ID",
    "UNKNOWN_TOPIC_OR_PARTITION",
    "UNSTABLE_OFFSET_COMMIT",
    "UNSUPPORTED_SASL_MECHANISM",
    "UNSUPPORTED_VERSION",
    "Api",
    "ApiVersionsResult",
    "Assignment",
    "ConsumerGroupDescribed",
    "ConsumerGroupMember",
    "CoordinatorResult",
    "DescribedConfig",
    "DescribedGroup",
    "DescribedMember",
    "DescribedResource",
    "FetchPosition",
    "FetchedGroup",
    "FetchedOffset",
    "FetchedPartition",
    "JoinResult",
    "ListGroupsResult",
    "ListedGroup",
    "ListedOffset",
    "MetadataBroker",
    "MetadataPartition",
    "MetadataResult",
    "MetadataTopic",
    "OffsetDeleteResult",
    "ProtocolError",
    "SaslAuthenticateResult",
    "Subscription",
    "choose_version",
    "decode_api_versions_response",
    "decode_assignment",
    "decode_consumer_group_describe_response",
    "decode_describe_configs_response",
    "decode_describe_groups_response",
    "decode_fetch_response",
    "decode_find_coordinator_response",
    "decode_join_group_response",
    "decode_leave_group_response",
    "decode_list_groups_response",
    "decode_list_offsets_response",
    "decode_metadata_response",
    "decode_offset_commit_response",
    "decode_offset_delete_response",
    "decode_offset_fetch_response",
    "decode_sasl_authenticate_response",
    "decode_sasl_handshake_response",
    "decode_subscription",
    "decode_sync_group_response",
    "encode_api_versions_request",
    "encode_assignment",
    "encode_consumer_group_describe_request",
    "encode_describe_configs_request",
    "encode_describe_groups_request",
    "encode_fetch_request",
    "encode_find_coordinator_request",
    "encode_join_group_request",
    "encode_leave_group_request",
    "encode_list_groups_request",
    "encode_list_offsets_request",
    "encode_metadata_request",
    "encode_offset_commit_request",
    "encode_offset_delete_request",
    "encode_offset_fetch_request",
    "encode_sasl_authenticate_request",
    "encode_sasl_handshake_request",
    "encode_subscription",
    "encode_sync_group_request",
    "error_name",
]

# --- API keys and the versions this client speaks ------------------------------------------------


@dataclass(frozen=True)
class Api:
    """An API key, its name, the versions kgroup implements, and its first flexible version."""

    key: int
    name: str
    versions: tuple[int, ...]
    flexible_from: int | None

    def flexible(self, version: int) -> bool:
        return self.flexible_from is not None and version >= self.flexible_from

    def response_header_flexible(self, version: int) -> bool:
        # ApiVersionsResponse always uses response header v0 (ApiVersionsResponse.json: the
        # header length must not change so that any client can read the error).
        return self.key != API_VERSIONS.key and self.flexible(version)


# v4-v11 (FetchRequest.json): v4 brings IsolationLevel and AbortedTransactions (KIP-98), Kafka 4.0
# dropped v0-v3 (KIP-896), v12 turns flexible and v13 names topics by id; kgroup speaks v4-v11.
FETCH = Api(1, "Fetch", (4, 5, 6, 7, 8, 9, 10, 11), 12)
LIST_OFFSETS = Api(2, "ListOffsets", (1, 2, 3, 4, 5, 6, 7, 8), 6)
METADATA = Api(3, "Metadata", (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), 9)
OFFSET_COMMIT = Api(8, "OffsetCommit", (2, 3, 4, 5, 6, 7, 8), 8)
OFFSET_FETCH = Api(9, "OffsetFetch", (2, 3, 4, 5, 6, 7, 8), 6)
FIND_COORDINATOR = Api(10, "FindCoordinator", (1, 2, 3, 4), 3)
JOIN_GROUP = Api(11, "JoinGroup", (2, 3, 4, 5, 6, 7, 8, 9), 6)
LEAVE_GROUP = Api(13, "LeaveGroup", (1, 2, 3, 4, 5), 4)
SYNC_GROUP = Api(14, "SyncGroup", (1, 2, 3, 4, 5), 4)
DESCRIBE_GROUPS = Api(15, "DescribeGroups", (1, 2, 3, 4, 5), 5)
LIST_GROUPS = Api(16, "ListGroups", (0, 1, 2, 3, 4, 5), 3)
SASL_HANDSHAKE = Api(17, "SaslHandshake", (1,), None)
API_VERSIONS = Api(18, "ApiVersions", (0,), 3)
SASL_AUTHENTICATE = Api(36, "SaslAuthenticate", (0, 1, 2), 2)
# KIP-496. Kafka 2.4-4.1 offer v0 only (OffsetDeleteRequest.json validVersions "0"); the newest
# OffsetDeleteResponse.json adds a flexible v1 for KIP-1313 with the same fields. kgroup speaks v0.
OFFSET_DELETE = Api(47, "OffsetDelete", (0,), None)
# v1 and v2 have the same layout (DescribeConfigsRequest.json: "Version 2 is the same as version
# 1"); Kafka 4.0 dropped v0, v3 adds documentation and v4 is flexible. kgroup speaks v1-v2.
DESCRIBE_CONFIGS = Api(32, "DescribeConfigs", (1, 2), 4)
# KIP-848; v1 (KIP-1099, Kafka 4.0) adds Members.MemberType to the response
CONSUMER_GROUP_DESCRIBE = Api(69, "ConsumerGroupDescribe", (0, 1), 0)

APIS = {
    api.key: api
    for api in (
        FETCH,
        LIST_OFFSETS,
        METADATA,
        OFFSET_COMMIT,
        OFFSET_FETCH,
        FIND_COORDINATOR,
        JOIN_GROUP,
        LEAVE_GROUP,
        SYNC_GROUP,
        DESCRIBE_GROUPS,
        LIST_GROUPS,
        SASL_HANDSHAKE,
        API_VERSIONS,
        SASL_AUTHENTICATE,
        OFFSET_DELETE,
        DESCRIBE_CONFIGS,
        CONSUMER_GROUP_DESCRIBE,
    )
}


def choose_version(api: Api, broker: dict[int, tuple[int, int]]) -> int | None:
    """The highest version both sides speak, or None (the broker lacks the API or overlap)."""
    low_high = broker.get(api.key)
    if low_high is None:
        return None
    low, high = low_high
    usable = [v for v in api.versions if low <= v <= high]
    return max(usable) if usable else None
