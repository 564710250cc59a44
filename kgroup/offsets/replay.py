"""What the records mean: group -> partition, the compacted view, transactional commits.

Source of truth: `GroupCoordinatorService.partitionFor` / `Utils.abs` / Java `String.hashCode`
(OFFSETS_FORMAT.md §7); `OffsetMetadataManager.replay` and `GroupCoordinatorShard.replay` for
transactional offset commits, COMMIT/ABORT markers and tombstones (§8, KIP-98/KIP-447); the
compaction rule "last value per key, a null value deletes" (§5).

Pure: records in, state out; no clock (an as-of cut-off is passed in).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kgroup.offsets.decode import DecodedRecord

INT_MIN = -(2**31)


def java_string_hashcode(text: str) -> int:
    """Java `String.hashCode`: h = 31*h + c over UTF-16 code units, wrapped to signed 32 bits."""
    h = 0
    raw = text.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(raw), 2):
        h = (31 * h + ((raw[i] << 8) | raw[i + 1])) & 0xFFFFFFFF
    return h - 0x100000000 if h >= 0x80000000 else h


def kafka_abs(n: int) -> int:
    """Kafka's `Utils.abs`: like Math.abs, but Integer.MIN_VALUE gives 0 (not MIN_VALUE)."""
    return 0 if n == INT_MIN else abs(n)


def partition_for(group_id: str, num_partitions: int) -> int:
    """The `__consumer_offsets` partition that holds `group_id`'s records."""
    if num_partitions <= 0:
        raise ValueError("the offsets topic needs at least one partition")
    return kafka_abs(java_string_hashcode(group_id)) % num_partitions


def record_identity(rec: DecodedRecord) -> tuple[Any, ...] | None:
    """The compaction key of a coordinator record: T 0 and T 1 share one offset namespace."""
    key = rec.key
    if key is None:
        return None
    if rec.key_type in (0, 1):
        return ("offset", key.get("group"), key.get("topic"), key.get("partition"))
    return (rec.key_type, *key.values())


class Replay:
    """Materialise records as the group coordinator does when it loads a partition.

    - non-transactional record: applied at once (a tombstone deletes, and for offsets also drops
      every pending transactional offset for that key);
    - transactional record: held per (partition, producer id) until a marker;
    - COMMIT: each held record is applied only if its log offset is greater than the offset of
      the record currently materialised for its key (a later plain commit wins);
    - ABORT: the held records are dropped.
    """

    def __init__(self) -> None:
        self.state: dict[tuple[Any, ...], DecodedRecord] = {}
        self.pending: dict[tuple[Any, int], dict[tuple[Any, ...], DecodedRecord]] = {}

    def apply(self, rec: DecodedRecord) -> None:
        if rec.control:
            marker = (rec.value or {}).get("marker")
            if marker in ("COMMIT", "ABORT"):
                self._end_transaction(rec, marker == "COMMIT")
            return
        ident = record_identity(rec)
        if ident is None:
            return
        if rec.transactional and rec.producer_id >= 0:
            scope = (rec.partition if rec.partition is not None else rec.source, rec.producer_id)
            self.pending.setdefault(scope, {})[ident] = rec
            return
        self._materialise(ident, rec)
        if rec.tombstone and ident[0] == "offset":
            for held in self.pending.values():
                held.pop(ident, None)

    def apply_all(self, recs: Iterable[DecodedRecord]) -> None:
        for rec in recs:
            self.apply(rec)

    def _materialise(self, ident: tuple[Any, ...], rec: DecodedRecord) -> None:
        if rec.tombstone:
            self.state.pop(ident, None)
        else:
            self.state[ident] = rec

    def _end_transaction(self, marker: DecodedRecord, commit: bool) -> None:
        scope = (
            marker.partition if marker.partition is not None else marker.source,
            marker.producer_id,
        )
        held = self.pending.pop(scope, None)
        if not held or not commit:
            return
        for ident, rec in held.items():
            current = self.state.get(ident)
            if current is None or rec.offset > current.offset:
                self._materialise(ident, rec)

    def latest(self) -> list[DecodedRecord]:
        """The materialised records, ordered by group, type and key."""
        return sorted(self.state.values(), key=_sort_key)

    def open_transactions(self) -> list[tuple[Any, int, int]]:
        """(partition or source, producer id, held records) of transactions without a marker."""
        return [(scope[0], scope[1], len(held)) for scope, held in self.pending.items() if held]


def _sort_key(rec: DecodedRecord) -> tuple[Any, ...]:
    key = rec.key or {}
    return (
        rec.group or "",
        rec.key_type if rec.key_type is not None else -1,
        tuple((0, v, "") if isinstance(v, int) else (1, 0, str(v)) for v in key.values()),
    )
