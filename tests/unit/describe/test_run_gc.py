"""`kgroup describe`'s run layer keeps the cyclic garbage collector off what the process had
loaded and runs it less often while a fleet is described and printed (issue #29: the young
and full collections of a 10,000-group run walked every object typer, rich and the wire
client had made), and gives it back as it was when the groups are done or given up."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from kgroup.core.collector import GC_YOUNG
from kgroup.describe.run import DescribeOptions, describe
from tests.helpers import admin_for
from tests.unit.wire.fakegroups import GroupsCluster


@pytest.fixture()
def cluster() -> Iterator[GroupsCluster]:
    made = GroupsCluster(
        topics={"orders": 2},
        offsets={f"g{i}": {("orders", 0): i, ("orders", 1): 2 * i} for i in range(3)},
    )
    yield made
    made.close()


def _collector() -> tuple[int, int]:
    return gc.get_threshold()[0], gc.get_freeze_count()


def test_the_collector_is_relaxed_while_groups_are_described_and_restored_after(cluster) -> None:
    before = _collector()
    assert before[0] < GC_YOUNG
    run = describe(admin_for(cluster.address), DescribeOptions(groups=[], all_groups=True))
    seen = []
    for group in run:
        young, frozen = _collector()
        seen.append((group.group, young, frozen > before[1]))
    assert seen == [(f"g{i}", GC_YOUNG, True) for i in range(3)]
    assert _collector() == before


def test_the_collector_is_restored_when_the_groups_are_given_up(cluster) -> None:
    before = _collector()
    run = describe(admin_for(cluster.address), DescribeOptions(groups=[], all_groups=True))
    groups = iter(run)
    next(groups)
    assert _collector()[0] == GC_YOUNG
    del groups, run  # the renderer stopped (an error, Ctrl-C): nothing iterates on
    assert _collector() == before
