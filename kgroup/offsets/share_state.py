"""`__share_group_state` records (KIP-932): ShareSnapshot and ShareUpdate keys and values, and
what they mean once replayed (the start offset and state epoch of each share-partition).

Source of truth: Kafka's share-coordinator definitions
(`share-coordinator/src/main/resources/common/message/Share{Snapshot,Update}{Key,Value}.json`,
declared in kgroup/protocol/definitions/share/, used as their generated Python),
`ShareCoordinatorRecordSerde` (the `CoordinatorRecordSerde` framing of `__consumer_offsets`:
int16 record type + key struct, int16 value version + value struct, null value = tombstone)
and `ShareCoordinatorShard.replay`:

- ShareSnapshot: replaces the share-partition's state (snapshot and state epochs, leader epoch,
  start offset, state batches);
- ShareUpdate: merged over it: start offset and leader epoch when not -1, state and snapshot
  epochs kept; an update with no snapshot before it starts a state of its own;
- a tombstone (null value) of either key deletes the share-partition's state.

The record type ids 0 and 1 are also `__consumer_offsets`' offset-commit ids: these records are
decoded here, never by the `__consumer_offsets` tables (nor by the C scanner or Spark).

Pure: bytes in, records out; records in, state out. No I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from kgroup.offsets import layouts
from kgroup.offsets.decode import DecodedRecord, decode_key_into, earlier_layout
from kgroup.offsets.wire import INT16, DecodeError
from kgroup.protocol.declarations import declaration
from kgroup.protocol.model import Message, snake

TOPIC = "__share_group_state"
"""The internal topic the share coordinator writes."""


@dataclass(frozen=True)
class ShareRecordType:
    """A `__share_group_state` record type: Kafka's `apiKey` and its declarations."""

    type_id: int
    stem: str
    earlier: tuple[str, ...] = ()

    @cached_property
    def name(self) -> str:
        return snake(self.stem)

    @cached_property
    def key(self) -> Message:
        return declaration(f"share/{self.stem}Key")

    @cached_property
    def value(self) -> Message:
        return declaration(f"share/{self.stem}Value")

    @cached_property
    def alternates(self) -> tuple[tuple[str, Message], ...]:
        return tuple((lbl, declaration(f"share/{lbl}/{self.stem}Value")) for lbl in self.earlier)


SHARE_RECORD_TYPES: dict[int, ShareRecordType] = {
    0: ShareRecordType(0, "ShareSnapshot", earlier=("kafka-early",)),
    1: ShareRecordType(1, "ShareUpdate"),
}
SHARE_RECORD_NAMES = frozenset(rt.name for rt in SHARE_RECORD_TYPES.values())


def _read(msg: Message, version: int, raw: bytes, start: int) -> tuple[dict[str, Any], int]:
    reader = layouts.get_reader(msg.struct, version, msg.flexible(version))
    return reader(raw, start, len(raw))


def decode_share_key(key: bytes) -> tuple[int | None, ShareRecordType | None, Any, str | None]:
    """(type id, record type, key fields, error); fields None when not understood."""
    if len(key) < 2:
        return None, None, None, "key shorter than its int16 type"
    type_id = INT16.unpack_from(key, 0)[0]
    rt = SHARE_RECORD_TYPES.get(type_id)
    if rt is None:
        return type_id, None, None, f"unknown {TOPIC} record type {type_id}"
    try:
        fields, pos = _read(rt.key, 0, key, 2)
    except (DecodeError, UnicodeDecodeError) as exc:
        return type_id, None, None, f"bad {rt.key.name}: {getattr(exc, 'message', exc)}"
    if pos != len(key):
        return type_id, None, None, f"{len(key) - pos} bytes after the {rt.key.name} fields"
    return type_id, rt, fields, None


def decode_share_value(
    rt: ShareRecordType, value: bytes
) -> tuple[int | None, dict[str, Any] | None, str | None, str | None]:
    """(value version, fields, error, layout note) of a non-null value."""
    if len(value) < 2:
        return None, None, "value shorter than its int16 version", None
    version = INT16.unpack_from(value, 0)[0]
    lo, hi = rt.value.valid
    if not lo <= version <= hi:
        return version, None, f"unknown {rt.value.name} version {version}", None
    msg = rt.value
    try:
        fields, pos = _read(msg, version, value, 2)
    except (DecodeError, UnicodeDecodeError) as exc:
        error = f"bad {msg.name} v{version}: {getattr(exc, 'message', exc)}"
    else:
        if pos == len(value):
            return version, fields, None, None
        error = f"{len(value) - pos} bytes after the {msg.name} v{version} fields"
    earlier = earlier_layout(rt.alternates, version, value)
    if earlier is not None:
        return version, earlier[0], None, earlier[1]
    return version, None, error, None


def decode_share_kv(
    key: bytes | None, value: bytes | None, rec: DecodedRecord | None = None
) -> DecodedRecord:
    """Decode one `__share_group_state` record's key and value into `rec` (or a new one)."""
    if rec is None:
        rec = DecodedRecord()
    rt = decode_key_into(rec, key, value, decode_share_key)
    if rt is not None and value is not None:
        rec.keep_value(value, *decode_share_value(rt, value))
    return rec


# ---------------------------------------------------------------- replay


@dataclass
class SharePartitionState:
    """One share-partition's state as the share coordinator holds it after replay."""

    group: str
    topic_id: Any
    partition: int
    snapshot_epoch: int | None = None
    state_epoch: int | None = None
    leader_epoch: int | None = None
    start_offset: int | None = None
    updates: int = 0  # ShareUpdate records since the last snapshot
    last_offset: int = -1  # log offset of the last record applied


class ShareReplay:
    """Replay `__share_group_state` records in log order, as `ShareCoordinatorShard.replay`."""

    def __init__(self, keep_records: bool = True) -> None:
        self.keep_records = keep_records  # False: state only (`rows`), no `latest` records
        self.states: dict[tuple[Any, Any, Any], SharePartitionState] = {}
        self.since_snapshot: dict[tuple[Any, Any, Any], list[DecodedRecord]] = {}

    def apply_all(self, recs: Iterable[DecodedRecord]) -> ShareReplay:
        for rec in recs:
            self.apply(rec)
        return self

    def apply(self, rec: DecodedRecord) -> None:
        if rec.control or rec.key is None or rec.key_type not in SHARE_RECORD_TYPES:
            return
        pk = (rec.key.get("group_id"), rec.key.get("topic_id"), rec.key.get("partition"))
        value = rec.value
        if value is None:
            if rec.tombstone:
                self.states.pop(pk, None)
                self.since_snapshot.pop(pk, None)
            return
        state = self.states.get(pk)
        if rec.key_type == 0:
            state = self.states[pk] = SharePartitionState(*pk)
            state.snapshot_epoch = value.get("snapshot_epoch")
            state.state_epoch = value.get("state_epoch")
            state.leader_epoch = value.get("leader_epoch")
            state.start_offset = value.get("start_offset")
            if self.keep_records:
                self.since_snapshot[pk] = [rec]
        else:
            if state is None:
                state = self.states[pk] = SharePartitionState(*pk)
                state.snapshot_epoch = value.get("snapshot_epoch")
            if value.get("start_offset", -1) != -1:
                state.start_offset = value["start_offset"]
            if value.get("leader_epoch", -1) != -1:
                state.leader_epoch = value["leader_epoch"]
            state.updates += 1
            if self.keep_records:
                self.since_snapshot.setdefault(pk, []).append(rec)
        state.last_offset = rec.offset

    def latest(self) -> list[DecodedRecord]:
        """Per live share-partition: its last ShareSnapshot and the ShareUpdates after it, in
        log order (what the coordinator reads back to rebuild the state)."""
        out = [r for recs in self.since_snapshot.values() for r in recs]
        out.sort(key=lambda r: (r.partition if r.partition is not None else -1, r.offset))
        return out

    def rows(self) -> list[dict[str, Any]]:
        """One row per live share-partition, sorted by group, topic id and partition."""
        return [
            {
                "group": s.group,
                "topic_id": s.topic_id,
                "partition": s.partition,
                "start_offset": s.start_offset,
                "state_epoch": s.state_epoch,
                "leader_epoch": s.leader_epoch,
                "snapshot_epoch": s.snapshot_epoch,
                "updates_since_snapshot": s.updates,
            }
            for _k, s in sorted(
                self.states.items(), key=lambda kv: (str(kv[0][0]), str(kv[0][1]), kv[0][2])
            )
        ]
