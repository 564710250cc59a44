"""describe's offsets rows and JSON partitions made in C from PartitionLag (issue #29) are
`_partition_json`'s dicts: the same keys, in the same order, with the same values."""

from __future__ import annotations

import pytest

from kgroup.core.models import GroupDescription
from kgroup.describe.engine import GroupLag, PartitionLag
from kgroup.render import describe as d

ROWS = (
    PartitionLag("g", "orders", 0, 5, 0, 9, 4, "m-1", "/10.0.0.1", "c-1", 1200, "meta"),
    PartitionLag("g", "orders", 1, None, None, None, None, None, None, None),
)
GROUP = GroupLag("g", GroupDescription("g", "Stable"), ROWS, {"orders": 4}, 4)


@pytest.mark.parametrize("lag_time", [False, True])
def test_rows_and_items_are_partition_json_s(lag_time: bool) -> None:
    rows = d._partition_rows(GROUP, lag_time)
    items = d._partition_items(GROUP, lag_time)
    expected_rows = [d._partition_json(r, lag_time, {"group": "g"}) for r in ROWS]
    expected_items = [d._partition_json(r, lag_time) for r in ROWS]
    assert [list(r.items()) for r in rows] == [list(r.items()) for r in expected_rows]
    assert [list(i.items()) for i in items] == [list(i.items()) for i in expected_items]
