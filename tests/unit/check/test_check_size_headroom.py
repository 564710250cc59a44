"""Retention headroom from `retention.bytes` (issue #14): the size estimate, and the smaller of
the time and size headrooms deciding (`headroom_by`). Numbers are constructed by hand."""

from __future__ import annotations

from kgroup.check.model import LogEnd, Observation, PartitionWindow, Status, Thresholds
from kgroup.check.model import TopicRetention as R
from kgroup.check.rules import evaluate_partition, size_headroom_ms

HOUR = 3_600_000

# A partition of 1000 records (offsets 0-999 kept) in 1,000,000 bytes: 1000 bytes a record.
# retention.bytes 600,000; lag 100 records = 100,000 bytes after the committed offset, so
# 500,000 bytes can still be appended; at 10 records/s = 10,000 bytes/s that is 50 s.
SIX = R(retention_ms=-1, retention_bytes=600_000)


def room(retention: R | None = SIX, **kw: object) -> int | None:
    args: dict = {
        "lag": 100,
        "log_start": 0,
        "log_end": 1000,
        "size_bytes": 1_000_000,
        "produce_rate": 10.0,
    }
    args.update(kw)
    return size_headroom_ms(retention, **args)


def test_bytes_left_before_the_committed_data_goes_over_the_production_rate() -> None:
    assert room() == 50_000
    assert room(produce_rate=20.0) == 25_000  # twice the rate, half the time
    # 500 records kept: 2000 bytes each; 200,000 after the commit, 400,000 left at 20,000 B/s
    assert room(log_start=500) == 20_000


def test_data_already_over_the_limit_has_no_headroom_whatever_the_production() -> None:
    # 700 records after the committed offset = 700,000 bytes > retention.bytes
    assert room(lag=700) == 0
    assert room(lag=700, produce_rate=0.0) == 0
    assert room(lag=700, produce_rate=None) == 0


def test_no_size_limit_no_lag_or_no_production_is_no_figure() -> None:
    assert room(R(retention_bytes=-1)) is None  # Kafka's default: no size limit
    assert room(R(retention_bytes=None)) is None  # not configured / unknown
    assert room(None) is None
    assert room(R(retention_bytes=600_000, delete_policy=False)) is None  # compacted
    assert room(lag=0) is None  # nothing unconsumed
    assert room(produce_rate=0.0) is None  # nothing pushes the log over the limit
    assert room(produce_rate=None) is None
    assert room(size_bytes=None) is None  # DescribeLogDirs not answered
    assert room(log_end=0) is None  # empty log: no average record size


def window(size_bytes: int | None, lag_ms: int = HOUR) -> PartitionWindow:
    # committed 890 -> 900 (Burrow: WARN, the lag grows), log end 900 -> 1000 over 10 s:
    # 10 records/s; log start 0, 1000 records kept; lag 100
    obs = (Observation(0, 890, 10), Observation(10_000, 900, 100))
    ends = (LogEnd(0, 900), LogEnd(10_000, 1000))
    return PartitionWindow(
        "t", 0, obs, ends, 900, 0, 1000, lag_ms=lag_ms, slots=2, size_bytes=size_bytes
    )


def test_the_smaller_headroom_is_reported_and_named() -> None:
    both = R(retention_ms=3 * HOUR, retention_bytes=600_000)
    by_size = evaluate_partition(window(1_000_000), 11_000, Thresholds(), both)
    assert (by_size.headroom_ms, by_size.headroom_by) == (50_000, "size")
    assert (by_size.headroom_time_ms, by_size.headroom_size_ms) == (2 * HOUR, 50_000)

    roomy = R(retention_ms=3 * HOUR, retention_bytes=10**12)
    by_time = evaluate_partition(window(1_000_000), 11_000, Thresholds(), roomy)
    assert (by_time.headroom_ms, by_time.headroom_by) == (2 * HOUR, "time")

    unknown_size = evaluate_partition(window(None), 11_000, Thresholds(), both)
    assert (unknown_size.headroom_ms, unknown_size.headroom_by) == (2 * HOUR, "time")

    size_only = R(retention_ms=-1, retention_bytes=600_000)
    alone = evaluate_partition(window(1_000_000), 11_000, Thresholds(), size_only)
    assert (alone.headroom_ms, alone.headroom_by) == (50_000, "size")

    neither = evaluate_partition(window(1_000_000), 11_000, Thresholds(), R(-1, -1))
    assert (neither.headroom_ms, neither.headroom_by) == (None, None)


def test_min_headroom_turns_err_by_size_and_says_so() -> None:
    both = R(retention_ms=3 * HOUR, retention_bytes=600_000)
    low = evaluate_partition(window(1_000_000), 11_000, Thresholds(min_headroom_ms=HOUR), both)
    assert (low.status, low.rule) == (Status.ERR, "min-headroom")
    assert low.reason == (
        "retention.bytes deletes unconsumed records in about 50s (< --min-headroom 1h)"
    )
    fine = evaluate_partition(window(1_000_000), 11_000, Thresholds(min_headroom_ms=40_000), both)
    assert fine.rule != "min-headroom"


def test_data_lost_still_comes_first() -> None:
    both = R(retention_ms=3 * HOUR, retention_bytes=600_000)
    obs = (Observation(0, 90, 810), Observation(10_000, 100, 900))
    gone = PartitionWindow(
        "t", 0, obs, (LogEnd(0, 900), LogEnd(10_000, 1000)), 100, 200, 1000,
        lag_ms=HOUR, slots=2, size_bytes=1_000_000,
    )  # fmt: skip
    verdict = evaluate_partition(gone, 11_000, Thresholds(min_headroom_ms=HOUR), both)
    assert (verdict.status, verdict.rule, verdict.headroom_ms) == (Status.ERR, "data-lost", 0)


def test_json_says_which_limit_decides_and_both_figures() -> None:
    from types import SimpleNamespace

    from kgroup.check.rules import evaluate_group
    from kgroup.render.check import check_output

    both = R(retention_ms=3 * HOUR, retention_bytes=600_000)
    g = evaluate_group("g", [window(1_000_000)], now_ms=11_000, thresholds=Thresholds(),
                       retention={"t": both})  # fmt: skip
    result = SimpleNamespace(groups=[g], now_ms=11_000, source="sampling")
    request = SimpleNamespace(window_ms=10_000, samples=2, fail_on="err", thresholds=Thresholds())
    out = check_output(result, request)
    (p,) = out.document["groups"][0]["partitions"]
    assert (p["headroom_ms"], p["headroom_by"]) == (50_000, "size")
    assert (p["headroom_time_ms"], p["headroom_size_ms"]) == (2 * HOUR, 50_000)
    assert p["partition_size_bytes"] == 1_000_000
    assert out.rows[0]["headroom_ms"] == 50_000
