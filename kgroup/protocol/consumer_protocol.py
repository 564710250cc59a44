"""The consumer embedded protocol: what members of a `consumer` group put in JoinGroup metadata
and SyncGroup assignments (DescribeGroups and GroupMetadataValue carry the same bytes).

Transcribed from apache/kafka clients/src/main/resources/common/message/
ConsumerProtocolSubscription.json (0-3; KIP-429 OwnedPartitions 1+, KIP-792 GenerationId 2+,
KIP-881 RackId 3+) and ConsumerProtocolAssignment.json (0-3, one layout). Never flexible.
Each is preceded by an int16 version (`ConsumerProtocol.serializeSubscription`), and a version
newer than the declaration is read with the newest known layout, the bytes after it ignored
(`ConsumerProtocol.deserializeSubscription`): `codec.decode_versioned` does both.

The eager `StickyAssignor` and the `CooperativeStickyAssignor` put their own bytes in UserData
(Java `Schema`s, no version prefix): declared here too, for `kgroup.assign` (which partitions a
member claims) and the `__consumer_offsets` decoder (`user_data_decoded`).
"""

from __future__ import annotations

from kgroup.protocol.model import NULL, arr, f, message, struct

TOPIC_PARTITION = struct("TopicPartition", f("Topic", "string"), f("Partitions", arr("int32")))

CONSUMER_PROTOCOL_SUBSCRIPTION = message(
    "ConsumerProtocolSubscription",
    "0-3",
    None,
    f("Topics", arr("string")),
    f("UserData", "bytes", nullable="0+", default=NULL),
    f("OwnedPartitions", arr(TOPIC_PARTITION), "1+", ignorable=True, note="KIP-429, 2.4"),
    f("GenerationId", "int32", "2+", default=-1, ignorable=True, note="KIP-792, 3.4"),
    f("RackId", "string", "3+", nullable="3+", default=NULL, ignorable=True, note="KIP-881"),
)

CONSUMER_PROTOCOL_ASSIGNMENT = message(
    "ConsumerProtocolAssignment",
    "0-3",
    None,
    f("AssignedPartitions", arr(TOPIC_PARTITION)),
    f("UserData", "bytes", nullable="0+", default=NULL),
)

# StickyAssignor user data: V1 = previous_assignment [topic, partitions] + generation, V0 = the
# array only (`StickyAssignor.STICKY_ASSIGNOR_USER_DATA_V0/V1`).
STICKY_USER_DATA = message(
    "StickyAssignorUserData",
    "0-1",
    None,
    f("previousAssignment", arr(TOPIC_PARTITION)),
    f("generation", "int32", "1+", default=-1),
)
# CooperativeStickyAssignor user data: the generation only.
COOPERATIVE_STICKY_USER_DATA = message(
    "CooperativeStickyAssignorUserData", "0", None, f("generation", "int32")
)
