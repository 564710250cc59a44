"""librdkafka's errors never leave core/topic_reader.py as confluent_kafka's KafkaException: a
consumer call that fails (assign, poll, close) raises kgroup's own error, so the run layers
reading through it (reset's liveness probe, decode --live) catch KgroupError and nothing of
the client library (issue #25: only core/ talks to Kafka).

The consumer is scripted: librdkafka's own KafkaException and KafkaError, raised where a real
consumer raises them (poll on a fatal error, assign on a destroyed handle).
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

confluent_kafka = pytest.importorskip("confluent_kafka")

from kgroup.core.admin import GroupAdmin  # noqa: E402
from kgroup.core.config import ClusterConfig  # noqa: E402
from kgroup.core.errors import (  # noqa: E402
    AuthorizationError,
    KafkaOperationError,
    KgroupError,
    UnreachableError,
)
from kgroup.core.models import TopicMetadata  # noqa: E402
from kgroup.core.topic_reader import TopicReader, partition_ranges, read_range  # noqa: E402
from kgroup.offsets.replay import partition_for  # noqa: E402

KafkaError = confluent_kafka.KafkaError
KafkaException = confluent_kafka.KafkaException
TOPIC = "__consumer_offsets"
GROUP = "orders-reader"


def _fails(code: int) -> KafkaException:
    return KafkaException(KafkaError(code))


class ScriptedConsumer:
    """A consumer whose calls answer or raise as scripted; watermarks (0, 10)."""

    fail_on: ClassVar[dict[str, int]] = {}
    closed = 0

    def __init__(self, conf: dict[str, Any]) -> None:
        self.conf = conf

    def _maybe_fail(self, call: str) -> None:
        if call in self.fail_on:
            raise _fails(self.fail_on[call])

    def get_watermark_offsets(self, tp: Any, timeout: float | None = None) -> tuple[int, int]:
        self._maybe_fail("get_watermark_offsets")
        return 0, 10

    def list_topics(self, topic: str | None = None, timeout: float | None = None) -> Any:
        self._maybe_fail("list_topics")
        raise AssertionError("not scripted")

    def assign(self, partitions: list[Any]) -> None:
        self._maybe_fail("assign")

    def poll(self, timeout: float | None = None) -> Any:
        self._maybe_fail("poll")
        return None

    def close(self) -> None:
        type(self).closed += 1
        self._maybe_fail("close")


@pytest.fixture
def consumer(monkeypatch: pytest.MonkeyPatch) -> type[ScriptedConsumer]:
    class Scripted(ScriptedConsumer):
        fail_on: ClassVar[dict[str, int]] = {}
        closed = 0

    monkeypatch.setattr(confluent_kafka, "Consumer", Scripted)
    return Scripted


PROPS = {"bootstrap.servers": "fake:9092"}


def test_read_range_raises_kgroup_errors_not_kafka_exception(consumer) -> None:
    consumer.fail_on = {"poll": KafkaError.TOPIC_AUTHORIZATION_FAILED}
    with pytest.raises(AuthorizationError) as caught:
        list(read_range(PROPS, TOPIC, 3, 0, 10, timeout_s=1.0))
    assert "not authorized to read __consumer_offsets-3" in caught.value.message
    assert "Read on Topic:__consumer_offsets" in (caught.value.hint or "")
    assert consumer.closed == 1

    consumer.fail_on = {"assign": KafkaError._TRANSPORT}
    with pytest.raises(UnreachableError) as unreachable:
        list(read_range(PROPS, TOPIC, 3, 0, 10, timeout_s=1.0))
    assert "fake:9092" in unreachable.value.message

    consumer.fail_on = {"close": KafkaError._STATE}
    with pytest.raises(KafkaOperationError):
        list(read_range(PROPS, TOPIC, 3, 0, 10, timeout_s=0.01))


def test_partition_ranges_raises_kgroup_errors(consumer) -> None:
    consumer.fail_on = {"list_topics": KafkaError._TRANSPORT}
    with pytest.raises(UnreachableError):
        partition_ranges(PROPS, TOPIC, None, 1.0)
    consumer.fail_on = {"close": KafkaError._STATE}
    with pytest.raises(KgroupError):
        partition_ranges(PROPS, TOPIC, [0], 1.0)


def test_topic_reader_raises_kgroup_errors(consumer) -> None:
    admin = GroupAdmin(ClusterConfig(bootstrap_servers="fake:9092", timeout_s=1.0))
    consumer.fail_on = {"poll": KafkaError.TOPIC_AUTHORIZATION_FAILED}
    with pytest.raises(AuthorizationError) as caught:
        list(TopicReader(admin, TOPIC).read(ranges={0: (0, 10)}))
    assert "Read on Topic:__consumer_offsets" in (caught.value.hint or "")


class OffsetsAdmin:
    """What reset's liveness probe asks of an admin: a 50-partition __consumer_offsets."""

    def __init__(self) -> None:
        self.config = ClusterConfig(bootstrap_servers="fake:9092", timeout_s=1.0)
        self.timeout_s = 1.0

    def topics(self, include_internal: bool = False) -> dict[str, TopicMetadata]:
        return {TOPIC: TopicMetadata(TOPIC, 50)}


def test_liveness_probe_says_core_s_reason(consumer) -> None:
    """reset's probe catches kgroup's error only; the reason is core's wording, ACL named."""
    from kgroup.reset.liveness import last_commit_ms

    consumer.fail_on = {"poll": KafkaError.TOPIC_AUTHORIZATION_FAILED}
    reason = last_commit_ms(OffsetsAdmin(), GROUP, 1.0)  # type: ignore[arg-type]
    where = f"{TOPIC}-{partition_for(GROUP, 50)}"
    assert reason == (
        f"cannot read {TOPIC}: not authorized to read {where} (TOPIC_AUTHORIZATION_FAILED)"
    )
