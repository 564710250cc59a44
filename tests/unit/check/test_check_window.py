"""Observation windows from commits (history) and from samples (sampling)."""

from __future__ import annotations

from kgroup.check.model import LogEnd, Observation
from kgroup.check.window import from_commits, from_samples, log_end_at


def test_a_commit_gets_its_lag_from_the_log_end_known_at_its_time() -> None:
    ends = [LogEnd(1000, 50), LogEnd(2000, 80), LogEnd(3000, 90)]
    assert log_end_at(ends, 999) is None
    assert log_end_at(ends, 1000) == 50
    assert log_end_at(ends, 2500) == 80
    obs = from_commits([(2500, 70), (1500, 40)], ends, samples=10, window_ms=10_000)
    assert obs == (Observation(1500, 40, 10), Observation(2500, 70, 10))


def test_a_commit_beyond_the_known_log_end_has_lag_zero_not_negative() -> None:
    assert from_commits([(2500, 85)], [LogEnd(2000, 80)], samples=5, window_ms=5000) == (
        Observation(2500, 85, 0),
    )


def test_close_commits_keep_the_newest_per_slice_and_at_most_samples() -> None:
    # window 10 s, 5 samples: slices of 2 s; commits every 500 ms for 12 s
    commits = [(t, t // 100) for t in range(0, 12_000, 500)]
    obs = from_commits(commits, [LogEnd(0, 0)], samples=5, window_ms=10_000)
    assert [o.timestamp_ms for o in obs] == [3500, 5500, 7500, 9500, 11500]


def test_samples_of_an_unowned_partition_only_record_changes() -> None:
    times, offsets, ends = [0, 1000, 2000, 3000], [10, 10, 12, 12], [20, 25, 30, 30]
    assert from_samples(times, offsets, ends, alive=False) == (
        Observation(0, 10, 10),
        Observation(2000, 12, 18),
    )


def test_samples_of_an_owned_partition_count_each_as_a_commit() -> None:
    times, offsets, ends = [0, 1000, 2000], [10, 10, None], [20, 25, 30]
    assert from_samples(times, offsets, ends, alive=True) == (
        Observation(0, 10, 10),
        Observation(1000, 10, 15),
    )
