"""A KIP-848 subscription regex resolves as Kafka's coordinator resolves it: RE2/J
`matcher(topic).matches()` over every topic, so the whole name must match."""

from kgroup.core.topic_regex import topics_matching

TOPICS = ["orders", "orders-eu", "archive-orders", "payments", "__consumer_offsets"]


def test_the_whole_name_must_match() -> None:
    assert topics_matching("orders.*", TOPICS) == ["orders", "orders-eu"]
    assert topics_matching("orders", TOPICS) == ["orders"]


def test_internal_topics_are_matched_like_any_other() -> None:
    assert topics_matching("__.*", TOPICS) == ["__consumer_offsets"]


def test_alternation_matches_whole_names() -> None:
    assert topics_matching("orders|payments", TOPICS) == ["orders", "payments"]


def test_a_regex_that_does_not_compile_is_none() -> None:
    assert topics_matching("orders(", TOPICS) is None
