"""The describe engine: Kafka's lag arithmetic, row coverage, sorting, totals, time lag."""

from __future__ import annotations

from kgroup.core.models import (
    CommittedOffset,
    GroupDescription,
    MemberDescription,
    NextRecord,
    TopicPartition,
    Watermarks,
)
from kgroup.describe.engine import (
    GroupInput,
    build_group_lag,
    is_missing_group,
    lagging_positions,
    partition_lag,
    partitions_in_view,
    partitions_over_lag,
    time_lag_ms,
)

T = TopicPartition


def test_lag_is_log_end_minus_committed() -> None:
    assert partition_lag(30, 40) == 10
    assert partition_lag(40, 40) == 0
    assert partition_lag(None, 40) is None
    assert partition_lag(5, None) is None
    # Committed beyond the log end (log truncated): shown as it is, as Kafka's tool does.
    assert partition_lag(50, 40) == -10


def test_time_lag() -> None:
    now = 1_000_000
    at = lambda ts: NextRecord(True, ts)  # noqa: E731
    assert time_lag_ms(3, at(900_000), now) == 100_000
    assert time_lag_ms(0, at(900_000), now) == 0
    assert time_lag_ms(0, None, now) == 0
    assert time_lag_ms(None, at(900_000), now) is None
    assert time_lag_ms(2, None, now) is None  # not fetched in time: unknown
    assert time_lag_ms(2, at(None), now) is None  # a record without a timestamp
    assert time_lag_ms(2, NextRecord(False), now) == 0  # only markers left
    assert time_lag_ms(2, at(now + 5), now) == 0  # a record stamped in the future: not negative


def group_input(committed: dict[TopicPartition, int], members=(), state="Stable") -> GroupInput:
    return GroupInput(
        GroupDescription("g", state, members=tuple(members)),
        {tp: CommittedOffset(off, metadata="m") for tp, off in committed.items()},
    )


MEMBER = MemberDescription(
    "c-1",
    client_id="app",
    host="/10.0.0.1",
    assignment=(T("orders", 1), T("orders", 0)),
    subscription=("orders",),
)


def test_rows_cover_assigned_committed_and_subscribed_partitions_sorted() -> None:
    gi = group_input({T("payments", 0): 3, T("orders", 1): 7}, members=[MEMBER])
    view = partitions_in_view(gi, {"orders": 3, "payments": 1})
    assert view == [T("orders", 0), T("orders", 1), T("orders", 2), T("payments", 0)]
    assert partitions_in_view(gi, {"orders": 3}, topics={"payments"}) == [T("payments", 0)]


def test_build_rows_and_totals() -> None:
    gi = group_input({T("payments", 0): 3, T("orders", 1): 7}, members=[MEMBER])
    marks = {
        T("orders", 0): Watermarks(0, 10),
        T("orders", 1): Watermarks(2, 10),
        T("orders", 2): Watermarks(0, 0),
        T("payments", 0): Watermarks(1, 9),
    }
    lag = build_group_lag(gi, partitions_in_view(gi, {"orders": 3, "payments": 1}), marks)
    rows = [
        (
            r.topic,
            r.partition,
            r.current_offset,
            r.log_start_offset,
            r.log_end_offset,
            r.lag,
            r.consumer_id,
            r.client_id,
        )
        for r in lag.rows
    ]
    assert rows == [
        ("orders", 0, None, 0, 10, None, "c-1", "app"),  # assigned, never committed: no lag
        ("orders", 1, 7, 2, 10, 3, "c-1", "app"),
        ("orders", 2, None, 0, 0, None, None, None),  # subscribed only
        ("payments", 0, 3, 1, 9, 6, None, None),  # committed, no owner
    ]
    assert lag.topic_totals == {"orders": 3, "payments": 6}
    assert lag.total_lag == 9


def test_read_committed_uses_the_last_stable_offset() -> None:
    gi = group_input({T("t", 0): 10})
    marks = {T("t", 0): Watermarks(0, 11, last_stable=10)}  # a commit marker at offset 10
    assert build_group_lag(gi, [T("t", 0)], marks).rows[0].lag == 1
    assert build_group_lag(gi, [T("t", 0)], marks, read_committed=True).rows[0].lag == 0


def test_lag_time_uses_the_record_at_the_committed_offset() -> None:
    gi = group_input({T("t", 0): 4, T("t", 1): 9})
    marks = {T("t", 0): Watermarks(0, 10), T("t", 1): Watermarks(0, 9)}
    first = build_group_lag(gi, [T("t", 0), T("t", 1)], marks)
    assert lagging_positions([first]) == {(T("t", 0), 4)}
    timed = build_group_lag(
        gi,
        [T("t", 0), T("t", 1)],
        marks,
        next_records={(T("t", 0), 4): NextRecord(True, 5_000)},
        now_ms=65_000,
    )
    assert [r.lag_ms for r in timed.rows] == [60_000, 0]


def test_group_with_no_known_lag_has_null_totals() -> None:
    gi = group_input({}, members=[MemberDescription("c", assignment=(T("t", 0),))])
    lag = build_group_lag(gi, [T("t", 0)], {T("t", 0): Watermarks(0, 5)})
    assert lag.total_lag is None and lag.topic_totals == {"t": None}


def test_fail_on_lag_threshold_is_strictly_greater() -> None:
    gi = group_input({T("t", 0): 0, T("t", 1): 0})
    marks = {T("t", 0): Watermarks(0, 5), T("t", 1): Watermarks(0, 6)}
    lag = build_group_lag(gi, [T("t", 0), T("t", 1)], marks)
    assert [(r.partition, r.lag) for r in partitions_over_lag([lag], 5)] == [(1, 6)]
    assert partitions_over_lag([lag], 6) == []


def test_missing_groups_as_kafka_sees_them() -> None:
    assert is_missing_group(GroupDescription("g", "Dead"), {})
    assert is_missing_group(GroupDescription("g", "Unknown", error_code="GROUP_ID_NOT_FOUND"), {})
    assert is_missing_group(GroupDescription("g", "Empty"), {})
    assert not is_missing_group(GroupDescription("g", "Empty"), {T("t", 0): CommittedOffset(1)})
    assert not is_missing_group(GroupDescription("g", "Stable", members=(MEMBER,)), {})


def test_errored_group_has_no_rows() -> None:
    gi = GroupInput(GroupDescription("g", "Unknown"), {}, "not authorized", "error")
    lag = build_group_lag(gi, [T("t", 0)], {})
    assert lag.rows == () and lag.error == "not authorized"


def test_read_committed_lag_is_zero_when_only_markers_remain() -> None:
    """Three records committed in a transaction (offsets 0-2) and its marker (3): a consumer
    that read all three commits 3; offset arithmetic says lag 1 forever."""
    gi = group_input({T("t", 0): 3})
    marks = {T("t", 0): Watermarks(0, 4, last_stable=4)}
    peek = {(T("t", 0), 3): NextRecord(consumable=False)}
    assert build_group_lag(gi, [T("t", 0)], marks).rows[0].lag == 1  # Kafka's arithmetic
    fixed = build_group_lag(gi, [T("t", 0)], marks, read_committed=True, next_records=peek)
    assert fixed.rows[0].lag == 0 and fixed.total_lag == 0
    real = {(T("t", 0), 3): NextRecord(consumable=True, timestamp=1)}
    assert (
        build_group_lag(gi, [T("t", 0)], marks, read_committed=True, next_records=real).rows[0].lag
        == 1
    )


def test_topic_totals_in_topic_order_with_unknown_ones() -> None:
    gi = group_input({T("b", 1): 4, T("b", 0): 1, T("d", 0): 2})
    marks = {T(t, p): Watermarks(0, 10) for t in "abcd" for p in (0, 1)}
    given = [T("d", 0), T("c", 0), T("b", 1), T("a", 0), T("b", 0)]  # not in order
    lag = build_group_lag(gi, given, marks)
    assert list(lag.topic_totals.items()) == [("a", None), ("b", 15), ("c", None), ("d", 8)]
    assert lag.total_lag == 23
