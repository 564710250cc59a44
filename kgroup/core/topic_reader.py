"""Read a topic's raw records by partition assignment: `__consumer_offsets` for `decode --live`.

Source of truth: OFFSETS_FORMAT.md §8 "To consume live" (assign partitions, no group
membership, no auto-commit; Describe+Read on the topic) and librdkafka's consumer semantics
(`isolation.level=read_committed` filters aborted transactional data and holds back open
transactions; control records never reach the application; `enable.partition.eof`).

Reads every assigned partition from its beginning up to the high watermark seen at start, so a
busy topic still ends. No group is joined and nothing is committed: the `group.id` librdkafka
insists on is never used for a request.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from kgroup.core.admin import GroupAdmin, as_exception, rdkafka_config_error
from kgroup.core.errors import NotFoundError, UnreachableError
from kgroup.core.rdkafka_errors import map_kafka_error, rdkafka_errors_as

READER_GROUP_ID = "kgroup-decode-reader"  # required by librdkafka; never joined or committed


@dataclass(frozen=True)
class RawMessage:
    """One consumed record: where it is, its timestamp, key, value and headers."""

    topic: str
    partition: int
    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...] = ()


class TopicReader:
    """Read partitions of one topic from the beginning to the high watermark at start."""

    def __init__(self, admin: GroupAdmin, topic: str, *, read_committed: bool = True) -> None:
        self.admin = admin
        self.topic = topic
        self.read_committed = read_committed

    def partition_count(self) -> int:
        """Partitions of the topic; NotFoundError when it does not exist."""
        topics = self.admin.topics(include_internal=True)
        meta = topics.get(self.topic)
        if meta is None:
            raise NotFoundError(
                f"topic {self.topic} does not exist",
                hint="on clusters without __consumer_offsets (or a copy) use --segments, or name "
                "the copy with --offsets-topic",
            )
        return meta.partitions

    def read(
        self,
        partitions: Sequence[int] | None = None,
        *,
        on_progress: Callable[[int, int], None] | None = None,
        ranges: dict[int, tuple[int, int]] | None = None,
    ) -> Iterator[RawMessage]:
        """Yield the records of `partitions` (all when None), partition offsets in order.

        `on_progress(done, total)` counts records against the watermarks seen at start.
        `ranges` (partition -> (start, end)) reads offsets [start, end) of those partitions
        instead, without asking for watermarks. librdkafka's errors leave as KgroupErrors.
        """
        from confluent_kafka import Consumer

        if partitions is None and ranges is None:
            partitions = range(self.partition_count())
        if ranges is not None and all(end <= start for start, end in ranges.values()):
            return  # nothing to read: no consumer (and its broker connections) to start
        conf = self.admin.client_conf(**_reader_settings(self.read_committed))
        try:
            consumer = Consumer(conf)
        except Exception as exc:
            raise rdkafka_config_error(exc, self.admin.config) from exc
        acl = f"Read on Topic:{self.topic}"
        with rdkafka_errors_as(lambda exc: self.admin.error_for(exc, "read", self.topic, acl)):
            yield from self._read(consumer, partitions, ranges, on_progress)

    def _read(
        self,
        consumer: Any,
        partitions: Sequence[int] | None,
        ranges: dict[int, tuple[int, int]] | None,
        on_progress: Callable[[int, int], None] | None,
    ) -> Iterator[RawMessage]:
        from confluent_kafka import OFFSET_BEGINNING
        from confluent_kafka import TopicPartition as RdTopicPartition

        try:
            if ranges is None:
                ranges = self._watermarks(consumer, partitions or ())
                first = dict.fromkeys(ranges, OFFSET_BEGINNING)
            else:
                first = {p: start for p, (start, _end) in ranges.items()}
            starts = {p: start for p, (start, end) in ranges.items() if end > start}
            ends = {p: ranges[p][1] for p in starts}
            total = sum(ends[p] - starts[p] for p in ends)
            if not ends:
                return
            consumer.assign([RdTopicPartition(self.topic, p, first[p]) for p in sorted(ends)])

            def fail(error: Any, p: int) -> Exception:
                return self.admin.error_for(
                    as_exception(error),
                    "read",
                    f"{self.topic}-{p}",
                    acl=f"Read on Topic:{self.topic}",
                )

            messages = _read_assigned(consumer, self.topic, ends, self.admin.timeout_s, fail)
            for done, message in enumerate(messages, 1):
                yield message
                if on_progress is not None:
                    on_progress(done, total)
        finally:
            consumer.close()

    def _watermarks(self, consumer: Any, partitions: Sequence[int]) -> dict[int, tuple[int, int]]:
        """(low, high) watermarks of each partition, as the consumer sees them."""
        from confluent_kafka import TopicPartition as RdTopicPartition

        found = {}
        for p in partitions:
            try:
                found[p] = consumer.get_watermark_offsets(
                    RdTopicPartition(self.topic, p), timeout=self.admin.timeout_s
                )
            except Exception as exc:
                raise self.admin.error_for(
                    exc,
                    "read the watermarks of",
                    f"{self.topic}-{p}",
                    f"Describe on Topic:{self.topic}",
                ) from exc
        return found


def _reader_settings(read_committed: bool) -> dict[str, Any]:
    """The librdkafka settings of a consumer that reads by assignment: the group id it must
    have, never used; nothing committed; the end of each partition reported."""
    return {
        "group.id": READER_GROUP_ID,
        "enable.auto.commit": False,
        "enable.auto.offset.store": False,
        "enable.partition.eof": True,
        "isolation.level": "read_committed" if read_committed else "read_uncommitted",
        "auto.offset.reset": "earliest",
    }


def _read_assigned(
    consumer: Any,
    topic: str,
    ends: dict[int, int],
    timeout_s: float,
    fail: Callable[[Any, int], Exception],
) -> Iterator[RawMessage]:
    """The records of the assigned partitions (`ends`: partition -> end offset), in order per
    partition, until each reaches its end offset or its end (EOF), or nothing arrives for
    `timeout_s` (an open transaction holds read_committed back below the end). A consumer
    error of partition p raises fail(error, p)."""
    from confluent_kafka import KafkaError

    pending = dict(ends)
    last_progress = time.monotonic()
    while pending:
        message = consumer.poll(0.5)
        if message is None:
            if time.monotonic() - last_progress > timeout_s:
                break
            continue
        last_progress = time.monotonic()
        p = message.partition()
        error = message.error()
        if error is not None:
            if error.code() == KafkaError._PARTITION_EOF:
                pending.pop(p, None)
                continue
            raise fail(error, p)
        if p not in pending:
            continue
        offset = message.offset()
        if offset >= pending[p]:
            pending.pop(p, None)
            continue
        _kind, ts = message.timestamp()
        headers = tuple(message.headers() or ())
        yield RawMessage(topic, p, offset, ts, message.key(), message.value(), headers)
        if offset + 1 >= pending[p]:
            pending.pop(p, None)


# ---------------------------------------------------------------- offset ranges (Spark source)


def _range_consumer(props: dict[str, str], read_committed: bool) -> Any:
    from confluent_kafka import Consumer

    conf: dict[str, Any] = {
        **props,
        **_reader_settings(read_committed),
        "enable.metrics.push": False,
    }
    try:
        return Consumer(conf)
    except Exception as exc:
        raise UnreachableError(f"cannot create a Kafka consumer: {exc}") from exc


def partition_ranges(
    props: dict[str, str], topic: str, partitions: Sequence[int] | None, timeout_s: float
) -> list[tuple[int, int, int]]:
    """(partition, low, high watermark) of each non-empty partition of `topic`.

    `props` are plain librdkafka properties (`ClusterConfig.client_properties()`), so the
    Spark source can ship them to executors; all partitions when `partitions` is None.
    librdkafka's errors leave as KgroupErrors.
    """
    consumer = _range_consumer(props, True)
    with rdkafka_errors_as(
        lambda exc: map_kafka_error(
            exc,
            operation="read the watermarks of",
            subject=topic,
            acl=f"Describe on Topic:{topic}",
            timeout_s=timeout_s,
            bootstrap=props.get("bootstrap.servers", ""),
        )
    ):
        return _ranges(consumer, topic, partitions, timeout_s)


def _ranges(
    consumer: Any, topic: str, partitions: Sequence[int] | None, timeout_s: float
) -> list[tuple[int, int, int]]:
    from confluent_kafka import TopicPartition as RdTopicPartition

    try:
        if partitions is None:
            meta = consumer.list_topics(topic, timeout=timeout_s).topics.get(topic)
            if meta is None or meta.error is not None or not meta.partitions:
                raise NotFoundError(f"topic {topic} does not exist")
            partitions = sorted(meta.partitions)
        out = []
        for p in partitions:
            try:
                low, high = consumer.get_watermark_offsets(
                    RdTopicPartition(topic, p), timeout=timeout_s
                )
            except Exception as exc:
                raise UnreachableError(f"cannot read the watermarks of {topic}-{p}: {exc}") from exc
            if high > low:
                out.append((p, low, high))
        return out
    finally:
        consumer.close()


def read_range(
    props: dict[str, str],
    topic: str,
    partition: int,
    start: int,
    end: int,
    *,
    timeout_s: float,
    read_committed: bool = True,
) -> Iterator[RawMessage]:
    """The records of offsets [start, end) of one partition (what one Spark task reads).

    read_committed: aborted records are skipped and an open transaction holds the read back
    below `end`; the read then stops after `timeout_s` without progress, like `TopicReader`.
    librdkafka's errors leave as KgroupErrors.
    """
    from confluent_kafka import TopicPartition as RdTopicPartition

    if end <= start:
        return
    consumer = _range_consumer(props, read_committed)

    def fail(error: Any, _p: int) -> Exception:
        return UnreachableError(f"cannot read {topic}-{partition}: {error.str()}")

    def translate(exc: BaseException) -> Exception:
        return map_kafka_error(
            exc,
            operation="read",
            subject=f"{topic}-{partition}",
            acl=f"Read on Topic:{topic}",
            timeout_s=timeout_s,
            bootstrap=props.get("bootstrap.servers", ""),
        )

    with rdkafka_errors_as(translate):
        try:
            consumer.assign([RdTopicPartition(topic, partition, start)])
            yield from _read_assigned(consumer, topic, {partition: end}, timeout_s, fail)
        finally:
            consumer.close()
