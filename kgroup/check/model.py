"""What `kgroup check` reasons about: observation windows, statuses and verdicts (data only).

The statuses and their order are Burrow's (linkedin/Burrow core/protocol `StatusConstant`:
NOTFOUND < OK < WARN < ERR < STOP < STALL < REWIND); a group's status is its worst partition's,
with STOP, STALL and REWIND counted as ERR at group level, as Burrow's evaluator does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum


class Status(IntEnum):
    """Burrow's statuses, worst last (the order is the precedence)."""

    NOTFOUND = 0
    OK = 1
    WARN = 2
    ERR = 3
    STOP = 4
    STALL = 5
    REWIND = 6


# Where an observation window came from (said in the output).
HISTORY = "history"  # the group's commits read from __consumer_offsets, with commit times
SAMPLING = "sampling"  # OffsetFetch + ListOffsets repeated --samples times across --window


# The per-partition records below are built once per partition of every group (100,000 for a
# fleet of 10,000 groups x 10): they are not frozen (a frozen dataclass sets each field through
# object.__setattr__, 2-3x slower to build) but slotted; nothing changes them once made.
@dataclass(slots=True)
class Observation:
    """One commit of a partition: when, which offset, and the lag then (None: unknown)."""

    timestamp_ms: int
    offset: int
    lag: int | None


@dataclass(slots=True)
class LogEnd:
    """The partition's log-end offset at a time (a broker offset, in Burrow's words)."""

    timestamp_ms: int
    offset: int


@dataclass(frozen=True)
class Owner:
    """The member a partition is assigned to."""

    consumer_id: str
    client_id: str | None = None
    host: str | None = None


@dataclass(frozen=True)
class TopicRetention:
    """A topic's retention settings (DescribeConfigs); None where unknown."""

    retention_ms: int | None = None  # -1: keep forever
    retention_bytes: int | None = None  # -1: no size limit
    delete_policy: bool = True  # cleanup.policy contains "delete"


@dataclass(slots=True)
class PartitionWindow:
    """Everything known about one partition of one group over the window."""

    topic: str
    partition: int
    observations: tuple[Observation, ...]  # oldest first
    log_ends: tuple[LogEnd, ...]  # oldest first
    committed: int | None  # the committed offset now
    log_start: int | None
    log_end: int | None
    lag_ms: int | None = None  # age of the first unconsumed record now
    owner: Owner | None = None
    slots: int = 10  # observations a complete window holds (Burrow's `intervals`)
    # the committed offset over the window, (time, offset) points oldest first, for the
    # consumption rate (sampling: every sample; history: every commit and now); empty: the
    # observations
    positions: tuple[LogEnd, ...] = ()
    # a commit happened within the window (sampling: the offset moved, or an owner is alive)
    committed_in_window: bool | None = None  # None: as `observations` say
    size_bytes: int | None = None  # the leader's log size (DescribeLogDirs); None: unknown

    @property
    def has_commits(self) -> bool:
        if self.committed_in_window is not None:
            return self.committed_in_window
        return bool(self.observations)


@dataclass(frozen=True)
class Thresholds:
    """The user's limits beyond Burrow's rules (None: not set)."""

    max_lag: int | None = None
    max_lag_ms: int | None = None
    min_headroom_ms: int | None = None


@dataclass(slots=True)
class Drain:
    """Rates over the window (records per second) and what they mean for the lag."""

    consume_rate: float | None
    produce_rate: float | None
    eta_ms: int | None  # time to lag 0 at the window's rates; 0 when caught up
    behind_per_s: float | None  # how fast the lag grows when it does


@dataclass(slots=True)
class PartitionVerdict:
    """A partition's status, the rule that decided it, and the evidence."""

    topic: str
    partition: int
    status: Status
    rule: str
    reason: str
    committed: int | None
    log_start: int | None
    log_end: int | None
    lag: int | None
    lag_ms: int | None
    complete: float
    drain: Drain
    headroom_ms: int | None
    owner: Owner | None
    observations: tuple[Observation, ...]
    log_ends: tuple[LogEnd, ...]
    headroom_by: str | None = None  # "time" or "size": which retention limit is nearer
    headroom_time_ms: int | None = None  # from retention.ms
    headroom_size_ms: int | None = None  # from retention.bytes (an estimate)
    size_bytes: int | None = None


@dataclass(frozen=True)
class MemberRollup:
    """One member's share of the lag: total and hottest partition."""

    consumer_id: str
    client_id: str | None
    host: str | None
    partitions: int
    total_lag: int | None
    hottest: PartitionVerdict | None


@dataclass(frozen=True)
class GroupVerdict:
    """A group's status (or its error), partitions, member rollup and skew."""

    group: str
    status: Status
    rule: str
    reason: str
    source: str
    state: str | None = None
    type: str | None = None
    partitions: tuple[PartitionVerdict, ...] = ()
    members: tuple[MemberRollup, ...] = ()
    skew: float | None = None
    total_lag: int | None = None
    complete: float = 0.0
    error: str | None = None
    error_kind: str | None = None  # "not_found" or "error"
    notes: tuple[str, ...] = field(default_factory=tuple)
