"""OffsetCommit (8), OffsetFetch (9), OffsetDelete (47).

Transcribed from apache/kafka clients/src/main/resources/common/message/:
OffsetCommitRequest.json / OffsetCommitResponse.json (0-9 here, flexible 8+; v10, KIP-848
topic ids, is not declared), OffsetFetchRequest.json / OffsetFetchResponse.json (0-9,
flexible 6+; KIP-709 groups 8+, KIP-848 member id and epoch 9+; v10 topic ids not declared),
OffsetDeleteRequest.json / OffsetDeleteResponse.json (KIP-496, v0, never flexible).

kgroup speaks OffsetDelete v0, what Kafka 2.4-4.1 offer; the newest OffsetDeleteResponse.json
adds a flexible v1 (KIP-1313) with the same fields, which a stored copy does not have yet.
"""

from __future__ import annotations

from kgroup.protocol.model import NULL, arr, f, message, struct

# --- OffsetCommit -----------------------------------------------------------------------------

OFFSET_COMMIT_REQUEST = message(
    "OffsetCommitRequest",
    "0-9",
    "8+",
    f("GroupId", "string"),
    f("GenerationIdOrMemberEpoch", "int32", "1+", default=-1, ignorable=True),
    f("MemberId", "string", "1+", ignorable=True),
    f("GroupInstanceId", "string", "7+", nullable="7+", default=NULL, ignorable=True),
    f("RetentionTimeMs", "int64", "2-4", default=-1, ignorable=True),
    f(
        "Topics",
        arr(
            struct(
                "OffsetCommitRequestTopic",
                f("Name", "string"),
                f(
                    "Partitions",
                    arr(
                        struct(
                            "OffsetCommitRequestPartition",
                            f("PartitionIndex", "int32"),
                            f("CommittedOffset", "int64"),
                            f("CommittedLeaderEpoch", "int32", "6+", default=-1, ignorable=True),
                            f("CommitTimestamp", "int64", "1", default=-1),
                            f("CommittedMetadata", "string", nullable="0+"),
                        )
                    ),
                ),
            )
        ),
    ),
    api_key=8,
    kind="request",
)

OFFSET_COMMIT_RESPONSE = message(
    "OffsetCommitResponse",
    "0-9",
    "8+",
    f("ThrottleTimeMs", "int32", "3+", ignorable=True),
    f(
        "Topics",
        arr(
            struct(
                "OffsetCommitResponseTopic",
                f("Name", "string"),
                f(
                    "Partitions",
                    arr(
                        struct(
                            "OffsetCommitResponsePartition",
                            f("PartitionIndex", "int32"),
                            f("ErrorCode", "int16"),
                        )
                    ),
                ),
            )
        ),
    ),
    api_key=8,
    kind="response",
)

# --- OffsetFetch ------------------------------------------------------------------------------

OFFSET_FETCH_REQUEST = message(
    "OffsetFetchRequest",
    "0-9",
    "6+",
    f("GroupId", "string", "0-7"),
    f(
        "Topics",
        arr(
            struct(
                "OffsetFetchRequestTopic",
                f("Name", "string", "0-7"),
                f("PartitionIndexes", arr("int32"), "0-7"),
            )
        ),
        "0-7",
        nullable="2-7",
    ),
    f(
        "Groups",
        arr(
            struct(
                "OffsetFetchRequestGroup",
                f("groupId", "string", "8+"),
                f("MemberId", "string", "9+", nullable="9+", default=NULL, ignorable=True),
                f("MemberEpoch", "int32", "9+", default=-1, ignorable=True),
                f(
                    "Topics",
                    arr(
                        struct(
                            "OffsetFetchRequestTopics",
                            f("Name", "string", "8+"),
                            f("PartitionIndexes", arr("int32"), "8+"),
                        )
                    ),
                    "8+",
                    nullable="8+",
                ),
            )
        ),
        "8+",
    ),
    f("RequireStable", "bool", "7+", default=False),
    api_key=9,
    kind="request",
)

OFFSET_FETCH_RESPONSE = message(
    "OffsetFetchResponse",
    "0-9",
    "6+",
    f("ThrottleTimeMs", "int32", "3+", ignorable=True),
    f(
        "Topics",
        arr(
            struct(
                "OffsetFetchResponseTopic",
                f("Name", "string", "0-7"),
                f(
                    "Partitions",
                    arr(
                        struct(
                            "OffsetFetchResponsePartition",
                            f("PartitionIndex", "int32", "0-7"),
                            f("CommittedOffset", "int64", "0-7"),
                            f(
                                "CommittedLeaderEpoch",
                                "int32",
                                "5-7",
                                default=-1,
                                ignorable=True,
                            ),
                            f("Metadata", "string", "0-7", nullable="0-7"),
                            f("ErrorCode", "int16", "0-7"),
                        )
                    ),
                    "0-7",
                ),
            )
        ),
        "0-7",
    ),
    f("ErrorCode", "int16", "2-7", default=0, ignorable=True),
    f(
        "Groups",
        arr(
            struct(
                "OffsetFetchResponseGroup",
                f("groupId", "string", "8+"),
                f(
                    "Topics",
                    arr(
                        struct(
                            "OffsetFetchResponseTopics",
                            f("Name", "string", "8+"),
                            f(
                                "Partitions",
                                arr(
                                    struct(
                                        "OffsetFetchResponsePartitions",
                                        f("PartitionIndex", "int32", "8+"),
                                        f("CommittedOffset", "int64", "8+"),
                                        f(
                                            "CommittedLeaderEpoch",
                                            "int32",
                                            "8+",
                                            default=-1,
                                            ignorable=True,
                                        ),
                                        f("Metadata", "string", "8+", nullable="8+"),
                                        f("ErrorCode", "int16", "8+"),
                                    )
                                ),
                                "8+",
                            ),
                        )
                    ),
                    "8+",
                ),
                f("ErrorCode", "int16", "8+", default=0),
            )
        ),
        "8+",
    ),
    api_key=9,
    kind="response",
)

# --- OffsetDelete -----------------------------------------------------------------------------

OFFSET_DELETE_REQUEST = message(
    "OffsetDeleteRequest",
    "0",
    None,
    f("GroupId", "string"),
    f(
        "Topics",
        arr(
            struct(
                "OffsetDeleteRequestTopic",
                f("Name", "string"),
                f(
                    "Partitions",
                    arr(struct("OffsetDeleteRequestPartition", f("PartitionIndex", "int32"))),
                ),
            )
        ),
    ),
    api_key=47,
    kind="request",
)

OFFSET_DELETE_RESPONSE = message(
    "OffsetDeleteResponse",
    "0",
    None,
    f("ErrorCode", "int16"),
    f("ThrottleTimeMs", "int32"),
    f(
        "Topics",
        arr(
            struct(
                "OffsetDeleteResponseTopic",
                f("Name", "string"),
                f(
                    "Partitions",
                    arr(
                        struct(
                            "OffsetDeleteResponsePartition",
                            f("PartitionIndex", "int32"),
                            f("ErrorCode", "int16"),
                        )
                    ),
                ),
            )
        ),
    ),
    api_key=47,
    kind="response",
)
