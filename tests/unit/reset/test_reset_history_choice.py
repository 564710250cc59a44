"""The pure parts of `--to-committed-at` and `--to-group`: what the history covers, which
partitions it cannot tell, and what a copied offset carries."""

from __future__ import annotations

import pytest

from kgroup.core.models import CommittedOffset, TopicPartition
from kgroup.reset.from_group import given_from_committed
from kgroup.reset.history_choice import Coverage, CoverageFold, merge_coverage, unreached
from kgroup.reset.strategy import GivenOffset, to_committed_at

T0 = TopicPartition("orders", 0)
T1 = TopicPartition("orders", 1)


def fold(*spans: tuple[int, int, int, int], log_start: int = 0) -> Coverage:
    f = CoverageFold("__consumer_offsets-3", log_start)
    for span in spans:
        f.add(*span)
    return f.result()


def test_a_dense_log_has_no_hole() -> None:
    cov = fold((0, 2, 3, 100), (3, 3, 1, 200), (4, 9, 6, 300))
    assert (cov.first_offset, cov.first_ms, cov.hole_ms) == (0, 100, None)


@pytest.mark.parametrize(
    ("spans", "hole_ms"),
    [
        (((0, 2, 3, 100), (5, 6, 2, 300)), 100),  # batches 3-4 removed after the one at 100
        (((0, 2, 3, 100), (3, 6, 2, 300)), 100),  # records removed inside a rewritten batch
        (((4, 6, 3, 300),), 300),  # the log starts after offset 0: retention or a missing file
    ],
)
def test_holes_are_dated_no_later_than_the_records_that_could_be_gone(spans, hole_ms) -> None:
    assert fold(*spans).hole_ms == hole_ms


def test_a_partition_without_offset_is_refused_only_when_the_history_cannot_prove_it() -> None:
    given = {T0: GivenOffset(5)}
    dense = Coverage("p", 0, 100, None)
    assert unreached([T0, T1], given, dense, 500) == {}  # T1 had none: left out, listed
    holed = Coverage("p", 0, 100, 400)
    assert set(unreached([T0, T1], given, holed, 500)) == {T1}
    assert unreached([T0, T1], given, holed, 300) == {}  # the hole is after TIME
    late = Coverage("p", 0, 1000, None)
    assert "TIME is before the history" in unreached([T1], {}, late, 500)[T1]
    assert "no history" in unreached([T1], {}, None, 500)[T1]


def test_several_partitions_of_history_merge_cautiously() -> None:
    merged = merge_coverage([Coverage("a", 0, 100, 900), Coverage("b", 0, 300, 200)])
    assert merged is not None and (merged.first_ms, merged.hole_ms) == (300, 200)
    assert merge_coverage([]) is None


def test_a_copy_takes_offset_and_leader_epoch_not_the_source_metadata() -> None:
    copied = given_from_committed(
        "prod",
        {
            T0: CommittedOffset(7, leader_epoch=3, metadata="prod-consumer-state"),
            T1: CommittedOffset(-1),
        },
    )
    assert copied == {T0: GivenOffset(7, None, 3, "group prod")}


@pytest.mark.parametrize(
    ("text", "ms", "ago"),
    [
        ("2026-05-01T10:00:00Z", 1_777_629_600_000, None),
        ("1795772710000", 1_795_772_710_000, None),
        ("2h", 0, 7_200_000),
        ("PT30M", 0, 1_800_000),
    ],
)
def test_time_is_rfc3339_epoch_or_a_duration_ago(text, ms, ago) -> None:
    strategy = to_committed_at(text)
    assert (strategy.ms, strategy.ago_ms) == (ms, ago)
    if ago is not None:
        assert strategy.resolve(10_000_000).ms == 10_000_000 - ago
