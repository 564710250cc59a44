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


# The JSON partition's fields in README's order, written out (lag_ms only with --lag-time)
ITEM_0 = [
    ("topic", "orders"),
    ("partition", 0),
    ("current_offset", 5),
    ("log_start_offset", 0),
    ("log_end_offset", 9),
    ("lag", 4),
    ("consumer_id", "m-1"),
    ("host", "/10.0.0.1"),
    ("client_id", "c-1"),
]
ITEM_1 = [
    ("topic", "orders"),
    ("partition", 1),
    *((key, None) for key in ("current_offset", "log_start_offset", "log_end_offset", "lag")),
    *((key, None) for key in ("consumer_id", "host", "client_id")),
]


def _with_lag_ms(item: list[tuple[str, object]], lag_ms: object) -> list[tuple[str, object]]:
    return [*item[:6], ("lag_ms", lag_ms), *item[6:]]


@pytest.mark.parametrize("lag_time", [False, True])
def test_rows_and_items_are_the_documented_fields(lag_time: bool) -> None:
    items = [ITEM_0, ITEM_1]
    if lag_time:
        items = [_with_lag_ms(ITEM_0, 1200), _with_lag_ms(ITEM_1, None)]
    rows = [[("group", "g"), *item] for item in items]
    assert [list(r.items()) for r in d._partition_rows(GROUP, lag_time)] == rows
    assert [list(i.items()) for i in d._partition_items(GROUP, lag_time)] == items


def test_the_fast_rows_equal_partition_json_s() -> None:
    """Without --lag-time the rows are made in C (dict(zip)), not by `_partition_json`."""
    expected = [list(d._partition_json(r, False, {"group": "g"}).items()) for r in ROWS]
    assert [list(r.items()) for r in d._partition_rows(GROUP, False)] == expected
