"""Fetch (1), v0-v11: the non-flexible versions, which cover the v4-v11 kgroup sends.

Transcribed from apache/kafka clients/src/main/resources/common/message/FetchRequest.json
(0-11) and FetchResponse.json (0-12, flexible 12+) at the stored copies 0403d432 / 0de6cc5f.
Flexible v12+ (KIP-595 TruncationOffset/CurrentLeader tags, KIP-516 topic ids 13+, KIP-903
ReplicaState 15+) is not declared: kgroup does not send it. Kafka 4.0 removed v0-v3 (KIP-896).

`RecordSet` is Kafka's `records` type, which outside flexible versions is laid out as nullable
`bytes` (an int32 length, -1 = null; `MessageDataGenerator`).
"""

from __future__ import annotations

from kgroup.protocol.model import arr, f, message, struct

FETCH_REQUEST = message(
    "FetchRequest",
    "0-11",
    "12+",
    f("ReplicaId", "int32"),
    f("MaxWait", "int32"),
    f("MinBytes", "int32"),
    f("MaxBytes", "int32", "3+", default=0x7FFFFFFF, ignorable=True),
    f("IsolationLevel", "int8", "4+"),
    f("SessionId", "int32", "7+"),
    f("Epoch", "int32", "7+", default=-1),
    f(
        "Topics",
        arr(
            struct(
                "FetchableTopic",
                f("Name", "string"),
                f(
                    "FetchPartitions",
                    arr(
                        struct(
                            "FetchPartition",
                            f("PartitionIndex", "int32"),
                            f("CurrentLeaderEpoch", "int32", "9+", default=-1, ignorable=True),
                            f("FetchOffset", "int64"),
                            f("LogStartOffset", "int64", "5+", default=-1),
                            f("MaxBytes", "int32"),
                        )
                    ),
                ),
            )
        ),
    ),
    f(
        "Forgotten",
        arr(
            struct(
                "ForgottenTopic",
                f("Name", "string", "7+"),
                f("ForgottenPartitionIndexes", arr("int32"), "7+"),
            )
        ),
        "7+",
    ),
    f("RackId", "string", "11+", ignorable=True),
    api_key=1,
    kind="request",
)

FETCH_RESPONSE = message(
    "FetchResponse",
    "0-11",
    "12+",
    f("ThrottleTimeMs", "int32", "1+", ignorable=True),
    f("ErrorCode", "int16", "7+", ignorable=True),
    f("SessionId", "int32", "7+"),
    f(
        "Responses",
        arr(
            struct(
                "FetchableTopicResponse",
                f("Topic", "string"),
                f(
                    "PartitionResponses",
                    arr(
                        struct(
                            "FetchablePartitionResponse",
                            f("Partition", "int32"),
                            f("ErrorCode", "int16"),
                            f("HighWatermark", "int64"),
                            f("LastStableOffset", "int64", "4+", default=-1, ignorable=True),
                            f("LogStartOffset", "int64", "5+", default=-1, ignorable=True),
                            f(
                                "AbortedTransactions",
                                arr(
                                    struct(
                                        "AbortedTransaction",
                                        f("ProducerId", "int64", "4+"),
                                        f("FirstOffset", "int64", "4+"),
                                    )
                                ),
                                "4+",
                                nullable="4+",
                                ignorable=True,
                            ),
                            f("PreferredReadReplica", "int32", "11+", default=-1),
                            f("RecordSet", "bytes", nullable="0+"),
                        )
                    ),
                ),
            )
        ),
    ),
    api_key=1,
    kind="response",
)
