"""The share-group APIs (KIP-932) and the versions kgroup speaks: ShareGroupDescribe (77),
DescribeShareGroupOffsets (90), AlterShareGroupOffsets (91), DeleteShareGroupOffsets (92), and
DeleteGroups (42), which deletes groups of every type.

Declared in `kgroup.protocol.definitions` `wire/<Name>Request.json` and `wire/<Name>Response.json`,
each transcribed from Kafka's `clients/src/main/resources/common/message/` (the commit read is in
the file's `source`). Kafka 4.1 offers ShareGroupDescribe v1 only (v0 was 4.0's early access and
is gone) and v0 of the three offsets APIs; DescribeShareGroupOffsets v1 (KIP-1226, Kafka 4.2: a
per-partition Lag) is not declared.

Not in `kgroup.protocol.messages.APIS`: that table must equal the wire client's, and these are
sent by `kgroup.core.wire.share_groups` and `kgroup.core.wire.delete_groups` (as DescribeLogDirs
is by `kgroup.core.wire.log_dirs`).
"""

from __future__ import annotations

from kgroup.protocol.messages import wire_api
from kgroup.protocol.model import Api

# The versions kgroup speaks, per share-group API.
SPOKEN: dict[str, tuple[int, ...]] = {
    "ShareGroupDescribe": (1,),
    "DescribeShareGroupOffsets": (0,),
    "AlterShareGroupOffsets": (0,),
    "DeleteShareGroupOffsets": (0,),
    # any group type; kgroup sends it for every group (kgroup.core.wire.delete_groups).
    # Kafka 4.1 offers v0-v2; v3 (a per-group ErrorMessage) is newer
    "DeleteGroups": (0, 1, 2),
}

SHARE_GROUP_DESCRIBE = wire_api("ShareGroupDescribe", SPOKEN["ShareGroupDescribe"])
DESCRIBE_SHARE_GROUP_OFFSETS = wire_api(
    "DescribeShareGroupOffsets", SPOKEN["DescribeShareGroupOffsets"]
)
ALTER_SHARE_GROUP_OFFSETS = wire_api("AlterShareGroupOffsets", SPOKEN["AlterShareGroupOffsets"])
DELETE_SHARE_GROUP_OFFSETS = wire_api("DeleteShareGroupOffsets", SPOKEN["DeleteShareGroupOffsets"])
DELETE_GROUPS = wire_api("DeleteGroups", SPOKEN["DeleteGroups"])

# api key -> Api, for scripted brokers and request counts
SHARE_APIS: dict[int, Api] = {
    api.key: api
    for api in (
        SHARE_GROUP_DESCRIBE,
        DESCRIBE_SHARE_GROUP_OFFSETS,
        ALTER_SHARE_GROUP_OFFSETS,
        DELETE_SHARE_GROUP_OFFSETS,
        DELETE_GROUPS,
    )
}
