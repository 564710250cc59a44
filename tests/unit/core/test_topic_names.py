"""kgroup.core.topic_names: the one topic-existence rule (issue #24 item 9)."""

from __future__ import annotations

import pytest

from kgroup.core.errors import EXIT_NOT_FOUND
from kgroup.core.topic_names import TopicsNotFound, missing_topics, require_topics


def test_missing_topics_are_named_once_and_sorted() -> None:
    assert missing_topics(["b", "a", "b", "orders"], {"orders": 3}) == ["a", "b"]
    assert missing_topics([], {}) == []


def test_require_topics_raises_exit_3_naming_each_missing_topic() -> None:
    require_topics(["orders"], {"orders": 3})
    with pytest.raises(TopicsNotFound) as one:
        require_topics(["orders", "nosuch"], {"orders": 3})
    assert one.value.exit_code == EXIT_NOT_FOUND
    assert one.value.topics == ("nosuch",)
    assert one.value.one_line().startswith("topic nosuch does not exist. Hint: ")
    with pytest.raises(TopicsNotFound) as two:
        require_topics(["z", "y"], set())
    assert two.value.message == "topics y, z do not exist"
