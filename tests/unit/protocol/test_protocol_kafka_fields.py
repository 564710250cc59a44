"""Declarations field by field against Kafka's own JSON message files.

Outside reference: each table below is transcribed by hand from one stored version of Kafka's
file (`clients/`, `group-coordinator/` or `share-coordinator/src/main/resources/common/message/
<Name>.json`, the commit named), every field in wire order: its path, type, versions,
nullableVersions, `ignorable` and `default` as the file writes them (None: the key is absent).
A declaration must say the same for every version both it and that file hold: same fields in
the same order, Kafka's names and types, the same version ranges and nullable ranges, the same
ignorable flag and default, the same tags. The versions and flexible versions of every wire
declaration are checked in test_protocol_kafka_reference.py, the others' flexible versions here
(KAFKA_FLEXIBLE). Every declaration file has a table, or is listed in NO_KAFKA_FILE (what it
transcribes instead) or NOT_YET_TRANSCRIBED (why): a new declaration without one fails.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kgroup.protocol import definitions

ROOT = Path(definitions.__file__).parent
OPEN = 2**15 - 1

# path, type, versions, nullableVersions, ignorable, default
Row = tuple[str, str, str, str | None, bool, str | None]

# the fields of the early key files below: GroupId (and MemberId), strings
_GROUP: list[Row] = [("GroupId", "string", "0", None, False, None)]
_GROUP_MEMBER: list[Row] = [*_GROUP, ("MemberId", "string", "0", None, False, None)]

KAFKA: dict[str, tuple[str, str, list[Row]]] = {
    # name -> (the file transcribed, its validVersions, its fields; "common:" a common struct)
    "OffsetFetchRequest": (
        "apache/kafka b70a9202f333 (KIP-848 v9)",
        "0-9",
        [
            ("GroupId", "string", "0-7", None, False, None),
            ("Topics", "[]OffsetFetchRequestTopic", "0-7", "2-7", False, None),
            ("Topics.Name", "string", "0-7", None, False, None),
            ("Topics.PartitionIndexes", "[]int32", "0-7", None, False, None),
            ("Groups", "[]OffsetFetchRequestGroup", "8+", None, False, None),
            ("Groups.GroupId", "string", "8+", None, False, None),
            ("Groups.MemberId", "string", "9+", "9+", True, "null"),
            ("Groups.MemberEpoch", "int32", "9+", None, True, "-1"),
            ("Groups.Topics", "[]OffsetFetchRequestTopics", "8+", "8+", False, None),
            ("Groups.Topics.Name", "string", "8+", None, False, None),
            ("Groups.Topics.PartitionIndexes", "[]int32", "8+", None, False, None),
            ("RequireStable", "bool", "7+", None, False, "false"),
        ],
    ),
    "OffsetFetchResponse": (
        "apache/kafka 0c37e22a6c30 (Kafka 4.0: v1-v9)",
        "1-9",
        [
            ("ThrottleTimeMs", "int32", "3+", None, True, None),
            ("Topics", "[]OffsetFetchResponseTopic", "0-7", None, False, None),
            ("Topics.Name", "string", "0-7", None, False, None),
            ("Topics.Partitions", "[]OffsetFetchResponsePartition", "0-7", None, False, None),
            ("Topics.Partitions.PartitionIndex", "int32", "0-7", None, False, None),
            ("Topics.Partitions.CommittedOffset", "int64", "0-7", None, False, None),
            ("Topics.Partitions.CommittedLeaderEpoch", "int32", "5-7", None, True, "-1"),
            ("Topics.Partitions.Metadata", "string", "0-7", "0-7", False, None),
            ("Topics.Partitions.ErrorCode", "int16", "0-7", None, False, None),
            ("ErrorCode", "int16", "2-7", None, True, "0"),
            ("Groups", "[]OffsetFetchResponseGroup", "8+", None, False, None),
            ("Groups.GroupId", "string", "8+", None, False, None),
            ("Groups.Topics", "[]OffsetFetchResponseTopics", "8+", None, False, None),
            ("Groups.Topics.Name", "string", "8+", None, False, None),
            (
                "Groups.Topics.Partitions",
                "[]OffsetFetchResponsePartitions",
                "8+",
                None,
                False,
                None,
            ),
            ("Groups.Topics.Partitions.PartitionIndex", "int32", "8+", None, False, None),
            ("Groups.Topics.Partitions.CommittedOffset", "int64", "8+", None, False, None),
            ("Groups.Topics.Partitions.CommittedLeaderEpoch", "int32", "8+", None, True, "-1"),
            ("Groups.Topics.Partitions.Metadata", "string", "8+", "8+", False, None),
            ("Groups.Topics.Partitions.ErrorCode", "int16", "8+", None, False, None),
            ("Groups.ErrorCode", "int16", "8+", None, False, "0"),
        ],
    ),
    "ConsumerGroupDescribeResponse": (
        "apache/kafka 908b1e48898d (Kafka 3.7: v0; v1's MemberType is outside it)",
        "0",
        [
            ("ThrottleTimeMs", "int32", "0+", None, False, None),
            ("Groups", "[]DescribedGroup", "0+", None, False, None),
            ("Groups.ErrorCode", "int16", "0+", None, False, None),
            ("Groups.ErrorMessage", "string", "0+", "0+", False, "null"),
            ("Groups.GroupId", "string", "0+", None, False, None),
            ("Groups.GroupState", "string", "0+", None, False, None),
            ("Groups.GroupEpoch", "int32", "0+", None, False, None),
            ("Groups.AssignmentEpoch", "int32", "0+", None, False, None),
            ("Groups.AssignorName", "string", "0+", None, False, None),
            ("Groups.Members", "[]Member", "0+", None, False, None),
            ("Groups.Members.MemberId", "string", "0+", None, False, None),
            ("Groups.Members.InstanceId", "string", "0+", "0+", False, "null"),
            ("Groups.Members.RackId", "string", "0+", "0+", False, "null"),
            ("Groups.Members.MemberEpoch", "int32", "0+", None, False, None),
            ("Groups.Members.ClientId", "string", "0+", None, False, None),
            ("Groups.Members.ClientHost", "string", "0+", None, False, None),
            ("Groups.Members.SubscribedTopicNames", "[]string", "0+", None, False, None),
            ("Groups.Members.SubscribedTopicRegex", "string", "0+", "0+", False, "null"),
            ("Groups.Members.Assignment", "Assignment", "0+", None, False, None),
            ("Groups.Members.TargetAssignment", "Assignment", "0+", None, False, None),
            ("Groups.AuthorizedOperations", "int32", "0+", None, False, "-2147483648"),
            ("common:TopicPartitions.TopicId", "uuid", "0+", None, False, None),
            ("common:TopicPartitions.TopicName", "string", "0+", None, False, None),
            ("common:TopicPartitions.Partitions", "[]int32", "0+", None, False, None),
            ("common:Assignment.TopicPartitions", "[]TopicPartitions", "0+", None, False, None),
        ],
    ),
    "DescribeShareGroupOffsetsResponse": (
        "apache/kafka 09f382cf33d2 (KIP-932, v0)",
        "0",
        [
            ("ThrottleTimeMs", "int32", "0+", None, False, None),
            ("Groups", "[]DescribeShareGroupOffsetsResponseGroup", "0+", None, False, None),
            ("Groups.GroupId", "string", "0+", None, False, None),
            ("Groups.Topics", "[]DescribeShareGroupOffsetsResponseTopic", "0+", None, False, None),
            ("Groups.Topics.TopicName", "string", "0+", None, False, None),
            ("Groups.Topics.TopicId", "uuid", "0+", None, False, None),
            (
                "Groups.Topics.Partitions",
                "[]DescribeShareGroupOffsetsResponsePartition",
                "0+",
                None,
                False,
                None,
            ),
            ("Groups.Topics.Partitions.PartitionIndex", "int32", "0+", None, False, None),
            ("Groups.Topics.Partitions.StartOffset", "int64", "0+", None, False, None),
            ("Groups.Topics.Partitions.LeaderEpoch", "int32", "0+", None, False, None),
            ("Groups.Topics.Partitions.ErrorCode", "int16", "0+", None, False, None),
            ("Groups.Topics.Partitions.ErrorMessage", "string", "0+", "0+", False, "null"),
            ("Groups.ErrorCode", "int16", "0+", None, False, None),
            ("Groups.ErrorMessage", "string", "0+", "0+", False, "null"),
        ],
    ),
    "ApiVersionsResponse": (
        # apache/kafka abead0e83a7a (v0-v3) has the same fields but ZkMigrationReady (KIP-866)
        "muxun-research/kafka 05780be62c00, a copy of apache/kafka's file (v0-v3)",
        "0-3",
        [
            ("ErrorCode", "int16", "0+", None, False, None),
            ("ApiKeys", "[]ApiVersion", "0+", None, False, None),
            ("ApiKeys.ApiKey", "int16", "0+", None, False, None),
            ("ApiKeys.MinVersion", "int16", "0+", None, False, None),
            ("ApiKeys.MaxVersion", "int16", "0+", None, False, None),
            ("ThrottleTimeMs", "int32", "1+", None, True, None),
            ("SupportedFeatures", "[]SupportedFeatureKey", "3+", None, True, None),
            ("SupportedFeatures.Name", "string", "3+", None, False, None),
            ("SupportedFeatures.MinVersion", "int16", "3+", None, False, None),
            ("SupportedFeatures.MaxVersion", "int16", "3+", None, False, None),
            ("FinalizedFeaturesEpoch", "int64", "3+", None, True, "-1"),
            ("FinalizedFeatures", "[]FinalizedFeatureKey", "3+", None, True, None),
            ("FinalizedFeatures.Name", "string", "3+", None, False, None),
            ("FinalizedFeatures.MaxVersionLevel", "int16", "3+", None, False, None),
            ("FinalizedFeatures.MinVersionLevel", "int16", "3+", None, False, None),
            ("ZkMigrationReady", "bool", "3+", None, True, "false"),
        ],
    ),
    "DescribeGroupsResponse": (
        "apache/kafka d2cdfb455937 (KIP-1043: v0-v6)",
        "0-6",
        [
            ("ThrottleTimeMs", "int32", "1+", None, True, None),
            ("Groups", "[]DescribedGroup", "0+", None, False, None),
            ("Groups.ErrorCode", "int16", "0+", None, False, None),
            ("Groups.ErrorMessage", "string", "6+", "6+", False, "null"),
            ("Groups.GroupId", "string", "0+", None, False, None),
            ("Groups.GroupState", "string", "0+", None, False, None),
            ("Groups.ProtocolType", "string", "0+", None, False, None),
            ("Groups.ProtocolData", "string", "0+", None, False, None),
            ("Groups.Members", "[]DescribedGroupMember", "0+", None, False, None),
            ("Groups.Members.MemberId", "string", "0+", None, False, None),
            ("Groups.Members.GroupInstanceId", "string", "4+", "4+", True, "null"),
            ("Groups.Members.ClientId", "string", "0+", None, False, None),
            ("Groups.Members.ClientHost", "string", "0+", None, False, None),
            ("Groups.Members.MemberMetadata", "bytes", "0+", None, False, None),
            ("Groups.Members.MemberAssignment", "bytes", "0+", None, False, None),
            ("Groups.AuthorizedOperations", "int32", "3+", None, False, "-2147483648"),
        ],
    ),
    "FindCoordinatorResponse": (
        "apache/kafka 1af943b711b1 (KIP-699: v0-v4)",
        "0-4",
        [
            ("ThrottleTimeMs", "int32", "1+", None, True, None),
            ("ErrorCode", "int16", "0-3", None, False, None),
            ("ErrorMessage", "string", "1-3", "1-3", True, None),
            ("NodeId", "int32", "0-3", None, False, None),
            ("Host", "string", "0-3", None, False, None),
            ("Port", "int32", "0-3", None, False, None),
            ("Coordinators", "[]Coordinator", "4+", None, False, None),
            ("Coordinators.Key", "string", "4+", None, False, None),
            ("Coordinators.NodeId", "int32", "4+", None, False, None),
            ("Coordinators.Host", "string", "4+", None, False, None),
            ("Coordinators.Port", "int32", "4+", None, False, None),
            ("Coordinators.ErrorCode", "int16", "4+", None, False, None),
            ("Coordinators.ErrorMessage", "string", "4+", "4+", True, None),
        ],
    ),
    "MetadataRequest": (
        "apache/kafka 0373353fbcc3 (v0-v11)",
        "0-11",
        [
            ("Topics", "[]MetadataRequestTopic", "0+", "1+", False, None),
            ("Topics.TopicId", "uuid", "10+", None, True, None),
            ("Topics.Name", "string", "0+", "10+", False, None),
            ("AllowAutoTopicCreation", "bool", "4+", None, False, "true"),
            ("IncludeClusterAuthorizedOperations", "bool", "8-10", None, False, None),
            ("IncludeTopicAuthorizedOperations", "bool", "8+", None, False, None),
        ],
    ),
    "DescribeLogDirsRequest": (
        "apache/kafka 06a2dac25278 (v0-v4)",
        "0-4",
        [
            ("Topics", "[]DescribableLogDirTopic", "0+", "0+", False, None),
            ("Topics.Topic", "string", "0+", None, False, None),
            ("Topics.Partitions", "[]int32", "0+", None, False, None),
        ],
    ),
    "ListOffsetsResponse": (
        # a 4.x copy (TaiJuWu/kafka 963b86ef, v1-v12) has the same Timestamp and Offset flags
        "apache/kafka 477186ef4a52 (v0-v7)",
        "0-7",
        [
            ("ThrottleTimeMs", "int32", "2+", None, True, None),
            ("Topics", "[]ListOffsetsTopicResponse", "0+", None, False, None),
            ("Topics.Name", "string", "0+", None, False, None),
            ("Topics.Partitions", "[]ListOffsetsPartitionResponse", "0+", None, False, None),
            ("Topics.Partitions.PartitionIndex", "int32", "0+", None, False, None),
            ("Topics.Partitions.ErrorCode", "int16", "0+", None, False, None),
            ("Topics.Partitions.OldStyleOffsets", "[]int64", "0", None, False, None),
            ("Topics.Partitions.Timestamp", "int64", "1+", None, False, "-1"),
            ("Topics.Partitions.Offset", "int64", "1+", None, False, "-1"),
            ("Topics.Partitions.LeaderEpoch", "int32", "4+", None, False, "-1"),
        ],
    ),
    "DeleteTopicsRequest": (
        # apache/kafka 578fd5849302 has the same fields, Name without its later "default": "null"
        "muxun-research/kafka eb37e781f5b0, a copy of apache/kafka's file (v0-v6)",
        "0-6",
        [
            ("Topics", "[]DeleteTopicState", "6+", None, False, None),
            ("Topics.Name", "string", "6+", "6+", False, "null"),
            ("Topics.TopicId", "uuid", "6+", None, False, None),
            ("TopicNames", "[]string", "0-5", None, True, None),
            ("TimeoutMs", "int32", "0+", None, False, None),
        ],
    ),
    # The small request files, each the commit its declaration names
    "FindCoordinatorRequest": (
        "apache/kafka 06a2dac25278 (v0-v4, KIP-699)",
        "0-4",
        [
            ("Key", "string", "0-3", None, False, None),
            ("KeyType", "int8", "1+", None, False, "0"),
            ("CoordinatorKeys", "[]string", "4+", None, False, None),
        ],
    ),
    "ListGroupsRequest": (
        # 145b6897 is a development layout (a tagged States struct), never released
        "apache/kafka 6647cf989f5a (v0-v5, KIP-848's TypesFilter)",
        "0-5",
        [
            ("StatesFilter", "[]string", "4+", None, False, None),
            ("TypesFilter", "[]string", "5+", None, False, None),
        ],
    ),
    "DescribeGroupsRequest": (
        "apache/kafka 42e240e797ee (v0-v5; v6, KIP-1043, the same fields)",
        "0-5",
        [
            ("Groups", "[]string", "0+", None, False, None),
            ("IncludeAuthorizedOperations", "bool", "3+", None, True, "false"),
        ],
    ),
    "ApiVersionsRequest": (
        "apache/kafka 120e68870579 (v0-v4)",
        "0-4",
        [
            ("ClientSoftwareName", "string", "3+", None, True, None),
            ("ClientSoftwareVersion", "string", "3+", None, True, None),
        ],
    ),
    "ConsumerGroupDescribeRequest": (
        "apache/kafka 0e54774efe25 (v0-v1)",
        "0-1",
        [
            ("GroupIds", "[]string", "0+", None, False, None),
            ("IncludeAuthorizedOperations", "bool", "0+", None, False, None),
        ],
    ),
    "OffsetDeleteRequest": (
        "apache/kafka 147803fe428b (v0)",
        "0",
        [
            ("GroupId", "string", "0+", None, False, None),
            ("Topics", "[]OffsetDeleteRequestTopic", "0+", None, False, None),
            ("Topics.Name", "string", "0+", None, False, None),
            ("Topics.Partitions", "[]OffsetDeleteRequestPartition", "0+", None, False, None),
            ("Topics.Partitions.PartitionIndex", "int32", "0+", None, False, None),
        ],
    ),
    "SaslHandshakeRequest": (
        "apache/kafka 2ec1ebc6f57e (v0-v1)",
        "0-1",
        [("Mechanism", "string", "0+", None, False, None)],
    ),
    "SaslHandshakeResponse": (
        "apache/kafka 1af943b711b1 (v0-v1)",
        "0-1",
        [
            ("ErrorCode", "int16", "0+", None, False, None),
            ("Mechanisms", "[]string", "0+", None, False, None),
        ],
    ),
    # The classic group protocol, each a full v0-vN file (187b5fb5, 046d2a04 and 2ec1ebc6, the
    # early files some abouts come from, stop at v4, v3 and v4)
    "JoinGroupRequest": (
        "apache/kafka 06a2dac25278 (v0-v9)",
        "0-9",
        [
            ("GroupId", "string", "0+", None, False, None),
            ("SessionTimeoutMs", "int32", "0+", None, False, None),
            ("RebalanceTimeoutMs", "int32", "1+", None, True, "-1"),
            ("MemberId", "string", "0+", None, False, None),
            ("GroupInstanceId", "string", "5+", "5+", False, "null"),
            ("ProtocolType", "string", "0+", None, False, None),
            ("Protocols", "[]JoinGroupRequestProtocol", "0+", None, False, None),
            ("Protocols.Name", "string", "0+", None, False, None),
            ("Protocols.Metadata", "bytes", "0+", None, False, None),
            ("Reason", "string", "8+", "8+", True, "null"),
        ],
    ),
    "JoinGroupResponse": (
        "apache/kafka d7f0d39ba7ba (v0-v9)",
        "0-9",
        [
            ("ThrottleTimeMs", "int32", "2+", None, True, None),
            ("ErrorCode", "int16", "0+", None, False, None),
            ("GenerationId", "int32", "0+", None, False, "-1"),
            ("ProtocolType", "string", "7+", "7+", True, "null"),
            ("ProtocolName", "string", "0+", "7+", False, None),
            ("Leader", "string", "0+", None, False, None),
            ("SkipAssignment", "bool", "9+", None, False, "false"),
            ("MemberId", "string", "0+", None, False, None),
            ("Members", "[]JoinGroupResponseMember", "0+", None, False, None),
            ("Members.MemberId", "string", "0+", None, False, None),
            ("Members.GroupInstanceId", "string", "5+", "5+", True, "null"),
            ("Members.Metadata", "bytes", "0+", None, False, None),
        ],
    ),
    "SyncGroupRequest": (
        "apache/kafka 43bb9093b599 (v0-v5, KIP-559)",
        "0-5",
        [
            ("GroupId", "string", "0+", None, False, None),
            ("GenerationId", "int32", "0+", None, False, None),
            ("MemberId", "string", "0+", None, False, None),
            ("GroupInstanceId", "string", "3+", "3+", False, "null"),
            ("ProtocolType", "string", "5+", "5+", True, "null"),
            ("ProtocolName", "string", "5+", "5+", True, "null"),
            ("Assignments", "[]SyncGroupRequestAssignment", "0+", None, False, None),
            ("Assignments.MemberId", "string", "0+", None, False, None),
            ("Assignments.Assignment", "bytes", "0+", None, False, None),
        ],
    ),
    "SyncGroupResponse": (
        "apache/kafka c1969009137c (v0-v5, KIP-559)",
        "0-5",
        [
            ("ThrottleTimeMs", "int32", "1+", None, True, None),
            ("ErrorCode", "int16", "0+", None, False, None),
            ("ProtocolType", "string", "5+", "5+", True, "null"),
            ("ProtocolName", "string", "5+", "5+", True, "null"),
            ("Assignment", "bytes", "0+", None, False, None),
        ],
    ),
    "LeaveGroupRequest": (
        # v5 (KIP-800) adds Members.Reason, outside this file
        "apache/kafka 0432e6c4d1bb (v0-v4)",
        "0-4",
        [
            ("GroupId", "string", "0+", None, False, None),
            ("MemberId", "string", "0-2", None, False, None),
            ("Members", "[]MemberIdentity", "3+", None, False, None),
            ("Members.MemberId", "string", "3+", None, False, None),
            ("Members.GroupInstanceId", "string", "3+", "3+", False, "null"),
        ],
    ),
    "LeaveGroupResponse": (
        # 042c531e is an early v0-v3 file whose GroupInstanceId is nullable in v3 only
        "apache/kafka 52c1a13d94c6 (v0-v5)",
        "0-5",
        [
            ("ThrottleTimeMs", "int32", "1+", None, True, None),
            ("ErrorCode", "int16", "0+", None, False, None),
            ("Members", "[]MemberResponse", "3+", None, False, None),
            ("Members.MemberId", "string", "3+", None, False, None),
            ("Members.GroupInstanceId", "string", "3+", "3+", False, None),
            ("Members.ErrorCode", "int16", "3+", None, False, None),
        ],
    ),
    "ListOffsetsRequest": (
        # v9-v10 (KIP-1005, KIP-1075: TimeoutMs) are beyond the declared v0-v8
        "apache/kafka e3e579e7d69f (v0-v10)",
        "0-10",
        [
            ("ReplicaId", "int32", "0+", None, False, None),
            ("IsolationLevel", "int8", "2+", None, False, None),
            ("Topics", "[]ListOffsetsTopic", "0+", None, False, None),
            ("Topics.Name", "string", "0+", None, False, None),
            ("Topics.Partitions", "[]ListOffsetsPartition", "0+", None, False, None),
            ("Topics.Partitions.PartitionIndex", "int32", "0+", None, False, None),
            ("Topics.Partitions.CurrentLeaderEpoch", "int32", "4+", None, True, "-1"),
            ("Topics.Partitions.Timestamp", "int64", "0+", None, False, None),
            ("Topics.Partitions.MaxNumOffsets", "int32", "0", None, False, "1"),
            ("TimeoutMs", "int32", "10+", None, True, None),
        ],
    ),
    "OffsetCommitRequest": (
        # KIP-848's names before 4.1's v10 topic ids (036b9e32, a development file, puts TopicId in
        # v9 and keeps GenerationId); GroupInstanceId is not ignorable in either
        "apache/kafka 3e22e0dd5d5f (v0-v9)",
        "0-9",
        [
            ("GroupId", "string", "0+", None, False, None),
            ("GenerationIdOrMemberEpoch", "int32", "1+", None, True, "-1"),
            ("MemberId", "string", "1+", None, True, None),
            ("GroupInstanceId", "string", "7+", "7+", False, "null"),
            ("RetentionTimeMs", "int64", "2-4", None, True, "-1"),
            ("Topics", "[]OffsetCommitRequestTopic", "0+", None, False, None),
            ("Topics.Name", "string", "0+", None, False, None),
            ("Topics.Partitions", "[]OffsetCommitRequestPartition", "0+", None, False, None),
            ("Topics.Partitions.PartitionIndex", "int32", "0+", None, False, None),
            ("Topics.Partitions.CommittedOffset", "int64", "0+", None, False, None),
            ("Topics.Partitions.CommittedLeaderEpoch", "int32", "6+", None, True, "-1"),
            ("Topics.Partitions.CommitTimestamp", "int64", "1", None, False, "-1"),
            ("Topics.Partitions.CommittedMetadata", "string", "0+", "0+", False, None),
        ],
    ),
    "OffsetCommitResponse": (
        "apache/kafka 6d152370926a (v2-v9: v0-v1 removed in Kafka 4.0)",
        "2-9",
        [
            ("ThrottleTimeMs", "int32", "3+", None, True, None),
            ("Topics", "[]OffsetCommitResponseTopic", "0+", None, False, None),
            ("Topics.Name", "string", "0+", None, False, None),
            ("Topics.Partitions", "[]OffsetCommitResponsePartition", "0+", None, False, None),
            ("Topics.Partitions.PartitionIndex", "int32", "0+", None, False, None),
            ("Topics.Partitions.ErrorCode", "int16", "0+", None, False, None),
        ],
    ),
    "OffsetDeleteResponse": (
        # 33128146 (a "v1, KIP-1313" with a headerVersions key) is no released Kafka's file
        "apache/kafka c2a414ea77c8 (v0)",
        "0",
        [
            ("ErrorCode", "int16", "0+", None, False, None),
            ("ThrottleTimeMs", "int32", "0+", None, True, None),
            ("Topics", "[]OffsetDeleteResponseTopic", "0+", None, False, None),
            ("Topics.Name", "string", "0+", None, False, None),
            ("Topics.Partitions", "[]OffsetDeleteResponsePartition", "0+", None, False, None),
            ("Topics.Partitions.PartitionIndex", "int32", "0+", None, False, None),
            ("Topics.Partitions.ErrorCode", "int16", "0+", None, False, None),
        ],
    ),
    "DeleteTopicsResponse": (
        # v0 removed in Kafka 4.0 (KIP-896), declared v1-v6
        "apache/kafka d7f0d39ba7ba (v0-v6)",
        "0-6",
        [
            ("ThrottleTimeMs", "int32", "1+", None, True, None),
            ("Responses", "[]DeletableTopicResult", "0+", None, False, None),
            ("Responses.Name", "string", "0+", "6+", False, None),
            ("Responses.TopicId", "uuid", "6+", None, True, None),
            ("Responses.ErrorCode", "int16", "0+", None, False, None),
            ("Responses.ErrorMessage", "string", "5+", "5+", True, "null"),
        ],
    ),
    "DescribeLogDirsResponse": (
        # v4's TotalBytes and UsableBytes (KIP-827) are outside this file
        "apache/kafka 23e5884c6c5b (v0-v3)",
        "0-3",
        [
            ("ThrottleTimeMs", "int32", "0+", None, False, None),
            ("ErrorCode", "int16", "3+", None, False, None),
            ("Results", "[]DescribeLogDirsResult", "0+", None, False, None),
            ("Results.ErrorCode", "int16", "0+", None, False, None),
            ("Results.LogDir", "string", "0+", None, False, None),
            ("Results.Topics", "[]DescribeLogDirsTopic", "0+", None, False, None),
            ("Results.Topics.Name", "string", "0+", None, False, None),
            ("Results.Topics.Partitions", "[]DescribeLogDirsPartition", "0+", None, False, None),
            ("Results.Topics.Partitions.PartitionIndex", "int32", "0+", None, False, None),
            ("Results.Topics.Partitions.PartitionSize", "int64", "0+", None, False, None),
            ("Results.Topics.Partitions.OffsetLag", "int64", "0+", None, False, None),
            ("Results.Topics.Partitions.IsFutureKey", "bool", "0+", None, False, None),
        ],
    ),
    # Issue #25: the share- and streams-group files and DeleteGroups, checked against Kafka 4.1
    "DeleteGroupsRequest": (
        # 4.1 offers v0-v2; the stored 07a283ac (a v3) is no released Kafka's file
        "apache/kafka 1636500f39c0 (v0-v2)",
        "0-2",
        [("GroupsNames", "[]string", "0+", None, False, None)],
    ),
    "DeleteGroupsResponse": (
        # the stored 3ef07f0e (a v3 adding Results.ErrorMessage) is no released Kafka's file
        "apache/kafka b1eafb67645b (v1-v2; v0 the same fields)",
        "0-2",
        [
            ("ThrottleTimeMs", "int32", "0+", None, False, None),
            ("Results", "[]DeletableGroupResult", "0+", None, False, None),
            ("Results.GroupId", "string", "0+", None, False, None),
            ("Results.ErrorCode", "int16", "0+", None, False, None),
        ],
    ),
    "ShareGroupDescribeRequest": (
        "apache/kafka 1dff57043e31 (Kafka 4.1: v1; v0, 4.0's early access, removed)",
        "1",
        [
            ("GroupIds", "[]string", "1+", None, False, None),
            ("IncludeAuthorizedOperations", "bool", "1+", None, False, None),
        ],
    ),
    "ShareGroupDescribeResponse": (
        "apache/kafka 1dff57043e31 (Kafka 4.1: v1)",
        "1",
        [
            ("ThrottleTimeMs", "int32", "1+", None, False, None),
            ("Groups", "[]DescribedGroup", "1+", None, False, None),
            ("Groups.ErrorCode", "int16", "1+", None, False, None),
            ("Groups.ErrorMessage", "string", "1+", "1+", False, "null"),
            ("Groups.GroupId", "string", "1+", None, False, None),
            ("Groups.GroupState", "string", "1+", None, False, None),
            ("Groups.GroupEpoch", "int32", "1+", None, False, None),
            ("Groups.AssignmentEpoch", "int32", "1+", None, False, None),
            ("Groups.AssignorName", "string", "1+", None, False, None),
            ("Groups.Members", "[]Member", "1+", None, False, None),
            ("Groups.Members.MemberId", "string", "1+", None, False, None),
            ("Groups.Members.RackId", "string", "1+", "1+", False, "null"),
            ("Groups.Members.MemberEpoch", "int32", "1+", None, False, None),
            ("Groups.Members.ClientId", "string", "1+", None, False, None),
            ("Groups.Members.ClientHost", "string", "1+", None, False, None),
            ("Groups.Members.SubscribedTopicNames", "[]string", "1+", None, False, None),
            ("Groups.Members.Assignment", "Assignment", "1+", None, False, None),
            ("Groups.AuthorizedOperations", "int32", "1+", None, False, "-2147483648"),
            ("common:TopicPartitions.TopicId", "uuid", "1+", None, False, None),
            ("common:TopicPartitions.TopicName", "string", "1+", None, False, None),
            ("common:TopicPartitions.Partitions", "[]int32", "1+", None, False, None),
            ("common:Assignment.TopicPartitions", "[]TopicPartitions", "1+", None, False, None),
        ],
    ),
    "DescribeShareGroupOffsetsRequest": (
        "apache/kafka 09f382cf33d2 (KIP-932, v0)",
        "0",
        [
            ("Groups", "[]DescribeShareGroupOffsetsRequestGroup", "0+", None, False, None),
            ("Groups.GroupId", "string", "0+", None, False, None),
            ("Groups.Topics", "[]DescribeShareGroupOffsetsRequestTopic", "0+", "0+", False, None),
            ("Groups.Topics.TopicName", "string", "0+", None, False, None),
            ("Groups.Topics.Partitions", "[]int32", "0+", None, False, None),
        ],
    ),
    "AlterShareGroupOffsetsRequest": (
        "apache/kafka e510e8ee724b (v0; 78bd2bb5 the same fields)",
        "0",
        [
            ("GroupId", "string", "0+", None, False, None),
            ("Topics", "[]AlterShareGroupOffsetsRequestTopic", "0+", None, False, None),
            ("Topics.TopicName", "string", "0+", None, False, None),
            (
                "Topics.Partitions",
                "[]AlterShareGroupOffsetsRequestPartition",
                "0+",
                None,
                False,
                None,
            ),
            ("Topics.Partitions.PartitionIndex", "int32", "0+", None, False, None),
            ("Topics.Partitions.StartOffset", "int64", "0+", None, False, None),
        ],
    ),
    "AlterShareGroupOffsetsResponse": (
        # the stored apache/kafka versions (31f85dd0, 520660a7) are earlier ones without the
        # top-level ErrorCode/ErrorMessage; Kafka 4.1's file has them (kafka-protocol 0.17's
        # generated AlterShareGroupOffsetsResponse, and the 4.1 admin client reads them)
        "Kafka 4.1's file: 31f85dd07b1f plus the top-level ErrorCode and ErrorMessage (v0)",
        "0",
        [
            ("ThrottleTimeMs", "int32", "0+", None, False, None),
            ("ErrorCode", "int16", "0+", None, False, None),
            ("ErrorMessage", "string", "0+", "0+", False, "null"),
            ("Responses", "[]AlterShareGroupOffsetsResponseTopic", "0+", None, False, None),
            ("Responses.TopicName", "string", "0+", None, False, None),
            ("Responses.TopicId", "uuid", "0+", None, False, None),
            (
                "Responses.Partitions",
                "[]AlterShareGroupOffsetsResponsePartition",
                "0+",
                None,
                False,
                None,
            ),
            ("Responses.Partitions.PartitionIndex", "int32", "0+", None, False, None),
            ("Responses.Partitions.ErrorCode", "int16", "0+", None, False, None),
            ("Responses.Partitions.ErrorMessage", "string", "0+", "0+", False, "null"),
        ],
    ),
    "DeleteShareGroupOffsetsRequest": (
        # dfc074df is an earlier layout with Topics.Partitions (deleted per partition)
        "apache/kafka 27a9a4a3eae8 (v0, per topic)",
        "0",
        [
            ("GroupId", "string", "0+", None, False, None),
            ("Topics", "[]DeleteShareGroupOffsetsRequestTopic", "0+", None, False, None),
            ("Topics.TopicName", "string", "0+", None, False, None),
        ],
    ),
    "DeleteShareGroupOffsetsResponse": (
        # 74a8acd5 and 1caa1ca5 are the earlier per-partition layout
        "apache/kafka 27a9a4a3eae8 (v0, one result per topic)",
        "0",
        [
            ("ThrottleTimeMs", "int32", "0+", None, False, None),
            ("ErrorCode", "int16", "0+", None, False, None),
            ("ErrorMessage", "string", "0+", "0+", False, "null"),
            ("Responses", "[]DeleteShareGroupOffsetsResponseTopic", "0+", None, False, None),
            ("Responses.TopicName", "string", "0+", None, False, None),
            ("Responses.TopicId", "uuid", "0+", None, False, None),
            ("Responses.ErrorCode", "int16", "0+", None, False, None),
            ("Responses.ErrorMessage", "string", "0+", "0+", False, "null"),
        ],
    ),
    "StreamsGroupDescribeRequest": (
        "apache/kafka ed368bd5057d (KIP-1071, v0)",
        "0",
        [
            ("GroupIds", "[]string", "0+", None, False, None),
            ("IncludeAuthorizedOperations", "bool", "0+", None, False, None),
        ],
    ),
    "StreamsGroupDescribeResponse": (
        # 0832e7a7 is an early development layout (apiKey 90, Topology an array)
        "apache/kafka ed368bd5057d (KIP-1071, v0)",
        "0",
        [
            ("ThrottleTimeMs", "int32", "0+", None, False, None),
            ("Groups", "[]DescribedGroup", "0+", None, False, None),
            ("Groups.ErrorCode", "int16", "0+", None, False, None),
            ("Groups.ErrorMessage", "string", "0+", "0+", False, "null"),
            ("Groups.GroupId", "string", "0+", None, False, None),
            ("Groups.GroupState", "string", "0+", None, False, None),
            ("Groups.GroupEpoch", "int32", "0+", None, False, None),
            ("Groups.AssignmentEpoch", "int32", "0+", None, False, None),
            ("Groups.Topology", "Topology", "0+", "0+", False, "null"),
            ("Groups.Topology.Epoch", "int32", "0+", None, False, None),
            ("Groups.Topology.Subtopologies", "[]Subtopology", "0+", "0+", False, "null"),
            ("Groups.Topology.Subtopologies.SubtopologyId", "string", "0+", None, False, None),
            ("Groups.Topology.Subtopologies.SourceTopics", "[]string", "0+", None, False, None),
            (
                "Groups.Topology.Subtopologies.RepartitionSinkTopics",
                "[]string",
                "0+",
                None,
                False,
                None,
            ),
            (
                "Groups.Topology.Subtopologies.StateChangelogTopics",
                "[]TopicInfo",
                "0+",
                None,
                False,
                None,
            ),
            (
                "Groups.Topology.Subtopologies.RepartitionSourceTopics",
                "[]TopicInfo",
                "0+",
                None,
                False,
                None,
            ),
            ("Groups.Members", "[]Member", "0+", None, False, None),
            ("Groups.Members.MemberId", "string", "0+", None, False, None),
            ("Groups.Members.MemberEpoch", "int32", "0+", None, False, None),
            ("Groups.Members.InstanceId", "string", "0+", "0+", False, "null"),
            ("Groups.Members.RackId", "string", "0+", "0+", False, "null"),
            ("Groups.Members.ClientId", "string", "0+", None, False, None),
            ("Groups.Members.ClientHost", "string", "0+", None, False, None),
            ("Groups.Members.TopologyEpoch", "int32", "0+", None, False, None),
            ("Groups.Members.ProcessId", "string", "0+", None, False, None),
            ("Groups.Members.UserEndpoint", "Endpoint", "0+", "0+", False, "null"),
            ("Groups.Members.ClientTags", "[]KeyValue", "0+", None, False, None),
            ("Groups.Members.TaskOffsets", "[]TaskOffset", "0+", None, False, None),
            ("Groups.Members.TaskEndOffsets", "[]TaskOffset", "0+", None, False, None),
            ("Groups.Members.Assignment", "Assignment", "0+", None, False, None),
            ("Groups.Members.TargetAssignment", "Assignment", "0+", None, False, None),
            ("Groups.Members.IsClassic", "bool", "0+", None, False, None),
            ("Groups.AuthorizedOperations", "int32", "0+", None, False, "-2147483648"),
            ("common:Endpoint.Host", "string", "0+", None, False, None),
            ("common:Endpoint.Port", "uint16", "0+", None, False, None),
            ("common:TaskOffset.SubtopologyId", "string", "0+", None, False, None),
            ("common:TaskOffset.Partition", "int32", "0+", None, False, None),
            ("common:TaskOffset.Offset", "int64", "0+", None, False, None),
            ("common:TopicPartitions.TopicId", "uuid", "0+", None, False, None),
            ("common:TopicPartitions.TopicName", "string", "0+", None, False, None),
            ("common:TopicPartitions.Partitions", "[]int32", "0+", None, False, None),
            ("common:Assignment.ActiveTasks", "[]TaskIds", "0+", None, False, None),
            ("common:Assignment.StandbyTasks", "[]TaskIds", "0+", None, False, None),
            ("common:Assignment.WarmupTasks", "[]TaskIds", "0+", None, False, None),
            ("common:TaskIds.SubtopologyId", "string", "0+", None, False, None),
            ("common:TaskIds.Partitions", "[]int32", "0+", None, False, None),
            ("common:KeyValue.Key", "string", "0+", None, False, None),
            ("common:KeyValue.Value", "string", "0+", None, False, None),
            ("common:TopicInfo.Name", "string", "0+", None, False, None),
            ("common:TopicInfo.Partitions", "int32", "0+", None, False, None),
            ("common:TopicInfo.ReplicationFactor", "int16", "0+", None, False, None),
            ("common:TopicInfo.TopicConfigs", "[]KeyValue", "0+", None, False, None),
        ],
    ),
    # The last six wire files (issue #25 point 4)
    "RequestHeader": (
        # ClientId's own "flexibleVersions": "none": test_request_header_client_id_is_never_compact
        "apache/kafka 1c73eb837ef6 (v0-v2, flexible 2+)",
        "0-2",
        [
            ("RequestApiKey", "int16", "0+", None, False, None),
            ("RequestApiVersion", "int16", "0+", None, False, None),
            ("CorrelationId", "int32", "0+", None, False, None),
            ("ClientId", "string", "1+", "1+", True, None),
        ],
    ),
    "DescribeConfigsRequest": (
        # apache/kafka's stored files (02ec28bd, b60abe2d) spell IncludeSynonyms IncludeSynoyms
        "muxun-research/kafka eb37e781f5b0, a copy of apache/kafka's file (v0-v4)",
        "0-4",
        [
            ("Resources", "[]DescribeConfigsResource", "0+", None, False, None),
            ("Resources.ResourceType", "int8", "0+", None, False, None),
            ("Resources.ResourceName", "string", "0+", None, False, None),
            ("Resources.ConfigurationKeys", "[]string", "0+", "0+", False, None),
            ("IncludeSynonyms", "bool", "1+", None, False, "false"),
            ("IncludeDocumentation", "bool", "3+", None, False, "false"),
        ],
    ),
    "DescribeConfigsResponse": (
        "apache/kafka e3e579e7d69f (v0-v4, flexible 4+)",
        "0-4",
        [
            ("ThrottleTimeMs", "int32", "0+", None, False, None),
            ("Results", "[]DescribeConfigsResult", "0+", None, False, None),
            ("Results.ErrorCode", "int16", "0+", None, False, None),
            ("Results.ErrorMessage", "string", "0+", "0+", False, None),
            ("Results.ResourceType", "int8", "0+", None, False, None),
            ("Results.ResourceName", "string", "0+", None, False, None),
            ("Results.Configs", "[]DescribeConfigsResourceResult", "0+", None, False, None),
            ("Results.Configs.Name", "string", "0+", None, False, None),
            ("Results.Configs.Value", "string", "0+", "0+", False, None),
            ("Results.Configs.ReadOnly", "bool", "0+", None, False, None),
            ("Results.Configs.IsDefault", "bool", "0", None, False, None),
            ("Results.Configs.ConfigSource", "int8", "1+", None, True, "-1"),
            ("Results.Configs.IsSensitive", "bool", "0+", None, False, None),
            ("Results.Configs.Synonyms", "[]DescribeConfigsSynonym", "1+", None, True, None),
            ("Results.Configs.Synonyms.Name", "string", "1+", None, False, None),
            ("Results.Configs.Synonyms.Value", "string", "1+", "0+", False, None),
            ("Results.Configs.Synonyms.Source", "int8", "1+", None, False, None),
            ("Results.Configs.ConfigType", "int8", "3+", None, True, "0"),
            ("Results.Configs.Documentation", "string", "3+", "0+", True, None),
        ],
    ),
    "MetadataResponse": (
        # apache/kafka 10b01b96 (v0-v9) writes "ignorable": "true" on the two
        # AuthorizedOperations fields and none on ThrottleTimeMs; this later copy is the v0-v11
        # file (v12's nullable topic Name is NULLABLE's, test_protocol_kafka_reference.py)
        "muxun-research/kafka eb37e781f5b0, a copy of apache/kafka's file (v0-v11)",
        "0-11",
        [
            ("ThrottleTimeMs", "int32", "3+", None, True, None),
            ("Brokers", "[]MetadataResponseBroker", "0+", None, False, None),
            ("Brokers.NodeId", "int32", "0+", None, False, None),
            ("Brokers.Host", "string", "0+", None, False, None),
            ("Brokers.Port", "int32", "0+", None, False, None),
            ("Brokers.Rack", "string", "1+", "1+", True, "null"),
            ("ClusterId", "string", "2+", "2+", True, "null"),
            ("ControllerId", "int32", "1+", None, True, "-1"),
            ("Topics", "[]MetadataResponseTopic", "0+", None, False, None),
            ("Topics.ErrorCode", "int16", "0+", None, False, None),
            ("Topics.Name", "string", "0+", None, False, None),
            ("Topics.TopicId", "uuid", "10+", None, True, None),
            ("Topics.IsInternal", "bool", "1+", None, True, "false"),
            ("Topics.Partitions", "[]MetadataResponsePartition", "0+", None, False, None),
            ("Topics.Partitions.ErrorCode", "int16", "0+", None, False, None),
            ("Topics.Partitions.PartitionIndex", "int32", "0+", None, False, None),
            ("Topics.Partitions.LeaderId", "int32", "0+", None, False, None),
            ("Topics.Partitions.LeaderEpoch", "int32", "7+", None, True, "-1"),
            ("Topics.Partitions.ReplicaNodes", "[]int32", "0+", None, False, None),
            ("Topics.Partitions.IsrNodes", "[]int32", "0+", None, False, None),
            ("Topics.Partitions.OfflineReplicas", "[]int32", "5+", None, True, None),
            ("Topics.TopicAuthorizedOperations", "int32", "8+", None, False, "-2147483648"),
            ("ClusterAuthorizedOperations", "int32", "8-10", None, False, "-2147483648"),
        ],
    ),
    "FetchRequest": (
        # apache/kafka's stored files (0403d432, da14418b) are v0-v11 with the older names
        # (Name, FetchPartitions, Forgotten) and flags; this copy has Kafka 4.x's (v4-v19, of
        # which kgroup's v4-v11 are compared: the tagged v12+ fields are outside them)
        "aiven/inkless 3f623f81b995, a copy of apache/kafka's file (v4-v19)",
        "4-19",
        [
            ("ClusterId", "string", "12+", "12+", True, "null"),
            ("ReplicaId", "int32", "0-14", None, False, "-1"),
            ("ReplicaState", "ReplicaState", "15+", None, False, None),
            ("ReplicaState.ReplicaId", "int32", "15+", None, False, "-1"),
            ("ReplicaState.ReplicaEpoch", "int64", "15+", None, False, "-1"),
            ("MaxWaitMs", "int32", "0+", None, False, None),
            ("MinBytes", "int32", "0+", None, False, None),
            ("MaxBytes", "int32", "3+", None, True, "0x7fffffff"),
            ("IsolationLevel", "int8", "4+", None, True, "0"),
            ("SessionId", "int32", "7+", None, True, "0"),
            ("SessionEpoch", "int32", "7+", None, True, "-1"),
            ("Topics", "[]FetchTopic", "0+", None, False, None),
            ("Topics.Topic", "string", "0-12", None, True, None),
            ("Topics.TopicId", "uuid", "13+", None, True, None),
            ("Topics.Partitions", "[]FetchPartition", "0+", None, False, None),
            ("Topics.Partitions.Partition", "int32", "0+", None, False, None),
            ("Topics.Partitions.CurrentLeaderEpoch", "int32", "9+", None, True, "-1"),
            ("Topics.Partitions.FetchOffset", "int64", "0+", None, False, None),
            ("Topics.Partitions.LastFetchedEpoch", "int32", "12+", None, False, "-1"),
            ("Topics.Partitions.LogStartOffset", "int64", "5+", None, True, "-1"),
            ("Topics.Partitions.PartitionMaxBytes", "int32", "0+", None, False, None),
            ("Topics.Partitions.ReplicaDirectoryId", "uuid", "17+", None, True, None),
            (
                "Topics.Partitions.HighWatermark",
                "int64",
                "18+",
                None,
                True,
                "9223372036854775807",
            ),
            ("Topics.Partitions.MirrorLeaderEpoch", "int32", "19+", None, True, "-1"),
            ("ForgottenTopicsData", "[]ForgottenTopic", "7+", None, False, None),
            ("ForgottenTopicsData.Topic", "string", "7-12", None, True, None),
            ("ForgottenTopicsData.TopicId", "uuid", "13+", None, True, None),
            ("ForgottenTopicsData.Partitions", "[]int32", "7+", None, False, None),
            ("RackId", "string", "11+", None, True, ""),
        ],
    ),
    "FetchResponse": (
        # the same copy (apache/kafka's 996ea197 and 0de6cc5f use the older PartitionResponses,
        # Partition and RecordSet names); v4-v11 compared
        "aiven/inkless 3f623f81b995, a copy of apache/kafka's file (v4-v19)",
        "4-19",
        [
            ("ThrottleTimeMs", "int32", "1+", None, True, None),
            ("ErrorCode", "int16", "7+", None, True, None),
            ("SessionId", "int32", "7+", None, False, "0"),
            ("Responses", "[]FetchableTopicResponse", "0+", None, False, None),
            ("Responses.Topic", "string", "0-12", None, True, None),
            ("Responses.TopicId", "uuid", "13+", None, True, None),
            ("Responses.Partitions", "[]PartitionData", "0+", None, False, None),
            ("Responses.Partitions.PartitionIndex", "int32", "0+", None, False, None),
            ("Responses.Partitions.ErrorCode", "int16", "0+", None, False, None),
            ("Responses.Partitions.HighWatermark", "int64", "0+", None, False, None),
            ("Responses.Partitions.LastStableOffset", "int64", "4+", None, True, "-1"),
            ("Responses.Partitions.LogStartOffset", "int64", "5+", None, True, "-1"),
            ("Responses.Partitions.DivergingEpoch", "EpochEndOffset", "12+", None, False, None),
            ("Responses.Partitions.DivergingEpoch.Epoch", "int32", "12+", None, False, "-1"),
            ("Responses.Partitions.DivergingEpoch.EndOffset", "int64", "12+", None, False, "-1"),
            ("Responses.Partitions.CurrentLeader", "LeaderIdAndEpoch", "12+", None, False, None),
            ("Responses.Partitions.CurrentLeader.LeaderId", "int32", "12+", None, False, "-1"),
            ("Responses.Partitions.CurrentLeader.LeaderEpoch", "int32", "12+", None, False, "-1"),
            (
                "Responses.Partitions.CurrentLeader.MirrorLeaderEpoch",
                "int32",
                "19+",
                None,
                True,
                "-1",
            ),
            ("Responses.Partitions.SnapshotId", "SnapshotId", "12+", None, False, None),
            ("Responses.Partitions.SnapshotId.EndOffset", "int64", "0+", None, False, "-1"),
            ("Responses.Partitions.SnapshotId.Epoch", "int32", "0+", None, False, "-1"),
            (
                "Responses.Partitions.AbortedTransactions",
                "[]AbortedTransaction",
                "4+",
                "4+",
                True,
                None,
            ),
            (
                "Responses.Partitions.AbortedTransactions.ProducerId",
                "int64",
                "4+",
                None,
                False,
                None,
            ),
            (
                "Responses.Partitions.AbortedTransactions.FirstOffset",
                "int64",
                "4+",
                None,
                False,
                None,
            ),
            ("Responses.Partitions.PreferredReadReplica", "int32", "11+", None, False, "-1"),
            ("Responses.Partitions.Records", "records", "0+", "0+", False, None),
            ("NodeEndpoints", "[]NodeEndpoint", "16+", None, False, None),
            ("NodeEndpoints.NodeId", "int32", "16+", None, False, None),
            ("NodeEndpoints.Host", "string", "16+", None, False, None),
            ("NodeEndpoints.Port", "int32", "16+", None, False, None),
            ("NodeEndpoints.Rack", "string", "16+", "16+", False, "null"),
        ],
    ),
    # The disagreements reported in issue #25, settled against Kafka 4.1
    "SaslAuthenticateResponse": (
        # 0effb0fe (no ignorable, AuthBytes' about repeated) is not the released file
        "apache/kafka 52c1a13d94c6 (v0-v2)",
        "0-2",
        [
            ("ErrorCode", "int16", "0+", None, False, None),
            ("ErrorMessage", "string", "0+", "0+", False, None),
            ("AuthBytes", "bytes", "0+", None, False, None),
            ("SessionLifetimeMs", "int64", "1+", None, True, "0"),
        ],
    ),
    "SaslAuthenticateRequest": (
        "apache/kafka 3f108e996211 (v0-v2)",
        "0-2",
        [("AuthBytes", "bytes", "0+", None, False, None)],
    ),
    "ListGroupsResponse": (
        # 07a283ac has the same fields plus a headerVersions key no Kafka message file has
        "apache/kafka 5c1644fc05a8 (v0-v5, KIP-848's GroupType)",
        "0-5",
        [
            ("ThrottleTimeMs", "int32", "1+", None, True, None),
            ("ErrorCode", "int16", "0+", None, False, None),
            ("Groups", "[]ListedGroup", "0+", None, False, None),
            ("Groups.GroupId", "string", "0+", None, False, None),
            ("Groups.ProtocolType", "string", "0+", None, False, None),
            ("Groups.GroupState", "string", "4+", None, True, None),
            ("Groups.GroupType", "string", "5+", None, True, None),
        ],
    ),
    "ResponseHeader": (
        # 0effb0fe (0-2, flexible 2+) is not the released file: Kafka 4.0's protocol guide
        # (its kafka-4.0.0 package) lists Response Header v0 and v1, v1 with tagged fields
        "apache/kafka 931fce6a91ee (v0-v1, flexible 1+)",
        "0-1",
        [("CorrelationId", "int32", "0+", None, False, None)],
    ),
    "coordinator/ConsumerGroupMetadataValue": (
        # c3763b3d (Epoch only) is before KIP-1101; 266ed846 is a later trunk file adding the
        # tagged CreationTimeMs (tag 1, KIP-1282), which Kafka 4.1 has not: Kafka 4.1's own
        # decoding of the fixture records prints epoch and metadataHash only
        "Kafka 4.1: apache/kafka 266ed846e560 less CreationTimeMs (KIP-1282, after 4.1)",
        "0",
        [
            ("Epoch", "int32", "0+", None, False, None),
            ("MetadataHash", "int64", "0+", None, False, "0"),
        ],
    ),
    "coordinator/ConsumerGroupPartitionMetadataValue": (
        # 061dac79 is the early KIP-848 layout (Epoch first, PartitionRacks): Kafka 3.7's,
        # declared in coordinator/kafka-3.7/
        "apache/kafka d63fb6f78c4b (no Epoch; PartitionMetadata, deprecated in 4.1)",
        "0",
        [
            ("Topics", "[]TopicMetadata", "0+", None, False, None),
            ("Topics.TopicId", "uuid", "0+", None, False, None),
            ("Topics.TopicName", "string", "0+", None, False, None),
            ("Topics.NumPartitions", "int32", "0+", None, False, None),
            ("Topics.PartitionMetadata", "[]PartitionMetadata", "0+", None, False, None),
            ("Topics.PartitionMetadata.Partition", "int32", "0+", None, False, None),
            ("Topics.PartitionMetadata.Racks", "[]string", "0+", None, False, None),
        ],
    ),
    # Issue #25 point 4: the coordinator records, each the stored apache/kafka file named
    # (group-coordinator/src/main/resources/common/message/<Name>.json); Kafka's numeric or JSON
    # null defaults are written as the declarations write them ("-1", "null": the same to
    # Kafka's generator). Keys: Kafka writes "versions": "0" where kgroup writes "0+"; both
    # hold v0 only.
    "coordinator/LegacyOffsetCommitKey": (
        "apache/kafka 3fcb1f543cba (apiKey 0)",
        "0",
        [
            ("group", "string", "0", None, False, None),
            ("topic", "string", "0", None, False, None),
            ("partition", "int32", "0", None, False, None),
        ],
    ),
    "coordinator/OffsetCommitKey": (
        "apache/kafka 2be4c8f5cc28 (apiKey 1)",
        "0",
        [
            ("group", "string", "0", None, False, None),
            ("topic", "string", "0", None, False, None),
            ("partition", "int32", "0", None, False, None),
        ],
    ),
    "coordinator/GroupMetadataKey": (
        "apache/kafka 9323eef229e9 (apiKey 2)",
        "0",
        [("group", "string", "0", None, False, None)],
    ),
    "coordinator/ConsumerGroupMetadataKey": (
        "apache/kafka 45b0af26e27b (apiKey 3)",
        "0",
        [("GroupId", "string", "0", None, False, None)],
    ),
    "coordinator/ConsumerGroupPartitionMetadataKey": (
        "apache/kafka 0c37e22a6c30 (apiKey 4)",
        "0",
        [("GroupId", "string", "0", None, False, None)],
    ),
    "coordinator/ConsumerGroupCurrentMemberAssignmentKey": (
        "apache/kafka 2be4c8f5cc28 (apiKey 8)",
        "0",
        [
            ("GroupId", "string", "0", None, False, None),
            ("MemberId", "string", "0", None, False, None),
        ],
    ),
    "coordinator/ShareGroupMemberMetadataKey": (
        "apache/kafka 69cb4d8d15d4 (apiKey 10)",
        "0",
        [
            ("GroupId", "string", "0", None, False, None),
            ("MemberId", "string", "0", None, False, None),
        ],
    ),
    "coordinator/ShareGroupStatePartitionMetadataKey": (
        "apache/kafka 0c808e912de8 (apiKey 15)",
        "0",
        [("GroupId", "string", "0", None, False, None)],
    ),
    "coordinator/StreamsGroupMetadataKey": (
        "apache/kafka 292aff5e7fcc (apiKey 17)",
        "0",
        [("GroupId", "string", "0", None, False, None)],
    ),
    "coordinator/ConsumerGroupRegularExpressionKey": (
        # an early file: type "data", "versions": "16" (the record type, before apiKey); Kafka
        # 4.1 writes apiKey 16 version 0 with these two fields
        "apache/kafka 53364c539970 (the fields of record type 16)",
        "0",
        [
            ("GroupId", "string", "0", None, False, None),
            ("RegularExpression", "string", "0", None, False, None),
        ],
    ),
    "coordinator/OffsetCommitValue": (
        # 28710d4d (type "data") has the same fields; topicId: see DECLARED_ONLY_TAGGED
        "apache/kafka 45b0af26e27b (apiKey 1, v0-v4, flexible 4+)",
        "0-4",
        [
            ("offset", "int64", "0+", None, False, None),
            ("leaderEpoch", "int32", "3+", None, True, "-1"),
            ("metadata", "string", "0+", None, False, None),
            ("commitTimestamp", "int64", "0+", None, False, None),
            ("expireTimestamp", "int64", "1", None, True, "-1"),
        ],
    ),
    "coordinator/ConsumerGroupMemberMetadataValue": (
        # 15f3e46f is an early KIP-848 file without ClassicMemberMetadata.SessionTimeoutMs
        "apache/kafka b091e287e824 (apiKey 5, v0)",
        "0",
        [
            ("InstanceId", "string", "0+", "0+", False, None),
            ("RackId", "string", "0+", "0+", False, None),
            ("ClientId", "string", "0+", None, False, None),
            ("ClientHost", "string", "0+", None, False, None),
            ("SubscribedTopicNames", "[]string", "0+", None, False, None),
            ("SubscribedTopicRegex", "string", "0+", "0+", False, None),
            ("RebalanceTimeoutMs", "int32", "0+", None, False, "-1"),
            ("ServerAssignor", "string", "0+", "0+", False, None),
            ("ClassicMemberMetadata", "ClassicMemberMetadata", "0+", "0+", False, "null"),
            ("ClassicMemberMetadata.SessionTimeoutMs", "int32", "0+", None, False, None),
            (
                "ClassicMemberMetadata.SupportedProtocols",
                "[]ClassicProtocol",
                "0+",
                None,
                False,
                None,
            ),
            ("ClassicMemberMetadata.SupportedProtocols.Name", "string", "0+", None, False, None),
            ("ClassicMemberMetadata.SupportedProtocols.Metadata", "bytes", "0+", None, False, None),
        ],
    ),
    "coordinator/ConsumerGroupTargetAssignmentMetadataValue": (
        # the file's own comment: AssignmentTimestamp (tag 0) "Added in 4.3 (KIP-1263)"
        "apache/kafka 07b06d0640a7 (apiKey 6)",
        "0",
        [
            ("AssignmentEpoch", "int32", "0+", None, False, None),
            ("AssignmentTimestamp", "int64", "0+", None, True, "0"),
        ],
    ),
    "coordinator/ConsumerGroupTargetAssignmentMemberValue": (
        "apache/kafka 0c37e22a6c30 (apiKey 7)",
        "0",
        [
            ("TopicPartitions", "[]TopicPartition", "0+", None, False, None),
            ("TopicPartitions.TopicId", "uuid", "0+", None, False, None),
            ("TopicPartitions.Partitions", "[]int32", "0+", None, False, None),
        ],
    ),
    "coordinator/ConsumerGroupCurrentMemberAssignmentValue": (
        # the tagged AssignmentEpochs (KIP-1251) is after Kafka 4.1: a 4.1 record lacks it
        "apache/kafka 6541f94017d8 (apiKey 8)",
        "0",
        [
            ("MemberEpoch", "int32", "0+", None, False, None),
            ("PreviousMemberEpoch", "int32", "0+", None, False, None),
            ("State", "int8", "0+", None, False, None),
            ("AssignedPartitions", "[]TopicPartitions", "0+", None, False, None),
            ("PartitionsPendingRevocation", "[]TopicPartitions", "0+", None, False, None),
            ("common:TopicPartitions.TopicId", "uuid", "0+", None, False, None),
            ("common:TopicPartitions.Partitions", "[]int32", "0+", None, False, None),
            ("common:TopicPartitions.AssignmentEpochs", "[]int32", "0+", "0+", False, "null"),
        ],
    ),
    "coordinator/ConsumerGroupRegularExpressionValue": (
        "apache/kafka 53364c539970 (v0)",
        "0",
        [
            ("Topics", "[]string", "0+", None, False, None),
            ("Version", "int64", "0+", None, False, None),
            ("Timestamp", "int64", "0+", None, False, None),
        ],
    ),
    "coordinator/ShareGroupMemberMetadataValue": (
        "apache/kafka 2831e7d2f163 (apiKey 10)",
        "0",
        [
            ("RackId", "string", "0+", "0+", False, None),
            ("ClientId", "string", "0+", None, False, None),
            ("ClientHost", "string", "0+", None, False, None),
            ("SubscribedTopicNames", "[]string", "0+", None, False, None),
        ],
    ),
    "coordinator/ShareGroupMetadataValue": (
        "apache/kafka 31f85dd07b1f (apiKey 11)",
        "0",
        [
            ("Epoch", "int32", "0+", None, False, None),
            ("MetadataHash", "int64", "0+", None, False, None),
        ],
    ),
    "coordinator/ShareGroupPartitionMetadataValue": (
        "apache/kafka 2d484d18cad1 (v0, early KIP-932 file)",
        "0",
        [
            ("Topics", "[]TopicMetadata", "0+", None, False, None),
            ("Topics.TopicId", "uuid", "0+", None, False, None),
            ("Topics.TopicName", "string", "0+", None, False, None),
            ("Topics.NumPartitions", "int32", "0+", None, False, None),
            ("Topics.PartitionMetadata", "[]PartitionMetadata", "0+", None, False, None),
            ("Topics.PartitionMetadata.Partition", "int32", "0+", None, False, None),
            ("Topics.PartitionMetadata.Racks", "[]string", "0+", None, False, None),
        ],
    ),
    "coordinator/ShareGroupTargetAssignmentMemberValue": (
        "apache/kafka 2c1531fcf39d (v0)",
        "0",
        [
            ("TopicPartitions", "[]TopicPartition", "0+", None, False, None),
            ("TopicPartitions.TopicId", "uuid", "0+", None, False, None),
            ("TopicPartitions.Partitions", "[]int32", "0+", None, False, None),
        ],
    ),
    "coordinator/ShareGroupStatePartitionMetadataValue": (
        "apache/kafka 25002b6a64b0 (apiKey 15)",
        "0",
        [
            ("InitializingTopics", "[]TopicPartitionsInfo", "0+", None, False, None),
            ("InitializedTopics", "[]TopicPartitionsInfo", "0+", None, False, None),
            ("DeletingTopics", "[]TopicInfo", "0+", None, False, None),
            ("common:TopicPartitionsInfo.TopicId", "uuid", "0+", None, False, None),
            ("common:TopicPartitionsInfo.TopicName", "string", "0+", None, False, None),
            ("common:TopicPartitionsInfo.Partitions", "[]int32", "0+", None, False, None),
            ("common:TopicPartitionsInfo.CreateTimestamp", "int64", "0+", None, False, None),
            ("common:TopicInfo.TopicId", "uuid", "0+", None, False, None),
            ("common:TopicInfo.TopicName", "string", "0+", None, False, None),
        ],
    ),
    "coordinator/StreamsGroupPartitionMetadataValue": (
        "apache/kafka 3e4bf3068256 (v0)",
        "0",
        [
            ("Topics", "[]TopicMetadata", "0+", None, False, None),
            ("Topics.TopicId", "uuid", "0+", None, False, None),
            ("Topics.TopicName", "string", "0+", None, False, None),
            ("Topics.NumPartitions", "int32", "0+", None, False, None),
            ("Topics.PartitionMetadata", "[]PartitionMetadata", "0+", None, False, None),
            ("Topics.PartitionMetadata.Partition", "int32", "0+", None, False, None),
            ("Topics.PartitionMetadata.Racks", "[]string", "0+", None, False, None),
        ],
    ),
    "coordinator/GroupMetadataValue": (
        "apache/kafka 173802a8127f (v0-v4, flexible 4+)",
        "0-4",
        [
            ("protocolType", "string", "0+", None, False, None),
            ("generation", "int32", "0+", None, False, None),
            ("protocol", "string", "0+", "0+", False, None),
            ("leader", "string", "0+", "0+", False, None),
            ("currentStateTimestamp", "int64", "2+", None, True, "-1"),
            ("members", "[]MemberMetadata", "0+", None, False, None),
            ("common:MemberMetadata.memberId", "string", "0+", None, False, None),
            ("common:MemberMetadata.groupInstanceId", "string", "3+", "3+", True, "null"),
            ("common:MemberMetadata.clientId", "string", "0+", None, False, None),
            ("common:MemberMetadata.clientHost", "string", "0+", None, False, None),
            ("common:MemberMetadata.rebalanceTimeout", "int32", "1+", None, True, None),
            ("common:MemberMetadata.sessionTimeout", "int32", "0+", None, False, None),
            ("common:MemberMetadata.subscription", "bytes", "0+", None, False, None),
            ("common:MemberMetadata.assignment", "bytes", "0+", None, False, None),
        ],
    ),
    "coordinator/ShareGroupCurrentMemberAssignmentValue": (
        "apache/kafka d2cdfb455937 (apiKey 14)",
        "0",
        [
            ("MemberEpoch", "int32", "0+", None, False, None),
            ("PreviousMemberEpoch", "int32", "0+", None, False, None),
            ("State", "int8", "0+", None, False, None),
            ("AssignedPartitions", "[]TopicPartitions", "0+", None, False, None),
            ("common:TopicPartitions.TopicId", "uuid", "0+", None, False, None),
            ("common:TopicPartitions.Partitions", "[]int32", "0+", None, False, None),
        ],
    ),
    "coordinator/ShareGroupTargetAssignmentMetadataValue": (
        "apache/kafka b967e968c65a (apiKey 12; AssignmentTimestamp: DECLARED_ONLY_TAGGED)",
        "0",
        [("AssignmentEpoch", "int32", "0+", None, False, None)],
    ),
    "coordinator/StreamsGroupTargetAssignmentMetadataValue": (
        "apache/kafka 5c1644fc05a8 (apiKey 20; AssignmentTimestamp: DECLARED_ONLY_TAGGED)",
        "0",
        [("AssignmentEpoch", "int32", "0+", None, False, None)],
    ),
    "coordinator/StreamsGroupTargetAssignmentMemberValue": (
        "apache/kafka 75a150ae8002 (apiKey 21)",
        "0",
        [
            ("ActiveTasks", "[]TaskIds", "0+", None, False, None),
            ("StandbyTasks", "[]TaskIds", "0+", None, False, None),
            ("WarmupTasks", "[]TaskIds", "0+", None, False, None),
            ("common:TaskIds.SubtopologyId", "string", "0+", None, False, None),
            ("common:TaskIds.Partitions", "[]int32", "0+", None, False, None),
        ],
    ),
    "coordinator/StreamsGroupCurrentMemberAssignmentValue": (
        "apache/kafka 5096058a08e6 (v0; AssignmentEpochs: DECLARED_ONLY_TAGGED)",
        "0",
        [
            ("MemberEpoch", "int32", "0+", None, False, None),
            ("PreviousMemberEpoch", "int32", "0+", None, False, None),
            ("State", "int8", "0+", None, False, None),
            ("ActiveTasks", "[]TaskIds", "0+", None, False, None),
            ("StandbyTasks", "[]TaskIds", "0+", None, False, None),
            ("WarmupTasks", "[]TaskIds", "0+", None, False, None),
            ("ActiveTasksPendingRevocation", "[]TaskIds", "0+", None, False, None),
            ("StandbyTasksPendingRevocation", "[]TaskIds", "0+", None, False, None),
            ("WarmupTasksPendingRevocation", "[]TaskIds", "0+", None, False, None),
            ("common:TaskIds.SubtopologyId", "string", "0+", None, False, None),
            ("common:TaskIds.Partitions", "[]int32", "0+", None, False, None),
        ],
    ),
    "coordinator/StreamsGroupMemberMetadataValue": (
        "apache/kafka 59bf751f9dc2 (v0)",
        "0",
        [
            ("InstanceId", "string", "0+", "0+", False, None),
            ("RackId", "string", "0+", "0+", False, None),
            ("ClientId", "string", "0+", None, False, None),
            ("ClientHost", "string", "0+", None, False, None),
            ("RebalanceTimeoutMs", "int32", "0+", None, False, "-1"),
            ("TopologyEpoch", "int32", "0+", None, False, None),
            ("ProcessId", "string", "0+", None, False, None),
            ("UserEndpoint", "Endpoint", "0+", "0+", False, "null"),
            ("ClientTags", "[]KeyValue", "0+", None, False, None),
            ("common:Endpoint.Host", "string", "0+", None, False, None),
            ("common:Endpoint.Port", "uint16", "0+", None, False, None),
            ("common:KeyValue.Key", "string", "0+", None, False, None),
            ("common:KeyValue.Value", "string", "0+", None, False, None),
        ],
    ),
    "coordinator/StreamsGroupTopologyValue": (
        # the stored default, 0832e7a7, is an earlier layout (TopologyId, Topology, []int32)
        "apache/kafka 59bf751f9dc2 (v0)",
        "0",
        [
            ("Epoch", "int32", "0+", None, False, None),
            ("Subtopologies", "[]Subtopology", "0+", None, False, None),
            ("Subtopologies.SubtopologyId", "string", "0+", None, False, None),
            ("Subtopologies.SourceTopics", "[]string", "0+", None, False, None),
            ("Subtopologies.SourceTopicRegex", "[]string", "0+", None, False, None),
            ("Subtopologies.StateChangelogTopics", "[]TopicInfo", "0+", None, False, None),
            ("Subtopologies.RepartitionSinkTopics", "[]string", "0+", None, False, None),
            ("Subtopologies.RepartitionSourceTopics", "[]TopicInfo", "0+", None, False, None),
            ("Subtopologies.CopartitionGroups", "[]CopartitionGroup", "0+", None, False, None),
            ("Subtopologies.CopartitionGroups.SourceTopics", "[]int16", "0+", None, False, None),
            (
                "Subtopologies.CopartitionGroups.SourceTopicRegex",
                "[]int16",
                "0+",
                None,
                False,
                None,
            ),
            (
                "Subtopologies.CopartitionGroups.RepartitionSourceTopics",
                "[]int16",
                "0+",
                None,
                False,
                None,
            ),
            ("common:TopicConfig.key", "string", "0+", None, False, None),
            ("common:TopicConfig.value", "string", "0+", None, False, None),
            ("common:TopicInfo.Name", "string", "0+", None, False, None),
            ("common:TopicInfo.Partitions", "int32", "0+", None, False, None),
            ("common:TopicInfo.ReplicationFactor", "int16", "0+", None, False, None),
            ("common:TopicInfo.TopicConfigs", "[]TopicConfig", "0+", None, False, None),
        ],
    ),
    "coordinator/StreamsGroupTargetAssignmentResolvedTopicIdsValue": (
        "apache/kafka 14440d21214c (apiKey 24)",
        "0",
        [
            ("AssignmentEpoch", "int32", "0+", None, False, None),
            ("ResolvedTopicIdsBySubtopology", "[]ResolvedTopicIds", "0+", None, False, None),
            ("common:ResolvedTopicIds.SubtopologyId", "string", "0+", None, False, None),
            ("common:ResolvedTopicIds.TopicIds", "[]uuid", "0+", None, False, None),
        ],
    ),
    # The earlier layouts kgroup still reads (coordinator/kafka-X.Y/, share/kafka-early/)
    "coordinator/kafka-4.0/ShareGroupMetadataValue": (
        "apache/kafka cbf3d00a25fb (apiKey 11, Epoch only)",
        "0",
        [("Epoch", "int32", "0+", None, False, None)],
    ),
    "coordinator/kafka-4.0/ShareGroupStatePartitionMetadataValue": (
        "apache/kafka 7e11ea85e0c7 (apiKey 15, before InitializingTopics)",
        "0",
        [
            ("InitializedTopics", "[]TopicPartitionsInfo", "0+", None, False, None),
            ("DeletingTopics", "[]TopicInfo", "0+", None, False, None),
            ("common:TopicPartitionsInfo.TopicId", "uuid", "0+", None, False, None),
            ("common:TopicPartitionsInfo.TopicName", "string", "0+", None, False, None),
            ("common:TopicPartitionsInfo.Partitions", "[]int32", "0+", None, False, None),
            ("common:TopicInfo.TopicId", "uuid", "0+", None, False, None),
            ("common:TopicInfo.TopicName", "string", "0+", None, False, None),
        ],
    ),
    "share/kafka-early/ShareSnapshotValue": (
        # the declaration names 03176af6, an earlier stored version of the same early layout
        "apache/kafka e3e579e7d69f (share-coordinator, early KIP-932 layout)",
        "0",
        [
            ("SnapshotEpoch", "uint16", "0", None, False, None),
            ("StateEpoch", "int32", "0+", None, False, None),
            ("LeaderEpoch", "int32", "0+", None, False, None),
            ("StartOffset", "int64", "0", None, False, None),
            ("StateBatches", "[]StateBatch", "0", None, False, None),
            ("StateBatches.FirstOffset", "int64", "0", None, False, None),
            ("StateBatches.LastOffset", "int64", "0", None, False, None),
            ("StateBatches.DeliveryState", "int8", "0", None, False, None),
            ("StateBatches.DeliveryCount", "int16", "0", None, False, None),
        ],
    ),
    # share-coordinator/src/main/resources/common/message/
    "share/ShareSnapshotKey": (
        "apache/kafka 1b9e7a6d25ad (share-coordinator; Kafka 4.1 writes apiKey 0, v0)",
        "0",
        [
            ("GroupId", "string", "0", None, False, None),
            ("TopicId", "uuid", "0", None, False, None),
            ("Partition", "int32", "0", None, False, None),
        ],
    ),
    "share/ShareUpdateKey": (
        # an early file: "versions": "1" is the record type; Kafka 4.1 writes apiKey 1, v0
        "apache/kafka 53364c539970 (share-coordinator, the fields of record type 1)",
        "0",
        [
            ("GroupId", "string", "0", None, False, None),
            ("TopicId", "uuid", "0", None, False, None),
            ("Partition", "int32", "0", None, False, None),
        ],
    ),
    "share/ShareUpdateValue": (
        # the file's own comment: "DeliveryCompleteCount was added in Apache Kafka 4.2 (KIP-1226)"
        "apache/kafka 0c9eef59f75d (apiKey 1) less the tagged DeliveryCompleteCount (Kafka 4.2)",
        "0",
        [
            ("SnapshotEpoch", "int32", "0+", None, False, None),
            ("LeaderEpoch", "int32", "0+", None, False, None),
            ("StartOffset", "int64", "0+", None, False, None),
            ("StateBatches", "[]StateBatch", "0+", None, False, None),
            ("StateBatches.FirstOffset", "int64", "0+", None, False, None),
            ("StateBatches.LastOffset", "int64", "0+", None, False, None),
            ("StateBatches.DeliveryState", "int8", "0+", None, False, None),
            ("StateBatches.DeliveryCount", "int16", "0+", None, False, None),
        ],
    ),
    # clients/src/main/resources/common/message/ (v3, KIP-881's RackId, is outside these files)
    "embedded/ConsumerProtocolSubscription": (
        "apache/kafka 36ad06356327 (v0-v2)",
        "0-2",
        [
            ("Topics", "[]string", "0+", None, False, None),
            ("UserData", "bytes", "0+", "0+", False, "null"),
            ("OwnedPartitions", "[]TopicPartition", "1+", None, True, None),
            ("OwnedPartitions.Topic", "string", "1+", None, False, None),
            ("OwnedPartitions.Partitions", "[]int32", "1+", None, False, None),
            ("GenerationId", "int32", "2+", None, True, "-1"),
        ],
    ),
    "embedded/ConsumerProtocolAssignment": (
        "apache/kafka 3bb846888976 (v0-v2)",
        "0-2",
        [
            ("AssignedPartitions", "[]TopicPartition", "0+", None, False, None),
            ("AssignedPartitions.Topic", "string", "0+", None, False, None),
            ("AssignedPartitions.Partitions", "[]int32", "0+", None, False, None),
            ("UserData", "bytes", "0+", "0+", False, "null"),
        ],
    ),
    # The early KIP-848/932/1071 key files (type "data"): their "versions" is the record type
    # (later the apiKey), a number per field that Kafka 4.1 writes as version 0. Each is the
    # stored file named; the fields, in order, are what is compared (the versions held: v0)
    **{
        f"coordinator/{name}": (
            f"apache/kafka {commit} (early file, record type {rtype})",
            "0",
            rows_,
        )
        for name, commit, rtype, rows_ in (
            ("ConsumerGroupMemberMetadataKey", "06a2dac25278", 5, _GROUP_MEMBER),
            ("ConsumerGroupTargetAssignmentMemberKey", "06a2dac25278", 7, _GROUP_MEMBER),
            ("ConsumerGroupTargetAssignmentMetadataKey", "53364c539970", 6, _GROUP),
            ("ShareGroupCurrentMemberAssignmentKey", "2d484d18cad1", 14, _GROUP_MEMBER),
            ("ShareGroupMetadataKey", "52fdaa2220be", 11, _GROUP),
            ("ShareGroupPartitionMetadataKey", "3d5287154fff", 9, _GROUP),
            ("ShareGroupTargetAssignmentMemberKey", "2d484d18cad1", 13, _GROUP_MEMBER),
            ("ShareGroupTargetAssignmentMetadataKey", "1268698d7b48", 12, _GROUP),
            ("StreamsGroupCurrentMemberAssignmentKey", "21676d0508fb", 14, _GROUP_MEMBER),
            ("StreamsGroupMemberMetadataKey", "3e44a8096275", 17, _GROUP_MEMBER),
            ("StreamsGroupPartitionMetadataKey", "21e4b8be3a85", 13, _GROUP),
            ("StreamsGroupTargetAssignmentMemberKey", "21676d0508fb", 13, _GROUP_MEMBER),
            ("StreamsGroupTargetAssignmentMetadataKey", "3e44a8096275", 18, _GROUP),
            ("StreamsGroupTopologyKey", "21e4b8be3a85", 18, _GROUP),
        )
    },
    "coordinator/StreamsGroupTargetAssignmentResolvedTopicIdsKey": (
        "apache/kafka 14440d21214c (apiKey 24)",
        "0",
        [("GroupId", "string", "0", None, False, None)],
    ),
    # Kafka Connect's Java Schemas (no JSON file): v0 ConnectProtocol (c6e2ca47: CONFIG_STATE_V0,
    # ASSIGNMENT_V0 with `new ArrayOf(...)`), v1/v2 IncrementalCooperativeConnectProtocol
    # (7a2231ab, 022f0d6b: ALLOCATION_V1 NULLABLE_BYTES, ASSIGNMENT_V1 with `ArrayOf.nullable`).
    # Java's `delay` default 0 only fills a missing trailing field (TOLERATE_MISSING_FIELDS_WITH_
    # DEFAULTS), which Connect workers never write; kgroup reads every field.
    "embedded/ConnectProtocolMetadata": (
        "apache/kafka c6e2ca47eca1 and 7a2231ab7e26 (v0-v2)",
        "0-2",
        [
            ("url", "string", "0+", None, False, None),
            ("configOffset", "int64", "0+", None, False, None),
            ("allocation", "bytes", "1+", "1+", False, None),
        ],
    ),
    "embedded/ConnectProtocolAssignment": (
        "apache/kafka c6e2ca47eca1 and 7a2231ab7e26 (v0-v2)",
        "0-2",
        [
            ("error", "int16", "0+", None, False, None),
            ("leader", "string", "0+", None, False, None),
            ("leaderUrl", "string", "0+", None, False, None),
            ("configOffset", "int64", "0+", None, False, None),
            ("assignment", "[]ConnectorTasks", "0+", "1+", False, None),
            ("revoked", "[]ConnectorTasks", "1+", "1+", False, None),
            ("delay", "int32", "1+", None, False, None),
            ("common:ConnectorTasks.connector", "string", "0+", None, False, None),
            ("common:ConnectorTasks.tasks", "[]int32", "0+", None, False, None),
        ],
    ),
}

# name -> {field path: (tag, taggedVersions)}: every tagged field of the files above (none
# elsewhere); a tag declared where Kafka has none, or missing, changes the bytes
KAFKA_TAGS: dict[str, dict[str, tuple[int, str]]] = {
    "ApiVersionsResponse": {
        "SupportedFeatures": (0, "3+"),
        "FinalizedFeaturesEpoch": (1, "3+"),
        "FinalizedFeatures": (2, "3+"),
        "ZkMigrationReady": (3, "3+"),
    },
    "coordinator/ConsumerGroupMetadataValue": {"MetadataHash": (0, "0+")},
    "coordinator/ConsumerGroupMemberMetadataValue": {"ClassicMemberMetadata": (0, "0+")},
    "coordinator/ConsumerGroupTargetAssignmentMetadataValue": {"AssignmentTimestamp": (0, "0+")},
    "coordinator/ConsumerGroupCurrentMemberAssignmentValue": {
        "common:TopicPartitions.AssignmentEpochs": (0, "0+")
    },
}

# name -> {path: (tag, taggedVersions)}: a tagged field kgroup declares that no stored Kafka file
# above has. A record without it reads the same; a record with it is read, not skipped.
DECLARED_ONLY_TAGGED: dict[str, dict[str, tuple[int, str]]] = {
    # the declaration's own note: "KIP-848, 4.1"; the stored files (28710d4d, 45b0af26) lack it
    "coordinator/OffsetCommitValue": {"topicId": (0, "4+")},
    # AssignmentTimestamp: "Added in 4.3 (KIP-1263)" in ConsumerGroupTargetAssignmentMetadataValue
    # (07b06d06); the stored share and streams files (b967e968, 5c1644fc) are earlier
    "coordinator/ShareGroupTargetAssignmentMetadataValue": {"AssignmentTimestamp": (0, "0+")},
    "coordinator/StreamsGroupTargetAssignmentMetadataValue": {"AssignmentTimestamp": (0, "0+")},
    # AssignmentEpochs: KIP-1251 in ConsumerGroupCurrentMemberAssignmentValue (6541f940); the
    # stored streams file (5096058a) is earlier
    "coordinator/StreamsGroupCurrentMemberAssignmentValue": {
        "common:TaskIds.AssignmentEpochs": (0, "0+")
    },
}

# name -> flexibleVersions of the file transcribed, for every non-wire table above (the wire
# files' flexible versions are KAFKA_41's, test_protocol_kafka_reference.py)
KAFKA_FLEXIBLE: dict[str, str] = {
    **{
        f"coordinator/{key}": "none"
        for key in (
            "LegacyOffsetCommitKey",
            "OffsetCommitKey",
            "GroupMetadataKey",
            "ConsumerGroupMetadataKey",
            "ConsumerGroupPartitionMetadataKey",
            "ConsumerGroupCurrentMemberAssignmentKey",
            "ConsumerGroupRegularExpressionKey",
            "ShareGroupMemberMetadataKey",
            "ShareGroupStatePartitionMetadataKey",
            "StreamsGroupMetadataKey",
        )
    },
    **{name: "none" for name in KAFKA if name.startswith("coordinator/") and name.endswith("Key")},
    "coordinator/OffsetCommitValue": "4+",
    **{
        f"coordinator/{value}": "0+"
        for value in (
            "ConsumerGroupMetadataValue",
            "ConsumerGroupPartitionMetadataValue",
            "ConsumerGroupMemberMetadataValue",
            "ConsumerGroupTargetAssignmentMetadataValue",
            "ConsumerGroupTargetAssignmentMemberValue",
            "ConsumerGroupCurrentMemberAssignmentValue",
            "ConsumerGroupRegularExpressionValue",
            "ShareGroupMemberMetadataValue",
            "ShareGroupMetadataValue",
            "ShareGroupPartitionMetadataValue",
            "ShareGroupTargetAssignmentMemberValue",
            "ShareGroupStatePartitionMetadataValue",
            "StreamsGroupPartitionMetadataValue",
        )
    },
    "coordinator/GroupMetadataValue": "4+",
    "coordinator/kafka-4.0/ShareGroupMetadataValue": "0+",
    "coordinator/kafka-4.0/ShareGroupStatePartitionMetadataValue": "0+",
    "share/kafka-early/ShareSnapshotValue": "0+",
    "share/ShareSnapshotKey": "none",
    "share/ShareUpdateKey": "none",
    "share/ShareUpdateValue": "0+",
    "embedded/ConsumerProtocolSubscription": "none",
    "embedded/ConsumerProtocolAssignment": "none",
    **{
        f"coordinator/{value}": "0+"
        for value in (
            "ShareGroupCurrentMemberAssignmentValue",
            "ShareGroupTargetAssignmentMetadataValue",
            "StreamsGroupTargetAssignmentMetadataValue",
            "StreamsGroupTargetAssignmentMemberValue",
            "StreamsGroupCurrentMemberAssignmentValue",
            "StreamsGroupMemberMetadataValue",
            "StreamsGroupTopologyValue",
            "StreamsGroupTargetAssignmentResolvedTopicIdsValue",
        )
    },
    # Connect's Java Schemas have no tagged fields
    "embedded/ConnectProtocolMetadata": "none",
    "embedded/ConnectProtocolAssignment": "none",
}

# Declarations with no Kafka JSON file to transcribe: what each transcribes instead
NO_KAFKA_FILE: dict[str, str] = {
    "embedded/StickyAssignorUserData": "StickyAssignor.java STICKY_ASSIGNOR_USER_DATA_V0/_V1",
    "embedded/CooperativeStickyAssignorUserData": (
        "CooperativeStickyAssignor.java COOPERATIVE_STICKY_ASSIGNOR_USER_DATA_V0"
    ),
    "share/ShareSnapshotValue": (
        "Kafka 4.1's layout (int32 SnapshotEpoch, Create/WriteTimestamp) as its "
        "ShareCoordinatorRecordHelpers writes it: the stored files (03176af6, e3e579e7) are the "
        "early layout, share/kafka-early/"
    ),
    "coordinator/kafka-trunk/ShareGroupStatePartitionMetadataValue": (
        "trunk between apache/kafka#19339 and 25002b6a (no stored file has this layout)"
    ),
}

# Declarations whose Kafka file is still to be transcribed into KAFKA (issue #25 point 4), each
# with why it is not yet: the stored default version is not the layout declared, or a
# difference is still to be settled. Shrink this set; never add a new declaration to it.
NOT_YET_TRANSCRIBED: dict[str, str] = {
    "coordinator/StreamsGroupMetadataValue": (
        "1291a930 has AssignmentConfigs; declared: the later LastAssignmentConfigs layout"
    ),
    "coordinator/kafka-3.7/ConsumerGroupPartitionMetadataValue": (
        "061dac79 names the rack list PartitionRacks; declared PartitionMetadata, the name decode "
        "output has for every layout: renaming changes the JSON output, to settle"
    ),
    "coordinator/kafka-3.9/ShareGroupPartitionMetadataValue": (
        "no stored version has this layout (2d484d18 and b091e287: Topics of TopicMetadata)"
    ),
}


def versions(text: str | None) -> tuple[int, int] | None:
    """Kafka's version range text ("3+", "0-7", "5", "none") as bounds; None for none."""
    if text is None or text == "none":
        return None
    if text.endswith("+"):
        return int(text[:-1]), OPEN
    low, _, high = text.partition("-")
    return int(low), int(high or low)


def clip(bounds: tuple[int, int] | None, window: tuple[int, int]) -> tuple[int, int] | None:
    if bounds is None or bounds[1] < window[0] or bounds[0] > window[1]:
        return None
    return max(bounds[0], window[0]), min(bounds[1], window[1])


def rows(spec: dict[str, Any]) -> Iterator[Row]:
    """Every field of a declaration file as a row, in wire order, common structs last."""

    def walk(fields: list[dict[str, Any]], prefix: str) -> Iterator[Row]:
        for fd in fields:
            path = prefix + fd["name"]
            yield (
                path,
                fd["type"],
                fd["versions"],
                fd.get("nullableVersions"),
                bool(fd.get("ignorable", False)),
                fd.get("default"),
            )
            yield from walk(fd.get("fields", []), path + ".")

    yield from walk(spec["fields"], "")
    for common in spec.get("commonStructs", []):
        yield from walk(common["fields"], f"common:{common['name']}.")


# Kafka's `records` type is nullable bytes on the wire; kgroup declares it `bytes` (it reads
# record batches itself)
SAME_TYPE = {"records": "bytes"}


def _default(text: str | None) -> str | None:
    """A default as Kafka's generator reads it: "0x7fffffff" and "2147483647" are one number."""
    try:
        return str(int(text, 0)) if text is not None else None
    except ValueError:
        return text


def in_window(table: list[Row], window: tuple[int, int]) -> list[tuple[Any, ...]]:
    """The rows of fields present in `window` (and their struct with them), ranges limited to it."""
    out = []
    held_paths: set[str] = set()
    for path, typ, present, nullable, ignorable, default in table:
        held = clip(versions(present), window)
        parent = path.rpartition(".")[0]
        if held is None or (
            parent and not parent.startswith("common:") and parent not in held_paths
        ):
            continue
        held_paths.add(path)
        kind = SAME_TYPE.get(typ, typ)
        out.append((path, kind, held, clip(versions(nullable), held), ignorable, _default(default)))
    return out


def _spec(name: str) -> dict[str, Any]:
    """A declaration file by name: `wire/` unless the name says its directory."""
    path = name if "/" in name else f"wire/{name}"
    return json.loads((ROOT / f"{path}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(KAFKA))
def test_declaration_says_what_kafkas_file_says(name: str) -> None:
    source, kafka_valid, kafka_rows = KAFKA[name]
    spec = _spec(name)
    declared, kafka = versions(spec["validVersions"]), versions(kafka_valid)
    assert declared is not None and kafka is not None
    window = clip(declared, kafka)
    assert window is not None, f"{name}: no version in common with {source}"
    only_ours = DECLARED_ONLY_TAGGED.get(name, {})
    ours = in_window([r for r in rows(spec) if r[0] not in only_ours], window)
    theirs = in_window(kafka_rows, window)
    assert [r[0] for r in ours] == [r[0] for r in theirs], f"{name}: fields differ from {source}"
    for mine, kafkas in zip(ours, theirs, strict=True):
        assert mine == kafkas, f"{name}.{mine[0]} (v{window[0]}-{window[1]}) vs {source}"


def tags(spec: dict[str, Any]) -> dict[str, tuple[int, str]]:
    """The tagged fields of a declaration: path -> (tag, taggedVersions, else its versions)."""
    out = {}

    def walk(fields: list[dict[str, Any]], prefix: str) -> None:
        for fd in fields:
            if "tag" in fd or "taggedVersions" in fd:
                out[prefix + fd["name"]] = (fd.get("tag"), fd.get("taggedVersions", fd["versions"]))
            walk(fd.get("fields", []), f"{prefix}{fd['name']}.")

    walk(spec["fields"], "")
    for common in spec.get("commonStructs", []):
        walk(common["fields"], f"common:{common['name']}.")
    return out


@pytest.mark.parametrize("name", sorted(KAFKA))
def test_declaration_tags_what_kafkas_file_tags(name: str) -> None:
    expected = {**KAFKA_TAGS.get(name, {}), **DECLARED_ONLY_TAGGED.get(name, {})}
    assert tags(_spec(name)) == expected, f"{name} vs {KAFKA[name][0]}"


def _every_declaration() -> list[str]:
    """Every declaration file by table name: wire ones bare, the others with their directory."""
    names = []
    for path in sorted(ROOT.rglob("*.json")):
        rel = str(path.relative_to(ROOT).with_suffix(""))
        names.append(rel.removeprefix("wire/"))
    return names


@pytest.mark.parametrize("name", _every_declaration())
def test_every_declaration_has_kafkas_table_or_says_why_not(name: str) -> None:
    """A new declaration without a table fails here; the three lists never overlap."""
    listed = [name in KAFKA, name in NO_KAFKA_FILE, name in NOT_YET_TRANSCRIBED]
    assert sum(listed) == 1, f"{name}: transcribe Kafka's file into KAFKA ({listed})"


@pytest.mark.parametrize("name", sorted(n for n in KAFKA if "/" in n))
def test_flexible_versions_are_the_transcribed_files(name: str) -> None:
    flexible = _spec(name).get("flexibleVersions", "none")
    declared = versions(flexible)
    kafka = versions(KAFKA_FLEXIBLE[name])
    assert (declared and declared[0]) == (kafka and kafka[0]), f"{name} vs {KAFKA[name][0]}"


def test_the_lists_name_only_declarations_that_exist() -> None:
    every = set(_every_declaration())
    stale = (set(KAFKA) | set(NO_KAFKA_FILE) | set(NOT_YET_TRANSCRIBED)) - every
    assert not stale, stale


def test_a_connect_assignment_with_null_arrays_decodes_as_kafka_reads_it() -> None:
    """ASSIGNMENT_V1 writes a null assignment or revoked list as length -1 (`ArrayOf.nullable`);
    Kafka reads it as null, so the member's assignment decodes instead of staying raw bytes."""
    from kgroup.offsets.embedded import decode_assignment

    def string(text: str) -> bytes:
        return struct.pack(">h", len(text)) + text.encode()

    head = struct.pack(">hh", 1, 0) + string("w1") + string("http://w1:8083")
    data = head + struct.pack(">qiii", 7, -1, -1, 3000)
    assert decode_assignment("connect", data) == {
        "version": 1,
        "error": 0,
        "leader": "w1",
        "leader_url": "http://w1:8083",
        "config_offset": 7,
        "assignment": None,
        "revoked": None,
        "delay": 3000,
    }
    v0 = struct.pack(">hh", 0, 0) + string("w1") + string("u") + struct.pack(">qi", 7, -1)
    kept = decode_assignment("connect", v0)  # ASSIGNMENT_V0: `new ArrayOf`, never null
    assert kept is not None and kept["raw_base64"] == v0
    assert "non-nullable field assignment" in kept["error"]


def test_the_comparison_sees_a_changed_range_a_flag_and_a_renamed_field() -> None:
    table: list[Row] = [
        ("A", "int32", "0+", None, False, None),
        ("B", "string", "2-5", "3+", False, "null"),
        ("C", "int64", "9+", None, False, None),
    ]
    window = (0, 8)
    assert in_window(table, window) == [
        ("A", "int32", (0, 8), None, False, None),
        ("B", "string", (2, 5), (3, 5), False, "null"),
    ]
    moved = [table[0], ("B", "string", "2-6", "3+", False, "null")]
    assert in_window(moved, window) != in_window(table, window)
    flagged = [table[0], ("B", "string", "2-5", "3+", True, "null")]
    assert in_window(flagged, window) != in_window(table, window)
    renamed = [table[0], ("b", "string", "2-5", "3+", False, "null")]
    assert [r[0] for r in in_window(renamed, window)] != [r[0] for r in in_window(table, window)]
    inner = [{"name": "Y", "type": "bool", "versions": "1+", "ignorable": True}]
    spec = {"fields": [{"name": "X", "type": "[]S", "versions": "1+", "fields": inner}]}
    assert list(rows(spec)) == [
        ("X", "[]S", "1+", None, False, None),
        ("X.Y", "bool", "1+", None, True, None),
    ]


def test_the_window_drops_a_struct_with_its_fields_and_reads_defaults_as_numbers() -> None:
    table: list[Row] = [
        ("A", "int32", "0+", None, False, "0x7fffffff"),
        ("S", "Inner", "12+", None, False, None),
        ("S.X", "int64", "0+", None, False, "-1"),
        ("R", "records", "0+", "0+", False, None),
        ("common:C.Y", "int8", "0+", None, False, None),
    ]
    assert in_window(table, (4, 11)) == [
        ("A", "int32", (4, 11), None, False, "2147483647"),
        ("R", "bytes", (4, 11), (4, 11), False, None),
        ("common:C.Y", "int8", (4, 11), None, False, None),
    ]
    assert [r[0] for r in in_window(table, (4, 12))] == ["A", "S", "S.X", "R", "common:C.Y"]
    assert in_window([("A", "int32", "0+", None, False, "1")], (0, 1)) != in_window(
        [("A", "int32", "0+", None, False, "0x7fffffff")], (0, 1)
    )
