"""The consumer embedded protocol: what members of a `consumer` group put in JoinGroup metadata
and SyncGroup assignments (DescribeGroups and GroupMetadataValue carry the same bytes).

Declared in kgroup/protocol/definitions/embedded/ (used as their generated Python,
`kgroup.protocol.declarations`): ConsumerProtocolSubscription.json (0-3;
KIP-429 OwnedPartitions 1+, KIP-792 GenerationId 2+, KIP-881 RackId 3+) and
ConsumerProtocolAssignment.json (0-3, one layout), from Kafka's files of the same names. Never
flexible. Each is preceded by an int16 version (`ConsumerProtocol.serializeSubscription`), and a
version newer than the declaration is read with the newest known layout, the bytes after it
ignored (`ConsumerProtocol.deserializeSubscription`), as the wire client and the
`__consumer_offsets` decoder (`kgroup.offsets.embedded`) both read them.

The eager `StickyAssignor` and the `CooperativeStickyAssignor` put their own bytes in UserData
(Java `Schema`s, no version prefix): StickyAssignorUserData.json and
CooperativeStickyAssignorUserData.json, for `kgroup.assign` (which partitions a member claims)
and the `__consumer_offsets` decoder (`user_data_decoded`).
"""

from __future__ import annotations

from kgroup.protocol.declarations import declaration

CONSUMER_PROTOCOL_SUBSCRIPTION = declaration("embedded/ConsumerProtocolSubscription")
CONSUMER_PROTOCOL_ASSIGNMENT = declaration("embedded/ConsumerProtocolAssignment")
STICKY_USER_DATA = declaration("embedded/StickyAssignorUserData")
COOPERATIVE_STICKY_USER_DATA = declaration("embedded/CooperativeStickyAssignorUserData")
