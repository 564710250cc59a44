"""Every wire API kgroup speaks: `SPOKEN` names each with the versions kgroup sends, `APIS` maps
an api key to its `Api`, and `FETCH`, `OFFSET_COMMIT`, ... are the same `Api`s by name.

The request and response layouts are `kgroup.protocol.definitions` `wire/<Name>Request.json` and
`wire/<Name>Response.json`. Their api key, valid and flexible versions come from the generated
table kgroup.protocol.generated.apis (scripts/gen_protocol.py), so the wire client reads no JSON;
`Api.request` / `Api.response` build the declarations (generated Python) when a test or tool
asks. They cover at least the spoken versions and usually all of Kafka's valid versions.
Transcription notes:

- Fetch: v0-v11 (FetchResponse.json 0-12, flexible 12+, stored copies 0403d432 / 0de6cc5f); the
  flexible v12+ (KIP-595 tags, KIP-516 topic ids 13+, KIP-903 ReplicaState 15+) is not declared.
  `RecordSet` is Kafka's `records` type, laid out as nullable `bytes` outside flexible versions.
- ListOffsets: 0-8; v9 (KIP-1005 timestamps) and v10 (a request TimeoutMs) are not declared.
- Metadata: 0-12 (topic ids 10+, null topic names 12+). Older stored copies:
  MetadataResponse.json at f4bcfd8a (0-7) and 10b01b96 (0-9), MetadataRequest.json at 0373353f
  (0-11).
- OffsetCommit: 0-9, flexible 8+; v10 (KIP-848 topic ids) is not declared. OffsetFetch: 0-9,
  flexible 6+ (KIP-709 groups 8+, KIP-848 member id and epoch 9+); v10 topic ids not declared.
- FindCoordinator: 0-4 (KIP-699 batched keys 4+); v5-v6 only add error codes and share-group
  keys, not declared.
- DescribeConfigs: 0-4 (KIP-569 ConfigType and Documentation 3+). The stored copies at 02ec28bd
  (0-3, not flexible) have a pre-release `ConfigValueType` string where 3.0+ has the int8
  ConfigType.
- ConsumerGroupDescribe: the stored ConsumerGroupDescribeResponse.json (239fc884) is a pre-release
  draft (MemberId a uuid, Assignment with Error and Metadata fields); declared is what Kafka 3.7
  shipped (MemberId a string, Assignment of TopicPartitions) and 4.0's v1 (KIP-1099 MemberType).
- OffsetDelete: v0, what Kafka 2.4-4.1 offer; the newest OffsetDeleteResponse.json adds a
  flexible v1 (KIP-1313) with the same fields, not in a stored copy yet.
- ApiVersions: 0-4; v5 (KIP-1242) is not declared.
- DescribeLogDirs: 0-4, flexible 2+ (v1-v4 share the request layout; v3 adds the top-level
  ErrorCode, v4 TotalBytes and UsableBytes per log directory, KIP-827, `ignorable`, default -1).
  Not in `APIS`, which must equal the wire client's table: `kgroup.core.wire.log_dirs` sends it
  (`wire_api("DescribeLogDirs", ...)`).
"""

from __future__ import annotations

import sys
from typing import Any

from kgroup.protocol.generated.apis import API_TABLE
from kgroup.protocol.model import Api, snake

# The versions kgroup sends, per API (`kgroup.core.wire.versions` chooses among them).
SPOKEN: dict[str, tuple[int, ...]] = {
    # v4-v11: IsolationLevel (KIP-98) to the last non-flexible version; Kafka 4.0 removed v0-v3
    "Fetch": tuple(range(4, 12)),
    "ListOffsets": tuple(range(1, 9)),
    "Metadata": tuple(range(1, 13)),
    "OffsetCommit": tuple(range(2, 9)),
    "OffsetFetch": tuple(range(2, 9)),
    "FindCoordinator": (1, 2, 3, 4),
    "JoinGroup": tuple(range(2, 10)),
    "LeaveGroup": (1, 2, 3, 4, 5),
    "SyncGroup": (1, 2, 3, 4, 5),
    "DescribeGroups": (1, 2, 3, 4, 5),
    "ListGroups": tuple(range(6)),
    "SaslHandshake": (1,),
    "ApiVersions": (0,),
    # Kafka 4.0 removed v0 (KIP-896); v1 and v2 share a layout, v3 adds documentation
    "DescribeConfigs": (1, 2),
    "SaslAuthenticate": (0, 1, 2),
    # KIP-496; Kafka 2.4-4.1 offer v0 only
    "OffsetDelete": (0,),
    # KIP-848; v1 (KIP-1099, Kafka 4.0) adds Members.MemberType to the response
    "ConsumerGroupDescribe": (0, 1),
}

# Module attribute (`FETCH`, `LIST_OFFSETS`, ...) -> API name
BY_ATTRIBUTE: dict[str, str] = {snake(name).upper(): name for name in SPOKEN}


def wire_api(name: str, spoken: tuple[int, ...]) -> Api:
    """The API `name` speaking `spoken`, from the generated table (no declaration is read)."""
    key, valid, flexible_from = API_TABLE[name]
    return Api(key, name, valid, flexible_from, spoken)


def __getattr__(attribute: str) -> Any:
    """`APIS` and each `Api` by attribute (`FETCH`, ...), built on first use. Module
    attributes, so each is built once and later lookups do not come here."""
    if attribute == "APIS":
        apis = [getattr(sys.modules[__name__], attr) for attr in BY_ATTRIBUTE]
        value: Any = {api.key: api for api in apis}
    elif attribute in BY_ATTRIBUTE:
        name = BY_ATTRIBUTE[attribute]
        value = wire_api(name, SPOKEN[name])
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {attribute!r}")
    globals()[attribute] = value
    return value
