"""Is a group without members still being consumed? Its newest offset commit tells.

A consumer that uses `assign()` (manual assignment) never joins its group: the group shows no
members and looks inactive, yet the consumer commits with the group's id and would overwrite
an offset reset at its next commit. Such a group has recent offset commits. This module finds
the newest one from the tail of the group's `__consumer_offsets` partition, so the reset can
warn before `--execute`.

Source of truth: OFFSETS_FORMAT.md §7 (group -> partition, `kgroup.offsets.replay.
partition_for`, as `decode --live --group` computes it) and the OffsetCommit value schema
(`commit_timestamp`, set by the broker to the time of the commit). Records are read with
`kgroup.core.topic_reader` (read_committed: aborted transactional commits are not seen) and
decoded with `kgroup.scan.local.LocalEngine`, as `decode --live` does.

Bounded: only the last `TAIL_RECORDS` offsets of the one partition, read newest window first
(`tail_windows`), stopping at the first window holding a commit of the group, and at most
`TAIL_BYTES` of keys and values. No group is joined and nothing is committed.

`last_commit_ms` never raises for what a cluster can do to it (no `__consumer_offsets`, as on
tansu; no authorization; timeout): it returns a short reason string instead. `looks_live` and
the helpers below it are pure.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from kgroup.core.admin import GroupAdmin
from kgroup.core.errors import KgroupError
from kgroup.offsets.decode import DecodedRecord

__all__ = [
    "LIVE_WINDOW_MS",
    "OFFSETS_TOPIC",
    "TAIL_BYTES",
    "TAIL_RECORDS",
    "commit_time_ms",
    "last_commit_ms",
    "looks_live",
    "newest_commit_ms",
    "tail_windows",
]

OFFSETS_TOPIC = "__consumer_offsets"
TAIL_RECORDS = 2_000  # offsets from the log end that are looked at, at most
TAIL_BYTES = 4 * 1024 * 1024  # key + value bytes read, at most
WINDOW_RECORDS = 500  # offsets per read, newest window first
LIVE_WINDOW_MS = 300_000  # a commit this recent means "probably consumed right now"
OFFSET_COMMIT_TYPES = frozenset({0, 1})  # OffsetCommit keys (versions 0 and 1)

# librdkafka prefetches ahead of the application; keep that near the byte budget.
_CONSUMER_LIMITS = {
    "queued.max.messages.kbytes": "1024",
    "max.partition.fetch.bytes": "1048576",
}


# ---------------------------------------------------------------------------------------------
# Pure decisions


def looks_live(
    last_commit_ms: int | str | None, now_ms: int, window_ms: int = LIVE_WINDOW_MS
) -> bool:
    """True when the group's newest commit is at most `window_ms` old at `now_ms`.

    Takes what `last_commit_ms` returns: None (no commit seen) and a reason string (could not
    tell) are False; the caller decides what to say about a reason. A commit time after
    `now_ms` (clock skew between kgroup's host and the broker) counts as live.
    """
    if isinstance(last_commit_ms, bool) or not isinstance(last_commit_ms, int):
        return False
    return now_ms - last_commit_ms <= window_ms


def tail_windows(
    log_start: int,
    log_end: int,
    max_records: int = TAIL_RECORDS,
    window: int = WINDOW_RECORDS,
) -> list[tuple[int, int]]:
    """[start, end) offset windows covering the last `max_records` offsets of the partition
    [log_start, log_end), newest window first, each at most `window` offsets long."""
    if window <= 0:
        raise ValueError("window must be positive")
    floor = max(log_start, log_end - max(max_records, 0))
    out = []
    end = log_end
    while end > floor:
        start = max(floor, end - window)
        out.append((start, end))
        end = start
    return out


def commit_time_ms(rec: DecodedRecord, group: str) -> int | None:
    """The commit time of `rec` if it is an offset commit of `group`, else None.

    The value's `commit_timestamp` (the broker's clock at the commit); the record timestamp
    when that is missing or negative. Tombstones (offset deletion, expiry) are no commits.
    """
    if rec.control or rec.key_type not in OFFSET_COMMIT_TYPES or rec.group != group:
        return None
    value = rec.value
    if value is None:
        return None
    stamp = value.get("commit_timestamp")
    if isinstance(stamp, int) and not isinstance(stamp, bool) and stamp >= 0:
        return stamp
    return rec.timestamp if rec.timestamp >= 0 else None


def newest_commit_ms(records: Iterable[DecodedRecord], group: str) -> int | None:
    """The commit time of the newest (highest offset) offset commit of `group` in `records`."""
    best_offset = -1
    best: int | None = None
    for rec in records:
        stamp = commit_time_ms(rec, group)
        if stamp is not None and rec.offset >= best_offset:
            best_offset, best = rec.offset, stamp
    return best


# ---------------------------------------------------------------------------------------------
# The probe


class _Budget:
    """Key and value bytes left to read, and the last offset read in the current window."""

    def __init__(self, limit: int) -> None:
        self.left = limit
        self.exhausted = False
        self.last_offset = -1

    def take(self, messages: Iterable[Any]) -> Iterator[Any]:
        for msg in messages:
            self.left -= len(msg.key or b"") + len(msg.value or b"")
            self.last_offset = msg.offset
            yield msg
            if self.left <= 0:
                self.exhausted = True
                return


def last_commit_ms(
    admin: GroupAdmin,
    group: str,
    timeout_s: float,
    *,
    topic: str = OFFSETS_TOPIC,
    max_records: int = TAIL_RECORDS,
    max_bytes: int = TAIL_BYTES,
) -> int | str | None:
    """The commit time (ms) of `group`'s newest offset commit in the tail of its partition.

    None: the last `max_records` records of the partition hold no commit of the group (or
    the partition is empty). A string: why it cannot tell (offsets topic absent or not
    visible, not authorized, unreachable, timed out, tail larger than `max_bytes` before a
    window was read to its end). Takes at most about `timeout_s` seconds.
    """
    try:
        return _last_commit_ms(admin, group, timeout_s, topic, max_records, max_bytes)
    except KgroupError as error:  # core/ turns librdkafka's errors into these
        return f"cannot read {topic}: {error.message.rstrip('.')}"


def _last_commit_ms(
    admin: GroupAdmin,
    group: str,
    timeout_s: float,
    topic: str,
    max_records: int,
    max_bytes: int,
) -> int | str | None:
    from kgroup.core.errors import NotFoundError
    from kgroup.core.topic_reader import TopicReader

    deadline = time.monotonic() + timeout_s
    if admin.timeout_s <= timeout_s:
        probe = admin
    else:  # an admin of its own with the shorter timeout: closed on every path (its connections)
        probe = GroupAdmin(replace(admin.config, timeout_s=timeout_s))
    try:
        count = TopicReader(probe, topic).partition_count()
    except NotFoundError:
        return f"no {topic} topic on this cluster (or no Describe permission on it)"
    finally:
        if probe is not admin:
            probe.close()
    return _read_tail(admin, group, timeout_s, topic, max_records, max_bytes, count, deadline)


def _read_tail(
    admin: GroupAdmin,
    group: str,
    timeout_s: float,
    topic: str,
    max_records: int,
    max_bytes: int,
    count: int,
    deadline: float,
) -> int | str | None:
    """The newest commit of `group` in the tail of its partition (of `count`) of `topic`."""
    from kgroup.core.topic_reader import partition_ranges, read_range
    from kgroup.offsets.replay import partition_for
    from kgroup.scan.local import DecodeFilter, LocalEngine

    partition = partition_for(group, count)
    where = f"{topic}-{partition}"
    from kgroup.core.admin import rdkafka_log

    # librdkafka's log lines go to kgroup's logger (shown with --verbose), as TopicReader's
    props: dict[str, Any] = {
        **admin.config.client_properties(),
        **_CONSUMER_LIMITS,
        "logger": rdkafka_log,
    }
    ranges = partition_ranges(props, topic, [partition], max(_left(deadline), 0.1))
    if not ranges:
        return None
    _p, log_start, log_end = ranges[0]
    budget = _Budget(max_bytes)
    flt = DecodeFilter(groups=frozenset({group}), type_ids=OFFSET_COMMIT_TYPES)
    for start, end in tail_windows(log_start, log_end, max_records):
        if budget.exhausted:
            return None  # the budget ended at a window boundary: nothing newer was missed
        left = _left(deadline)
        if left <= 0:
            return f"timed out after {timeout_s:g} s reading {where}"
        budget.last_offset = -1
        raw = read_range(props, topic, partition, start, end, timeout_s=left)
        try:
            found = newest_commit_ms(LocalEngine(flt).live_records(budget.take(raw)), group)
        finally:
            raw.close()
        complete = budget.last_offset >= end - 1
        if budget.exhausted and not complete:
            if found is not None:
                return found  # newer commits may follow in the window; this one is a floor
            return f"the tail of {where} is larger than {max_bytes} bytes; not read to its end"
        if found is not None:
            return found
        if not complete and _left(deadline) <= 0:
            # read_range stops quietly after timeout_s without progress
            return f"timed out after {timeout_s:g} s reading {where}"
    return None


def _left(deadline: float) -> float:
    return deadline - time.monotonic()
