"""The wire client's request encoders and response decoders, on the declarations.

`kgroup.core.wire.messages` re-exports them under these names. The bytes come from
`kgroup.protocol.codec` reading or writing a table in `kgroup.protocol.messages`; each function
only maps kgroup's arguments to Kafka's fields and the decoded dict to kgroup's result types
(`kgroup.core.wire.results`). Rules that are kgroup's, not the protocol's (which versions kgroup
sends, "exactly one group before OffsetFetch v8", sorted filters, topics grouped in first-seen
order) stay here.

Responses are read with `trailing="ignore"`, as Kafka's `NetworkClient` does (Fetch and
DescribeConfigs: strict, as kgroup always read them); everything else is strict.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields as dataclass_fields
from functools import cache
from typing import Any, TypeVar

from kgroup.core.wire import results as res
from kgroup.protocol import codec
from kgroup.protocol import messages as p
from kgroup.protocol.codec import Trailing
from kgroup.protocol.consumer_protocol import (
    CONSUMER_PROTOCOL_ASSIGNMENT,
    CONSUMER_PROTOCOL_SUBSCRIPTION,
)
from kgroup.protocol.model import Api

RESPONSE_TRAILING: Trailing = "ignore"

R = TypeVar("R")


def _request(api: Api, version: int, values: dict[str, Any]) -> bytes:
    return codec.encode(api.request, version, values)


def _response(api: Api, version: int, body: bytes) -> dict[str, Any]:
    return codec.decode(api.response, version, body, trailing=RESPONSE_TRAILING)


def _spoken(api: Api, version: int) -> None:
    if version not in api.versions:
        raise ValueError(f"kgroup sends {api.name} v{min(api.versions)}-v{max(api.versions)}")


def _result(cls: Callable[..., R], fields: dict[str, Any], **given: Any) -> R:
    """A result of the dataclass `cls`: each of its fields from `given`, else the decoded
    field of the same name (the results keep Kafka's names unless told otherwise)."""
    return cls(**{name: given[name] if name in given else fields[name] for name in _names(cls)})


@cache
def _names(cls: Any) -> tuple[str, ...]:
    """The field names of a result dataclass."""
    return tuple(f.name for f in dataclass_fields(cls))


def _by_topic(pairs: Iterable[tuple[str, Any]]) -> dict[str, list[Any]]:
    """(topic, item) pairs grouped by topic, topics in first-seen order."""
    grouped: dict[str, list[Any]] = {}
    for topic, item in pairs:
        grouped.setdefault(topic, []).append(item)
    return grouped


# --- ApiVersions ----------------------------------------------------------------------------------


def encode_api_versions_request(version: int = 0) -> bytes:
    if version != 0:
        raise ValueError("kgroup sends ApiVersions v0 only")
    return _request(p.API_VERSIONS, version, {})


def decode_api_versions_response(body: bytes, version: int = 0) -> res.ApiVersionsResult:
    d = _response(p.API_VERSIONS, version, body)
    versions = {k["api_key"]: (k["min_version"], k["max_version"]) for k in d["api_keys"]}
    return res.ApiVersionsResult(d["error_code"], versions)


# --- Metadata -------------------------------------------------------------------------------------


def encode_metadata_request(version: int = 1, *, all_topics: bool = False) -> bytes:
    """Brokers only (Topics = []) or every topic (Topics = null); never topics by name, no
    auto-creation (4+), no authorized operations (8+)."""
    _spoken(p.METADATA, version)
    values: dict[str, Any] = {"topics": None if all_topics else []}
    if version >= 4:
        values["allow_auto_topic_creation"] = False
    return _request(p.METADATA, version, values)


def decode_metadata_response(body: bytes, version: int = 1) -> res.MetadataResult:
    d = _response(p.METADATA, version, body)
    with_ids = version >= 10
    brokers = [
        res.MetadataBroker(b["node_id"], b["host"], b["port"], b["rack"]) for b in d["brokers"]
    ]
    topics = [
        res.MetadataTopic(
            t["error_code"],
            t["name"],
            t["topic_id"] if with_ids else None,
            t["is_internal"],
            [
                res.MetadataPartition(
                    x["error_code"],
                    x["partition_index"],
                    x["leader_id"],
                    x["leader_epoch"],
                    tuple(x["replica_nodes"]),
                    tuple(x["isr_nodes"]),
                    tuple(x["offline_replicas"]),
                )
                for x in t["partitions"]
            ],
        )
        for t in d["topics"]
    ]
    return res.MetadataResult(brokers, d["controller_id"], topics, d["cluster_id"])


# --- ListOffsets ----------------------------------------------------------------------------------


def encode_list_offsets_request(
    version: int,
    topics: Sequence[tuple[str, Sequence[tuple[int, int]]]],
    isolation_level: int = res.READ_UNCOMMITTED,
) -> bytes:
    """As a consumer sends it: ReplicaId -1, CurrentLeaderEpoch -1 (no fencing)."""
    _spoken(p.LIST_OFFSETS, version)
    if version < 2 and isolation_level != res.READ_UNCOMMITTED:
        raise ValueError("ListOffsets v1 has no isolation level")
    values = {
        "replica_id": -1,
        "isolation_level": isolation_level,
        "topics": [
            {
                "name": name,
                "partitions": [
                    {"partition_index": index, "current_leader_epoch": -1, "timestamp": ts}
                    for index, ts in partitions
                ],
            }
            for name, partitions in topics
        ],
    }
    return _request(p.LIST_OFFSETS, version, values)


def decode_list_offsets_response(body: bytes, version: int) -> list[res.ListedOffset]:
    d = _response(p.LIST_OFFSETS, version, body)
    return [
        res.ListedOffset(
            t["name"],
            x["partition_index"],
            x["error_code"],
            x["timestamp"],
            x["offset"],
            x["leader_epoch"],
        )
        for t in d["topics"]
        for x in t["partitions"]
    ]


# --- Fetch ----------------------------------------------------------------------------------------


def encode_fetch_request(
    version: int,
    positions: Sequence[res.FetchPosition],
    *,
    isolation_level: int = res.READ_UNCOMMITTED,
    max_wait_ms: int = res.FETCH_MAX_WAIT_MS,
    min_bytes: int = 0,
    max_bytes: int = res.FETCH_MAX_BYTES,
    rack_id: str = "",
) -> bytes:
    """As a consumer without a fetch session sends it (KIP-227: SessionId 0, Epoch -1 opens
    none), ReplicaId -1, CurrentLeaderEpoch -1 (KIP-320: no fencing), LogStartOffset -1
    (followers only). Partitions in the order given, topics in order of first appearance."""
    _spoken(p.FETCH, version)
    values = {
        "replica_id": -1,
        "max_wait": max_wait_ms,
        "min_bytes": min_bytes,
        "max_bytes": max_bytes,
        "isolation_level": isolation_level,
        "session_id": 0,
        "epoch": -1,
        "topics": [
            {
                "name": topic,
                "fetch_partitions": [
                    {
                        "partition_index": x.partition,
                        "current_leader_epoch": -1,
                        "fetch_offset": x.offset,
                        "log_start_offset": -1,
                        "max_bytes": x.max_bytes,
                    }
                    for x in items
                ],
            }
            for topic, items in _by_topic((x.topic, x) for x in positions).items()
        ],
        "forgotten": [],
        "rack_id": rack_id,
    }
    return _request(p.FETCH, version, values)


def decode_fetch_response(body: bytes, version: int) -> tuple[int, list[res.FetchedPartition]]:
    """(top-level ErrorCode, partitions); ErrorCode is 0 before v7, a null RecordSet is b"".
    Strict about trailing bytes, as the hand-written decoder is."""
    d = codec.decode(p.FETCH.response, version, body, trailing="error")
    return d["error_code"], [
        res.FetchedPartition(
            t["topic"],
            x["partition"],
            x["error_code"],
            x["high_watermark"],
            x["last_stable_offset"],
            x["log_start_offset"],
            None
            if x["aborted_transactions"] is None
            else tuple((a["producer_id"], a["first_offset"]) for a in x["aborted_transactions"]),
            x["record_set"] or b"",
        )
        for t in d["responses"]
        for x in t["partition_responses"]
    ]


# --- FindCoordinator ------------------------------------------------------------------------------


def encode_find_coordinator_request(version: int, keys: Sequence[str]) -> bytes:
    """v4 carries many keys (KIP-699); v1-v3 exactly one."""
    if version >= 4:
        values: dict[str, Any] = {"key_type": res.KEY_TYPE_GROUP, "coordinator_keys": list(keys)}
    else:
        if len(keys) != 1:
            raise ValueError(f"FindCoordinator v{version} takes exactly one key")
        values = {"key": keys[0], "key_type": res.KEY_TYPE_GROUP}
    return _request(p.FIND_COORDINATOR, version, values)


def decode_find_coordinator_response(
    body: bytes, version: int, keys: Sequence[str]
) -> list[res.CoordinatorResult]:
    d = _response(p.FIND_COORDINATOR, version, body)
    if version >= 4:
        return [
            res.CoordinatorResult(
                c["key"], c["node_id"], c["host"], c["port"], c["error_code"], c["error_message"]
            )
            for c in d["coordinators"]
        ]
    return [
        res.CoordinatorResult(
            keys[0], d["node_id"], d["host"], d["port"], d["error_code"], d["error_message"]
        )
    ]


# --- DescribeGroups -------------------------------------------------------------------------------


def encode_describe_groups_request(version: int, group_ids: Sequence[str]) -> bytes:
    return _request(
        p.DESCRIBE_GROUPS,
        version,
        {"groups": list(group_ids), "include_authorized_operations": False},
    )


def decode_describe_groups_response(body: bytes, version: int) -> list[res.DescribedGroup]:
    d = _response(p.DESCRIBE_GROUPS, version, body)
    with_operations = version >= 3
    return [
        res.DescribedGroup(
            g["error_code"],
            g["group_id"],
            g["group_state"],
            g["protocol_type"],
            g["protocol_data"],
            [
                res.DescribedMember(
                    x["member_id"],
                    x["group_instance_id"],
                    x["client_id"],
                    x["client_host"],
                    x["member_metadata"],
                    x["member_assignment"],
                )
                for x in g["members"]
            ],
            g["authorized_operations"] if with_operations else None,
        )
        for g in d["groups"]
    ]


# --- ConsumerGroupDescribe ------------------------------------------------------------------------


def encode_consumer_group_describe_request(version: int, group_ids: Sequence[str]) -> bytes:
    return _request(
        p.CONSUMER_GROUP_DESCRIBE,
        version,
        {"group_ids": list(group_ids), "include_authorized_operations": False},
    )


def _pairs(assignment: dict[str, Any]) -> tuple[tuple[str, int], ...]:
    return tuple(
        sorted(
            (t["topic_name"], partition)
            for t in assignment["topic_partitions"]
            for partition in t["partitions"]
        )
    )


def decode_consumer_group_describe_response(
    body: bytes, version: int
) -> list[res.ConsumerGroupDescribed]:
    d = _response(p.CONSUMER_GROUP_DESCRIBE, version, body)
    return [
        _result(
            res.ConsumerGroupDescribed,
            g,
            state=g["group_state"],
            assignor=g["assignor_name"],
            members=tuple(
                _result(
                    res.ConsumerGroupMember,
                    x,
                    subscribed_topic_names=tuple(x["subscribed_topic_names"]),
                    assignment=_pairs(x["assignment"]),
                    target_assignment=_pairs(x["target_assignment"]),
                )
                for x in g["members"]
            ),
        )
        for g in d["groups"]
    ]


# --- OffsetCommit ---------------------------------------------------------------------------------


def encode_offset_commit_request(
    version: int,
    group_id: str,
    offsets: Sequence[tuple[str, int, int, int, str | None]],
    *,
    generation: int = -1,
    member_id: str = "",
) -> bytes:
    """An administrative commit by default (generation -1, no member id); `offsets` are
    (topic, partition, offset, leader epoch or -1, metadata), topics in first-seen order."""
    grouped = _by_topic((row[0], row[1:]) for row in offsets)
    values = {
        "group_id": group_id,
        "generation_id_or_member_epoch": generation,
        "member_id": member_id,
        "topics": [
            {
                "name": name,
                "partitions": [
                    {
                        "partition_index": index,
                        "committed_offset": offset,
                        "committed_leader_epoch": epoch,
                        "committed_metadata": metadata,
                    }
                    for index, offset, epoch, metadata in rows
                ],
            }
            for name, rows in grouped.items()
        ],
    }
    return _request(p.OFFSET_COMMIT, version, values)


def decode_offset_commit_response(body: bytes, version: int) -> list[tuple[str, int, int]]:
    d = _response(p.OFFSET_COMMIT, version, body)
    return [
        (t["name"], x["partition_index"], x["error_code"])
        for t in d["topics"]
        for x in t["partitions"]
    ]


# --- OffsetDelete ---------------------------------------------------------------------------------


def encode_offset_delete_request(
    version: int, group_id: str, partitions: Sequence[tuple[str, int]]
) -> bytes:
    if version not in p.OFFSET_DELETE.versions:
        raise ValueError("kgroup sends OffsetDelete v0 only")
    values = {
        "group_id": group_id,
        "topics": [
            {"name": name, "partitions": [{"partition_index": i} for i in indexes]}
            for name, indexes in _by_topic(partitions).items()
        ],
    }
    return _request(p.OFFSET_DELETE, version, values)


def decode_offset_delete_response(body: bytes, version: int) -> res.OffsetDeleteResult:
    d = _response(p.OFFSET_DELETE, version, body)
    rows = [
        (t["name"], x["partition_index"], x["error_code"])
        for t in d["topics"]
        for x in t["partitions"]
    ]
    return res.OffsetDeleteResult(d["error_code"], rows)


# --- DescribeConfigs ------------------------------------------------------------------------------


def encode_describe_configs_request(
    version: int, resources: Sequence[tuple[int, str, Sequence[str] | None]]
) -> bytes:
    """(resource type, name, keys or None for all) per resource, synonyms not asked for."""
    if version not in p.DESCRIBE_CONFIGS.versions:
        raise ValueError("kgroup sends DescribeConfigs v1-v2 only")
    values = {
        "resources": [
            {
                "resource_type": kind,
                "resource_name": name,
                "configuration_keys": None if keys is None else list(keys),
            }
            for kind, name, keys in resources
        ],
        "include_synonyms": False,
    }
    return _request(p.DESCRIBE_CONFIGS, version, values)


def decode_describe_configs_response(body: bytes, version: int) -> list[res.DescribedResource]:
    """Strict about trailing bytes, as the hand-written decoder is."""
    d = codec.decode(p.DESCRIBE_CONFIGS.response, version, body, trailing="error")
    return [
        res.DescribedResource(
            r["error_code"],
            r["error_message"],
            r["resource_type"],
            r["resource_name"],
            tuple(
                res.DescribedConfig(
                    c["name"], c["value"], c["read_only"], c["config_source"], c["is_sensitive"]
                )
                for c in r["configs"]
            ),
        )
        for r in d["results"]
    ]


# --- JoinGroup, SyncGroup, LeaveGroup -------------------------------------------------------------


def encode_join_group_request(
    version: int,
    group_id: str,
    member_id: str,
    *,
    session_timeout_ms: int,
    rebalance_timeout_ms: int,
    protocol_type: str,
    protocols: Sequence[tuple[str, bytes]],
    reason: str | None = None,
) -> bytes:
    values = {
        "group_id": group_id,
        "session_timeout_ms": session_timeout_ms,
        "rebalance_timeout_ms": rebalance_timeout_ms,
        "member_id": member_id,
        "group_instance_id": None,
        "protocol_type": protocol_type,
        "protocols": [{"name": name, "metadata": meta} for name, meta in protocols],
        "reason": reason,
    }
    return _request(p.JOIN_GROUP, version, values)


def decode_join_group_response(body: bytes, version: int) -> res.JoinResult:
    d = _response(p.JOIN_GROUP, version, body)
    members = tuple((x["member_id"], x["metadata"]) for x in d["members"])
    return res.JoinResult(
        d["error_code"],
        d["generation_id"],
        d["protocol_name"],
        d["leader"],
        d["member_id"],
        members,
    )


def encode_sync_group_request(
    version: int,
    group_id: str,
    generation: int,
    member_id: str,
    *,
    protocol_type: str,
    protocol_name: str | None,
    assignments: Sequence[tuple[str, bytes]],
) -> bytes:
    values = {
        "group_id": group_id,
        "generation_id": generation,
        "member_id": member_id,
        "group_instance_id": None,
        "protocol_type": protocol_type,
        "protocol_name": protocol_name,
        "assignments": [{"member_id": mid, "assignment": raw} for mid, raw in assignments],
    }
    return _request(p.SYNC_GROUP, version, values)


def decode_sync_group_response(body: bytes, version: int) -> tuple[int, bytes]:
    d = _response(p.SYNC_GROUP, version, body)
    return d["error_code"], d["assignment"]


def encode_leave_group_request(
    version: int, group_id: str, member_id: str, reason: str | None = None
) -> bytes:
    values: dict[str, Any] = {"group_id": group_id}
    if version <= 2:
        values["member_id"] = member_id
    else:
        values["members"] = [{"member_id": member_id, "group_instance_id": None, "reason": reason}]
    return _request(p.LEAVE_GROUP, version, values)


def decode_leave_group_response(body: bytes, version: int) -> int:
    """The first error: the top-level code, else the member's (v3+)."""
    d = _response(p.LEAVE_GROUP, version, body)
    return d["error_code"] or next((x["error_code"] for x in d["members"] if x["error_code"]), 0)


# --- OffsetFetch ----------------------------------------------------------------------------------


def encode_offset_fetch_request(
    version: int, group_ids: Sequence[str], require_stable: bool = False
) -> bytes:
    """Every partition of each group (Topics = null); v8 carries many groups, v2-v7 one."""
    if version >= 8:
        values: dict[str, Any] = {"groups": [{"group_id": g, "topics": None} for g in group_ids]}
    else:
        if len(group_ids) != 1:
            raise ValueError(f"OffsetFetch v{version} takes exactly one group")
        values = {"group_id": group_ids[0], "topics": None}
    if version >= 7:
        values["require_stable"] = require_stable
    return _request(p.OFFSET_FETCH, version, values)


def _fetched(topics: list[dict[str, Any]]) -> list[res.FetchedOffset]:
    return [
        res.FetchedOffset(
            t["name"],
            x["partition_index"],
            x["committed_offset"],
            x["committed_leader_epoch"],
            x["metadata"],
            x["error_code"],
        )
        for t in topics
        for x in t["partitions"]
    ]


def decode_offset_fetch_response(
    body: bytes, version: int, group_ids: Sequence[str]
) -> list[res.FetchedGroup]:
    d = _response(p.OFFSET_FETCH, version, body)
    if version >= 8:
        return [
            res.FetchedGroup(g["group_id"], g["error_code"], _fetched(g["topics"]))
            for g in d["groups"]
        ]
    return [res.FetchedGroup(group_ids[0], d["error_code"], _fetched(d["topics"]))]


# --- ListGroups -----------------------------------------------------------------------------------


def encode_list_groups_request(
    version: int, states: Iterable[str] = (), types: Iterable[str] = ()
) -> bytes:
    """Filters exist from v4 (states, KIP-518) and v5 (types, KIP-848); older versions drop
    them, as the hand-written encoder did."""
    values: dict[str, Any] = {}
    if version >= 4:
        values["states_filter"] = sorted(states)
    if version >= 5:
        values["types_filter"] = sorted(types)
    return _request(p.LIST_GROUPS, version, values)


def decode_list_groups_response(body: bytes, version: int) -> res.ListGroupsResult:
    d = _response(p.LIST_GROUPS, version, body)
    with_state, with_type = version >= 4, version >= 5
    groups = [
        res.ListedGroup(
            g["group_id"],
            g["protocol_type"],
            g["group_state"] if with_state else None,
            g["group_type"] if with_type else None,
        )
        for g in d["groups"]
    ]
    return res.ListGroupsResult(d["error_code"], groups)


# --- SaslHandshake v1 and SaslAuthenticate --------------------------------------------------------


def encode_sasl_handshake_request(mechanism: str) -> bytes:
    return _request(p.SASL_HANDSHAKE, 1, {"mechanism": mechanism})


def decode_sasl_handshake_response(body: bytes) -> tuple[int, list[str]]:
    d = _response(p.SASL_HANDSHAKE, 1, body)
    return d["error_code"], d["mechanisms"]


def encode_sasl_authenticate_request(version: int, auth_bytes: bytes) -> bytes:
    return _request(p.SASL_AUTHENTICATE, version, {"auth_bytes": auth_bytes})


def decode_sasl_authenticate_response(body: bytes, version: int) -> res.SaslAuthenticateResult:
    d = _response(p.SASL_AUTHENTICATE, version, body)
    return res.SaslAuthenticateResult(d["error_code"], d["error_message"], d["auth_bytes"])


# --- ConsumerProtocol -----------------------------------------------------------------------------


def _topic_partitions(entries: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return [(e["topic"], x) for e in entries for x in e["partitions"]]


def _entries(pairs: Iterable[tuple[str, int]]) -> list[dict[str, Any]]:
    return [{"topic": t, "partitions": ps} for t, ps in _by_topic(pairs).items()]


def decode_subscription(data: bytes) -> res.Subscription:
    """ConsumerProtocolSubscription (newer versions: the v3 prefix, as Kafka reads them)."""
    d = codec.decode_versioned(CONSUMER_PROTOCOL_SUBSCRIPTION, data)
    return res.Subscription(
        d["version"],
        d["topics"],
        d["user_data"],
        _topic_partitions(d["owned_partitions"]),
        d["generation_id"],
        d["rack_id"],
    )


def decode_assignment(data: bytes) -> res.Assignment:
    d = codec.decode_versioned(CONSUMER_PROTOCOL_ASSIGNMENT, data)
    return res.Assignment(d["version"], _topic_partitions(d["assigned_partitions"]), d["user_data"])


def encode_subscription(sub: res.Subscription) -> bytes:
    values: dict[str, Any] = {"topics": list(sub.topics), "user_data": sub.user_data}
    if sub.version >= 1:
        values["owned_partitions"] = _entries(sub.owned_partitions)
    if sub.version >= 2:
        values["generation_id"] = sub.generation_id
    if sub.version >= 3:
        values["rack_id"] = sub.rack_id
    return codec.encode_versioned(CONSUMER_PROTOCOL_SUBSCRIPTION, sub.version, values)


def encode_assignment(assignment: res.Assignment) -> bytes:
    values = {
        "assigned_partitions": _entries(assignment.partitions),
        "user_data": assignment.user_data,
    }
    return codec.encode_versioned(CONSUMER_PROTOCOL_ASSIGNMENT, assignment.version, values)
