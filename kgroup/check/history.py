"""History: the groups' own commits, with their commit times, from `__consumer_offsets`.

Each group's commits live in partition `abs(hashCode(group)) % partitions` of the offsets topic
(GroupCoordinator.partitionFor; kgroup.offsets.replay.partition_for, as `decode --live --group`
uses it). Only the window is read: from the offset ListOffsets gives for `now - window` to the
log end seen at start. The log end of each data partition at times across the window comes
from ListOffsets by timestamp (the first offset whose record is at or after the time: the
offset the log ended at then), one round per time for every partition at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from kgroup.check.model import LogEnd
from kgroup.core.errors import AuthorizationError
from kgroup.core.models import TopicPartition

OFFSETS_TOPIC = "__consumer_offsets"


class HistoryUnavailable(Exception):
    """The commits cannot be read (no offsets topic, no ACL): sample instead, saying why."""


@dataclass(frozen=True)
class History:
    """Commits per (group, partition), oldest first: (commit time ms, offset)."""

    commits: dict[tuple[str, TopicPartition], list[tuple[int, int]]]
    records_read: int


def commits_from_records(
    records: Iterable[tuple[bytes | None, bytes | None]],
    groups: set[str],
    since_ms: int,
    *,
    spacing_ms: int | None = None,
    keep: int | None = None,
) -> dict[tuple[str, TopicPartition], list[tuple[int, int]]]:
    """Offset commits (record types 0 and 1, not tombstones) of `groups` committed at or after
    `since_ms`, by (group, partition), in log order.

    With `spacing_ms` and `keep`, only what kgroup/check/window.py's `from_commits` keeps is
    kept while reading: the newest commit of each `spacing_ms` slice of time, of the newest
    `keep` slices (sorted by time), so memory stays bounded by the window whatever the commit
    rate."""
    from kgroup.offsets.decode import decode_key, decode_value

    if spacing_ms is not None and keep is not None:
        return _windowed(records, groups, since_ms, max(1, spacing_ms), keep)
    out: dict[tuple[str, TopicPartition], list[tuple[int, int]]] = {}
    for key, value in records:
        if key is None or value is None:
            continue
        _type_id, rt, fields, _error = decode_key(key)
        if rt is None or fields is None or rt.type_id not in (0, 1):
            continue
        group = fields.get("group")
        if group not in groups:
            continue
        _version, commit, _err, _layout = decode_value(rt, value)
        if commit is None:
            continue
        ts = commit.get("commit_timestamp")
        if not isinstance(ts, int) or ts < since_ms:
            continue
        tp = TopicPartition(fields["topic"], fields["partition"])
        out.setdefault((group, tp), []).append((ts, commit["offset"]))
    return out


def _windowed(
    records: Iterable[tuple[bytes | None, bytes | None]],
    groups: set[str],
    since_ms: int,
    spacing: int,
    keep: int,
) -> dict[tuple[str, TopicPartition], list[tuple[int, int]]]:
    slices: dict[tuple[str, TopicPartition], dict[int, tuple[int, int]]] = {}
    for key, value in records:
        for found in commits_from_records(((key, value),), groups, since_ms).items():
            (where, ((ts, offset),)) = found
            kept = slices.setdefault(where, {})
            slot = ts // spacing
            if slot not in kept or (ts, offset) > kept[slot]:
                kept[slot] = (ts, offset)
            if len(kept) > 2 * keep:
                for old in sorted(kept)[:-keep]:
                    del kept[old]
    return {where: sorted(kept[s] for s in sorted(kept)[-keep:]) for where, kept in slices.items()}


def read_history(
    admin: Any,
    group_ids: Sequence[str],
    *,
    partitions: int,
    now_ms: int,
    window_ms: int,
    samples: int | None = None,
) -> History:
    """Read the window of the groups' offsets-topic partitions; HistoryUnavailable when the
    cluster does not let kgroup (no Describe/Read ACL on the topic)."""
    from kgroup.offsets.replay import partition_for

    wanted = sorted({partition_for(g, partitions) for g in group_ids})
    tps = [TopicPartition(OFFSETS_TOPIC, p) for p in wanted]
    try:
        starts = admin.list_offsets(tps, now_ms - window_ms)
        ends = admin.list_offsets(tps, "latest")
    except AuthorizationError as exc:
        raise HistoryUnavailable(f"no Describe on {OFFSETS_TOPIC} ({exc.message})") from exc
    ranges = {}
    for tp in tps:
        end = ends[tp].offset
        start = starts[tp].offset
        if start < 0 or start > end:  # no record at or after the window start
            start = end
        if end > start:
            ranges[tp.partition] = (start, end)
    read = [0]

    def counted() -> Iterator[tuple[Any, Any]]:
        for record in _read(admin, ranges):
            read[0] += 1
            yield record

    spacing = None if samples is None else window_ms // max(1, samples)
    try:
        commits = commits_from_records(
            counted(), set(group_ids), now_ms - window_ms, spacing_ms=spacing, keep=samples
        )
    except AuthorizationError as exc:
        raise HistoryUnavailable(f"no Read on {OFFSETS_TOPIC} ({exc.message})") from exc
    return History(commits, read[0])


def _read(admin: Any, ranges: dict[int, tuple[int, int]]) -> Iterator[tuple[Any, Any]]:
    """Keys and values of offsets [start, end) of each partition, read with no group membership
    (read_committed: aborted transactional commits do not count)."""
    from kgroup.core.topic_reader import TopicReader

    for message in TopicReader(admin, OFFSETS_TOPIC).read(ranges=ranges):
        yield message.key, message.value


def log_end_grid(
    admin: Any, partitions: Sequence[TopicPartition], times_ms: Sequence[int], now_ends: dict
) -> dict[TopicPartition, list[LogEnd]]:
    """The log end of every partition at each time: one ListOffsets round per time for all
    partitions (the request count does not grow with the number of groups). A time after the
    last record has no offset (-1): the log ended where it ends now."""
    out: dict[TopicPartition, list[LogEnd]] = {tp: [] for tp in partitions}
    if not partitions:
        return out
    for ts in times_ms:
        answer = admin.list_offsets(partitions, ts)
        for tp in partitions:
            offset = answer[tp].offset if tp in answer else -1
            if offset < 0:
                offset = now_ends[tp]
            out[tp].append(LogEnd(ts, offset))
    return out
