"""FindCoordinator (10), ListGroups (16), DescribeGroups (15), ConsumerGroupDescribe (69).

Transcribed from apache/kafka clients/src/main/resources/common/message/:
FindCoordinatorRequest.json / FindCoordinatorResponse.json (0-4 here, flexible 3+; KIP-699
batched keys 4+; v5-v6 only add error codes and share-group keys, not declared),
ListGroupsRequest.json / ListGroupsResponse.json (0-5, flexible 3+; KIP-518 states 4+,
KIP-848 types 5+), DescribeGroupsRequest.json / DescribeGroupsResponse.json (0-6, flexible
5+; KIP-1043 ErrorMessage 6+), ConsumerGroupDescribeRequest.json /
ConsumerGroupDescribeResponse.json (0-1, flexible 0+; KIP-1099 Members.MemberType 1+).

The stored ConsumerGroupDescribeResponse.json (239fc884) is a pre-release draft: validVersions
"0", Members.MemberId a uuid and Assignment carrying Error, MetadataVersion and MetadataBytes.
Kafka 3.7 shipped MemberId as a string and Assignment as TopicPartitions only, and 4.0 added
v1 with MemberType; both are what is declared here.
"""

from __future__ import annotations

from kgroup.protocol.model import NULL, arr, f, message, struct

# --- FindCoordinator --------------------------------------------------------------------------

FIND_COORDINATOR_REQUEST = message(
    "FindCoordinatorRequest",
    "0-4",
    "3+",
    f("Key", "string", "0-3"),
    f("KeyType", "int8", "1+", default=0, note="0 group, 1 transaction"),
    f("CoordinatorKeys", arr("string"), "4+"),
    api_key=10,
    kind="request",
)

FIND_COORDINATOR_RESPONSE = message(
    "FindCoordinatorResponse",
    "0-4",
    "3+",
    f("ThrottleTimeMs", "int32", "1+", ignorable=True),
    f("ErrorCode", "int16", "0-3"),
    f("ErrorMessage", "string", "1-3", nullable="1-3", ignorable=True),
    f("NodeId", "int32", "0-3"),
    f("Host", "string", "0-3"),
    f("Port", "int32", "0-3"),
    f(
        "Coordinators",
        arr(
            struct(
                "Coordinator",
                f("Key", "string", "4+"),
                f("NodeId", "int32", "4+"),
                f("Host", "string", "4+"),
                f("Port", "int32", "4+"),
                f("ErrorCode", "int16", "4+"),
                f("ErrorMessage", "string", "4+", nullable="4+", ignorable=True),
            )
        ),
        "4+",
    ),
    api_key=10,
    kind="response",
)

# --- ListGroups -------------------------------------------------------------------------------

LIST_GROUPS_REQUEST = message(
    "ListGroupsRequest",
    "0-5",
    "3+",
    f("StatesFilter", arr("string"), "4+", note="KIP-518"),
    f("TypesFilter", arr("string"), "5+", note="KIP-848"),
    api_key=16,
    kind="request",
)

LIST_GROUPS_RESPONSE = message(
    "ListGroupsResponse",
    "0-5",
    "3+",
    f("ThrottleTimeMs", "int32", "1+", ignorable=True),
    f("ErrorCode", "int16"),
    f(
        "Groups",
        arr(
            struct(
                "ListedGroup",
                f("GroupId", "string"),
                f("ProtocolType", "string"),
                f("GroupState", "string", "4+", ignorable=True),
                f("GroupType", "string", "5+", ignorable=True),
            )
        ),
    ),
    api_key=16,
    kind="response",
)

# --- DescribeGroups ---------------------------------------------------------------------------

DESCRIBE_GROUPS_REQUEST = message(
    "DescribeGroupsRequest",
    "0-6",
    "5+",
    f("Groups", arr("string")),
    f("IncludeAuthorizedOperations", "bool", "3+"),
    api_key=15,
    kind="request",
)

DESCRIBE_GROUPS_RESPONSE = message(
    "DescribeGroupsResponse",
    "0-6",
    "5+",
    f("ThrottleTimeMs", "int32", "1+", ignorable=True),
    f(
        "Groups",
        arr(
            struct(
                "DescribedGroup",
                f("ErrorCode", "int16"),
                f("ErrorMessage", "string", "6+", nullable="6+", default=NULL, ignorable=True),
                f("GroupId", "string"),
                f("GroupState", "string"),
                f("ProtocolType", "string"),
                f("ProtocolData", "string"),
                f(
                    "Members",
                    arr(
                        struct(
                            "DescribedGroupMember",
                            f("MemberId", "string"),
                            f(
                                "GroupInstanceId",
                                "string",
                                "4+",
                                nullable="4+",
                                default=NULL,
                                ignorable=True,
                            ),
                            f("ClientId", "string"),
                            f("ClientHost", "string"),
                            f("MemberMetadata", "bytes"),
                            f("MemberAssignment", "bytes"),
                        )
                    ),
                ),
                f("AuthorizedOperations", "int32", "3+", default=-(2**31)),
            )
        ),
    ),
    api_key=15,
    kind="response",
)

# --- ConsumerGroupDescribe --------------------------------------------------------------------

CONSUMER_GROUP_DESCRIBE_REQUEST = message(
    "ConsumerGroupDescribeRequest",
    "0-1",
    "0+",
    f("GroupIds", arr("string")),
    f("IncludeAuthorizedOperations", "bool"),
    api_key=69,
    kind="request",
)

_TOPIC_PARTITIONS = struct(
    "TopicPartitions",
    f("TopicId", "uuid"),
    f("TopicName", "string"),
    f("Partitions", arr("int32")),
)
_ASSIGNMENT = struct("Assignment", f("TopicPartitions", arr(_TOPIC_PARTITIONS)))

CONSUMER_GROUP_DESCRIBE_RESPONSE = message(
    "ConsumerGroupDescribeResponse",
    "0-1",
    "0+",
    f("ThrottleTimeMs", "int32"),
    f(
        "Groups",
        arr(
            struct(
                "DescribedGroup",
                f("ErrorCode", "int16"),
                f("ErrorMessage", "string", nullable="0+", default=NULL),
                f("GroupId", "string"),
                f("GroupState", "string"),
                f("GroupEpoch", "int32"),
                f("AssignmentEpoch", "int32"),
                f("AssignorName", "string"),
                f(
                    "Members",
                    arr(
                        struct(
                            "Member",
                            f("MemberId", "string"),
                            f("InstanceId", "string", nullable="0+", default=NULL),
                            f("RackId", "string", nullable="0+", default=NULL),
                            f("MemberEpoch", "int32"),
                            f("ClientId", "string"),
                            f("ClientHost", "string"),
                            f("SubscribedTopicNames", arr("string")),
                            f("SubscribedTopicRegex", "string", nullable="0+", default=NULL),
                            f("Assignment", _ASSIGNMENT),
                            f("TargetAssignment", _ASSIGNMENT),
                            f(
                                "MemberType",
                                "int8",
                                "1+",
                                default=-1,
                                ignorable=True,
                                note="KIP-1099: -1 unknown, 0 classic, 1 consumer",
                            ),
                        )
                    ),
                ),
                f("AuthorizedOperations", "int32", default=-(2**31)),
            )
        ),
    ),
    api_key=69,
    kind="response",
)
