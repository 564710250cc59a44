"""Every wire API kgroup speaks, as declarations: `APIS` maps an api key to its `Api`.

`spoken` is the set of versions kgroup sends (the `Api(...)` lines of
`kgroup.core.wire.messages`); the request and response declarations cover at least those and
usually all of Kafka's valid versions. Where each table comes from is in its module's docstring.
"""

from __future__ import annotations

from kgroup.protocol.messages.cluster import (
    API_VERSIONS_REQUEST,
    API_VERSIONS_RESPONSE,
    DESCRIBE_CONFIGS_REQUEST,
    DESCRIBE_CONFIGS_RESPONSE,
    LIST_OFFSETS_REQUEST,
    LIST_OFFSETS_RESPONSE,
    METADATA_REQUEST,
    METADATA_RESPONSE,
)
from kgroup.protocol.messages.fetch import FETCH_REQUEST, FETCH_RESPONSE
from kgroup.protocol.messages.groups import (
    CONSUMER_GROUP_DESCRIBE_REQUEST,
    CONSUMER_GROUP_DESCRIBE_RESPONSE,
    DESCRIBE_GROUPS_REQUEST,
    DESCRIBE_GROUPS_RESPONSE,
    FIND_COORDINATOR_REQUEST,
    FIND_COORDINATOR_RESPONSE,
    LIST_GROUPS_REQUEST,
    LIST_GROUPS_RESPONSE,
)
from kgroup.protocol.messages.membership import (
    JOIN_GROUP_REQUEST,
    JOIN_GROUP_RESPONSE,
    LEAVE_GROUP_REQUEST,
    LEAVE_GROUP_RESPONSE,
    SYNC_GROUP_REQUEST,
    SYNC_GROUP_RESPONSE,
)
from kgroup.protocol.messages.offsets import (
    OFFSET_COMMIT_REQUEST,
    OFFSET_COMMIT_RESPONSE,
    OFFSET_DELETE_REQUEST,
    OFFSET_DELETE_RESPONSE,
    OFFSET_FETCH_REQUEST,
    OFFSET_FETCH_RESPONSE,
)
from kgroup.protocol.messages.sasl import (
    SASL_AUTHENTICATE_REQUEST,
    SASL_AUTHENTICATE_RESPONSE,
    SASL_HANDSHAKE_REQUEST,
    SASL_HANDSHAKE_RESPONSE,
)
from kgroup.protocol.model import Api

# v4-v11: IsolationLevel (KIP-98) to the last non-flexible version; Kafka 4.0 removed v0-v3
FETCH = Api(1, "Fetch", FETCH_REQUEST, FETCH_RESPONSE, tuple(range(4, 12)))
LIST_OFFSETS = Api(
    2, "ListOffsets", LIST_OFFSETS_REQUEST, LIST_OFFSETS_RESPONSE, (1, 2, 3, 4, 5, 6, 7, 8)
)
METADATA = Api(3, "Metadata", METADATA_REQUEST, METADATA_RESPONSE, tuple(range(1, 13)))
OFFSET_COMMIT = Api(
    8, "OffsetCommit", OFFSET_COMMIT_REQUEST, OFFSET_COMMIT_RESPONSE, tuple(range(2, 9))
)
OFFSET_FETCH = Api(
    9, "OffsetFetch", OFFSET_FETCH_REQUEST, OFFSET_FETCH_RESPONSE, tuple(range(2, 9))
)
FIND_COORDINATOR = Api(
    10, "FindCoordinator", FIND_COORDINATOR_REQUEST, FIND_COORDINATOR_RESPONSE, (1, 2, 3, 4)
)
JOIN_GROUP = Api(11, "JoinGroup", JOIN_GROUP_REQUEST, JOIN_GROUP_RESPONSE, tuple(range(2, 10)))
LEAVE_GROUP = Api(13, "LeaveGroup", LEAVE_GROUP_REQUEST, LEAVE_GROUP_RESPONSE, (1, 2, 3, 4, 5))
SYNC_GROUP = Api(14, "SyncGroup", SYNC_GROUP_REQUEST, SYNC_GROUP_RESPONSE, (1, 2, 3, 4, 5))
DESCRIBE_GROUPS = Api(
    15, "DescribeGroups", DESCRIBE_GROUPS_REQUEST, DESCRIBE_GROUPS_RESPONSE, (1, 2, 3, 4, 5)
)
LIST_GROUPS = Api(16, "ListGroups", LIST_GROUPS_REQUEST, LIST_GROUPS_RESPONSE, tuple(range(6)))
SASL_HANDSHAKE = Api(17, "SaslHandshake", SASL_HANDSHAKE_REQUEST, SASL_HANDSHAKE_RESPONSE, (1,))
API_VERSIONS = Api(18, "ApiVersions", API_VERSIONS_REQUEST, API_VERSIONS_RESPONSE, (0,))
# Kafka 4.0 removed v0 (KIP-896); v1 and v2 share a layout
DESCRIBE_CONFIGS = Api(
    32, "DescribeConfigs", DESCRIBE_CONFIGS_REQUEST, DESCRIBE_CONFIGS_RESPONSE, (1, 2)
)
SASL_AUTHENTICATE = Api(
    36, "SaslAuthenticate", SASL_AUTHENTICATE_REQUEST, SASL_AUTHENTICATE_RESPONSE, (0, 1, 2)
)
OFFSET_DELETE = Api(47, "OffsetDelete", OFFSET_DELETE_REQUEST, OFFSET_DELETE_RESPONSE, (0,))
CONSUMER_GROUP_DESCRIBE = Api(
    69,
    "ConsumerGroupDescribe",
    CONSUMER_GROUP_DESCRIBE_REQUEST,
    CONSUMER_GROUP_DESCRIBE_RESPONSE,
    (0, 1),
)

APIS: dict[int, Api] = {
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
        DESCRIBE_CONFIGS,
        SASL_AUTHENTICATE,
        OFFSET_DELETE,
        CONSUMER_GROUP_DESCRIBE,
    )
}
