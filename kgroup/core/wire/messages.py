"""The APIs the wire client speaks: for each, its key and the versions kgroup sends
(`choose_version` picks one against a broker's ApiVersions answer).

The APIs and their versions are `kgroup.protocol.messages`'s table; the byte layouts are Kafka's
JSON message specs (clients/src/main/resources/common/message/) in `kgroup.protocol.definitions`,
read and written by their generated modules (`kgroup.protocol.generated`) or the generic codec.
This module re-exports, under their historical names, the request encoders and response decoders
of `cluster_calls`, `offset_calls`, `group_calls` and `member_protocol` and the result types and
constants of `kgroup.core.wire.results`, so callers write `messages.encode_x` /
`messages.XResult`.
"""

from __future__ import annotations

from typing import Any

from kgroup.core.wire import cluster_calls, group_calls, member_protocol, offset_calls
from kgroup.core.wire.frames import ProtocolError, translated
from kgroup.core.wire.member_protocol import Assignment, Subscription, Versioned
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
    error_name,
)
from kgroup.protocol import messages as p
from kgroup.protocol.model import Api

# The request encoders as they are; the response decoders raise the wire's ProtocolError
# (`frames.translated`) where the protocol package raises its own.
decode_api_versions_response = translated(cluster_calls.decode_api_versions_response)
decode_assignment = translated(member_protocol.decode_assignment)
decode_consumer_group_describe_response = translated(
    group_calls.decode_consumer_group_describe_response
)
decode_describe_configs_response = translated(cluster_calls.decode_describe_configs_response)
decode_describe_groups_response = translated(group_calls.decode_describe_groups_response)
decode_fetch_response = translated(offset_calls.decode_fetch_response)
decode_find_coordinator_response = translated(group_calls.decode_find_coordinator_response)
decode_join_group_response = translated(group_calls.decode_join_group_response)
decode_leave_group_response = translated(group_calls.decode_leave_group_response)
decode_list_groups_response = translated(group_calls.decode_list_groups_response)
decode_list_offsets_response = translated(offset_calls.decode_list_offsets_response)
decode_metadata_response = translated(cluster_calls.decode_metadata_response)
decode_offset_commit_response = translated(offset_calls.decode_offset_commit_response)
decode_offset_delete_response = translated(offset_calls.decode_offset_delete_response)
decode_offset_fetch_response = translated(offset_calls.decode_offset_fetch_response)
decode_sasl_authenticate_response = translated(cluster_calls.decode_sasl_authenticate_response)
decode_sasl_handshake_response = translated(cluster_calls.decode_sasl_handshake_response)
decode_subscription = translated(member_protocol.decode_subscription)
decode_sync_group_response = translated(group_calls.decode_sync_group_response)
encode_api_versions_request = cluster_calls.encode_api_versions_request
encode_assignment = member_protocol.encode_assignment
encode_consumer_group_describe_request = group_calls.encode_consumer_group_describe_request
encode_describe_configs_request = cluster_calls.encode_describe_configs_request
encode_describe_groups_request = group_calls.encode_describe_groups_request
encode_fetch_request = offset_calls.encode_fetch_request
encode_find_coordinator_request = group_calls.encode_find_coordinator_request
encode_join_group_request = group_calls.encode_join_group_request
encode_leave_group_request = group_calls.encode_leave_group_request
encode_list_groups_request = group_calls.encode_list_groups_request
encode_list_offsets_request = offset_calls.encode_list_offsets_request
encode_metadata_request = cluster_calls.encode_metadata_request
encode_offset_commit_request = offset_calls.encode_offset_commit_request
encode_offset_delete_request = offset_calls.encode_offset_delete_request
encode_offset_fetch_request = offset_calls.encode_offset_fetch_request
encode_sasl_authenticate_request = cluster_calls.encode_sasl_authenticate_request
encode_sasl_handshake_request = cluster_calls.encode_sasl_handshake_request
encode_subscription = member_protocol.encode_subscription
encode_sync_group_request = group_calls.encode_sync_group_request

# The API table and each API by name (`FETCH`, ...), made by __getattr__ on first use.
_MADE_ON_FIRST_USE = ("APIS", *p.BY_ATTRIBUTE)

__all__ = [
    "CLUSTER_AUTHORIZATION_FAILED",
    "COORDINATOR_LOAD_IN_PROGRESS",
    "COORDINATOR_NOT_AVAILABLE",
    "EARLIEST_TIMESTAMP",
    "ERROR_NAMES",
    "FENCED_LEADER_EPOCH",
    "FETCH_MAX_BYTES",
    "FETCH_MAX_WAIT_MS",
    "GROUP_AUTHORIZATION_FAILED",
    "GROUP_ID_NOT_FOUND",
    "GROUP_SUBSCRIBED_TO_TOPIC",
    "ILLEGAL_GENERATION",
    "INCONSISTENT_GROUP_PROTOCOL",
    "INVALID_GROUP_ID",
    "INVALID_SESSION_TIMEOUT",
    "KEY_TYPE_GROUP",
    "LATEST_TIMESTAMP",
    "LEADER_NOT_AVAILABLE",
    "MEMBER_ID_REQUIRED",
    "NONE",
    "NON_EMPTY_GROUP",
    "NOT_COORDINATOR",
    "NOT_LEADER_OR_FOLLOWER",
    "OFFSET_NOT_AVAILABLE",
    "OFFSET_OUT_OF_RANGE",
    "READ_COMMITTED",
    "READ_UNCOMMITTED",
    "REBALANCE_IN_PROGRESS",
    "REPLICA_NOT_AVAILABLE",
    "RESOURCE_TOPIC",
    "RETRIABLE_COORDINATOR_ERRORS",
    "RETRIABLE_LEADER_ERRORS",
    "SASL_AUTHENTICATION_FAILED",
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
    "Versioned",
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
    *_MADE_ON_FIRST_USE,
]

# --- API keys and the versions this client speaks ------------------------------------------------


def __getattr__(attribute: str) -> Any:
    """`APIS` and each API by name (`FETCH`, ...): `kgroup.protocol.messages`'s, which hold the
    versions kgroup speaks; made on first use."""
    if attribute not in _MADE_ON_FIRST_USE:
        raise AttributeError(f"module {__name__!r} has no attribute {attribute!r}")
    value = getattr(p, attribute)
    globals()[attribute] = value
    return value


def choose_version(api: Api, broker: dict[int, tuple[int, int]]) -> int | None:
    """The highest version both sides speak, or None (the broker lacks the API or overlap)."""
    low_high = broker.get(api.key)
    if low_high is None:
        return None
    low, high = low_high
    usable = [v for v in api.versions if low <= v <= high]
    return max(usable) if usable else None
