"""JoinGroup (11), SyncGroup (14), LeaveGroup (13): classic group membership.

Transcribed from apache/kafka clients/src/main/resources/common/message/:
JoinGroupRequest.json / JoinGroupResponse.json (0-9, flexible 6+; KIP-345 GroupInstanceId 5+,
KIP-559 ProtocolType 7+, KIP-800 Reason 8+, KIP-814 SkipAssignment 9+),
SyncGroupRequest.json / SyncGroupResponse.json (0-5, flexible 4+; KIP-559 ProtocolType and
ProtocolName 5+), LeaveGroupRequest.json / LeaveGroupResponse.json (0-5, flexible 4+; KIP-345
batched Members 3+, KIP-800 Reason 5+).
"""

from __future__ import annotations

from kgroup.protocol.model import NULL, arr, f, message, struct

JOIN_GROUP_REQUEST = message(
    "JoinGroupRequest",
    "0-9",
    "6+",
    f("GroupId", "string"),
    f("SessionTimeoutMs", "int32"),
    f("RebalanceTimeoutMs", "int32", "1+", default=-1, ignorable=True),
    f("MemberId", "string"),
    f("GroupInstanceId", "string", "5+", nullable="5+", default=NULL),
    f("ProtocolType", "string"),
    f(
        "Protocols",
        arr(struct("JoinGroupRequestProtocol", f("Name", "string"), f("Metadata", "bytes"))),
    ),
    f("Reason", "string", "8+", nullable="8+", default=NULL, ignorable=True),
    api_key=11,
    kind="request",
)

JOIN_GROUP_RESPONSE = message(
    "JoinGroupResponse",
    "0-9",
    "6+",
    f("ThrottleTimeMs", "int32", "2+", ignorable=True),
    f("ErrorCode", "int16"),
    f("GenerationId", "int32", default=-1),
    f("ProtocolType", "string", "7+", nullable="7+", default=NULL, ignorable=True),
    f("ProtocolName", "string", nullable="7+"),
    f("Leader", "string"),
    f("SkipAssignment", "bool", "9+", default=False),
    f("MemberId", "string"),
    f(
        "Members",
        arr(
            struct(
                "JoinGroupResponseMember",
                f("MemberId", "string"),
                f("GroupInstanceId", "string", "5+", nullable="5+", default=NULL, ignorable=True),
                f("Metadata", "bytes"),
            )
        ),
    ),
    api_key=11,
    kind="response",
)

SYNC_GROUP_REQUEST = message(
    "SyncGroupRequest",
    "0-5",
    "4+",
    f("GroupId", "string"),
    f("GenerationId", "int32"),
    f("MemberId", "string"),
    f("GroupInstanceId", "string", "3+", nullable="3+", default=NULL),
    f("ProtocolType", "string", "5+", nullable="5+", default=NULL, ignorable=True),
    f("ProtocolName", "string", "5+", nullable="5+", default=NULL, ignorable=True),
    f(
        "Assignments",
        arr(
            struct(
                "SyncGroupRequestAssignment",
                f("MemberId", "string"),
                f("Assignment", "bytes"),
            )
        ),
    ),
    api_key=14,
    kind="request",
)

SYNC_GROUP_RESPONSE = message(
    "SyncGroupResponse",
    "0-5",
    "4+",
    f("ThrottleTimeMs", "int32", "1+", ignorable=True),
    f("ErrorCode", "int16"),
    f("ProtocolType", "string", "5+", nullable="5+", default=NULL, ignorable=True),
    f("ProtocolName", "string", "5+", nullable="5+", default=NULL, ignorable=True),
    f("Assignment", "bytes"),
    api_key=14,
    kind="response",
)

LEAVE_GROUP_REQUEST = message(
    "LeaveGroupRequest",
    "0-5",
    "4+",
    f("GroupId", "string"),
    f("MemberId", "string", "0-2"),
    f(
        "Members",
        arr(
            struct(
                "MemberIdentity",
                f("MemberId", "string", "3+"),
                f("GroupInstanceId", "string", "3+", nullable="3+", default=NULL),
                f("Reason", "string", "5+", nullable="5+", default=NULL, ignorable=True),
            )
        ),
        "3+",
    ),
    api_key=13,
    kind="request",
)

LEAVE_GROUP_RESPONSE = message(
    "LeaveGroupResponse",
    "0-5",
    "4+",
    f("ThrottleTimeMs", "int32", "1+", ignorable=True),
    f("ErrorCode", "int16"),
    f(
        "Members",
        arr(
            struct(
                "MemberResponse",
                f("MemberId", "string", "3+"),
                f("GroupInstanceId", "string", "3+", nullable="3+"),
                f("ErrorCode", "int16", "3+"),
            )
        ),
        "3+",
    ),
    api_key=13,
    kind="response",
)
