"""The mechanisms that keep `describe --all-groups` and `list` within their CPU budget for a
fleet of 10,000 groups (issue #29); their outputs are pinned elsewhere (tests/unit/render,
tests/cli/test_cli_fleet.py), these pin the mechanisms."""

from __future__ import annotations

import dataclasses
import inspect

from kgroup.core.wire import convert
from kgroup.core.wire import results as res
from kgroup.core.wire.error_codes import NONE
from kgroup.protocol.generated.wire import offset_fetch_response as ofr


def test_offset_fetch_v8_partition_fields_are_read_with_one_unpack() -> None:
    source = inspect.getsource(ofr._read_OffsetFetchResponsePartitions)
    assert source.count("r.run(") == 1
    assert "r.int32(" not in source and "r.int64(" not in source
    assert "r.tags(" in source  # the empty tag section's fast path


def test_wire_results_are_made_without_dataclass_code_at_import() -> None:
    classes = [c for c in vars(res).values() if inspect.isclass(c) and c.__module__ == res.__name__]
    assert len(classes) >= 6  # the answers kgroup reads its own way (results.py)
    assert [c.__name__ for c in classes if dataclasses.is_dataclass(c)] == []


def test_groups_committing_the_same_partition_share_one_topic_partition() -> None:
    def fetched(group: str) -> res.FetchedGroup:
        return res.FetchedGroup(group, NONE, [res.FetchedOffset("orders", 3, 42, -1, "", NONE)])

    (a,) = convert.to_committed_offsets(fetched("g1"))  # type: ignore[misc]
    (b,) = convert.to_committed_offsets(fetched("g2"))  # type: ignore[misc]
    assert a is b
    assert (a.topic, a.partition) == ("orders", 3)
