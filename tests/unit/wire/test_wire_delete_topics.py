"""DeleteTopics (20) as kgroup sends it, read back field by field in the order of Kafka's
DeleteTopicsRequest.json (v1-v6; Topics of {Name, TopicId} from v6, TopicNames before, then
TimeoutMs) with the tests' own reader, and the answers as kgroup reads them."""

from __future__ import annotations

import pytest

from kgroup.core.config import ClusterConfig
from kgroup.core.errors import AuthorizationError, NotFoundError
from kgroup.core.wire.client import WireClient
from kgroup.core.wire.delete_topics import delete_topics, encode_delete_topics_request
from kgroup.core.wire.error_codes import TOPIC_AUTHORIZATION_FAILED
from tests.unit.wire.fakeshare import DELETE_TOPICS_KEY, ShareCluster
from tests.unit.wire.wirecodec import Reader


def test_v6_request_names_each_topic_with_a_zero_topic_id() -> None:
    r = Reader(encode_delete_topics_request(6, ["a-changelog", "b"], 30000), flexible=True)

    def state(x: Reader) -> tuple[str | None, bytes]:
        out = (x.nullable_string(), x.uuid())  # Name (nullable 6+), TopicId
        x.tagged_fields()
        return out

    assert r.array(state) == [("a-changelog", bytes(16)), ("b", bytes(16))]
    assert r.int32() == 30000  # TimeoutMs
    assert r.tagged_fields() == {}
    r.expect_end()


@pytest.mark.parametrize(("version", "flexible"), [(1, False), (3, False), (4, True), (5, True)])
def test_v1_to_v5_request_lists_topic_names(version: int, flexible: bool) -> None:
    r = Reader(encode_delete_topics_request(version, ["x", "y"], 1500), flexible=flexible)
    assert r.array(lambda x: x.string()) == ["x", "y"]  # TopicNames
    assert r.int32() == 1500
    if flexible:
        r.tagged_fields()
    r.expect_end()


def test_v0_is_not_sent() -> None:
    with pytest.raises(ValueError):
        encode_delete_topics_request(0, ["x"], 1)


@pytest.mark.parametrize("offered", [(1, 6), (1, 5), (1, 3)])
def test_answers_per_topic_at_each_version_the_broker_offers(offered) -> None:
    made = ShareCluster(
        topics={"gone-soon": 1, "locked": 1},
        delete_topics_versions=offered,
        delete_topic_errors={"locked": TOPIC_AUTHORIZATION_FAILED},
    )
    client = WireClient(ClusterConfig(made.address, timeout_s=5))
    try:
        out = delete_topics(client, ["gone-soon", "locked", "never-was"], 4000)
    finally:
        client.close()
        made.close()
    assert out["gone-soon"] is None and "gone-soon" not in made.topics
    assert isinstance(out["locked"], AuthorizationError)
    assert "Delete on Topic:locked" in (out["locked"].hint or "")
    assert isinstance(out["never-was"], NotFoundError)
    (request,) = [r for k, r in made.requests if k == DELETE_TOPICS_KEY]
    assert request == {"topics": ["gone-soon", "locked", "never-was"], "timeout_ms": 4000}
    (version,) = [v for k, v in made.broker.received if k == DELETE_TOPICS_KEY]
    assert version == offered[1]


def test_progress_tells_answered_topics_from_those_still_asked() -> None:
    """An interrupted caller (reset's Ctrl-C, kgroup.reset.streams) reads `DeletionProgress`:
    while the retry for "moved" (NOT_CONTROLLER) is held, "done" is answered (deleted) and
    "moved" is asked, not answered (maybe deleted); once answered, nothing is left asked."""
    import threading

    from kgroup.core.wire.delete_topics import DeletionProgress

    made = ShareCluster(
        topics={"done": 1, "moved": 1},
        delete_topic_answers={"moved": [41]},  # NOT_CONTROLLER once: asked again
        hold_delete_topics=2,
    )
    client = WireClient(ClusterConfig(made.address, timeout_s=5))
    progress = DeletionProgress()
    out: dict = {}
    worker = threading.Thread(
        target=lambda: out.update(delete_topics(client, ["done", "moved"], 4000, progress))
    )
    try:
        worker.start()
        assert made.delete_held.wait(10)
        assert progress.answered == {"done": None}
        assert progress.asked == {"moved"}
        made.release.set()
        worker.join(10)
    finally:
        client.close()
        made.close()
    assert out == {"done": None, "moved": None}
    assert progress.answered == out and progress.asked == set()
