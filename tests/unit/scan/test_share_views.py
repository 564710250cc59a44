"""The `__share_group_state` views are written once for both engines (`ShareViews`): the local
`ShareScan` and the Spark `ShareSparkScan` differ only in how they replay."""

from __future__ import annotations

import pytest

from kgroup.core.errors import UsageError
from kgroup.offsets.share_state import ShareReplay
from kgroup.scan.local import DecodeFilter
from kgroup.scan.share_scan import ShareScan, ShareViews
from kgroup.scan.share_spark import ShareSparkScan


@pytest.mark.parametrize("view", ["latest", "as_of", "summary"])
def test_both_engines_take_each_view_from_the_one_shared_definition(view: str) -> None:
    # before: ShareSparkScan repeated ShareScan's latest/as_of/summary line for line
    assert getattr(ShareScan, view) is getattr(ShareViews, view)
    assert getattr(ShareSparkScan, view) is getattr(ShareViews, view)


def test_spark_views_replay_through_the_shared_rules_without_spark() -> None:
    """`_replay` is the only engine part: a stubbed one gives the shared views' answers."""
    scan = ShareSparkScan(None, DecodeFilter(), inputs=[])
    assert scan._replay("latest").states == {}  # no inputs: no Spark job at all
    assert scan.latest() == [] and scan.summary() == []
    with pytest.raises(UsageError, match="--as-of replays offset commits"):
        scan.as_of(0)
    assert isinstance(scan._replay("summary"), ShareReplay)
