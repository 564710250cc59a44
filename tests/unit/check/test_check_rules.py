"""Burrow's evaluation rules, with the windows of Burrow's own evaluator test cases
(linkedin/Burrow core/internal/evaluator/caching_test.go, cases 0-11; times there are ms for
commits and seconds for "now", here all ms), plus the wiki's WARN case and kgroup's additions."""

from __future__ import annotations

import pytest

from kgroup.check.model import LogEnd, Observation, PartitionWindow, Status, Thresholds
from kgroup.check.rules import (
    burrow_status,
    evaluate_group,
    evaluate_partition,
    fails,
    group_status,
    lag_not_decreasing,
    lag_zero_in_window,
    offsets_rewind,
    offsets_stalled,
    offsets_stopped,
    recent_lag_zero,
)


def window(*rows: tuple[int, int, int | None]) -> list[Observation]:
    """(offset, timestamp ms, lag) rows, as Burrow's tests write them."""
    return [Observation(ts, offset, lag) for offset, ts, lag in rows]


ADVANCING_FROM_ZERO = window(
    (1000, 100_000, 0), (2000, 200_000, 50), (3000, 300_000, 100), (4000, 400_000, 150),
    (5000, 500_000, 200),
)  # fmt: skip
ADVANCING_WITH_LAG = window(
    (1000, 100_000, 50), (2000, 200_000, 100), (3000, 300_000, 150), (4000, 400_000, 200),
    (5000, 500_000, 250),
)  # fmt: skip
SAME_OFFSET_FROM_ZERO = window(
    (1000, 100_000, 0), (1000, 200_000, 50), (1000, 300_000, 100), (1000, 400_000, 150),
    (1000, 500_000, 200),
)  # fmt: skip
SAME_OFFSET_WITH_LAG = window(
    (1000, 100_000, 100), (1000, 200_000, 150), (1000, 300_000, 200), (1000, 400_000, 250),
    (1000, 500_000, 300),
)  # fmt: skip
SAME_OFFSET_SAME_LAG = window(*[(1000, t * 100_000, 100) for t in range(1, 6)])
REWOUND = window(
    (1000, 100_000, 100), (2000, 200_000, 150), (3000, 300_000, 200), (2000, 400_000, 1250),
    (4000, 500_000, 300),
)  # fmt: skip
FAST_COMMITS = window(*[(792748079 + i, 1512224618356 + i * 1003, 0) for i in range(15)])
WITH_UNKNOWN_LAGS = window(
    (1000, 100_000, 0), (1500, 150_000, None), (2000, 200_000, 50), (2500, 250_000, None),
    (3000, 300_000, 100), (3500, 350_000, None), (4000, 400_000, 150), (4500, 450_000, None),
    (5000, 500_000, 200), (5500, 550_000, None),
)  # fmt: skip

# (case, window, log ends, current lag, now ms, expected status, expected rule)
BURROW_CASES = [
    (0, ADVANCING_FROM_ZERO, [5200], 200, 600_000, Status.OK, "lag-zero-in-window"),
    # now - last (400 s) equals last - first: not greater, so not stopped
    (1, ADVANCING_FROM_ZERO, [5200], 200, 900_000, Status.OK, "lag-zero-in-window"),
    # stopped although the window starts at lag 0 (Burrow #290)
    (2, ADVANCING_FROM_ZERO, [5200], 200, 1_000_000, Status.STOP, "stopped"),
    (3, ADVANCING_WITH_LAG, [5250], 250, 1_000_000, Status.STOP, "stopped"),
    (4, SAME_OFFSET_FROM_ZERO, [1200], 200, 600_000, Status.OK, "lag-zero-in-window"),
    (5, SAME_OFFSET_WITH_LAG, [1300], 300, 600_000, Status.STALL, "stalled"),
    (6, SAME_OFFSET_SAME_LAG, [1100], 100, 600_000, Status.STALL, "stalled"),
    # rewind is worse than the decreasing lag it also shows
    (7, REWOUND, [4300], 300, 600_000, Status.REWIND, "rewind"),
    # the current lag is 0: OK although the timestamps say stopped
    (8, ADVANCING_WITH_LAG, [5250], 0, 1_000_000, Status.OK, "current-lag-zero"),
    # stopped: current lag 931, every recent log end beyond the last commit (#290)
    (
        9,
        FAST_COMMITS,
        [792749024, 792749000, 792748800, 792748600, 792748500],
        931,
        1512224650_000,
        Status.STOP,
        "stopped",
    ),
    # a recent log end at the last commit: caught up recently, not stopped yet (#303)
    (
        10,
        FAST_COMMITS,
        [792748094, 792748093, 792748093, 792748093],
        1,
        1512224650_000,
        Status.OK,
        "lag-zero-in-window",
    ),
    # commits of unknown lag change nothing (case 0 again)
    (11, WITH_UNKNOWN_LAGS, [5700], 200, 600_000, Status.OK, "lag-zero-in-window"),
]


@pytest.mark.parametrize(
    ("case", "obs", "ends", "lag", "now", "status", "rule"),
    BURROW_CASES,
    ids=[f"burrow-case-{c[0]}" for c in BURROW_CASES],
)
def test_burrow_cases(case, obs, ends, lag, now, status, rule) -> None:
    assert burrow_status(obs, ends, lag, now) == (status, rule)


# The single rules of Burrow's table (caching_test.go expectations per case).
def test_single_rules_as_burrow_tabulates_them() -> None:
    assert lag_zero_in_window(ADVANCING_FROM_ZERO)
    assert not lag_zero_in_window(ADVANCING_WITH_LAG)
    assert offsets_rewind(REWOUND) and not offsets_rewind(ADVANCING_WITH_LAG)
    assert not offsets_stopped(ADVANCING_FROM_ZERO, 900_000)
    assert offsets_stopped(ADVANCING_FROM_ZERO, 1_000_000)
    assert offsets_stalled(SAME_OFFSET_WITH_LAG) and not offsets_stalled(REWOUND)
    assert lag_not_decreasing(ADVANCING_WITH_LAG) and not lag_not_decreasing(REWOUND)
    assert lag_not_decreasing(WITH_UNKNOWN_LAGS)
    assert recent_lag_zero(FAST_COMMITS, [792748094, 792748093])
    assert not recent_lag_zero(FAST_COMMITS, [792749024])


def test_warn_when_offsets_move_but_lag_never_decreases() -> None:
    # the wiki's WARN: the consumer commits, offsets increase, the lag grows at every commit
    assert burrow_status(ADVANCING_WITH_LAG, [5250], 250, 600_000) == (
        Status.WARN,
        "lag-not-decreasing",
    )


def test_ok_when_the_lag_decreases_somewhere() -> None:
    obs = window((1000, 100_000, 300), (2000, 200_000, 200), (3000, 300_000, 250))
    assert burrow_status(obs, [3250], 250, 350_000) == (Status.OK, "lag-decreasing")


def test_lag_without_any_commit_in_the_window_is_stop() -> None:
    assert burrow_status([], [500], 20, 600_000) == (Status.STOP, "no-commit-in-window")


def test_precedence_stop_before_rewind_before_stall_before_warn() -> None:
    # A rewound window whose last commit is old: Burrow checks STOP first.
    assert burrow_status(REWOUND, [4300], 300, 2_000_000)[0] == Status.STOP
    # A window both stalled and with non-decreasing lag: STALL is checked before WARN.
    assert burrow_status(SAME_OFFSET_WITH_LAG, [1300], 300, 600_000)[0] == Status.STALL


def part(
    offsets: list[tuple[int, int, int]],
    committed: int,
    log_end: int,
    *,
    log_start: int = 0,
    lag_ms: int | None = None,
) -> PartitionWindow:
    return PartitionWindow(
        topic="t",
        partition=0,
        observations=tuple(window(*offsets)),
        log_ends=(LogEnd(100_000, log_end),),
        committed=committed,
        log_start=log_start,
        log_end=log_end,
        lag_ms=lag_ms,
        slots=5,
    )


def test_max_lag_turns_an_ok_partition_err() -> None:
    healthy = [(1000, 100_000, 300), (2000, 200_000, 200), (3000, 300_000, 250)]
    ok = evaluate_partition(part(healthy, 3000, 3250), 350_000, Thresholds())
    assert (ok.status, ok.rule) == (Status.OK, "lag-decreasing")
    over = evaluate_partition(part(healthy, 3000, 3250), 350_000, Thresholds(max_lag=249))
    assert (over.status, over.rule, over.reason) == (
        Status.ERR,
        "max-lag",
        "lag 250 > --max-lag 249",
    )
    at = evaluate_partition(part(healthy, 3000, 3250), 350_000, Thresholds(max_lag=250))
    assert at.status == Status.OK


def test_max_lag_time_turns_a_partition_err_but_never_hides_a_worse_status() -> None:
    healthy = [(1000, 100_000, 300), (2000, 200_000, 200), (3000, 300_000, 250)]
    over = evaluate_partition(
        part(healthy, 3000, 3250, lag_ms=90_000), 350_000, Thresholds(max_lag_ms=60_000)
    )
    assert (over.status, over.rule) == (Status.ERR, "max-lag-time")
    assert over.reason == "lag time 1m30s > --max-lag-time 1m"
    stalled = [(1000, 100_000, 100), (1000, 200_000, 150), (1000, 300_000, 200)]
    still = evaluate_partition(part(stalled, 1000, 1200), 350_000, Thresholds(max_lag=1))
    assert (still.status, still.rule) == (Status.STALL, "stalled")


def test_a_partition_at_lag_zero_is_ok_whatever_its_window_says() -> None:
    # Burrow's first rule, as evaluate_partition applies it: a rewound window whose last
    # commit is long past (STOP, REWIND by the other rules) is OK once the lag is 0, and a
    # committed offset beyond the log end (truncated log) counts as lag 0
    for committed, log_end in ((4000, 4000), (4500, 4000)):
        verdict = evaluate_partition(
            part(REWOUND_ROWS, committed, log_end), 9_000_000, Thresholds()
        )
        assert (verdict.status, verdict.rule, verdict.reason, verdict.lag) == (
            Status.OK,
            "current-lag-zero",
            "caught up (lag 0)",
            0,
        )


REWOUND_ROWS = [(1000, 100_000, 100), (3000, 300_000, 200), (2000, 400_000, 1250)]


def test_completeness_is_the_share_of_the_window_filled() -> None:
    obs = [(1000, 100_000, 300), (2000, 200_000, 200)]
    verdict = evaluate_partition(part(obs, 2000, 2200), 250_000, Thresholds())
    assert verdict.complete == pytest.approx(2 / 5)


def test_group_status_is_the_worst_partition_with_stop_stall_rewind_as_err() -> None:
    ok = evaluate_partition(part([(1, 1000, 0)], 10, 10), 2000, Thresholds())
    stall = evaluate_partition(
        part([(5, 1000, 5), (5, 2000, 6), (5, 3000, 7)], 5, 12), 3500, Thresholds()
    )
    assert stall.status == Status.STALL
    assert group_status([ok, stall]) == (Status.ERR, stall)
    assert group_status([ok]) == (Status.OK, None)


def test_a_group_without_members_and_without_commits_is_stop() -> None:
    idle = PartitionWindow("t", 0, (), (LogEnd(1000, 10),), 4, 0, 10, slots=5)
    verdict = evaluate_group("g", [idle], now_ms=5000, thresholds=Thresholds(), members=())
    assert (verdict.status, verdict.rule) == (Status.STOP, "no-members-no-commits")
    with_member = evaluate_group(
        "g", [idle], now_ms=5000, thresholds=Thresholds(), members=[("m1", "c", "/h")]
    )
    # a member but no commit for the whole window while records wait: a STOP partition,
    # which Burrow reports as ERR at group level
    assert (with_member.status, with_member.rule) == (Status.ERR, "no-commit-in-window")
    assert with_member.reason.startswith("STOP on t:0")


def test_fail_on_levels() -> None:
    assert not fails(Status.OK, "err") and not fails(Status.WARN, "err")
    assert fails(Status.ERR, "err") and fails(Status.STOP, "err")
    assert fails(Status.WARN, "warn") and not fails(Status.OK, "warn")
    assert not fails(Status.NOTFOUND, "warn")


def test_check_and_describe_order_partitions_alike() -> None:
    # one order of topic-partitions (kgroup.core.models.tp_order): by topic name as Python
    # compares text (code points: upper case first), then by partition number (2 before 10)
    from kgroup.core.models import CommittedOffset, GroupDescription, TopicPartition, Watermarks
    from kgroup.describe.engine import GroupInput, build_group_lag

    given = [("b", 10), ("注文", 0), ("b", 2), ("B", 1), ("a", 3), ("b", 1)]
    expected = [("B", 1), ("a", 3), ("b", 1), ("b", 2), ("b", 10), ("注文", 0)]
    windows = [PartitionWindow(t, p, (), (), 5, 0, 5) for t, p in given]
    verdict = evaluate_group("g", windows, now_ms=0, thresholds=Thresholds())
    assert [(p.topic, p.partition) for p in verdict.partitions] == expected
    tps = [TopicPartition(t, p) for t, p in given]
    lag = build_group_lag(
        GroupInput(GroupDescription("g", "Empty"), {tp: CommittedOffset(5) for tp in tps}),
        tps,
        {tp: Watermarks(0, 5) for tp in tps},
    )
    assert [(r.topic, r.partition) for r in lag.rows] == expected
