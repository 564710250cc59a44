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


def test_each_topic_gets_its_status_and_the_message_says_them() -> None:
    from kgroup.core.errors import AuthorizationError, NotFoundError
    from kgroup.reset.streams import topics_deleted, topics_said

    answered = {
        "a-x-changelog": None,
        "a-y-changelog": NotFoundError("topic a-y-changelog does not exist (already deleted?)"),
        "a-z-changelog": AuthorizationError("not allowed to delete topic a-z-changelog"),
    }
    wanted = [*answered, "a-w-repartition", "a-v-repartition"]
    result = topics_deleted(
        wanted, ["a-gone-changelog"], answered, asked=["a-w-repartition"], interrupted=True
    )
    assert result.statuses == {
        "a-x-changelog": "deleted",
        "a-y-changelog": "already_gone",
        "a-z-changelog": "not_deleted",
        "a-w-repartition": "unknown",
        "a-v-repartition": "not_deleted",
        "a-gone-changelog": "already_gone",
    }
    assert result.errors == ["not allowed to delete topic a-z-changelog"]
    message = result.message() or ""
    assert "deleted internal topics a-x-changelog" in message
    assert "already gone: a-y-changelog, a-gone-changelog" in message
    assert "not deleted: not allowed to delete topic a-z-changelog" in message
    assert "not deleted: a-v-repartition (interrupted before asking)" in message
    assert "unknown whether deleted: a-w-repartition" in message
    assert topics_said(result.statuses) == (
        "internal topics deleted: a-x-changelog; already gone: a-y-changelog, a-gone-changelog; "
        "not deleted: a-z-changelog, a-v-repartition; unknown whether deleted: a-w-repartition"
    )
