"""Which topics of a streams group's topology `--delete-all-internal-topics` deletes: Kafka's
StreamsGroupCommand.retrieveInternalTopics (repartition sources and changelogs that are not
source topics) and isInferredInternalTopic (`<group>-` and an internal topic's ending)."""

from __future__ import annotations

import pytest

from kgroup.core.wire.streams_topology import StreamsTopology, Subtopology
from kgroup.reset.streams import internal_topics, is_inferred_internal


@pytest.mark.parametrize(
    ("topic", "expected"),
    [
        ("app-KSTREAM-AGGREGATE-STATE-STORE-0000000003-changelog", True),
        ("app-KSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition", True),
        ("app-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic", True),
        ("app-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000013-topic", True),
        ("app-x-subscription-registration-topic", True),
        ("app-x-subscription-response-topic", True),
        ("app2-store-changelog", False),  # another application's
        ("app-store-changelog-v2", False),
        ("store-changelog", False),
        ("app-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-x-topic", False),
    ],
)
def test_inferred_internal_names(topic: str, expected: bool) -> None:
    assert is_inferred_internal(topic, "app") is expected


def test_sources_are_never_deleted_and_sinks_only_through_their_reader() -> None:
    topology = StreamsTopology(
        "app",
        "Empty",
        0,
        (
            Subtopology("0", ("orders", "app-in-repartition"), (), ("app-a-repartition",), ()),
            Subtopology(
                "1",
                (),
                ("app-a-repartition", "app-in-repartition"),
                ("app-sink-only-repartition",),
                ("app-store-changelog", "shared-changelog"),
            ),
        ),
    )
    found = internal_topics(topology)
    assert found.deletable == ("app-a-repartition", "app-store-changelog")
    assert found.not_inferred == ("shared-changelog",)
    assert "app-sink-only-repartition" in found.named  # --delete-internal-topic may name it
    assert "app-in-repartition" not in found.named  # a source topic
