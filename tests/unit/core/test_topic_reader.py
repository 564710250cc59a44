"""TopicReader.read over given offset ranges."""

from __future__ import annotations

import pytest

from kgroup.core.topic_reader import TopicReader


class NoClientAdmin:
    """An admin whose clients must not be built."""

    timeout_s = 1.0

    def client_conf(self, **_overrides: object) -> dict[str, object]:
        raise AssertionError("a consumer was configured for nothing to read")


@pytest.mark.parametrize("ranges", [{}, {0: (5, 5), 3: (7, 2)}])
def test_ranges_with_nothing_to_read_start_no_consumer(ranges) -> None:
    reader = TopicReader(NoClientAdmin(), "__consumer_offsets")  # type: ignore[arg-type]
    assert list(reader.read(ranges=ranges)) == []
