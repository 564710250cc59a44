"""`--to-committed-at TIME`: which offset each partition had as of TIME, and whether the
history can tell. Pure: decoded records and log spans in, choices out.

Source of truth: the group coordinator's replay (`kgroup.offsets.replay`, as `decode --as-of`
uses it: records written at or before TIME, transactional commits applied at their COMMIT
marker, aborted ones dropped, tombstones delete) and Kafka's log cleaner
(`LogCleaner`/`MemoryRecords.filterTo`): compaction keeps, per key, only the last record of the
cleaned part, and a v2 batch it rewrites keeps its first and last offset, so a removed record
always leaves a hole in the offsets. Hence:

- a partition whose last record at or before TIME is in the history: that commit (or, for a
  tombstone, no offset) is what the group had; compaction never removes a record while
  keeping an older one of the same key;
- a partition with no record at or before TIME: the group had no offset then only if the
  history holds every record up to TIME (no hole before TIME) and begins before TIME;
  otherwise the history does not reach back, and that is said, never guessed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kgroup.core.models import TopicPartition
from kgroup.offsets.decode import DecodedRecord
from kgroup.reset.strategy import GivenOffset
from kgroup.reset.timespec import format_utc_ms


@dataclass(frozen=True)
class Coverage:
    """What one `__consumer_offsets` partition's history holds.

    `first_ms`: the timestamp of its first record (None: no record). `hole_ms`: the earliest
    time at which records are missing (a hole at the start counts at `first_ms`), None when
    the offsets have no hole.
    """

    scope: str
    first_offset: int | None = None
    first_ms: int | None = None
    hole_ms: int | None = None


class CoverageFold:
    """Builds a Coverage from the log's spans in order: (first offset, last offset, records,
    timestamp of the first record). A segment's batch is one span (its header says all four),
    a consumed message a span of one."""

    def __init__(self, scope: str, log_start: int = 0) -> None:
        self.scope = scope
        self.log_start = log_start
        self.first_offset: int | None = None
        self.first_ms: int | None = None
        self.next_offset: int | None = None
        self.prev_ms: int | None = None
        self.hole_ms: int | None = None

    def _hole(self, at_ms: int) -> None:
        if self.hole_ms is None or at_ms < self.hole_ms:
            self.hole_ms = at_ms

    def add(self, first: int, last: int, count: int, first_ms: int) -> None:
        """One span. A hole is dated by the span before it (the removed records were
        written after that one's first record), or the first record for a hole at the start."""
        before = first_ms if self.prev_ms is None else min(self.prev_ms, first_ms)
        if self.first_offset is None:
            self.first_offset, self.first_ms = first, first_ms
            if first > self.log_start:
                self._hole(first_ms)  # records before the first one are gone
        elif self.next_offset is not None and first > self.next_offset:
            self._hole(before)  # whole batches removed just before this one
        if count < last - first + 1:
            self._hole(before)  # records removed inside this batch
        if self.next_offset is None or last + 1 > self.next_offset:
            self.next_offset = last + 1
        self.prev_ms = first_ms

    def result(self) -> Coverage:
        return Coverage(self.scope, self.first_offset, self.first_ms, self.hole_ms)


def merge_coverage(parts: Sequence[Coverage]) -> Coverage | None:
    """One group's coverage over the partitions its records were found in (normally one):
    the latest start and the earliest hole, the cautious reading."""
    if not parts:
        return None
    firsts = [c.first_ms for c in parts if c.first_ms is not None]
    holes = [c.hole_ms for c in parts if c.hole_ms is not None]
    return Coverage(
        ", ".join(c.scope for c in parts),
        None,
        max(firsts) if firsts else None,
        min(holes) if holes else None,
    )


def given_at(group: str, state: Iterable[DecodedRecord]) -> dict[TopicPartition, GivenOffset]:
    """The group's offsets from `decode --as-of`'s replayed state (offset records at TIME),
    each with the commit it came from: its commit time and place in the log."""
    out: dict[TopicPartition, GivenOffset] = {}
    for rec in state:
        key = rec.key or {}
        if rec.key_type not in (0, 1) or key.get("group") != group:
            continue
        value = rec.value or {}
        offset = value.get("offset")
        if not isinstance(offset, int) or offset < 0:
            continue
        epoch = value.get("leader_epoch")
        committed_ms = value.get("commit_timestamp")
        stamped = isinstance(committed_ms, int) and committed_ms >= 0
        when = committed_ms if stamped else rec.timestamp
        place = rec.source.split("/", 1)[0] if rec.source else f"partition {rec.partition}"
        out[TopicPartition(key["topic"], key["partition"])] = GivenOffset(
            offset,
            value.get("metadata") or None,
            epoch if isinstance(epoch, int) and epoch >= 0 else None,
            f"commit {format_utc_ms(when)} ({place}@{rec.offset})",
        )
    return out


def all_topics_caveat(coverage: Coverage | None, when_ms: int) -> str | None:
    """With --all-topics the scope is the partitions seen in the history: a partition whose
    every record before TIME was removed cannot be among them. Said when the history has such
    a hole, since naming the partitions (--topic) would have them checked one by one."""
    if coverage is None or coverage.hole_ms is None or coverage.hole_ms > when_ms:
        return None
    return (
        f"records of {coverage.scope} before TIME were removed (compaction or retention): "
        "--all-topics cannot list a partition whose every record is gone; name the partitions "
        "with --topic to have each checked"
    )


def unreached(
    partitions: Iterable[TopicPartition],
    given: Mapping[TopicPartition, GivenOffset],
    coverage: Coverage | None,
    when_ms: int,
) -> dict[TopicPartition, str]:
    """The partitions in scope without an offset at TIME whose absence the history cannot
    prove, each with why. The others without one had none (deleted, expired, aborted, never
    committed) and are left out of the plan."""
    out: dict[TopicPartition, str] = {}
    for tp in partitions:
        if tp in given:
            continue
        if coverage is None or coverage.first_ms is None:
            out[tp] = "no history: the group has no record in it"
        elif coverage.first_ms > when_ms:
            out[tp] = (
                f"TIME is before the history: {coverage.scope} begins at "
                f"{format_utc_ms(coverage.first_ms)}"
            )
        elif coverage.hole_ms is not None and coverage.hole_ms <= when_ms:
            out[tp] = (
                f"records of {coverage.scope} up to TIME were removed (compaction or "
                f"retention, from {format_utc_ms(coverage.hole_ms)}): its offset then cannot "
                "be told"
            )
    return out
