"""The health rules of `kgroup check`: Burrow's evaluator, the user's thresholds, drain ETA and
retention headroom (the nearer of `retention.ms` and `retention.bytes`). Pure: windows in,
verdicts out (`now_ms` is passed in).

Burrow's partition rules (linkedin/Burrow core/internal/evaluator/caching.go,
`calculatePartitionStatus`, and the wiki page "Consumer Lag Evaluation Rules"), checked in this
order, the first that holds decides:

1. the current lag is 0: OK, whatever the window says;
2. STOP when the time since the last commit is greater than the time between the first and the
   last commit of the window (`now - last > last - first`), unless one of the recent log-end
   offsets is at or below the last committed offset (the consumer was caught up recently,
   Burrow's `checkIfRecentLagZero`);
3. the lag was 0 at some commit of the window: OK;
4. REWIND when a committed offset is lower than the one before it;
5. STALL when every commit of the window has the same offset (with lag, by rule 1);
6. WARN when the lag never decreases from one commit to the next (commits of unknown lag are
   skipped), i.e. the consumer moves but falls behind;
7. otherwise OK.

A group's status is the worst of its partitions', STOP/STALL/REWIND counting as ERR
(`evaluateConsumerStatus`). kgroup adds: a group with no members and no commit in the window
is STOP; a partition with lag and no commit in the whole window is STOP (rule 2 in the limit).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from kgroup.check.model import (
    Drain,
    GroupVerdict,
    LogEnd,
    MemberRollup,
    Observation,
    PartitionVerdict,
    PartitionWindow,
    Status,
    Thresholds,
    TopicRetention,
)
from kgroup.core.models import tp_order

# --- Burrow's rules, one function each (caching.go names in the docstrings) -------


def lag_zero_in_window(observations: Sequence[Observation]) -> bool:
    """Rule 1 of the wiki (`isLagAlwaysNotZero` negated): a commit of the window had lag 0."""
    return any(o.lag == 0 for o in observations)


def offsets_rewind(observations: Sequence[Observation]) -> bool:
    """`checkIfOffsetsRewind`: an offset lower than the one committed before it."""
    return any(b.offset < a.offset for a, b in pairwise(observations))


def offsets_stopped(observations: Sequence[Observation], now_ms: int) -> bool:
    """`checkIfOffsetsStopped`: now - last commit > last - first commit (strictly)."""
    first = observations[0].timestamp_ms
    last = observations[-1].timestamp_ms
    return now_ms - last > last - first


def offsets_stalled(observations: Sequence[Observation]) -> bool:
    """`checkIfOffsetsStalled`: every commit of the window has the same offset."""
    return all(o.offset == observations[0].offset for o in observations)


def lag_not_decreasing(observations: Sequence[Observation]) -> bool:
    """`checkIfLagNotDecreasing`: no known lag is lower than the known lag before it."""
    previous: int | None = None
    for o in observations:
        if o.lag is None:
            continue
        if previous is not None and o.lag < previous:
            return False
        previous = o.lag
    return True


def recent_lag_zero(observations: Sequence[Observation], log_ends: Sequence[int]) -> bool:
    """`checkIfRecentLagZero`: a recent log-end offset is at or below the last commit."""
    return bool(log_ends) and min(log_ends) <= observations[-1].offset


def burrow_status(
    observations: Sequence[Observation],
    log_ends: Sequence[int],
    current_lag: int,
    now_ms: int,
) -> tuple[Status, str]:
    """Burrow's status of one partition and the name of the rule that decided it."""
    if current_lag <= 0:
        return Status.OK, "current-lag-zero"
    if not observations:
        return Status.STOP, "no-commit-in-window"
    if offsets_stopped(observations, now_ms) and not recent_lag_zero(observations, log_ends):
        return Status.STOP, "stopped"
    if lag_zero_in_window(observations):
        return Status.OK, "lag-zero-in-window"
    if offsets_rewind(observations):
        return Status.REWIND, "rewind"
    if offsets_stalled(observations):
        return Status.STALL, "stalled"
    if lag_not_decreasing(observations):
        return Status.WARN, "lag-not-decreasing"
    return Status.OK, "lag-decreasing"


_REASONS = {
    "current-lag-zero": "caught up (lag 0)",
    "no-commit-in-window": "no commit in the whole window while records wait",
    "stopped": "no commit for longer than the window's commits span",
    "lag-zero-in-window": "lag was 0 within the window",
    "rewind": "the committed offset went backwards",
    "stalled": "commits keep the same offset while records wait",
    "lag-not-decreasing": "offsets move but the lag never decreases: falling behind",
    "lag-decreasing": "the lag decreases",
    "no-committed-offset": "no committed offset: nothing to evaluate",
}


# --- beyond Burrow ------------------------------------------------------------


def drain(
    observations: Sequence[Observation],
    log_ends: Sequence[LogEnd],
    lag: int | None,
    positions: Sequence[LogEnd] = (),
) -> Drain:
    """Consumption and production rates over the window, and what they mean for the lag.

    Consumption: committed offsets moved per second between the first and last position
    (`positions` when given, else the commits).
    Production: log-end offsets moved per second between the first and last log-end sample.
    ETA: lag / (consumption - production) when the lag shrinks; 0 when caught up.
    """
    consume = _rate(positions or observations)
    produce = _rate(log_ends)
    if lag is not None and lag <= 0:
        return Drain(consume, produce, 0, None)
    if consume is None or produce is None or lag is None:
        return Drain(consume, produce, None, None)
    net = consume - produce
    if net > 0:
        return Drain(consume, produce, int(lag / net * 1000), None)
    return Drain(consume, produce, None, abs(net))  # net <= 0: the lag grows (or stands)


def _rate(points: Sequence[LogEnd] | Sequence[Observation]) -> float | None:
    """Offsets per second from the first point to the last (None: fewer than two, or no time)."""
    if len(points) < 2:
        return None
    first, last = points[0], points[-1]
    if last.timestamp_ms <= first.timestamp_ms:
        return None
    return (last.offset - first.offset) * 1000 / (last.timestamp_ms - first.timestamp_ms)


def headroom_ms(
    retention: TopicRetention | None,
    lag: int | None,
    lag_ms: int | None,
) -> int | None:
    """Time until the first unconsumed record is old enough for time retention to delete it:
    `retention.ms` minus the record's age (`describe --lag-time`). None when nothing is at risk
    (no lag, compacted topic, retention forever) or the age is unknown. Kafka deletes whole
    segments once their newest record is older than retention.ms (LogManager / UnifiedLog
    `deleteRetentionMsBreachedSegments`), so the real deletion comes at this time or later:
    the figure errs on the safe side."""
    if retention is None or lag is None or lag <= 0 or lag_ms is None:
        return None
    if not retention.delete_policy or retention.retention_ms is None:
        return None
    if retention.retention_ms < 0:
        return None
    return retention.retention_ms - lag_ms


def size_headroom_ms(
    retention: TopicRetention | None,
    *,
    lag: int | None,
    log_start: int | None,
    log_end: int | None,
    size_bytes: int | None,
    produce_rate: float | None,
) -> int | None:
    """Time until `retention.bytes` deletes the first unconsumed record: an estimate.

    Kafka deletes whole segments from the start of the log while the partition is larger than
    retention.bytes (UnifiedLog `deleteRetentionSizeBreachedSegments`: a segment goes while
    size - segment size >= retention.bytes; retention.bytes applies per replica, -1 = no
    limit). The unconsumed records are at risk once the bytes appended after them push the size
    over, so the bytes that can still be appended are retention.bytes minus the bytes from the
    committed offset to the log end, estimated as lag x the average record size (partition
    size / records kept); the time is that over the production rate in bytes per second (the
    window's records per second x the average size). Estimate: segment granularity means the
    real deletion comes later (a whole segment must fit in the excess), and records vary in
    size. 0 when the unconsumed bytes alone exceed the limit; None when nothing is at risk (no
    size limit, compacted, no lag), the size is unknown, or nothing is produced.
    """
    if retention is None or not retention.delete_policy:
        return None
    limit = retention.retention_bytes
    if limit is None or limit < 0 or lag is None or lag <= 0 or size_bytes is None:
        return None
    if log_start is None or log_end is None or log_end <= log_start:
        return None
    per_record = size_bytes / (log_end - log_start)
    left = limit - lag * per_record
    if left <= 0:
        return 0
    if produce_rate is None or produce_rate <= 0 or per_record <= 0:
        return None
    return int(left / (produce_rate * per_record) * 1000)


def _nearer(time_ms: int | None, size_ms: int | None) -> tuple[int | None, str | None]:
    """The smaller headroom and the limit it comes from (time wins a tie)."""
    if size_ms is not None and (time_ms is None or size_ms < time_ms):
        return size_ms, "size"
    if time_ms is not None:
        return time_ms, "time"
    return None, None


def evaluate_partition(
    window: PartitionWindow,
    now_ms: int,
    thresholds: Thresholds,
    retention: TopicRetention | None = None,
) -> PartitionVerdict:
    """Burrow's status, then the thresholds, the data-loss checks, drain and headroom."""
    observations = window.observations
    lag = None
    if window.committed is not None and window.log_end is not None:
        lag = max(0, window.log_end - window.committed)
    complete = min(1.0, len(observations) / window.slots) if window.slots > 0 else 1.0
    if lag is None:
        status, rule = Status.OK, "no-committed-offset"
    else:
        status, rule = burrow_status(observations, [e.offset for e in window.log_ends], lag, now_ms)
    reason = _REASONS[rule]
    rates = drain(observations, window.log_ends, lag, window.positions)
    by_time = headroom_ms(retention, lag, window.lag_ms)
    by_size = size_headroom_ms(
        retention,
        lag=lag,
        log_start=window.log_start,
        log_end=window.log_end,
        size_bytes=window.size_bytes,
        produce_rate=rates.produce_rate,
    )
    room, room_by = _nearer(by_time, by_size)
    raised = _beyond_burrow(window, lag, room, room_by, thresholds)
    if raised is not None and status < Status.ERR:
        status, rule, reason = Status.ERR, raised[0], raised[1]
    return PartitionVerdict(
        topic=window.topic,
        partition=window.partition,
        status=status,
        rule=rule,
        reason=reason,
        committed=window.committed,
        log_start=window.log_start,
        log_end=window.log_end,
        lag=lag,
        lag_ms=window.lag_ms,
        complete=complete,
        drain=rates,
        headroom_ms=room,
        owner=window.owner,
        observations=observations,
        log_ends=window.log_ends,
        headroom_by=room_by,
        headroom_time_ms=by_time,
        headroom_size_ms=by_size,
        size_bytes=window.size_bytes,
    )


def _beyond_burrow(
    window: PartitionWindow,
    lag: int | None,
    room: int | None,
    room_by: str | None,
    limits: Thresholds,
) -> tuple[str, str] | None:
    """The first of kgroup's own ERR rules that holds: (rule, reason), or None."""
    if (
        window.committed is not None
        and window.log_start is not None
        and window.committed < window.log_start
    ):
        lost = window.log_start - window.committed
        return "data-lost", f"{lost} records were deleted before the group read them"
    if limits.min_headroom_ms is not None and room is not None and room < limits.min_headroom_ms:
        from kgroup.core.timefmt import format_duration_ms

        left = format_duration_ms(max(0, room) // 1000 * 1000)  # whole seconds
        what = (
            "retention.bytes deletes unconsumed records in about"
            if room_by == "size"
            else "retention deletes unconsumed records in"
        )
        return (
            "min-headroom",
            f"{what} {left} (< --min-headroom {format_duration_ms(limits.min_headroom_ms)})",
        )
    if limits.max_lag is not None and lag is not None and lag > limits.max_lag:
        return "max-lag", f"lag {lag} > --max-lag {limits.max_lag}"
    if (
        limits.max_lag_ms is not None
        and window.lag_ms is not None
        and window.lag_ms > limits.max_lag_ms
    ):
        from kgroup.core.timefmt import format_duration_ms

        return (
            "max-lag-time",
            f"lag time {format_duration_ms(window.lag_ms)} > --max-lag-time "
            f"{format_duration_ms(limits.max_lag_ms)}",
        )
    return None


# --- group level --------------------------------------------------------------


def group_status(partitions: Sequence[PartitionVerdict]) -> tuple[Status, PartitionVerdict | None]:
    """Burrow's group status: the worst partition's, STOP/STALL/REWIND reported as ERR; and
    the partition that decided it (None when all are OK)."""
    worst = max(partitions, key=lambda p: p.status, default=None)
    if worst is None or worst.status == Status.OK:
        return Status.OK, None
    return min(worst.status, Status.ERR), worst


def member_rollup(
    partitions: Sequence[PartitionVerdict], members: Sequence[tuple[str, str | None, str | None]]
) -> tuple[tuple[MemberRollup, ...], float | None]:
    """Per member (consumer_id, client_id, host): partitions owned, total lag, hottest partition;
    and the skew: the largest member lag over the mean member lag (None without lag)."""
    rollups = []
    for consumer_id, client_id, host in members:
        owned = [p for p in partitions if p.owner and p.owner.consumer_id == consumer_id]
        lags = [p.lag for p in owned if p.lag is not None]
        hottest = max(
            (p for p in owned if p.lag is not None), key=lambda p: p.lag or 0, default=None
        )
        rollups.append(
            MemberRollup(
                consumer_id=consumer_id,
                client_id=client_id,
                host=host,
                partitions=len(owned),
                total_lag=sum(lags) if lags else None,
                hottest=hottest,
            )
        )
    totals = [r.total_lag for r in rollups if r.total_lag is not None]
    skew = None
    if totals and len(totals) == len(rollups) and sum(totals) > 0:
        skew = max(totals) / (sum(totals) / len(totals))
    return tuple(rollups), skew


def evaluate_group(
    group: str,
    windows: Sequence[PartitionWindow],
    *,
    now_ms: int,
    thresholds: Thresholds,
    retention: dict[str, TopicRetention] | None = None,
    members: Sequence[tuple[str, str | None, str | None]] = (),
    state: str | None = None,
    group_type: str | None = None,
    source: str = "sampling",
    notes: Sequence[str] = (),
) -> GroupVerdict:
    """A group's verdict from its partitions' windows."""
    of_topic = (retention or {}).get
    verdicts = tuple(
        [
            evaluate_partition(w, now_ms, thresholds, of_topic(w.topic))
            for w in sorted(windows, key=tp_order)
        ]
    )
    status, decider = group_status(verdicts)
    if decider is None:
        rule, reason = "all-partitions-ok", "every partition is OK"
    else:
        where = f"{decider.topic}:{decider.partition}"
        rule = decider.rule
        reason = f"{decider.status.name} on {where}: {decider.reason}"
    if not members and verdicts and not any(w.has_commits for w in windows):
        status, rule = Status.STOP, "no-members-no-commits"
        reason = "no members and no commit in the window"
    rollups, skew = member_rollup(verdicts, members)
    lags = [p.lag for p in verdicts if p.lag is not None]
    completes = [p.complete for p in verdicts]
    return GroupVerdict(
        group=group,
        status=status,
        rule=rule,
        reason=reason,
        source=source,
        state=state,
        type=group_type,
        partitions=verdicts,
        members=rollups,
        skew=skew,
        total_lag=sum(lags) if lags else None,
        complete=sum(completes) / len(completes) if completes else 0.0,
        notes=tuple(notes),
    )


def fails(status: Status, fail_on: str) -> bool:
    """Whether a group status fails the check (`--fail-on warn|err`); NOTFOUND is not health."""
    if status == Status.NOTFOUND:
        return False
    return status >= (Status.WARN if fail_on == "warn" else Status.ERR)
