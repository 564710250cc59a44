"""Lag rows for `kgroup describe`, computed from data only (no I/O, `now_ms` passed in).

Lag follows Kafka's ConsumerGroupCommand: `log_end_offset - current_offset` for a partition with
a committed offset, nothing otherwise (a partition with no commit has no lag to report, not 0 and
not the whole log). A negative lag (committed beyond the log end, e.g. after the log was
truncated) is reported as it is: it is a fact an operator must see.

With `read_committed`, the log end is the last stable offset (KIP-98), and a partition where only
transaction markers or aborted records lie between the committed offset and that end has lag 0:
a read_committed consumer has nothing left to read there. (The last stable offset alone does not
remove the "lag of 1 forever" a commit marker leaves behind the last record.)
"""

from __future__ import annotations

from collections.abc import Collection, Container, Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from kgroup.core.models import (
    CommittedOffset,
    GroupDescription,
    MemberDescription,
    NextRecord,
    TopicPartition,
    Watermarks,
    tp_order,
)


@dataclass(frozen=True, init=False)
class GroupInput:
    """What the cluster said about one group (its `__init__` fills the instance dict, as
    kgroup.core.models' fleet models do: one a group)."""

    description: GroupDescription
    committed: Mapping[TopicPartition, CommittedOffset]
    error: str | None = None
    error_kind: str | None = None  # "not_found", "unreachable" (exit 6) or "error"

    def __init__(
        self,
        description: GroupDescription,
        committed: Mapping[TopicPartition, CommittedOffset],
        error: str | None = None,
        error_kind: str | None = None,
    ) -> None:
        d = self.__dict__
        d["description"], d["committed"] = description, committed
        d["error"], d["error_kind"] = error, error_kind


class PartitionLag(NamedTuple):
    """One row of the offsets view (a named tuple: immutable, and made ~5x faster than a frozen
    dataclass, whose __init__ sets each of its 12 fields through object.__setattr__; a fleet
    makes one a partition, 100,000 for 10,000 groups)."""

    group: str
    topic: str
    partition: int
    current_offset: int | None
    log_start_offset: int | None
    log_end_offset: int | None
    lag: int | None
    consumer_id: str | None
    host: str | None
    client_id: str | None
    lag_ms: int | None = None
    metadata: str | None = None


@dataclass(frozen=True, init=False)
class GroupLag:
    """A group's rows and totals, or its error (its `__init__` fills the instance dict)."""

    group: str
    description: GroupDescription
    rows: tuple[PartitionLag, ...]
    topic_totals: dict[str, int | None] = field(default_factory=dict)
    total_lag: int | None = None
    error: str | None = None
    error_kind: str | None = None

    def __init__(
        self,
        group: str,
        description: GroupDescription,
        rows: tuple[PartitionLag, ...],
        topic_totals: dict[str, int | None] | None = None,
        total_lag: int | None = None,
        error: str | None = None,
        error_kind: str | None = None,
    ) -> None:
        d = self.__dict__
        d["group"], d["description"], d["rows"] = group, description, rows
        d["topic_totals"] = {} if topic_totals is None else topic_totals
        d["total_lag"], d["error"], d["error_kind"] = total_lag, error, error_kind


def partition_lag(current: int | None, log_end: int | None) -> int | None:
    """Kafka's lag: log end minus committed offset; None when either is unknown."""
    if current is None or log_end is None:
        return None
    return log_end - current


def time_lag_ms(lag: int | None, next_record: NextRecord | None, now_ms: int) -> int | None:
    """Age of the first unconsumed record; 0 when nothing is left to consume, None when unknown."""
    if lag is None:
        return None
    if lag <= 0:
        return 0
    if next_record is None:
        return None
    if not next_record.consumable:
        return 0
    if next_record.timestamp is None or next_record.timestamp < 0:
        return None
    return max(0, now_ms - next_record.timestamp)


def sum_known(values: Iterable[int | None]) -> int | None:
    """Sum of the known values; None when none is known."""
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def owners(members: Iterable[MemberDescription]) -> dict[TopicPartition, MemberDescription]:
    """Partition -> the member it is assigned to."""
    result: dict[TopicPartition, MemberDescription] = {}
    for member in members:
        for tp in member.assignment:
            result[tp] = member
    return result


def partitions_in_view(
    group: GroupInput,
    partition_counts: Mapping[str, int],
    topics: Mapping[str, Container[int] | None] | Collection[str] | None = None,
) -> list[TopicPartition]:
    """Partitions a group's rows cover: assigned, committed, and every partition of a subscribed
    topic (so a partition nobody committed shows up with `-` instead of being silently absent).

    `topics` keeps only those topics; as a mapping, topic -> its partitions (None: all of them)."""
    wanted: set[TopicPartition] = set(group.committed)
    for member in group.description.members:
        wanted.update(member.assignment)
        for topic in member.subscription or ():
            wanted.update(TopicPartition(topic, p) for p in range(partition_counts.get(topic, 0)))
    if topics:
        parts = topics if isinstance(topics, Mapping) else dict.fromkeys(topics)
        wanted = {
            tp
            for tp in wanted
            if tp.topic in parts and (parts[tp.topic] is None or tp.partition in parts[tp.topic])
        }
    return sorted(wanted, key=tp_order)


def build_group_lag(
    group: GroupInput,
    partitions: Iterable[TopicPartition],
    watermarks: Mapping[TopicPartition, Watermarks],
    *,
    read_committed: bool = False,
    next_records: Mapping[tuple[TopicPartition, int], NextRecord] | None = None,
    now_ms: int | None = None,
) -> GroupLag:
    """Rows (sorted by topic, partition) and totals of one group."""
    if group.error is not None:
        return GroupLag(
            group=group.description.group_id,
            description=group.description,
            rows=(),
            error=group.error,
            error_kind=group.error_kind,
        )
    # lookups by (topic, partition) tuples: hashed and compared in C, where TopicPartition's
    # generated __hash__/__eq__ run in Python (three lookups a row, 100,000 rows a fleet)
    owner_of = {(tp.topic, tp.partition): m for tp, m in owners(group.description.members).items()}
    committed_of = {(tp.topic, tp.partition): c for tp, c in group.committed.items()}
    marks_of = _by_pair(watermarks)
    group_id = group.description.group_id
    peek = next_records.get if next_records else None
    timed = next_records is not None and now_ms is not None
    rows = []
    # known lags summed per topic (in the rows' order: sorted) and in all; None: none known
    topic_totals: dict[str, int | None] = {}
    total_lag: int | None = None
    for tp in sorted(partitions, key=tp_order):
        pair = (tp.topic, tp.partition)
        committed = committed_of.get(pair)
        marks = marks_of.get(pair)
        log_end = None
        if marks is not None:
            log_end = (
                marks.last_stable
                if read_committed and marks.last_stable is not None
                else marks.log_end
            )
        current = committed.offset if committed is not None else None
        lag = None if current is None or log_end is None else log_end - current
        peeked = peek((tp, current)) if peek is not None and current is not None else None
        if (
            read_committed
            and lag is not None
            and lag > 0
            and peeked is not None
            and not peeked.consumable
        ):
            # Only transaction markers (and aborted records) lie between the committed offset
            # and the last stable offset: nothing is left to consume, so the lag is 0, not the
            # "lag of 1 forever" offset arithmetic gives behind a commit marker.
            lag = 0
        lag_ms = time_lag_ms(lag, peeked, now_ms) if timed else None  # type: ignore[arg-type]
        so_far = topic_totals.get(tp.topic)
        if lag is None:
            topic_totals[tp.topic] = so_far
        else:
            topic_totals[tp.topic] = lag if so_far is None else so_far + lag
            total_lag = lag if total_lag is None else total_lag + lag
        member = owner_of.get(pair)
        rows.append(
            _row(  # all 12 fields, in order: PartitionLag's __new__ without its Python frame
                PartitionLag,
                (
                    group_id,
                    tp.topic,
                    tp.partition,
                    current,
                    marks.log_start if marks is not None else None,
                    log_end,
                    lag,
                    member.member_id if member else None,
                    member.host if member else None,
                    member.client_id if member else None,
                    lag_ms,
                    committed.metadata if committed is not None else None,
                ),
            )
        )
    return GroupLag(
        group=group.description.group_id,
        description=group.description,
        rows=tuple(rows),
        topic_totals=topic_totals,
        total_lag=total_lag,
    )


_row = tuple.__new__  # a PartitionLag of its 12 values (3x cheaper than calling the class)

_PAIRS: list = [None, {}]  # the last mapping `_by_pair` converted, and its conversion


def _by_pair(mapping: Mapping[TopicPartition, Watermarks]) -> dict[tuple[str, int], Watermarks]:
    """`mapping` keyed by (topic, partition) tuples; the conversion of the mapping last given
    is kept (the same log offsets serve every group of a describe chunk). The mapping itself
    is held, so it cannot be another one at the same address."""
    if _PAIRS[0] is not mapping:
        _PAIRS[0], _PAIRS[1] = mapping, {(tp.topic, tp.partition): m for tp, m in mapping.items()}
    return _PAIRS[1]


def partitions_over_lag(groups: Iterable[GroupLag], threshold: int) -> list[PartitionLag]:
    """Rows whose lag exceeds `threshold` (for --fail-on-lag)."""
    return [r for g in groups for r in g.rows if r.lag is not None and r.lag > threshold]


def lagging_positions(groups: Iterable[GroupLag]) -> set[tuple[TopicPartition, int]]:
    """(partition, committed offset) pairs whose record timestamps --lag-time needs.

    Several groups may lag on one partition at different offsets: each pair is fetched once.
    """
    wanted: set[tuple[TopicPartition, int]] = set()
    for group in groups:
        for row in group.rows:
            if row.lag is not None and row.lag > 0 and row.current_offset is not None:
                wanted.add((TopicPartition(row.topic, row.partition), row.current_offset))
    return wanted


def is_missing_group(
    description: GroupDescription,
    committed: Mapping[TopicPartition, object],
) -> bool:
    """True when a group does not exist as Kafka sees it.

    Kafka reports Dead (or GROUP_ID_NOT_FOUND) for unknown groups; an Empty group with no committed
    offsets is removed by the coordinator, so it does not exist either (kafka-consumer-groups.sh
    prints "does not exist" for it). Some brokers answer unknown ids as Empty with no offsets.
    """
    if description.error_code == "GROUP_ID_NOT_FOUND" or description.state == "Dead":
        return True
    return description.state in ("Empty", "Unknown") and not description.members and not committed
