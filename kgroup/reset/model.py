"""Data types of offset-reset planning: plan rows, group plans, the compare-and-set check.

Source of truth: CLI.md, "kgroup reset-offsets" (plan columns, `no_record_after_time`, clamping)
and Kafka's `OffsetAndMetadata` (offset, metadata string, optional leader epoch; KIP-320).

The cluster-side values are the shared models of `kgroup.core.models` (pure dataclasses, so
an engine may import them): `TopicPartition`, `CommittedOffset`, `Watermarks`, `OffsetAtTime`.
They are re-exported here so that users of the engine need one import.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from kgroup.core.models import CommittedOffset, OffsetAtTime, TopicPartition, Watermarks

__all__ = [
    "CommittedOffset",
    "GroupPlan",
    "OffsetAtTime",
    "PlanRow",
    "StaleOffset",
    "TopicPartition",
    "Watermarks",
    "offset_value",
    "stale_offsets",
]


class PlanRow(NamedTuple):
    """One partition of a plan: what is committed now and what the plan commits.

    A NamedTuple rather than a dataclass for speed: a frozen dataclass costs ~5 us to build,
    too much for the 100,000-partition planning target (benchmarks/bench_reset_planner.py).

    `new_offset` is None only in a row read back from a backup for a partition that had no
    committed offset before the reset: undoing it means removing the committed offset
    (DeleteConsumerGroupOffsets, KIP-496), which AlterConsumerGroupOffsets cannot express.
    `metadata` and `leader_epoch` are what to commit along with the offset (None: none,
    as Kafka's own reset tool commits); they are set when restoring a backup.
    """

    group: str
    topic: str
    partition: int
    current_offset: int | None
    new_offset: int | None
    log_start_offset: int | None
    log_end_offset: int | None
    clamped: bool = False
    warning: str | None = None
    no_record_after_time: bool = False
    metadata: str | None = None
    leader_epoch: int | None = None

    @property
    def topic_partition(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)

    @property
    def delta(self) -> int | None:
        """new_offset - current_offset; None when either is unknown."""
        if self.current_offset is None or self.new_offset is None:
            return None
        return self.new_offset - self.current_offset

    def to_dict(self) -> dict[str, Any]:
        """The row as a flat dict (JSON plan files, rendering), keys in CLI.md column order."""
        return {
            "group": self.group,
            "topic": self.topic,
            "partition": self.partition,
            "current_offset": self.current_offset,
            "new_offset": self.new_offset,
            "delta": self.delta,
            "log_start_offset": self.log_start_offset,
            "log_end_offset": self.log_end_offset,
            "clamped": self.clamped,
            "no_record_after_time": self.no_record_after_time,
            "warning": self.warning,
            "metadata": self.metadata,
            "leader_epoch": self.leader_epoch,
        }


@dataclass(frozen=True, slots=True)
class GroupPlan:
    """The plan for one group: rows sorted by (topic, partition).

    `timestamp_ms` is the resolved instant of a timestamp strategy (`--to-datetime`,
    `--to-timestamp`, `--by-duration`), to echo to the user; None for other strategies.
    `strategy` is a short human description ("to earliest", "shift-by -10", ...).
    `notes` are plan-level remarks beyond the per-row clamp warnings.
    `error` (with its exit code) says why a group could not be planned (its offsets could not
    be read before --timeout): such a plan has no rows and is reported, never executed.
    """

    group: str
    rows: tuple[PlanRow, ...]
    strategy: str
    timestamp_ms: int | None = None
    notes: tuple[str, ...] = ()
    exists: bool = True  # False: no member and no committed offset (a reset would create it)
    # Where each row's new offset came from (`--to-group`, `--to-committed-at`), by
    # (topic, partition); empty for the other strategies.
    origins: Mapping[tuple[str, int], str] = field(default_factory=dict)
    error: str | None = None
    error_code: int = 0
    # The backup file this plan restores (undo), kept in the backup undo writes, so that the
    # next undo steps further back instead of redoing (kgroup.reset.undo_chain).
    undoes: str | None = None
    # --max-rewind/--max-skip violations that --force overrode: shown in the result, the JSON
    # and the backup.
    forced: tuple[str, ...] = ()
    # Topics --execute deletes once the commit is read back: a streams group's internal topics
    # (kgroup.reset.streams), never in a dry run.
    delete_topics: tuple[str, ...] = ()
    # Internal topics asked for that the metadata lacks: already gone, said per topic.
    gone_topics: tuple[str, ...] = ()

    @property
    def warnings(self) -> tuple[str, ...]:
        """Every clamp warning of the plan, in row order, then the notes."""
        return tuple(r.warning for r in self.rows if r.warning) + self.notes

    def offsets_to_commit(self) -> dict[TopicPartition, CommittedOffset]:
        """Partition -> what to commit, ready for `GroupAdmin.alter_offsets`."""
        return {
            TopicPartition(r.topic, r.partition): CommittedOffset(
                offset=r.new_offset, leader_epoch=r.leader_epoch, metadata=r.metadata or ""
            )
            for r in self.rows
            if r.new_offset is not None
        }

    def offsets_to_delete(self) -> tuple[TopicPartition, ...]:
        """Partitions whose committed offset is to be removed (undo of a pre-creation)."""
        return tuple(
            TopicPartition(r.topic, r.partition) for r in self.rows if r.new_offset is None
        )

    def expected_current(self) -> dict[TopicPartition, int | None]:
        """Partition -> committed offset the plan was made from (for compare-and-set)."""
        return {TopicPartition(r.topic, r.partition): r.current_offset for r in self.rows}


@dataclass(frozen=True, slots=True)
class StaleOffset:
    """A partition whose committed offset changed between planning and executing."""

    topic_partition: TopicPartition
    planned_current: int | None
    actual_current: int | None

    def __str__(self) -> str:
        def show(v: int | None) -> str:
            return "none" if v is None else str(v)

        return (
            f"{self.topic_partition} (planned from {show(self.planned_current)}, "
            f"now {show(self.actual_current)})"
        )


def offset_value(value: CommittedOffset | OffsetAtTime | int | None) -> int | None:
    """An offset from a model or a plain int; Kafka's "no offset" (-1, any negative) is None."""
    if value is None:
        return None
    offset = value if type(value) is int else value.offset  # type: ignore[union-attr]
    return offset if offset >= 0 else None


def stale_offsets(
    plan: GroupPlan,
    committed_now: Mapping[TopicPartition, CommittedOffset | int | None],
) -> tuple[StaleOffset, ...]:
    """Compare-and-set check: rows whose committed offset is no longer the planned current one.

    `committed_now` is a fresh read of the group's committed offsets (as
    `GroupAdmin.committed_offsets` returns them); a partition missing from it has none.
    An empty result means the plan may be executed.
    """
    stale = []
    for row in plan.rows:
        tp = TopicPartition(row.topic, row.partition)
        actual = offset_value(committed_now.get(tp))
        if actual != row.current_offset:
            stale.append(StaleOffset(tp, row.current_offset, actual))
    return tuple(stale)
