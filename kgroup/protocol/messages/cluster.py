"""ApiVersions (18), Metadata (3), ListOffsets (2) and DescribeConfigs (32).

Transcribed from apache/kafka clients/src/main/resources/common/message/:
ApiVersionsRequest.json / ApiVersionsResponse.json (0-4 / 0-4, v5 KIP-1242 not declared; KIP-511
client software name and version 3+, KIP-584 features as tagged fields 3+), MetadataRequest.json /
MetadataResponse.json (0-12; topic ids 10+, null topic names 12+), ListOffsetsRequest.json /
ListOffsetsResponse.json (0-8 here; v9, KIP-1005 timestamps, and v10, a request TimeoutMs, are
not declared), DescribeConfigsRequest.json / DescribeConfigsResponse.json (0-4,
flexible 4+; KIP-569 ConfigType and Documentation 3+).

Stored copies older than this transcription: MetadataResponse.json at f4bcfd8a (0-7) and
10b01b96 (0-9), MetadataRequest.json at 0373353f (0-11), DescribeConfigs*.json at 02ec28bd
(0-3, not flexible, and a pre-release `ConfigValueType` string where 3.0+ has the int8
ConfigType and Documentation).
"""

from __future__ import annotations

from kgroup.protocol.model import NULL, arr, f, message, struct

# --- ApiVersions ------------------------------------------------------------------------------

API_VERSIONS_REQUEST = message(
    "ApiVersionsRequest",
    "0-4",
    "3+",
    f("ClientSoftwareName", "string", "3+", ignorable=True),
    f("ClientSoftwareVersion", "string", "3+", ignorable=True),
    api_key=18,
    kind="request",
)

API_VERSIONS_RESPONSE = message(
    "ApiVersionsResponse",
    "0-4",
    "3+",
    f("ErrorCode", "int16"),
    f(
        "ApiKeys",
        arr(
            struct(
                "ApiVersion",
                f("ApiKey", "int16"),
                f("MinVersion", "int16"),
                f("MaxVersion", "int16"),
            )
        ),
    ),
    f("ThrottleTimeMs", "int32", "1+", ignorable=True),
    f(
        "SupportedFeatures",
        arr(
            struct(
                "SupportedFeatureKey",
                f("Name", "string", "3+"),
                f("MinVersion", "int16", "3+"),
                f("MaxVersion", "int16", "3+"),
            )
        ),
        "3+",
        tag=0,
        tagged="3+",
        ignorable=True,
        note="KIP-584",
    ),
    f("FinalizedFeaturesEpoch", "int64", "3+", tag=1, tagged="3+", default=-1, ignorable=True),
    f(
        "FinalizedFeatures",
        arr(
            struct(
                "FinalizedFeatureKey",
                f("Name", "string", "3+"),
                f("MaxVersionLevel", "int16", "3+"),
                f("MinVersionLevel", "int16", "3+"),
            )
        ),
        "3+",
        tag=2,
        tagged="3+",
        ignorable=True,
    ),
    f("ZkMigrationReady", "bool", "3+", tag=3, tagged="3+", default=False, ignorable=True),
    api_key=18,
    kind="response",
)

# --- Metadata ---------------------------------------------------------------------------------

METADATA_REQUEST = message(
    "MetadataRequest",
    "0-12",
    "9+",
    # null (1+) asks for every topic; [] for none (v0: [] meant every topic)
    f(
        "Topics",
        arr(
            struct(
                "MetadataRequestTopic",
                f("TopicId", "uuid", "10+", ignorable=True),
                f("Name", "string", nullable="10+"),
            )
        ),
        nullable="1+",
    ),
    f("AllowAutoTopicCreation", "bool", "4+", default=True),
    f("IncludeClusterAuthorizedOperations", "bool", "8-10"),
    f("IncludeTopicAuthorizedOperations", "bool", "8+"),
    api_key=3,
    kind="request",
)

METADATA_RESPONSE = message(
    "MetadataResponse",
    "0-12",
    "9+",
    f("ThrottleTimeMs", "int32", "3+", ignorable=True),
    f(
        "Brokers",
        arr(
            struct(
                "MetadataResponseBroker",
                f("NodeId", "int32"),
                f("Host", "string"),
                f("Port", "int32"),
                f("Rack", "string", "1+", nullable="1+", default=NULL, ignorable=True),
            )
        ),
    ),
    f("ClusterId", "string", "2+", nullable="2+", default=NULL, ignorable=True),
    f("ControllerId", "int32", "1+", default=-1, ignorable=True),
    f(
        "Topics",
        arr(
            struct(
                "MetadataResponseTopic",
                f("ErrorCode", "int16"),
                f("Name", "string", nullable="12+"),
                f("TopicId", "uuid", "10+", ignorable=True),
                f("IsInternal", "bool", "1+", default=False, ignorable=True),
                f(
                    "Partitions",
                    arr(
                        struct(
                            "MetadataResponsePartition",
                            f("ErrorCode", "int16"),
                            f("PartitionIndex", "int32"),
                            f("LeaderId", "int32"),
                            f("LeaderEpoch", "int32", "7+", default=-1, ignorable=True),
                            f("ReplicaNodes", arr("int32")),
                            f("IsrNodes", arr("int32")),
                            f("OfflineReplicas", arr("int32"), "5+", ignorable=True),
                        )
                    ),
                ),
                f(
                    "TopicAuthorizedOperations",
                    "int32",
                    "8+",
                    default=-(2**31),
                    ignorable=True,
                ),
            )
        ),
    ),
    f("ClusterAuthorizedOperations", "int32", "8-10", default=-(2**31), ignorable=True),
    api_key=3,
    kind="response",
)

# --- ListOffsets ------------------------------------------------------------------------------

LIST_OFFSETS_REQUEST = message(
    "ListOffsetsRequest",
    "0-8",
    "6+",
    f("ReplicaId", "int32"),
    f("IsolationLevel", "int8", "2+"),
    f(
        "Topics",
        arr(
            struct(
                "ListOffsetsTopic",
                f("Name", "string"),
                f(
                    "Partitions",
                    arr(
                        struct(
                            "ListOffsetsPartition",
                            f("PartitionIndex", "int32"),
                            f("CurrentLeaderEpoch", "int32", "4+", default=-1, ignorable=True),
                            f("Timestamp", "int64"),
                            f("MaxNumOffsets", "int32", "0", default=1),
                        )
                    ),
                ),
            )
        ),
    ),
    api_key=2,
    kind="request",
)

LIST_OFFSETS_RESPONSE = message(
    "ListOffsetsResponse",
    "0-8",
    "6+",
    f("ThrottleTimeMs", "int32", "2+", ignorable=True),
    f(
        "Topics",
        arr(
            struct(
                "ListOffsetsTopicResponse",
                f("Name", "string"),
                f(
                    "Partitions",
                    arr(
                        struct(
                            "ListOffsetsPartitionResponse",
                            f("PartitionIndex", "int32"),
                            f("ErrorCode", "int16"),
                            f("OldStyleOffsets", arr("int64"), "0", ignorable=True),
                            f("Timestamp", "int64", "1+", default=-1, ignorable=True),
                            f("Offset", "int64", "1+", default=-1, ignorable=True),
                            f("LeaderEpoch", "int32", "4+", default=-1),
                        )
                    ),
                ),
            )
        ),
    ),
    api_key=2,
    kind="response",
)

# --- DescribeConfigs --------------------------------------------------------------------------

DESCRIBE_CONFIGS_REQUEST = message(
    "DescribeConfigsRequest",
    "0-4",
    "4+",
    f(
        "Resources",
        arr(
            struct(
                "DescribeConfigsResource",
                f("ResourceType", "int8"),
                f("ResourceName", "string"),
                f("ConfigurationKeys", arr("string"), nullable="0+"),
            )
        ),
    ),
    f("IncludeSynonyms", "bool", "1+", default=False),
    f("IncludeDocumentation", "bool", "3+", default=False),
    api_key=32,
    kind="request",
)

DESCRIBE_CONFIGS_RESPONSE = message(
    "DescribeConfigsResponse",
    "0-4",
    "4+",
    f("ThrottleTimeMs", "int32"),
    f(
        "Results",
        arr(
            struct(
                "DescribeConfigsResult",
                f("ErrorCode", "int16"),
                f("ErrorMessage", "string", nullable="0+"),
                f("ResourceType", "int8"),
                f("ResourceName", "string"),
                f(
                    "Configs",
                    arr(
                        struct(
                            "DescribeConfigsResourceResult",
                            f("Name", "string"),
                            f("Value", "string", nullable="0+"),
                            f("ReadOnly", "bool"),
                            f("IsDefault", "bool", "0"),
                            # v0 callers derive the source; -1 is a placeholder
                            f("ConfigSource", "int8", "1+", default=-1, ignorable=True),
                            f("IsSensitive", "bool"),
                            f(
                                "Synonyms",
                                arr(
                                    struct(
                                        "DescribeConfigsSynonym",
                                        f("Name", "string", "1+"),
                                        f("Value", "string", "1+", nullable="0+"),
                                        f("Source", "int8", "1+"),
                                    )
                                ),
                                "1+",
                                ignorable=True,
                            ),
                            f("ConfigType", "int8", "3+", default=0, ignorable=True),
                            f("Documentation", "string", "3+", nullable="0+", ignorable=True),
                        )
                    ),
                ),
            )
        ),
    ),
    api_key=32,
    kind="response",
)
