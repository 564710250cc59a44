"""DescribeLogDirs (35): the size of each partition replica a broker keeps on disk (KIP-113).

Transcribed from apache/kafka clients/src/main/resources/common/message/:
DescribeLogDirsRequest.json (0-4, flexible 2+; v0 deprecated, removed in Kafka 4.0 by KIP-896;
v1-v4 share the request layout; Topics null asks for every partition) and
DescribeLogDirsResponse.json (0-4, flexible 2+; v3 adds the top-level ErrorCode, v4 adds
TotalBytes and UsableBytes per log directory, KIP-827). The stored copy of the response read for
this transcription declares 0-3; v4's two fields are KIP-827's (`ignorable`, default -1).

Not in `kgroup.protocol.messages.APIS` yet: that table must equal the wire client's
`kgroup.core.wire.messages.APIS`, and DescribeLogDirs is sent by `kgroup.core.wire.log_dirs`.
"""

from __future__ import annotations

from kgroup.protocol.model import Api, arr, f, message, struct

DESCRIBE_LOG_DIRS_REQUEST = message(
    "DescribeLogDirsRequest",
    "0-4",
    "2+",
    f(
        "Topics",
        arr(
            struct(
                "DescribableLogDirTopic",
                f("Topic", "string"),
                f("Partitions", arr("int32")),
            )
        ),
        nullable="0+",
    ),
    api_key=35,
    kind="request",
)

DESCRIBE_LOG_DIRS_RESPONSE = message(
    "DescribeLogDirsResponse",
    "0-4",
    "2+",
    f("ThrottleTimeMs", "int32"),
    f("ErrorCode", "int16", "3+"),
    f(
        "Results",
        arr(
            struct(
                "DescribeLogDirsResult",
                f("ErrorCode", "int16"),
                f("LogDir", "string"),
                f(
                    "Topics",
                    arr(
                        struct(
                            "DescribeLogDirsTopic",
                            f("Name", "string"),
                            f(
                                "Partitions",
                                arr(
                                    struct(
                                        "DescribeLogDirsPartition",
                                        f("PartitionIndex", "int32"),
                                        f("PartitionSize", "int64"),
                                        f("OffsetLag", "int64"),
                                        f("IsFutureKey", "bool"),
                                    )
                                ),
                            ),
                        )
                    ),
                ),
                f("TotalBytes", "int64", "4+", default=-1, ignorable=True),
                f("UsableBytes", "int64", "4+", default=-1, ignorable=True),
            )
        ),
    ),
    api_key=35,
    kind="response",
)

# v1-v4: v0 is gone from Kafka 4.0 (KIP-896) and says nothing v1 does not
DESCRIBE_LOG_DIRS = Api(
    35,
    "DescribeLogDirs",
    DESCRIBE_LOG_DIRS_REQUEST,
    DESCRIBE_LOG_DIRS_RESPONSE,
    (1, 2, 3, 4),
)
