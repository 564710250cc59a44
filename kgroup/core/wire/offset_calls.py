"""Requests and answers of the offset APIs kgroup sends: ListOffsets, Fetch, OffsetCommit,
OffsetDelete and OffsetFetch (which fields kgroup fills, topics grouped in first-seen order,
"exactly one group before OffsetFetch v8")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kgroup.core.wire import results as res
from kgroup.core.wire.calls import (
    by_topic,
    spoken_only,
)
from kgroup.core.wire.frames import translated
from kgroup.protocol import messages as p
from kgroup.protocol.fields import has_field
from kgroup.protocol.runtime import Readable

if TYPE_CHECKING:
    from kgroup.protocol.generated.wire import offset_fetch_response as of_res

# The generated message modules are imported where they are used: a command loads only the
# messages it sends (`kgroup describe` half a dozen of the 19 APIs).


# --- ListOffsets ----------------------------------------------------------------------------------


def encode_list_offsets_request(
    version: int,
    topics: Sequence[tuple[str, Sequence[tuple[int, int]]]],
    isolation_level: int = res.READ_UNCOMMITTED,
) -> bytes:
    """As a consumer sends it: ReplicaId -1, CurrentLeaderEpoch -1 (no fencing)."""
    from kgroup.protocol.generated.wire import list_offsets_request as lo_req

    spoken_only(p.LIST_OFFSETS, version)
    if isolation_level != res.READ_UNCOMMITTED and not has_field(
        "ListOffsetsRequest", "IsolationLevel", version
    ):
        raise ValueError(f"ListOffsets v{version} has no isolation level")
    request = lo_req.ListOffsetsRequest(
        replica_id=-1,
        isolation_level=isolation_level,
        topics=tuple(
            lo_req.ListOffsetsTopic(
                name,
                tuple(
                    lo_req.ListOffsetsPartition(partition_index=index, timestamp=ts)
                    for index, ts in partitions
                ),
            )
            for name, partitions in topics
        ),
    )
    return lo_req.write(request, version)


@translated
def decode_list_offsets_response(body: bytes, version: int) -> list[res.ListedOffset]:
    from kgroup.protocol.generated.wire import list_offsets_response as lo_res

    d = lo_res.read_from(Readable(body), version)
    return [
        res.ListedOffset(
            t.name, x.partition_index, x.error_code, x.timestamp, x.offset, x.leader_epoch
        )
        for t in d.topics
        for x in t.partitions
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
    from kgroup.protocol.generated.wire import fetch_request

    spoken_only(p.FETCH, version)
    topics = tuple(
        fetch_request.FetchTopic(
            topic,
            tuple(
                fetch_request.FetchPartition(
                    partition=x.partition, fetch_offset=x.offset, partition_max_bytes=x.max_bytes
                )
                for x in items
            ),
        )
        for topic, items in by_topic((x.topic, x) for x in positions).items()
    )
    request = fetch_request.FetchRequest(
        max_wait_ms=max_wait_ms,
        min_bytes=min_bytes,
        max_bytes=max_bytes,
        isolation_level=isolation_level,
        topics=topics,
        rack_id=rack_id,
    )
    return fetch_request.write(request, version)


@translated
def decode_fetch_response(body: bytes, version: int) -> tuple[int, list[res.FetchedPartition]]:
    """(top-level ErrorCode, partitions); ErrorCode is 0 before v7, a null RecordSet is b"".
    Strict about trailing bytes, as the hand-written decoder is."""
    from kgroup.protocol.generated.wire import fetch_response

    d = fetch_response.read(body, version)
    return d.error_code, [
        res.FetchedPartition(
            t.topic,
            x.partition_index,
            x.error_code,
            x.high_watermark,
            x.last_stable_offset,
            x.log_start_offset,
            None
            if x.aborted_transactions is None
            else tuple((a.producer_id, a.first_offset) for a in x.aborted_transactions),
            x.records or b"",
        )
        for t in d.responses
        for x in t.partitions
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
    from kgroup.protocol.generated.wire import offset_commit_request as oc_req

    grouped = by_topic((row[0], row[1:]) for row in offsets)
    request = oc_req.OffsetCommitRequest(
        group_id=group_id,
        generation_id_or_member_epoch=generation,
        member_id=member_id,
        topics=tuple(
            oc_req.OffsetCommitRequestTopic(
                name,
                tuple(
                    oc_req.OffsetCommitRequestPartition(
                        partition_index=index,
                        committed_offset=offset,
                        committed_leader_epoch=epoch,
                        committed_metadata=metadata,
                    )
                    for index, offset, epoch, metadata in rows
                ),
            )
            for name, rows in grouped.items()
        ),
    )
    return oc_req.write(request, version)


@translated
def decode_offset_commit_response(body: bytes, version: int) -> list[tuple[str, int, int]]:
    from kgroup.protocol.generated.wire import offset_commit_response as oc_res

    d = oc_res.read_from(Readable(body), version)
    return [(t.name, x.partition_index, x.error_code) for t in d.topics for x in t.partitions]


# --- OffsetDelete ---------------------------------------------------------------------------------


def encode_offset_delete_request(
    version: int, group_id: str, partitions: Sequence[tuple[str, int]]
) -> bytes:
    from kgroup.protocol.generated.wire import offset_delete_request as od_req

    # policy, not a field range: the versions kgroup speaks (messages.OFFSET_DELETE)
    if version not in p.OFFSET_DELETE.versions:
        raise ValueError("kgroup sends OffsetDelete v0 only")
    topics = tuple(
        od_req.OffsetDeleteRequestTopic(
            name, tuple(od_req.OffsetDeleteRequestPartition(i) for i in indexes)
        )
        for name, indexes in by_topic(partitions).items()
    )
    return od_req.write(od_req.OffsetDeleteRequest(group_id, topics), version)


# --- OffsetFetch ----------------------------------------------------------------------------------


def encode_offset_fetch_request(
    version: int, group_ids: Sequence[str], require_stable: bool = False
) -> bytes:
    """Every partition of each group (Topics = null); Groups (v8+) carries many groups,
    GroupId (v0-v7) one."""
    from kgroup.protocol.generated.wire import offset_fetch_request as of_req

    if has_field("OffsetFetchRequest", "Groups", version):
        groups = tuple(of_req.OffsetFetchRequestGroup(group_id=g, topics=None) for g in group_ids)
        request = of_req.OffsetFetchRequest(groups=groups, require_stable=require_stable)
    else:
        if len(group_ids) != 1:
            raise ValueError(f"OffsetFetch v{version} takes exactly one group")
        # RequireStable is not ignorable: where the version lacks it only its default (false)
        # may be given
        stable = require_stable and has_field("OffsetFetchRequest", "RequireStable", version)
        request = of_req.OffsetFetchRequest(
            group_id=group_ids[0], topics=None, require_stable=stable
        )
    return of_req.write(request, version)


def _fetched(
    topics: Sequence[of_res.OffsetFetchResponseTopic | of_res.OffsetFetchResponseTopics],
) -> list[res.FetchedOffset]:
    # tuple.__new__ with all 6 fields: the named tuple without its __new__'s Python frame
    # (100,000 partitions a fleet describe)
    make, cls = tuple.__new__, res.FetchedOffset
    return [
        make(
            cls,
            (
                t.name,
                x.partition_index,
                x.committed_offset,
                x.committed_leader_epoch,
                x.metadata,
                x.error_code,
            ),
        )
        for t in topics
        for x in t.partitions
    ]


@translated
def decode_offset_fetch_response(
    body: bytes, version: int, group_ids: Sequence[str]
) -> list[res.FetchedGroup]:
    from kgroup.protocol.generated.wire import offset_fetch_response as of_res

    d = of_res.read_from(Readable(body), version)
    if has_field("OffsetFetchResponse", "Groups", version):
        return [res.FetchedGroup(g.group_id, g.error_code, _fetched(g.topics)) for g in d.groups]
    return [res.FetchedGroup(group_ids[0], d.error_code, _fetched(d.topics))]
