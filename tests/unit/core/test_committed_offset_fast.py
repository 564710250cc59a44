"""`committed_offset`: the CommittedOffset a fleet's describe makes one a partition of, made
without the frozen dataclass's `__init__` (issue #29), and still the dataclass's object."""

from __future__ import annotations

import dataclasses

import pytest

from kgroup.core.models import CommittedOffset, committed_offset
from kgroup.core.wire import convert
from kgroup.core.wire import results as res
from kgroup.core.wire.error_codes import NONE


@pytest.mark.parametrize("epoch", [None, 4])
def test_committed_offset_fast_path_is_the_dataclass(epoch: int | None) -> None:
    fast = committed_offset(42, epoch, "m")
    slow = CommittedOffset(42, epoch, "m")
    assert type(fast) is CommittedOffset
    assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
    assert dataclasses.asdict(fast) == dataclasses.asdict(slow)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.offset = 1  # type: ignore[misc]


def test_fetched_offsets_are_the_committed_offsets_kafka_sent() -> None:
    fetched = res.FetchedGroup(
        "g1",
        NONE,
        [
            res.FetchedOffset("orders", 1, 42, -1, None, NONE),
            res.FetchedOffset("orders", 0, 7, 3, "m", NONE),
            res.FetchedOffset("orders", 2, -1, -1, "", NONE),
        ],
    )
    offsets = convert.to_committed_offsets(fetched)
    assert [(tp.partition, c) for tp, c in offsets.items()] == [  # type: ignore[union-attr]
        (0, CommittedOffset(7, 3, "m")),
        (1, CommittedOffset(42, None, "")),
    ]
