"""Observation windows from what was read: commits with their times (history) or repeated
OffsetFetch/ListOffsets samples (sampling). Pure.

Burrow keeps, per partition, the last `intervals` commits (default 10) and replaces the newest
one when the next commit comes within `min-distance` of it (linkedin/Burrow storage module,
`intervals` and `min-distance` settings). kgroup does the same over a time window: it keeps one
commit per window/samples slice of time, at most `samples` of them, newest last.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgroup.check.model import LogEnd, Observation


def log_end_at(log_ends: Sequence[LogEnd], timestamp_ms: int) -> int | None:
    """The log end known at `timestamp_ms`: the newest sample taken at or before it (Burrow
    computes a commit's lag from the latest broker offset it has); None before the first."""
    known = None
    for end in log_ends:
        if end.timestamp_ms > timestamp_ms:
            break
        known = end.offset
    return known


def from_commits(
    commits: Sequence[tuple[int, int]],
    log_ends: Sequence[LogEnd],
    *,
    samples: int,
    window_ms: int,
) -> tuple[Observation, ...]:
    """History: the group's commits (commit time, offset) in the window, each with its lag
    against the log end known at its time (negative lag counts as 0, as in Burrow)."""
    ordered = sorted(commits)
    spacing = max(1, window_ms // max(1, samples))
    kept = _space(ordered, spacing)[-samples:]
    out = []
    for ts, offset in kept:
        end = log_end_at(log_ends, ts)
        out.append(Observation(ts, offset, None if end is None else max(0, end - offset)))
    return tuple(out)


def _space(commits: Sequence[tuple[int, int]], spacing: int) -> list[tuple[int, int]]:
    """One commit per `spacing` slice of time, the newest of the slice (Burrow's min-distance
    keeps the newer of two close commits; slices keep a steady stream from collapsing)."""
    by_slice: dict[int, tuple[int, int]] = {}
    for ts, offset in commits:
        by_slice[ts // spacing] = (ts, offset)
    return [by_slice[k] for k in sorted(by_slice)]


def from_samples(
    times: Sequence[int],
    committed: Sequence[int | None],
    log_ends: Sequence[int | None],
    *,
    alive: bool,
) -> tuple[Observation, ...]:
    """Sampling (each round's time, the partition's committed offset and its log end then,
    None when not read): OffsetFetch does not say when an offset was committed, so a commit is
    dated by the sample that first saw it; an unchanged offset is a new commit of the same
    offset only while a member of the group owns the partition (`alive`: it commits as it
    runs), otherwise there was no commit. So a partition nobody consumes ends STOP, and one
    whose consumer commits the same offset ends STALL, as Burrow would see them from the
    commits."""
    out: list[Observation] = []
    last: int | None = None
    for ts, at, end in zip(times, committed, log_ends, strict=True):
        if at is None:
            continue
        if alive or at != last:
            out.append(Observation(ts, at, None if end is None else max(0, end - at)))
        last = at
    return tuple(out)
