"""The reset planner: every strategy, clamping, --to none and --shift-by failures, scope.

The cluster state below is written by hand; every expected offset is read off it by hand.

    partition  log start  log end  committed
    t:0        10         100      40
    t:1        0          50       (none)
    t:2        20         20       20        (empty partition)
    u:0        5          8        6
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kgroup.core.errors import CheckFailed, NotFoundError, UsageError
from kgroup.core.models import TopicMetadata
from kgroup.reset.model import (
    CommittedOffset,
    OffsetAtTime,
    TopicPartition,
    Watermarks,
    stale_offsets,
)
from kgroup.reset.planner import (
    GroupInputs,
    PartitionsNotFound,
    PlanCheckFailed,
    backup_plan,
    parse_topic_option,
    plan_group,
    plan_groups,
    resolve_scope,
    selections_for_file,
)
from kgroup.reset.strategy import (
    ByDuration,
    FileRow,
    FromFile,
    ShiftBy,
    ToCurrent,
    ToEarliest,
    ToLatest,
    ToNone,
    ToOffset,
    ToTimestamp,
    by_duration,
    parse_to,
    resolve_timestamp_ms,
    shift_by,
    to_offset,
)

T0, T1, T2, U0 = (
    TopicPartition("t", 0),
    TopicPartition("t", 1),
    TopicPartition("t", 2),
    TopicPartition("u", 0),
)
SCOPE = (U0, T2, T0, T1)  # deliberately unsorted
WATERMARKS = {T0: (10, 100), T1: (0, 50), T2: (20, 20), U0: (5, 8)}
COMMITTED = {T0: 40, T2: 20, U0: 6}
NOW = 1_777_629_600_000  # 2026-05-01T10:00:00Z


def plan(strategy, committed=COMMITTED, times=None, scope=SCOPE, group="g"):
    return plan_group(group, scope, committed, WATERMARKS, times, strategy, NOW)


def table(p):
    """(partition, current, new, delta) per row, in plan order."""
    return [(str(r.topic_partition), r.current_offset, r.new_offset, r.delta) for r in p.rows]


def test_to_earliest() -> None:
    assert table(plan(ToEarliest())) == [
        ("t:0", 40, 10, -30),
        ("t:1", None, 0, None),
        ("t:2", 20, 20, 0),
        ("u:0", 6, 5, -1),
    ]


def test_to_latest() -> None:
    assert table(plan(ToLatest())) == [
        ("t:0", 40, 100, 60),
        ("t:1", None, 50, None),
        ("t:2", 20, 20, 0),
        ("u:0", 6, 8, 2),
    ]


def test_to_current_uses_log_end_without_a_committed_offset() -> None:
    assert table(plan(ToCurrent())) == [
        ("t:0", 40, 40, 0),
        ("t:1", None, 50, None),
        ("t:2", 20, 20, 0),
        ("u:0", 6, 6, 0),
    ]


def test_rows_carry_watermarks_and_are_sorted() -> None:
    p = plan(ToLatest())
    assert [(r.group, r.topic, r.partition) for r in p.rows] == [
        ("g", "t", 0),
        ("g", "t", 1),
        ("g", "t", 2),
        ("g", "u", 0),
    ]
    assert [(r.log_start_offset, r.log_end_offset) for r in p.rows] == [
        (10, 100),
        (0, 50),
        (20, 20),
        (5, 8),
    ]
    assert p.strategy == "to latest"
    assert p.warnings == ()
    assert {tp: c.offset for tp, c in p.offsets_to_commit().items()} == {
        T0: 100,
        T1: 50,
        T2: 20,
        U0: 8,
    }


def test_to_none_keeps_valid_committed_offsets() -> None:
    committed = {T0: 40, T1: 7, T2: 20, U0: 8}
    assert table(plan(ToNone(), committed)) == [
        ("t:0", 40, 40, 0),
        ("t:1", 7, 7, 0),
        ("t:2", 20, 20, 0),
        ("u:0", 8, 8, 0),
    ]


def test_to_none_fails_listing_every_bad_partition_and_plans_nothing() -> None:
    committed = {T0: 5, T2: 20, U0: 9}  # t:0 before log start, t:1 none, u:0 after log end
    with pytest.raises(PlanCheckFailed) as err:
        plan(ToNone(), committed)
    assert err.value.exit_code == 5
    assert isinstance(err.value, CheckFailed)
    assert [(str(f.topic_partition), f.reason) for f in err.value.failures] == [
        ("t:0", "committed 5 outside the log [10, 100]"),
        ("t:1", "no committed offset"),
        ("u:0", "committed 9 outside the log [5, 8]"),
    ]
    message = err.value.message
    assert "3 partition(s)" in message
    assert "t:0" in message and "t:1" in message and "u:0" in message
    assert "t:2" not in message


def test_kafka_no_offset_sentinel_counts_as_no_committed_offset() -> None:
    with pytest.raises(PlanCheckFailed) as err:
        plan(ToNone(), {T0: 40, T1: -1, T2: 20, U0: 6})
    assert [str(f.topic_partition) for f in err.value.failures] == ["t:1"]


def test_to_offset_clamps_with_a_warning_per_clamped_partition() -> None:
    p = plan(ToOffset(30))
    assert table(p) == [
        ("t:0", 40, 30, -10),
        ("t:1", None, 30, None),
        ("t:2", 20, 20, 0),
        ("u:0", 6, 8, 2),
    ]
    assert [r.clamped for r in p.rows] == [False, False, True, True]
    assert p.warnings == (
        "t:2: offset 30 is after the log end 20; using 20",
        "u:0: offset 30 is after the log end 8; using 8",
    )


def test_to_offset_below_log_start_clamps_up() -> None:
    p = plan(ToOffset(3), scope=(T0, T1))
    assert table(p) == [("t:0", 40, 10, -30), ("t:1", None, 3, None)]
    assert p.warnings == ("t:0: offset 3 is before the log start 10; using 10",)


def test_shift_by_clamps_both_ways() -> None:
    committed = {T0: 40, T1: 7, T2: 20, U0: 6}
    back = plan(ShiftBy(-15), committed)
    assert table(back) == [
        ("t:0", 40, 25, -15),
        ("t:1", 7, 0, -7),
        ("t:2", 20, 20, 0),
        ("u:0", 6, 5, -1),
    ]
    assert [r.clamped for r in back.rows] == [False, True, True, True]
    forward = plan(ShiftBy(+45), committed)
    assert table(forward) == [
        ("t:0", 40, 85, 45),
        ("t:1", 7, 50, 43),
        ("t:2", 20, 20, 0),
        ("u:0", 6, 8, 2),
    ]
    assert forward.strategy == "shift-by +45"


def test_shift_by_without_committed_offset_fails_and_plans_nothing() -> None:
    with pytest.raises(PlanCheckFailed) as err:
        plan(ShiftBy(1))
    assert err.value.exit_code == 5
    assert [str(f.topic_partition) for f in err.value.failures] == ["t:1"]
    assert "no committed offset" in err.value.message


def test_timestamp_offset_for_time_or_log_end_marked() -> None:
    times = {T0: 60, T1: None, T2: -1, U0: 7}
    p = plan(ToTimestamp(NOW, "2026-05-01T10:00:00Z"), times=times)
    assert table(p) == [
        ("t:0", 40, 60, 20),
        ("t:1", None, 50, None),
        ("t:2", 20, 20, 0),
        ("u:0", 6, 7, 1),
    ]
    assert [r.no_record_after_time for r in p.rows] == [False, True, True, False]
    assert p.timestamp_ms == NOW
    assert p.strategy == "to timestamp 2026-05-01T10:00:00.000Z"


def test_timestamp_partition_missing_from_lookup_goes_to_log_end() -> None:
    p = plan(ToTimestamp(NOW), times={}, scope=(T0,))
    assert table(p) == [("t:0", 40, 100, 60)]
    assert p.rows[0].no_record_after_time


def test_by_duration_resolves_against_now() -> None:
    strategy = by_duration("PT30M")
    assert resolve_timestamp_ms(strategy, NOW) == NOW - 1_800_000
    p = plan(strategy, times={T0: 11}, scope=(T0,))
    assert p.timestamp_ms == 1_777_627_800_000  # 2026-05-01T09:30:00Z
    assert p.strategy == "by-duration 30m (since 2026-05-01T09:30:00.000Z)"
    assert table(p) == [("t:0", 40, 11, -29)]


def test_by_duration_never_goes_before_the_epoch() -> None:
    assert ByDuration(10_000).resolve(5_000).ms == 0
    assert resolve_timestamp_ms(ToEarliest(), NOW) is None


def test_from_file_clamps_and_keeps_only_its_partitions() -> None:
    rows = (
        FileRow("g", "t", 0, 500, line=1),
        FileRow(None, "t", 1, 3, line=2),  # applies to any group
        FileRow("other", "t", 2, 0, line=3),  # another group's row
        FileRow("g", "v", 0, 1, line=4),  # outside the --topic scope
    )
    p = plan(FromFile(rows, "plan.csv"))
    assert table(p) == [("t:0", 40, 100, 60), ("t:1", None, 3, None)]
    assert p.warnings == (
        "t:0: offset 500 is after the log end 100; using 100",
        "1 row(s) of plan.csv for group g are outside the --topic scope and were left out",
    )
    assert p.strategy == "from-file plan.csv"


def test_from_file_carries_metadata_and_can_remove_an_offset() -> None:
    rows = (FileRow("g", "t", 0, 12, "m", 3), FileRow("g", "t", 1, None))
    p = plan(FromFile(rows, "b.json"), scope=(T0, T1))
    assert [(r.new_offset, r.metadata, r.leader_epoch, r.delta) for r in p.rows] == [
        (12, "m", 3, -28),
        (None, None, None, None),
    ]
    assert p.offsets_to_commit() == {T0: CommittedOffset(offset=12, leader_epoch=3, metadata="m")}
    assert p.offsets_to_delete() == (T1,)


def test_all_or_nothing_across_groups() -> None:
    good = GroupInputs("a", SCOPE, {T0: 1, T1: 1, T2: 20, U0: 6}, WATERMARKS)
    bad = GroupInputs("b", SCOPE, {T0: 40, T2: 20}, WATERMARKS)
    with pytest.raises(PlanCheckFailed) as err:
        plan_groups([good, bad], ShiftBy(1), NOW)
    assert [(f.group, str(f.topic_partition)) for f in err.value.failures] == [
        ("b", "t:1"),
        ("b", "u:0"),
    ]
    assert "group b: t:1 (no committed offset), u:0 (no committed offset)" in err.value.message


def test_plan_groups_sorted_by_group() -> None:
    plans = plan_groups(
        [GroupInputs(name, (T0,), {}, WATERMARKS) for name in ("zeta", "alpha")],
        ToEarliest(),
        NOW,
    )
    assert [p.group for p in plans] == ["alpha", "zeta"]
    assert [r.group for r in plans[0].rows] == ["alpha"]


def test_partition_without_watermarks_is_not_found() -> None:
    with pytest.raises(PartitionsNotFound) as err:
        plan_group("g", (T0, TopicPartition("gone", 0)), {}, WATERMARKS, None, ToLatest(), NOW)
    assert err.value.exit_code == 3
    assert err.value.missing == ("gone:0",)


def test_parse_strategy_values() -> None:
    assert parse_to("earliest") == ToEarliest()
    assert parse_to("LATEST") == ToLatest()
    assert parse_to("none") == ToNone()
    assert parse_to("current") == ToCurrent()
    assert to_offset("42") == ToOffset(42)
    assert shift_by("-10") == ShiftBy(-10)
    assert shift_by("+5") == ShiftBy(5)
    for call, value in ((parse_to, "first"), (to_offset, "-1"), (to_offset, "x"), (shift_by, "")):
        with pytest.raises(UsageError):
            call(value)


# --- backups and compare-and-set -------------------------------------------------------------


def test_backup_restores_previous_offsets_with_metadata() -> None:
    executed = plan(ToLatest(), scope=(T0, T1))  # t:0: 40 -> 100, t:1: none -> 50
    previous = {T0: CommittedOffset(offset=40, leader_epoch=7, metadata="app-meta")}
    backup = backup_plan(executed, previous)
    assert [(r.current_offset, r.new_offset, r.metadata, r.leader_epoch) for r in backup.rows] == [
        (100, 40, "app-meta", 7),
        (50, None, None, None),
    ]
    assert backup.strategy == "undo of to latest"
    # Undo: the backup as a plan file strategy, against the offsets the reset committed.
    undo_rows = tuple(
        FileRow(r.group, r.topic, r.partition, r.new_offset, r.metadata, r.leader_epoch)
        for r in backup.rows
    )
    undo = plan_group(
        "g", (T0, T1), {T0: 100, T1: 50}, WATERMARKS, None, FromFile(undo_rows, "b"), NOW
    )
    assert table(undo) == [("t:0", 100, 40, -60), ("t:1", 50, None, None)]
    assert undo.rows[0].metadata == "app-meta"


def test_stale_offsets_detects_commits_made_after_planning() -> None:
    p = plan(ToEarliest())
    assert stale_offsets(p, {T0: 40, T2: 20, U0: 6}) == ()
    assert stale_offsets(p, {T0: 40, T1: -1, T2: 20, U0: 6}) == ()
    stale = stale_offsets(p, {T0: 41, T1: 3, T2: 20})
    assert [str(s) for s in stale] == [
        "t:0 (planned from 40, now 41)",
        "t:1 (planned from none, now 3)",
        "u:0 (planned from 6, now none)",
    ]


# --- scope ---------------------------------------------------------------------------------------

COUNTS = {"t": 3, "u": 1}


def test_scope_whole_topic_and_listed_partitions() -> None:
    assert resolve_scope([parse_topic_option("t")], COUNTS) == (T0, T1, T2)
    assert resolve_scope([parse_topic_option("t:2,0"), parse_topic_option("u")], COUNTS) == (
        T0,
        T2,
        U0,
    )
    assert resolve_scope([parse_topic_option("t:1"), parse_topic_option("t")], COUNTS) == (
        T0,
        T1,
        T2,
    )


def test_scope_all_topics_is_the_committed_partitions() -> None:
    assert resolve_scope([], COUNTS, all_topics=True, committed=[U0, T1]) == (T1, U0)


def test_scope_unknown_topics_and_partitions_are_listed() -> None:
    with pytest.raises(NotFoundError) as err:
        resolve_scope(
            [parse_topic_option("nope"), parse_topic_option("t:1,3"), parse_topic_option("x:0")],
            COUNTS,
        )
    assert err.value.exit_code == 3
    assert err.value.missing == ("t:3 (topic has 3 partitions)", "topic nope", "topic x")


def test_scope_all_topics_with_a_deleted_topic_is_not_found() -> None:
    with pytest.raises(PartitionsNotFound) as err:
        resolve_scope([], COUNTS, all_topics=True, committed=[T0, TopicPartition("gone", 0)])
    assert err.value.missing == ("gone:0",)


@pytest.mark.parametrize("value", ["", ":1", "t:", "t:a", "t:1,,2", "t:-1"])
def test_bad_topic_options(value: str) -> None:
    with pytest.raises(UsageError):
        parse_topic_option(value)


def test_all_topics_and_topic_are_exclusive() -> None:
    with pytest.raises(UsageError):
        resolve_scope([parse_topic_option("t")], COUNTS, all_topics=True)


def test_scope_from_a_plan_file() -> None:
    strategy = FromFile(
        (FileRow("g", "t", 2, 1), FileRow(None, "t", 0, 1), FileRow("h", "u", 0, 1)), "f"
    )
    sels = selections_for_file(strategy, "g")
    assert resolve_scope(sels, COUNTS) == (T0, T2)


# --- properties ----------------------------------------------------------------------------------


@st.composite
def partition_states(draw):
    n = draw(st.integers(min_value=1, max_value=20))
    tps = draw(
        st.lists(
            st.builds(
                TopicPartition,
                st.sampled_from(["a", "b", "c.d", "e_f"]),
                st.integers(min_value=0, max_value=30),
            ),
            min_size=n,
            max_size=n,
            unique=True,
        )
    )
    watermarks, committed = {}, {}
    for tp in tps:
        start = draw(st.integers(min_value=0, max_value=1000))
        end = start + draw(st.integers(min_value=0, max_value=1000))
        watermarks[tp] = (start, end)
        committed[tp] = draw(st.integers(min_value=0, max_value=2500))
    return tps, watermarks, committed


@given(
    partition_states(),
    st.one_of(
        st.builds(ToOffset, st.integers(min_value=0, max_value=3000)),
        st.builds(ShiftBy, st.integers(min_value=-3000, max_value=3000)),
        st.builds(ToTimestamp, st.integers(min_value=0, max_value=10)),
    ),
    st.integers(min_value=-1, max_value=3000),
)
def test_clamped_strategies_stay_in_the_log_and_rows_are_sorted(state, strategy, found) -> None:
    tps, watermarks, committed = state
    times = dict.fromkeys(tps, found)
    p = plan_group("g", tps, committed, watermarks, times, strategy, NOW)
    keys = [(r.topic, r.partition) for r in p.rows]
    assert keys == sorted(keys)
    assert len(p.rows) == len(tps)
    for row in p.rows:
        assert row.log_start_offset <= row.new_offset <= row.log_end_offset
        assert row.clamped == (row.warning is not None)


@given(partition_states(), st.integers(min_value=-3000, max_value=3000))
def test_shift_by_is_exact_unless_clamped(state, delta) -> None:
    tps, watermarks, committed = state
    p = plan_group("g", tps, committed, watermarks, None, ShiftBy(delta), NOW)
    for row in p.rows:
        if not row.clamped:
            assert row.delta == delta
        else:
            assert row.new_offset in (row.log_start_offset, row.log_end_offset)


# --- the core models, as GroupAdmin returns them ---------------------------------------------


def test_planner_takes_the_core_models_directly() -> None:
    committed = {T0: CommittedOffset(offset=40, metadata="x"), U0: CommittedOffset(offset=6)}
    watermarks = {T0: Watermarks(10, 100), T1: Watermarks(0, 50), U0: Watermarks(5, 8)}
    times = {T0: OffsetAtTime(60, 1_777_629_600_001), T1: OffsetAtTime(-1), U0: OffsetAtTime(7)}
    p = plan_group("g", (T0, T1, U0), committed, watermarks, times, ToTimestamp(NOW), NOW)
    assert table(p) == [("t:0", 40, 60, 20), ("t:1", None, 50, None), ("u:0", 6, 7, 1)]
    assert [r.no_record_after_time for r in p.rows] == [False, True, False]
    assert stale_offsets(p, committed) == ()
    assert [str(s) for s in stale_offsets(p, {T0: CommittedOffset(offset=41)})] == [
        "t:0 (planned from 40, now 41)",
        "u:0 (planned from 6, now none)",
    ]


def test_scope_takes_topic_metadata() -> None:
    topics = {"t": TopicMetadata("t", 2), "u": TopicMetadata("u", 1)}
    assert resolve_scope([parse_topic_option("t")], topics) == (T0, T1)
