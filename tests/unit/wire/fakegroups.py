"""A scripted one-broker cluster that keeps committed offsets and answers OffsetDelete as Kafka.

It serves what `kgroup delete-offsets` asks (Metadata for all topics, FindCoordinator v4,
OffsetFetch v8, OffsetDelete v0), so tests can run the client or a real `kgroup` process
against it without a broker. OffsetDelete follows Kafka's coordinator (GroupMetadataManager /
OffsetMetadataManager.deleteOffsets, KIP-496): an unknown group is GROUP_ID_NOT_FOUND, a
non-empty group that does not use the consumer protocol is NON_EMPTY_GROUP, and a partition of
a topic the active group is subscribed to is GROUP_SUBSCRIBED_TO_TOPIC; other partitions lose
their committed offset.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kgroup.core.wire import messages as m
from kgroup.core.wire.codec import Reader, Writer
from tests.unit.wire.fakebroker import FakeBroker, FakePartition, FakeTopic, metadata_body

VERSIONS = {
    m.METADATA.key: (1, 12),
    m.FIND_COORDINATOR.key: (4, 4),
    m.OFFSET_FETCH.key: (8, 8),
    m.OFFSET_DELETE.key: (0, 0),
    m.API_VERSIONS.key: (0, 3),
}


@dataclass
class GroupsCluster:
    """Topics (name -> partitions), committed offsets per group, and group behaviour."""

    topics: dict[str, int] = field(default_factory=dict)
    offsets: dict[str, dict[tuple[str, int], int]] = field(default_factory=dict)
    subscribed: dict[str, set[str]] = field(default_factory=dict)  # active consumer groups
    non_consumer_active: set[str] = field(default_factory=set)  # active, protocol not consumer
    group_errors: dict[str, int] = field(default_factory=dict)  # OffsetDelete top-level
    fail_once: dict[str, int] = field(default_factory=dict)  # OffsetDelete top-level, once
    drop_offset_delete: bool = False  # as tansu does
    offer_offset_delete: bool = True
    deletes: list[tuple[str, list[tuple[str, int]]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        versions = dict(VERSIONS)
        if not self.offer_offset_delete:
            del versions[m.OFFSET_DELETE.key]
        self.broker = FakeBroker(self.handler, versions=versions)

    @property
    def address(self) -> str:
        return self.broker.address

    def close(self) -> None:
        self.broker.close()

    def committed(self, group: str) -> dict[tuple[str, int], int]:
        return dict(self.offsets.get(group, {}))

    # -- requests --------------------------------------------------------------------------------

    def handler(self, api: int, version: int, body: bytes) -> bytes:
        if api == m.METADATA.key:
            topics = [
                FakeTopic(name, tuple(FakePartition(p, self.broker.node_id) for p in range(n)))
                for name, n in sorted(self.topics.items())
            ]
            return metadata_body(
                [(self.broker.node_id, "127.0.0.1", self.broker.port)], version, topics
            )
        if api == m.FIND_COORDINATOR.key:
            return self._find_coordinator(body)
        if api == m.OFFSET_FETCH.key:
            return self._offset_fetch(body)
        if api == m.OFFSET_DELETE.key:
            return b"DROP" if self.drop_offset_delete else self._offset_delete(body)
        raise AssertionError(f"unexpected api {api}")

    def _find_coordinator(self, body: bytes) -> bytes:
        reader = Reader(body, flexible=True)
        reader.int8()  # KeyType
        keys = reader.array(lambda r: r.string())
        writer = Writer(flexible=True).int32(0)  # ThrottleTimeMs

        def entry(w: Writer, key: str) -> None:
            w.string(key).int32(self.broker.node_id).string("127.0.0.1").int32(self.broker.port)
            w.int16(0).nullable_string(None).tagged_fields()

        return writer.array(keys, entry).tagged_fields().getvalue()

    def _offset_fetch(self, body: bytes) -> bytes:
        reader = Reader(body, flexible=True)

        def read_group(r: Reader) -> str:
            name = r.string()
            r.nullable_array(lambda x: x.string())
            r.tagged_fields()
            return name

        groups = reader.array(read_group)
        writer = Writer(flexible=True).int32(0)  # ThrottleTimeMs

        def group(w: Writer, group_id: str) -> None:
            by_topic: dict[str, list[tuple[int, int]]] = {}
            for (topic, partition), offset in sorted(self.offsets.get(group_id, {}).items()):
                by_topic.setdefault(topic, []).append((partition, offset))

            def part(pw: Writer, item: tuple[int, int]) -> None:
                pw.int32(item[0]).int64(item[1]).int32(-1).nullable_string("").int16(0)
                pw.tagged_fields()

            def topic(tw: Writer, item: tuple[str, list[tuple[int, int]]]) -> None:
                tw.string(item[0]).array(item[1], part).tagged_fields()

            w.string(group_id).array(by_topic.items(), topic).int16(0).tagged_fields()

        return writer.array(groups, group).tagged_fields().getvalue()

    def _offset_delete(self, body: bytes) -> bytes:
        reader = Reader(body)
        group_id = reader.string()

        def read_topic(r: Reader) -> list[tuple[str, int]]:
            name = r.string()
            return [(name, p) for p in r.array(lambda x: x.int32())]

        asked = [tp for chunk in reader.array(read_topic) for tp in chunk]
        reader.expect_end()
        self.deletes.append((group_id, asked))
        code = self.fail_once.pop(group_id, 0) or self.group_errors.get(group_id, 0)
        if not code and group_id in self.non_consumer_active:
            code = m.NON_EMPTY_GROUP
        if not code and group_id not in self.offsets and group_id not in self.subscribed:
            code = m.GROUP_ID_NOT_FOUND
        writer = Writer().int16(code).int32(0)  # ErrorCode, ThrottleTimeMs
        if code:
            return writer.array([], Writer.string).getvalue()
        answers: dict[str, list[tuple[int, int]]] = {}
        for topic, partition in asked:
            if topic in self.subscribed.get(group_id, set()):
                error = m.GROUP_SUBSCRIBED_TO_TOPIC
            elif not 0 <= partition < self.topics.get(topic, 0):
                error = m.UNKNOWN_TOPIC_OR_PARTITION
            else:
                error = m.NONE
                self.offsets.get(group_id, {}).pop((topic, partition), None)
            answers.setdefault(topic, []).append((partition, error))

        def topic(w: Writer, item: tuple[str, list[tuple[int, int]]]) -> None:
            w.string(item[0]).array(item[1], lambda pw, p: pw.int32(p[0]).int16(p[1]))

        return writer.array(answers.items(), topic).getvalue()
