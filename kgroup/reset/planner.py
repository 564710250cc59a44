"""The offset-reset planner: current state + strategy + now -> a plan, or a failure with the list.

Source of truth: CLI.md, "kgroup reset-offsets" (strategy table, scope, clamping, the
`no_record_after_time` mark), following Kafka's `ConsumerGroupCommand.prepareOffsetsToReset`
(ResetOffsets) and the consumer's `auto.offset.reset=none` for `--to none`.

Pure: no I/O, no clock. Planning is all-or-nothing: if any partition of any group fails a
check (`--to none`, `--shift-by` without a committed offset) a `PlanCheckFailed` (exit 5)
lists every failing partition and no plan is returned.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from kgroup.core.errors import CheckFailed, NotFoundError, UsageError
from kgroup.core.models import TopicMetadata
from kgroup.core.partition_list import PartitionSet, parse_partitions
from kgroup.reset.model import (
    CommittedOffset,
    GroupPlan,
    OffsetAtTime,
    PlanRow,
    TopicPartition,
    Watermarks,
    offset_value,
)
from kgroup.reset.strategy import (
    GIVEN_STRATEGIES,
    ByDuration,
    FileRow,
    FromFile,
    GivenOffset,
    ShiftBy,
    Strategy,
    ToCommittedAt,
    ToCurrent,
    ToEarliest,
    ToLatest,
    ToNone,
    ToOffset,
    ToTimestamp,
)
from kgroup.reset.timespec import format_utc_ms

# ---------------------------------------------------------------------------------------------
# Errors carrying the full list, so the CLI can render it as a table as well as one line.


@dataclass(frozen=True, slots=True)
class PartitionFailure:
    """Why one partition of one group cannot be planned."""

    group: str
    topic_partition: TopicPartition
    reason: str

    def __str__(self) -> str:
        return f"{self.topic_partition} ({self.reason})"


class PlanCheckFailed(CheckFailed):
    """Some partitions failed a check; `failures` lists every one (exit 5, nothing planned)."""

    def __init__(
        self, message: str, failures: Sequence[PartitionFailure], hint: str | None
    ) -> None:
        super().__init__(message, hint)
        self.failures = tuple(failures)


class PartitionsNotFound(NotFoundError):
    """Topics or partitions in scope do not exist; `missing` lists them (exit 3)."""

    def __init__(self, message: str, missing: Sequence[str], hint: str | None = None) -> None:
        super().__init__(message, hint)
        self.missing = tuple(missing)


# ---------------------------------------------------------------------------------------------
# Scope: --topic t, --topic t:0,2, --all-topics


@dataclass(frozen=True, slots=True)
class TopicSelection:
    """One `--topic` value: a topic and its partitions (None: every partition), kept as ranges."""

    topic: str
    partitions: PartitionSet | None = None


def parse_topic_option(value: str, option: str = "--topic") -> TopicSelection:
    """`t`, `t:0,2` or `t:0-2,5` -> TopicSelection (ranges stay ranges: `t:0-99999999` is cheap).

    Topic names cannot contain ':' (Kafka's legal characters are [a-zA-Z0-9._-], Topic.java).
    """
    topic, sep, rest = value.strip().partition(":")
    if not topic:
        raise UsageError(
            f"{option} '{value}' has no topic name", hint=f"e.g. {option} orders:0-2,5"
        )
    if not sep:
        return TopicSelection(topic)
    return TopicSelection(topic, parse_partitions(rest, option=option, value=value))


def selections_for_file(strategy: FromFile, group: str) -> tuple[TopicSelection, ...]:
    """The partitions a plan file names for `group`, as a scope (`--from-file` without --topic)."""
    by_topic: dict[str, set[int]] = {}
    for tp in strategy.rows_for_group(group):
        by_topic.setdefault(tp.topic, set()).add(tp.partition)
    return tuple(TopicSelection(t, PartitionSet.of(ps)) for t, ps in sorted(by_topic.items()))


def resolve_scope(
    selections: Sequence[TopicSelection],
    partition_counts: Mapping[str, int | TopicMetadata],
    *,
    all_topics: bool = False,
    committed: Iterable[TopicPartition] = (),
) -> tuple[TopicPartition, ...]:
    """The partitions in scope, sorted, checked against the cluster's metadata.

    `partition_counts` is topic -> number of partitions (Kafka partitions are 0..n-1), or
    topic -> TopicMetadata as `GroupAdmin.topics()` returns it.
    With `all_topics`, the scope is the partitions in `committed` (the group's committed
    offsets: Kafka's meaning of --all-topics) and `selections` must be empty.
    Any unknown topic or partition raises PartitionsNotFound (exit 3) listing all of them.
    """
    if all_topics and selections:
        raise UsageError("--all-topics and --topic cannot be combined")
    counts = {t: (v if isinstance(v, int) else v.partitions) for t, v in partition_counts.items()}
    wanted: dict[str, set[int]] = {}  # per topic, so only names and ints get sorted
    missing: list[str] = []
    if all_topics:
        for tp in committed:
            count = counts.get(tp.topic)
            if count is None or not 0 <= tp.partition < count:
                missing.append(str(tp))
            else:
                wanted.setdefault(tp.topic, set()).add(tp.partition)
    for sel in selections:
        count = counts.get(sel.topic)
        if count is None:
            missing.append(f"topic {sel.topic}")
            continue
        if sel.partitions is None:
            wanted.setdefault(sel.topic, set()).update(range(count))
            continue
        # Clip to the topic first: a range never expands beyond the partitions that exist.
        wanted.setdefault(sel.topic, set()).update(sel.partitions.within(count))
        missing.extend(
            f"{sel.topic}:{p} (topic has {count} partitions)" for p in sel.partitions.beyond(count)
        )
    if missing:
        raise PartitionsNotFound(
            f"not found: {shortened(sorted(set(missing)))}",
            sorted(set(missing)),
            hint="check the names with `kgroup describe GROUP --offsets`; nothing was changed",
        )
    return tuple(TopicPartition(t, p) for t in sorted(wanted) for p in sorted(wanted[t]))


# ---------------------------------------------------------------------------------------------
# Planning


@dataclass(frozen=True, slots=True)
class GroupInputs:
    """Everything the planner needs to know about one group, read by the caller.

    - `partitions`: the scope (from `resolve_scope`).
    - `committed`: partition -> CommittedOffset (as `GroupAdmin.committed_offsets`) or a
      plain offset; absent, None or negative = no committed offset.
    - `watermarks`: partition -> Watermarks (as `GroupAdmin.watermarks`) or a
      (log_start, log_end) pair, for every partition in scope.
    - `offsets_for_time`: partition -> OffsetAtTime (as `GroupAdmin.list_offsets(tps, ms)`
      for `ms = resolve_timestamp_ms(strategy, now_ms)`) or a plain offset; absent, None or
      negative = no record at or after the time. Only needed by timestamp strategies.
    - `given`: partition -> GivenOffset, for `--to-group` / `--to-committed-at` (the other
      group's offsets, or the history's); partitions in scope without one are left out
      and listed, as `left_out_why` says.
    - `offline`: planned without a cluster (`--to-committed-at --segments`, dry run): no
      watermarks, nothing clamped, current offsets unknown.
    """

    group: str
    partitions: Sequence[TopicPartition]
    committed: Mapping[TopicPartition, CommittedOffset | int | None]
    watermarks: Mapping[TopicPartition, Watermarks | tuple[int, int]]
    offsets_for_time: Mapping[TopicPartition, OffsetAtTime | int | None] | None = field(
        default=None
    )
    given: Mapping[TopicPartition, GivenOffset] | None = None
    left_out_why: str = "no offset to copy"
    offline: bool = False
    notes: tuple[str, ...] = ()


def plan_group(
    group: str,
    partitions_in_scope: Iterable[TopicPartition],
    committed: Mapping[TopicPartition, CommittedOffset | int | None],
    watermarks: Mapping[TopicPartition, Watermarks | tuple[int, int]],
    offsets_for_time: Mapping[TopicPartition, OffsetAtTime | int | None] | None,
    strategy: Strategy,
    now_ms: int,
) -> GroupPlan:
    """Plan one group. Raises PlanCheckFailed (exit 5) or PartitionsNotFound (exit 3)."""
    plan, failures = _plan_one(
        GroupInputs(group, tuple(partitions_in_scope), committed, watermarks, offsets_for_time),
        strategy,
        now_ms,
    )
    if failures:
        raise _check_failed(strategy, failures)
    assert plan is not None
    return plan


def plan_groups(
    inputs: Iterable[GroupInputs], strategy: Strategy, now_ms: int
) -> tuple[GroupPlan, ...]:
    """Plan several groups, all or nothing: failures of every group are collected first.

    Plans come back sorted by group name.
    """
    plans: list[GroupPlan] = []
    failures: list[PartitionFailure] = []
    for one in inputs:
        plan, failed = _plan_one(one, strategy, now_ms)
        failures.extend(failed)
        if plan is not None:
            plans.append(plan)
    if failures:
        raise _check_failed(strategy, failures)
    return tuple(sorted(plans, key=lambda p: p.group))


LISTED_AT_MOST = 20  # items named in a one-line message; the exception carries them all


def shortened(items: Sequence[str], limit: int = LISTED_AT_MOST) -> str:
    """`a, b, c` or `a, b, ... and 17 more` so a one-line error stays readable."""
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f" and {len(items) - limit} more"


def _check_failed(strategy: Strategy, failures: list[PartitionFailure]) -> PlanCheckFailed:
    failures.sort(key=lambda f: (f.group, f.topic_partition))
    groups = sorted({f.group for f in failures})
    listed = "; ".join(
        f"group {g}: " + shortened([str(f) for f in failures if f.group == g]) for g in groups
    )
    if isinstance(strategy, ToNone):
        what = "without a valid committed offset"
        hint = "choose another strategy (e.g. --to earliest) for those partitions"
    else:
        what = "without a committed offset to shift from"
        hint = "use --to-offset or --to earliest|latest for partitions without a committed offset"
    return PlanCheckFailed(
        f"{strategy.describe()}: {len(failures)} partition(s) {what}, nothing planned: {listed}",
        failures,
        hint,
    )


def _clamp(requested: int, start: int, end: int, key: Key) -> tuple[int, bool, str | None]:
    tp = TopicPartition(*key)
    if requested < start:
        return (
            start,
            True,
            f"{tp}: offset {requested} is before the log start {start}; using {start}",
        )
    if requested > end:
        return end, True, f"{tp}: offset {requested} is after the log end {end}; using {end}"
    return requested, False, None


# The planner works on plain (topic, partition) tuples internally: they hash and compare in
# C, while the shared TopicPartition dataclass does both in Python, which costs about a third
# of a second per 100,000 partitions and lookup.
Key = tuple[str, int]


def _offsets_by_key(mapping: Mapping[TopicPartition, Any]) -> dict[Key, int]:
    """Offsets (CommittedOffset, OffsetAtTime or int) by key; "no offset" values are left out."""
    out: dict[Key, int] = {}
    for tp, value in mapping.items():
        offset = value if value is None or type(value) is int else value.offset
        if offset is not None and offset >= 0:
            out[(tp.topic, tp.partition)] = offset
    return out


def _watermarks_by_key(mapping: Mapping[TopicPartition, Any]) -> dict[Key, tuple[int, int]]:
    return {
        (tp.topic, tp.partition): (w if type(w) is tuple else (w.log_start, w.log_end))
        for tp, w in mapping.items()
    }


def _sorted_unique(partitions: Iterable[TopicPartition]) -> list[Key]:
    """Partition keys sorted by (topic, partition) without duplicates, fast for 100,000.

    Scopes from `resolve_scope` are already sorted (checked in one pass); otherwise the
    partitions are grouped per topic so that only topic names and ints are sorted.
    """
    keys = [(tp.topic, tp.partition) for tp in partitions]
    if all(a < b for a, b in pairwise(keys)):
        return keys
    by_topic: dict[str, set[int]] = {}
    for topic, partition in keys:
        numbers = by_topic.get(topic)
        if numbers is None:
            by_topic[topic] = numbers = set()
        numbers.add(partition)
    return [(t, p) for t in sorted(by_topic) for p in sorted(by_topic[t])]


def _plan_one(
    inputs: GroupInputs, strategy: Strategy, now_ms: int
) -> tuple[GroupPlan | None, list[PartitionFailure]]:
    """Plan one group; failures are returned (not raised) so plan_groups can collect them."""
    group = inputs.group
    scope = _sorted_unique(inputs.partitions)
    committed = _offsets_by_key(inputs.committed)
    watermarks = _watermarks_by_key(inputs.watermarks)

    missing = [TopicPartition(*key) for key in scope if key not in watermarks]
    if missing and not inputs.offline:
        names = shortened([str(tp) for tp in missing])
        raise PartitionsNotFound(
            f"group {group}: no log offsets for {names}",
            [str(tp) for tp in missing],
            hint="the partitions may have been deleted; nothing was changed",
        )

    description = strategy.describe()
    if isinstance(strategy, ByDuration):
        strategy = strategy.resolve(now_ms)
        description = f"{description} (since {format_utc_ms(strategy.ms)})"
    timestamp_ms = strategy.ms if isinstance(strategy, ToTimestamp) else None
    if timestamp_ms is not None and inputs.offsets_for_time is None:
        raise ValueError("a timestamp strategy needs offsets_for_time")
    times = _offsets_by_key(inputs.offsets_for_time) if timestamp_ms is not None else {}

    notes: list[str] = []
    file_rows: dict[str, dict[int, FileRow]] = {}
    if isinstance(strategy, FromFile):
        file_rows = strategy.index_for_group(group)
        empty: dict[int, FileRow] = {}
        scope = [key for key in scope if key[1] in file_rows.get(key[0], empty)]
        outside = sum(len(by_partition) for by_partition in file_rows.values()) - len(scope)
        if outside:
            notes.append(
                f"{outside} row(s) of {strategy.source} for group {group} are outside the "
                "--topic scope and were left out"
            )

    if isinstance(strategy, GIVEN_STRATEGIES):
        return _given_plan(inputs, strategy, scope, watermarks, committed), []
    rows, failures = _rows(group, strategy, scope, watermarks, committed, times, file_rows)
    if failures:
        return None, failures
    return GroupPlan(group, tuple(rows), description, timestamp_ms, tuple(notes)), []


def _given_plan(
    inputs: GroupInputs,
    strategy: Strategy,
    scope: list[Key],
    watermarks: dict[Key, tuple[int, int]],
    committed: dict[Key, int],
) -> GroupPlan:
    """`--to-group` / `--to-committed-at`: each partition's given offset (with its leader
    epoch and metadata), clamped into the log; partitions without one are left out, listed."""
    group = inputs.group
    given = {(tp.topic, tp.partition): v for tp, v in (inputs.given or {}).items()}
    rows: list[PlanRow] = []
    origins: dict[Key, str] = {}
    left_out: list[str] = []
    for key in scope:
        entry = given.get(key)
        if entry is None:
            left_out.append(f"{key[0]}:{key[1]}")
            continue
        new, clamped, warning = entry.offset, False, None
        start, end = watermarks.get(key, (None, None))
        if start is not None and end is not None and not start <= new <= end:
            new, clamped, warning = _clamp(new, start, end, key)
        rows.append(
            PlanRow(
                group,
                *key,
                None if inputs.offline else committed.get(key),
                new,
                start,
                end,
                clamped,
                warning,
                metadata=entry.metadata,
                leader_epoch=entry.leader_epoch,
            )
        )
        if entry.origin:
            origins[key] = entry.origin
    notes = list(inputs.notes)
    if left_out:
        notes.append(
            f"{len(left_out)} partition(s) left out ({inputs.left_out_why}): {shortened(left_out)}"
        )
    if inputs.offline:
        notes.append(
            "planned offline from segments: current offsets and log bounds not read (--execute "
            "reads them, or apply the --export file with --from-file)"
        )
    timestamp_ms = strategy.ms if isinstance(strategy, ToCommittedAt) else None
    return GroupPlan(
        group, tuple(rows), strategy.describe(), timestamp_ms, tuple(notes), origins=origins
    )


def _rows(
    group: str,
    strategy: Strategy,
    scope: list[Key],
    watermarks: dict[Key, tuple[int, int]],
    committed: dict[Key, int],
    times: dict[Key, int],
    file_rows: dict[str, dict[int, FileRow]],
) -> tuple[list[PlanRow], list[PartitionFailure]]:
    """The rows of CLI.md's strategy table, one small loop per strategy.

    One loop per strategy, not one loop with a branch per strategy, because this is the
    hot path of the 100,000-partition target; rows are built with tuple.__new__ (PlanRow
    without its Python-level __new__) for the same reason.
    Row tuple: group, topic, partition, current, new, log start, log end, clamped, warning,
    no_record_after_time, metadata, leader_epoch.
    """
    rows: list[PlanRow] = []
    failures: list[PartitionFailure] = []
    append = rows.append
    make = tuple.__new__
    get = committed.get

    if isinstance(strategy, (ToEarliest, ToLatest, ToCurrent)):
        kind = type(strategy)
        for key in scope:
            start, end = watermarks[key]
            current = get(key)
            if kind is ToEarliest:
                new = start  # log start offset
            elif kind is ToLatest:
                new = end  # log end offset
            else:
                new = end if current is None else current  # Kafka: log end when none
            row = (group, *key, current, new, start, end, False, None, False, None, None)
            append(make(PlanRow, row))

    elif isinstance(strategy, ToNone):
        # auto.offset.reset=none: keep the committed offset; none, or out of range, fails.
        for key in scope:
            start, end = watermarks[key]
            current = get(key)
            if current is None:
                failures.append(
                    PartitionFailure(group, TopicPartition(*key), "no committed offset")
                )
            elif not start <= current <= end:
                reason = f"committed {current} outside the log [{start}, {end}]"
                failures.append(PartitionFailure(group, TopicPartition(*key), reason))
            else:
                row = (group, *key, current, current, start, end, False, None, False, None, None)
                append(make(PlanRow, row))

    elif isinstance(strategy, ToTimestamp):
        # First offset with timestamp >= T; log end (marked) when there is no such record.
        for key in scope:
            start, end = watermarks[key]
            found = times.get(key)
            if found is None:
                row = (group, *key, get(key), end, start, end, False, None, True, None, None)
            elif start <= found <= end:
                row = (group, *key, get(key), found, start, end, False, None, False, None, None)
            else:
                new, clamped, warning = _clamp(found, start, end, key)
                row = (group, *key, get(key), new, start, end, clamped, warning, False, None, None)
            append(make(PlanRow, row))

    elif isinstance(strategy, (ToOffset, ShiftBy)):
        # N, or committed + N; clamped into [log start, log end] with a warning.
        fixed = strategy.offset if isinstance(strategy, ToOffset) else None
        delta = strategy.delta if isinstance(strategy, ShiftBy) else 0
        for key in scope:
            start, end = watermarks[key]
            current = get(key)
            if fixed is not None:
                requested = fixed
            elif current is None:
                failures.append(
                    PartitionFailure(group, TopicPartition(*key), "no committed offset")
                )
                continue
            else:
                requested = current + delta
            if start <= requested <= end:
                row = (group, *key, current, requested, start, end, False, None, False, None, None)
            else:
                new, clamped, warning = _clamp(requested, start, end, key)
                row = (group, *key, current, new, start, end, clamped, warning, False, None, None)
            append(make(PlanRow, row))

    elif isinstance(strategy, FromFile):
        # The file's offset (with its metadata), clamped; None (from a backup) removes it.
        for key in scope:
            start, end = watermarks[key]
            entry = file_rows[key[0]][key[1]]
            requested, clamped, warning = entry.offset, False, None
            if requested is not None and not start <= requested <= end:
                requested, clamped, warning = _clamp(requested, start, end, key)
            row = (
                group,
                *key,
                get(key),
                requested,
                start,
                end,
                clamped,
                warning,
                False,
                entry.metadata,
                entry.leader_epoch,
            )
            append(make(PlanRow, row))

    else:  # pragma: no cover - exhaustive over Strategy
        raise TypeError(f"unknown strategy {strategy!r}")
    return rows, failures


# ---------------------------------------------------------------------------------------------
# Backups


def backup_plan(plan: GroupPlan, previous: Mapping[TopicPartition, CommittedOffset]) -> GroupPlan:
    """The way back from `plan`: a plan that restores the offsets committed before it.

    `previous` is the group's committed offsets (with metadata and leader epoch) read just
    before executing `plan`; a partition absent from it had no committed offset. In the
    result, `current_offset` is what `plan` commits (what undo expects to find) and
    `new_offset` is the previous offset (None: there was none, undo removes the offset).
    Write it with `planfile.write_plan_file(..., kind="backup")`.
    """
    rows = []
    for row in plan.rows:
        before = previous.get(TopicPartition(row.topic, row.partition))
        offset = offset_value(before)
        rows.append(
            PlanRow(
                row.group,
                row.topic,
                row.partition,
                row.new_offset,
                offset,
                row.log_start_offset,
                row.log_end_offset,
                metadata=before.metadata if before is not None and offset is not None else None,
                leader_epoch=before.leader_epoch
                if before is not None and offset is not None
                else None,
            )
        )
    return GroupPlan(
        plan.group,
        tuple(rows),
        f"undo of {plan.strategy}",
        undoes=plan.undoes,
        forced=plan.forced,
    )
