"""The reset strategies of `kgroup reset-offsets`, as plain frozen values.

Source of truth: CLI.md, "kgroup reset-offsets" strategy table, which follows Kafka's
`ConsumerGroupCommand` reset options (`--to-earliest`, `--to-latest`, `--to-current`,
`--to-datetime`, `--by-duration`, `--to-offset`, `--shift-by`, `--from-file`) and adds
`--to none` (the semantics of the consumer's `auto.offset.reset=none`).

A strategy says *what* to compute; `kgroup.reset.planner` computes it. Timestamp strategies
carry an instant in epoch milliseconds UTC; `ByDuration` is resolved against a `now_ms` the
caller passes in (engines never read the clock).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar, NamedTuple

from kgroup.core.errors import UsageError
from kgroup.reset.model import TopicPartition
from kgroup.reset.timespec import (
    format_duration_ms,
    format_utc_ms,
    parse_datetime_ms,
    parse_duration_ms,
    parse_timestamp_ms,
)


@dataclass(frozen=True, slots=True)
class ToPosition:
    """`--to WHERE`: a strategy without parameters, one subclass a WHERE."""

    where: ClassVar[str]

    def describe(self) -> str:
        return f"to {self.where}"


@dataclass(frozen=True, slots=True)
class ToEarliest(ToPosition):
    """New offset = log start offset."""

    where = "earliest"


@dataclass(frozen=True, slots=True)
class ToLatest(ToPosition):
    """New offset = log end offset (high watermark)."""

    where = "latest"


@dataclass(frozen=True, slots=True)
class ToNone(ToPosition):
    """Keep the committed offset; fail (exit 5) if any is missing or outside the log."""

    where = "none"


@dataclass(frozen=True, slots=True)
class ToCurrent(ToPosition):
    """New offset = committed offset; log end where there is none (as Kafka does)."""

    where = "current"


@dataclass(frozen=True, slots=True)
class ToTimestamp:
    """New offset = first offset whose record timestamp >= `ms` (epoch ms UTC).

    `source_text` is what the user typed, kept for the echo.
    """

    ms: int
    source_text: str | None = None

    def describe(self) -> str:
        return f"to timestamp {format_utc_ms(self.ms)}"


@dataclass(frozen=True, slots=True)
class ByDuration:
    """Like ToTimestamp at `now_ms - ms`; resolved with `resolve(now_ms)`."""

    ms: int
    source_text: str | None = None

    def resolve(self, now_ms: int) -> ToTimestamp:
        return ToTimestamp(max(0, now_ms - self.ms), self.source_text)

    def describe(self) -> str:
        return f"by-duration {format_duration_ms(self.ms)}"


@dataclass(frozen=True, slots=True)
class ToOffset:
    """New offset = `offset`, clamped into [log start, log end]."""

    offset: int

    def describe(self) -> str:
        return f"to-offset {self.offset}"


@dataclass(frozen=True, slots=True)
class ShiftBy:
    """New offset = committed + `delta`, clamped; a partition without a committed offset fails."""

    delta: int

    def describe(self) -> str:
        return f"shift-by {self.delta:+d}"


class FileRow(NamedTuple):
    """One line of a plan file: Kafka CSV (group optional) or a kgroup JSON plan/backup row.

    `group` None means the row applies to whichever group is being planned (Kafka's
    three-column CSV). `offset` None only comes from a backup of a partition that had no
    committed offset. `line` is the 1-based line in a CSV file (None for JSON).
    A NamedTuple, like PlanRow, so that files of 100,000 rows read and plan quickly.
    """

    group: str | None
    topic: str
    partition: int
    offset: int | None
    metadata: str | None = None
    leader_epoch: int | None = None
    line: int | None = None

    @property
    def topic_partition(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)


@dataclass(frozen=True, slots=True)
class FromFile:
    """New offsets from a plan file, clamped into [log start, log end].

    `rows` come from `kgroup.reset.planfile`; `source` names the file for messages.
    """

    rows: tuple[FileRow, ...]
    source: str = "plan file"

    def rows_for_group(self, group: str) -> dict[TopicPartition, FileRow]:
        """The file's rows that apply to `group` (its own, and rows without a group)."""
        return {
            TopicPartition(r.topic, r.partition): r
            for r in self.rows
            if r.group is None or r.group == group
        }

    def index_for_group(self, group: str) -> dict[str, dict[int, FileRow]]:
        """Like rows_for_group, as topic -> partition -> row (no key objects to build)."""
        index: dict[str, dict[int, FileRow]] = {}
        for r in self.rows:
            if r.group is None or r.group == group:
                by_partition = index.get(r.topic)
                if by_partition is None:
                    index[r.topic] = by_partition = {}
                by_partition[r.partition] = r
        return index

    def groups(self) -> tuple[str, ...]:
        """Groups named in the file, sorted; empty for a CSV without a group column."""
        return tuple(sorted({r.group for r in self.rows if r.group is not None}))

    def describe(self) -> str:
        return f"from-file {self.source}"


class GivenOffset(NamedTuple):
    """An offset another source decided for a partition (`--to-group`, `--to-committed-at`).

    `origin` says where it came from, shown per partition in the plan (for a history: the
    commit's time, its place in `__consumer_offsets` and the group's generation then).
    """

    offset: int
    metadata: str | None = None
    leader_epoch: int | None = None
    origin: str | None = None


@dataclass(frozen=True, slots=True)
class ToGroup:
    """New offsets = another group's committed offsets (`--to-group G`); read, never changed.

    Partitions in scope that `source` has not committed are left out of the plan and listed.
    """

    source: str

    def describe(self) -> str:
        return f"to-group {self.source}"


@dataclass(frozen=True, slots=True)
class ToCommittedAt:
    """New offsets = what the group had committed as of `ms` (`--to-committed-at TIME`), from
    its `__consumer_offsets` history: live, or from `segments` (offline for the plan).

    `ago_ms` set: TIME was a duration ago, resolved with `resolve(now_ms)` (engines never read
    the clock). `engine` scans the segments: auto, local or spark (as `decode`).
    """

    ms: int
    source_text: str | None = None
    ago_ms: int | None = None
    segments: tuple[str, ...] = ()
    engine: str = "auto"
    offsets_topic: str = "__consumer_offsets"

    def resolve(self, now_ms: int) -> ToCommittedAt:
        if self.ago_ms is None:
            return self
        return replace(self, ms=max(0, now_ms - self.ago_ms), ago_ms=None)

    def describe(self) -> str:
        if self.ago_ms is not None:
            return f"to-committed-at {format_duration_ms(self.ago_ms)} ago"
        return f"to-committed-at {self.source_text or format_utc_ms(self.ms)}"


Strategy = (
    ToEarliest
    | ToLatest
    | ToNone
    | ToCurrent
    | ToTimestamp
    | ByDuration
    | ToOffset
    | ShiftBy
    | FromFile
    | ToGroup
    | ToCommittedAt
)

GIVEN_STRATEGIES = (ToGroup, ToCommittedAt)
"""Strategies whose offsets come from elsewhere, per partition (`GroupInputs.given`)."""

TIMESTAMP_STRATEGIES = (ToTimestamp, ByDuration)

_TO_VALUES: dict[str, Strategy] = {s.where: s() for s in (ToEarliest, ToLatest, ToNone, ToCurrent)}


def parse_to(value: str) -> Strategy:
    """`--to earliest|latest|none|current` -> the strategy."""
    try:
        return _TO_VALUES[value.strip().lower()]
    except KeyError:
        raise UsageError(
            f"unknown --to value '{value}'", hint=f"use one of {', '.join(_TO_VALUES)}"
        ) from None


def parse_int_option(option: str, value: str, *, signed: bool) -> int:
    """An integer option value (`--to-offset N`, `--shift-by ±N`) with a usage error."""
    text = value.strip()
    body = text[1:] if signed and text[:1] in "+-" else text
    if not body.isdigit() or not body.isascii():
        kind = "an integer like -100 or +50" if signed else "a non-negative integer"
        raise UsageError(f"{option} needs {kind}, got '{value}'")
    return int(text)


def to_datetime(text: str) -> ToTimestamp:
    """`--to-datetime T` -> ToTimestamp (RFC 3339 with a zone, or epoch s/ms)."""
    return ToTimestamp(parse_datetime_ms(text), text)


def to_timestamp(text: str) -> ToTimestamp:
    """`--to-timestamp MS` -> ToTimestamp (epoch milliseconds)."""
    return ToTimestamp(parse_timestamp_ms(text), text)


def by_duration(text: str) -> ByDuration:
    """`--by-duration D` -> ByDuration."""
    return ByDuration(parse_duration_ms(text), text)


def to_offset(text: str) -> ToOffset:
    """`--to-offset N` -> ToOffset."""
    return ToOffset(parse_int_option("--to-offset", text, signed=False))


def shift_by(text: str) -> ShiftBy:
    """`--shift-by ±N` -> ShiftBy."""
    return ShiftBy(parse_int_option("--shift-by", text, signed=True))


def to_group(text: str) -> ToGroup:
    """`--to-group G` -> ToGroup (a blank name is a usage error)."""
    if not text.strip():
        raise UsageError("--to-group needs a group name", hint="e.g. --to-group billing")
    return ToGroup(text)


def to_committed_at(text: str) -> ToCommittedAt:
    """`--to-committed-at TIME`: RFC 3339 with a zone, epoch s/ms, or a DURATION ago (2h, PT30M)."""
    stripped = text.strip()
    if stripped.isdigit() or stripped[4:5] == "-":  # epoch s/ms, or a date (2026-05-01T...)
        return ToCommittedAt(parse_datetime_ms(text), text)
    try:
        return ToCommittedAt(0, text, ago_ms=parse_duration_ms(text))
    except UsageError:
        raise UsageError(
            f"--to-committed-at '{text}' is neither a time nor a duration",
            hint="RFC 3339 with a zone (2026-05-01T10:00:00Z), epoch s/ms, or a DURATION ago "
            "(2h, PT30M, 1d)",
        ) from None


def resolve_timestamp_ms(strategy: Strategy, now_ms: int) -> int | None:
    """The instant to ask ListOffsets for, or None when the strategy needs no lookup."""
    if isinstance(strategy, ByDuration):
        return strategy.resolve(now_ms).ms
    if isinstance(strategy, ToTimestamp):
        return strategy.ms
    return None
