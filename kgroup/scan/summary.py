"""`kgroup decode --summary`: one row per group, folded from the decoded record stream.

Source of truth for what the records mean: OFFSETS_FORMAT.md §2-5 and §8 (group metadata
values, KIP-848/KIP-932/KIP-1071 group records, tombstones, transactional offset commits
pending until a COMMIT/ABORT marker as in `OffsetMetadataManager.replay`).

Both scan engines run the same two steps, so their results cannot drift:
1. `PartitionFold` folds the records of one `__consumer_offsets` partition, in log order, into
   a `Partial` per group (the local engine folds each partition as it goes; the Spark engine
   folds each partition inside one task);
2. `merge_partials` merges the partials of all partitions, in input order, into the rows.

Definitions (per group):
- `type`: classic (GroupMetadata records), consumer (KIP-848), share, streams; none when only
  offset commits were seen;
- `protocol`: classic: `protocol_type/protocol` of the last metadata; consumer: the server
  assignor of the last member metadata record;
- `commits`: offset commit records applied (transactional ones once their COMMIT arrives);
  `last_commit`: the greatest commit timestamp among them;
- `topics`, `partitions`: the topics and the number of topic-partitions committed to;
- `generation`: the last classic generation or group epoch; `members`: members in the last
  classic metadata, or live member-metadata records of the newer protocols;
- `deleted`: the last group metadata record is a tombstone, or (offset-only groups) every
  committed offset has been deleted.

Pure: records in, rows out; no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import Any

from kgroup.offsets.decode import DecodedRecord

# group-level metadata record types -> group type
_METADATA_TYPES = {2: "classic", 3: "consumer", 11: "share", 17: "streams"}
_MEMBER_TYPES = {5: "consumer", 10: "share", 19: "streams"}
_OTHER_TYPES = {
    **dict.fromkeys((4, 6, 7, 8, 16), "consumer"),
    **dict.fromkeys((9, 12, 13, 14, 15), "share"),
    **dict.fromkeys((18, 20, 21, 22, 23, 24), "streams"),
}


@dataclass
class Partial:
    """What one partition's records say about one group (mergeable, JSON-able)."""

    group: str
    type: str | None = None
    protocol: str | None = None
    last_commit: int | None = None
    commits: int = 0
    topics: set[str] = field(default_factory=set)
    partitions: set[tuple[str, int]] = field(default_factory=set)
    generation: int | None = None
    members: int | None = None
    member_ids: set[str] = field(default_factory=set)
    metadata_state: str | None = None  # None (not seen), "live", "deleted"
    live_offsets: set[tuple[str, int]] = field(default_factory=set)
    removed_offsets: set[tuple[str, int]] = field(default_factory=set)

    def to_json(self) -> dict[str, Any]:
        """The fields in declaration order; sets as sorted lists (pairs as [topic, partition])."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in _PAIR_SETS:
                value = sorted([t, p] for t, p in value)
            elif f.name in _NAME_SETS:
                value = sorted(value)
            out[f.name] = value
        return out

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Partial:
        """The inverse of `to_json`."""
        values: dict[str, Any] = {}
        for f in fields(cls):
            value = doc[f.name]
            if f.name in _PAIR_SETS:
                value = {(t, p) for t, p in value}
            elif f.name in _NAME_SETS:
                value = set(value)
            values[f.name] = value
        return cls(**values)


_NAME_SETS = frozenset({"topics", "member_ids"})
"""Partial's fields that are sets of names."""
_PAIR_SETS = frozenset({"partitions", "live_offsets", "removed_offsets"})
"""Partial's fields that are sets of (topic, partition)."""


class PartitionFold:
    """Fold the records of ONE `__consumer_offsets` partition, in log order."""

    def __init__(self) -> None:
        self.groups: dict[str, Partial] = {}
        # producer id -> held transactional offset commits (group, topic, partition, ts|None)
        self.pending: dict[int, list[tuple[str, str, int, int | None]]] = {}

    def _partial(self, group: str) -> Partial:
        p = self.groups.get(group)
        if p is None:
            p = self.groups[group] = Partial(group)
        return p

    def add_all(self, recs: Iterable[DecodedRecord]) -> PartitionFold:
        for rec in recs:
            self.add(rec)
        return self

    def add(self, rec: DecodedRecord) -> None:
        if rec.control:
            marker = (rec.value or {}).get("marker")
            if marker in ("COMMIT", "ABORT"):
                held = self.pending.pop(rec.producer_id, None)
                if held and marker == "COMMIT":
                    for group, topic, partition, ts in held:
                        self._offset(group, topic, partition, ts)
            return
        kt = rec.key_type
        key = rec.key
        if key is None or kt is None:
            return
        group = rec.group
        if group is None:
            return
        if kt in (0, 1):
            topic, partition = key.get("topic"), key.get("partition")
            if rec.tombstone:
                ts = None
            else:
                value = rec.value
                if value is None:  # a value that could not be decoded
                    return
                ts = value.get("commit_timestamp", rec.timestamp)
            if rec.transactional and rec.producer_id >= 0:
                self.pending.setdefault(rec.producer_id, []).append((group, topic, partition, ts))
                return
            self._offset(group, topic, partition, ts)
            if ts is None:
                for held in self.pending.values():
                    held[:] = [h for h in held if h[:3] != (group, topic, partition)]
            return
        p = self._partial(group)
        if kt in _METADATA_TYPES:
            p.type = _METADATA_TYPES[kt]
            if rec.tombstone:
                p.metadata_state = "deleted"
                return
            value = rec.value
            if value is None:
                return
            p.metadata_state = "live"
            if kt == 2:
                ptype, proto = value.get("protocol_type"), value.get("protocol")
                p.protocol = f"{ptype or '-'}/{proto or '-'}"
                p.generation = value.get("generation")
                p.members = len(value.get("members") or ())
            else:
                p.generation = value.get("epoch")
                p.members = len(p.member_ids)
        elif kt in _MEMBER_TYPES:
            p.type = _MEMBER_TYPES[kt]
            member = key.get("member_id")
            if rec.tombstone:
                p.member_ids.discard(member)
            else:
                p.member_ids.add(member)
                assignor = (rec.value or {}).get("server_assignor")
                if assignor:
                    p.protocol = assignor
            p.members = len(p.member_ids)
        elif kt in _OTHER_TYPES:
            p.type = p.type or _OTHER_TYPES[kt]

    def _offset(self, group: str, topic: str, partition: int, ts: int | None) -> None:
        p = self._partial(group)
        tp = (topic, partition)
        if ts is None:
            p.live_offsets.discard(tp)
            p.removed_offsets.add(tp)
            return
        p.live_offsets.add(tp)
        p.removed_offsets.discard(tp)
        p.commits += 1
        p.topics.add(topic)
        p.partitions.add(tp)
        if p.last_commit is None or ts > p.last_commit:
            p.last_commit = ts

    def partials(self) -> list[Partial]:
        return list(self.groups.values())


def merge(a: Partial, b: Partial) -> Partial:
    """`b` (from a partition read later) merged over `a`."""
    return Partial(
        group=a.group,
        type=b.type if b.type is not None else a.type,
        protocol=b.protocol if b.protocol is not None else a.protocol,
        last_commit=max((t for t in (a.last_commit, b.last_commit) if t is not None), default=None),
        commits=a.commits + b.commits,
        topics=a.topics | b.topics,
        partitions=a.partitions | b.partitions,
        generation=b.generation if b.generation is not None else a.generation,
        members=b.members if b.members is not None else a.members,
        member_ids=b.member_ids if b.members is not None else a.member_ids,
        metadata_state=b.metadata_state if b.metadata_state is not None else a.metadata_state,
        live_offsets=(a.live_offsets - b.removed_offsets) | b.live_offsets,
        removed_offsets=(a.removed_offsets - b.live_offsets) | b.removed_offsets,
    )


def merge_partials(partials: Iterable[Partial]) -> list[dict[str, Any]]:
    """Partials in input-partition order -> one summary row per group, sorted by group."""
    merged: dict[str, Partial] = {}
    for p in partials:
        prev = merged.get(p.group)
        merged[p.group] = p if prev is None else merge(prev, p)
    return [summary_row(merged[g]) for g in sorted(merged)]


def summary_row(p: Partial) -> dict[str, Any]:
    """The user-facing row of one group."""
    if p.metadata_state is not None:
        deleted = p.metadata_state == "deleted"
    else:
        deleted = not p.live_offsets and bool(p.removed_offsets)
    return {
        "group": p.group,
        "type": p.type,
        "protocol": p.protocol,
        "last_commit": p.last_commit,
        "commits": p.commits,
        "topics": sorted(p.topics),
        "partitions": len(p.partitions),
        "generation": p.generation,
        "members": p.members,
        "deleted": deleted,
    }


def scope_of(partition: int | None, source: str) -> tuple[int, int | str]:
    """The replay scope of a record: its partition when known, else its source file."""
    return (0, partition) if partition is not None else (1, source)
