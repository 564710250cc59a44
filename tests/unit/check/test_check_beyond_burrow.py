"""kgroup's additions to Burrow: drain ETA, retention headroom, data loss, member rollup."""

from __future__ import annotations

import pytest

from kgroup.check.model import (
    LogEnd,
    Observation,
    Owner,
    PartitionWindow,
    Status,
    Thresholds,
    TopicRetention,
)
from kgroup.check.rules import drain, evaluate_group, evaluate_partition, headroom_ms

HOUR = 3_600_000


def test_drain_eta_is_lag_over_the_net_consumption_rate() -> None:
    # committed 1000 -> 2000 in 10 s (100/s); log end 1500 -> 2000 in 10 s (50/s); lag 500
    obs = [Observation(0, 1000, 500), Observation(10_000, 2000, 0)]
    ends = [LogEnd(0, 1500), LogEnd(10_000, 2000)]
    result = drain(obs, ends, 500)
    assert (result.consume_rate, result.produce_rate) == (100.0, 50.0)
    assert result.eta_ms == 10_000  # 500 records at 50/s net
    assert result.behind_per_s is None


def test_falling_behind_gives_the_rate_instead_of_an_eta() -> None:
    obs = [Observation(0, 1000, 0), Observation(10_000, 1500, 500)]
    ends = [LogEnd(0, 1000), LogEnd(10_000, 2000)]
    result = drain(obs, ends, 500)
    assert result.eta_ms is None
    assert result.behind_per_s == 50.0


def test_a_standing_lag_is_not_draining_at_zero_per_second() -> None:
    ends = [LogEnd(0, 15), LogEnd(10_000, 15)]
    result = drain([Observation(0, 10, 5), Observation(10_000, 10, 5)], ends, 5)
    assert (result.eta_ms, str(result.behind_per_s)) == (None, "0.0")  # not "-0.0"


def test_caught_up_drains_in_zero_and_unknown_rates_give_no_eta() -> None:
    assert drain([Observation(0, 10, 0)], [LogEnd(0, 10)], 0).eta_ms == 0
    single = drain([Observation(0, 10, 5)], [LogEnd(0, 15)], 5)
    assert (single.consume_rate, single.eta_ms, single.behind_per_s) == (None, None, None)


def test_headroom_is_retention_minus_the_age_of_the_first_unconsumed_record() -> None:
    three_hours = TopicRetention(retention_ms=3 * HOUR)
    assert headroom_ms(three_hours, lag=10, lag_ms=HOUR) == 2 * HOUR
    assert headroom_ms(three_hours, lag=0, lag_ms=0) is None  # nothing at risk
    assert headroom_ms(TopicRetention(retention_ms=-1), lag=10, lag_ms=HOUR) is None
    compacted = TopicRetention(retention_ms=3 * HOUR, delete_policy=False)
    assert headroom_ms(compacted, lag=10, lag_ms=HOUR) is None
    assert headroom_ms(three_hours, lag=10, lag_ms=None) is None


def lagging(committed: int, log_start: int, lag_ms: int) -> PartitionWindow:
    obs = (Observation(0, committed, 50), Observation(10_000, committed + 50, 40))
    return PartitionWindow(
        "t", 0, obs, (LogEnd(0, committed + 50),), committed + 50, log_start,
        committed + 90, lag_ms=lag_ms, slots=2,
    )  # fmt: skip


def test_min_headroom_turns_the_partition_err() -> None:
    retention = TopicRetention(retention_ms=3 * HOUR)
    ok = evaluate_partition(lagging(100, 0, HOUR), 11_000, Thresholds(), retention)
    assert (ok.status, ok.headroom_ms) == (Status.OK, 2 * HOUR)
    low = evaluate_partition(
        lagging(100, 0, HOUR), 11_000, Thresholds(min_headroom_ms=3 * HOUR), retention
    )
    assert (low.status, low.rule) == (Status.ERR, "min-headroom")
    assert low.reason == "retention deletes unconsumed records in 2h (< --min-headroom 3h)"


def test_a_committed_offset_below_the_log_start_is_data_lost() -> None:
    verdict = evaluate_partition(lagging(100, 200, HOUR), 11_000, Thresholds())
    assert (verdict.status, verdict.rule) == (Status.ERR, "data-lost")
    assert verdict.reason == "50 records were deleted before the group read them"


def owned(partition: int, lag: int, member: str) -> PartitionWindow:
    obs = (Observation(0, 100, lag + 10), Observation(10_000, 110, lag))
    return PartitionWindow(
        "t", partition, obs, (LogEnd(0, 110 + lag),), 110, 0, 110 + lag,
        owner=Owner(member), slots=2,
    )  # fmt: skip


def test_member_rollup_total_hottest_and_skew() -> None:
    verdict = evaluate_group(
        "g",
        [owned(0, 10, "m1"), owned(1, 30, "m1"), owned(2, 20, "m2"), owned(3, 0, "m3")],
        now_ms=11_000,
        thresholds=Thresholds(),
        members=[("m1", "c1", "/10.0.0.1"), ("m2", "c2", "/10.0.0.2"), ("m3", None, None)],
    )
    by_id = {m.consumer_id: m for m in verdict.members}
    assert (by_id["m1"].partitions, by_id["m1"].total_lag) == (2, 40)
    assert by_id["m1"].hottest is not None and by_id["m1"].hottest.partition == 1
    assert (by_id["m2"].total_lag, by_id["m3"].total_lag) == (20, 0)
    assert verdict.skew == pytest.approx(40 / 20)  # max 40 over the mean (40+20+0)/3
    assert verdict.total_lag == 60


def test_members_without_known_assignments_have_unknown_lag_and_no_skew() -> None:
    verdict = evaluate_group(
        "g", [owned(0, 10, "other")], now_ms=11_000, thresholds=Thresholds(),
        members=[("m1", None, None)],
    )  # fmt: skip
    assert verdict.members[0].total_lag is None
    assert verdict.skew is None
