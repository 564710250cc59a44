"""Partition lists `0-2,5` stay ranges: parsing, membership, clipping to a topic."""

from __future__ import annotations

import tracemalloc

import pytest

from kgroup.core.errors import UsageError
from kgroup.core.partition_list import PartitionSet, parse_partitions
from kgroup.reset.model import TopicPartition
from kgroup.reset.planner import PartitionsNotFound, parse_topic_option, resolve_scope


def parse(text: str) -> PartitionSet:
    return parse_partitions(text, option="--topic", value=f"t:{text}")


def test_ranges_are_merged_and_sorted() -> None:
    assert parse("5,0-2").ranges == ((0, 2), (5, 5))
    assert parse("3-4,0-2,2").ranges == ((0, 4),)
    assert str(parse("7, 1-2 ,0")) == "0-2,7"
    assert 6 not in parse("0-2,5") and 5 in parse("0-2,5") and 1 in parse("0-2,5")


@pytest.mark.parametrize("bad", ["2-0", "a-b", "0-", "-1", "", "1,,2", "٣", "2147483648"])
def test_bad_lists_name_the_value(bad: str) -> None:
    with pytest.raises(UsageError) as err:
        parse(bad)
    assert f"--topic 't:{bad}'" in err.value.one_line()


def test_clipping_never_expands_beyond_the_topic() -> None:
    huge = parse("1-99999999,2147483647")
    tracemalloc.start()
    inside, outside = huge.within(3), huge.beyond(3)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert inside == [1, 2]
    assert outside == ["3-99999999", "2147483647"]
    assert peak < 100_000


def test_scope_reports_a_huge_range_as_one_missing_item() -> None:
    with pytest.raises(PartitionsNotFound) as err:
        resolve_scope([parse_topic_option("t:0-99999999")], {"t": 3})
    assert err.value.missing == ("t:3-99999999 (topic has 3 partitions)",)
    assert resolve_scope([parse_topic_option("t:0-1,2")], {"t": 3}) == tuple(
        TopicPartition("t", p) for p in range(3)
    )
