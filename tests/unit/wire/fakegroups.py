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

from kgroup.core.wire.error_codes import (
    GROUP_ID_NOT_FOUND,
    GROUP_SUBSCRIBED_TO_TOPIC,
    NON_EMPTY_GROUP,
    NONE,
    UNKNOWN_TOPIC_OR_PARTITION,
)
from kgroup.protocol import messages as api_table
from tests.unit.wire.fakebroker import (
    FakeBroker,
    FakePartition,
    FakeTopic,
    list_offsets_body,
    metadata_body,
    read_list_offsets_request,
)
from tests.unit.wire.wirecodec import Reader, Writer

VERSIONS = {
    api_table.LIST_OFFSETS.key: (1, 8),
    api_table.METADATA.key: (1, 12),
    api_table.FIND_COORDINATOR.key: (4, 4),
    api_table.OFFSET_FETCH.key: (8, 8),
    api_table.DESCRIBE_GROUPS.key: (0, 5),
    api_table.LIST_GROUPS.key: (0, 5),
    api_table.OFFSET_DELETE.key: (0, 0),
    api_table.API_VERSIONS.key: (0, 3),
    api_table.CONSUMER_GROUP_DESCRIBE.key: (0, 1),
}


@dataclass(frozen=True)
class FakeMember:
    """A KIP-848 member as ConsumerGroupDescribe reports it (member_type: v1, KIP-1099)."""

    member_id: str
    member_epoch: int = 2
    client_id: str = "rdkafka"
    client_host: str = "/10.0.0.7"
    instance_id: str | None = None
    rack_id: str | None = None
    subscribed: tuple[str, ...] = ()
    regex: str | None = None
    assignment: tuple[tuple[str, int], ...] = ()
    target: tuple[tuple[str, int], ...] = ()
    member_type: int = 1  # 0 classic, 1 consumer


@dataclass
class FakeConsumerGroup:
    """A KIP-848 `consumer` group as Kafka 4.x keeps it."""

    members: tuple[FakeMember, ...] = ()
    state: str = "Stable"
    group_epoch: int = 2
    assignment_epoch: int = 2
    assignor: str = "uniform"


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
    # KIP-848 groups; DescribeGroups (v0-v5) answers them as Kafka 4.1 does: Dead with no error
    # ("dead"), or GROUP_ID_NOT_FOUND ("not_found", DescribeGroups v6 / KIP-1043 style)
    consumer_groups: dict[str, FakeConsumerGroup] = field(default_factory=dict)
    describe_groups_answer: str = "dead"
    log_end: int = 10  # every partition's log end offset (log start 0)
    listed_only: set[str] = field(default_factory=set)  # listed, then gone (deleted meanwhile)
    # groups of other ListGroups types (share, streams): listed with their type; DescribeGroups
    # and ConsumerGroupDescribe do not know them (Dead / GROUP_ID_NOT_FOUND)
    other_types: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        versions = dict(VERSIONS)
        if not self.offer_offset_delete:
            del versions[api_table.OFFSET_DELETE.key]
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
        if api == api_table.METADATA.key:
            topics = [
                FakeTopic(name, tuple(FakePartition(p, self.broker.node_id) for p in range(n)))
                for name, n in sorted(self.topics.items())
            ]
            return metadata_body(
                [(self.broker.node_id, "127.0.0.1", self.broker.port)], version, topics
            )
        if api == api_table.FIND_COORDINATOR.key:
            return self._find_coordinator(body)
        if api == api_table.OFFSET_FETCH.key:
            return self._offset_fetch(body)
        if api == api_table.OFFSET_DELETE.key:
            return b"DROP" if self.drop_offset_delete else self._offset_delete(body)
        if api == api_table.LIST_GROUPS.key:
            return self._list_groups(version, body)
        if api == api_table.DESCRIBE_GROUPS.key:
            return self._describe_groups(version, body)
        if api == api_table.CONSUMER_GROUP_DESCRIBE.key:
            return self._consumer_group_describe(version, body)
        if api == api_table.LIST_OFFSETS.key:
            _, asked = read_list_offsets_request(body, version)
            answers = [(t, p, 0, -1, 0 if ts == -2 else self.log_end) for t, p, ts in asked]
            return list_offsets_body(version, answers)
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
            code = NON_EMPTY_GROUP
        if not code and group_id not in self.offsets and group_id not in self.subscribed:
            code = GROUP_ID_NOT_FOUND
        writer = Writer().int16(code).int32(0)  # ErrorCode, ThrottleTimeMs
        if code:
            return writer.array([], Writer.string).getvalue()
        answers: dict[str, list[tuple[int, int]]] = {}
        for topic, partition in asked:
            if topic in self.subscribed.get(group_id, set()):
                error = GROUP_SUBSCRIBED_TO_TOPIC
            elif not 0 <= partition < self.topics.get(topic, 0):
                error = UNKNOWN_TOPIC_OR_PARTITION
            else:
                error = NONE
                self.offsets.get(group_id, {}).pop((topic, partition), None)
            answers.setdefault(topic, []).append((partition, error))

        def topic(w: Writer, item: tuple[str, list[tuple[int, int]]]) -> None:
            w.string(item[0]).array(item[1], lambda pw, p: pw.int32(p[0]).int16(p[1]))

        return writer.array(answers.items(), topic).getvalue()

    # -- groups (ListGroups, DescribeGroups, ConsumerGroupDescribe) ------------------------------

    def _classic_groups(self) -> list[str]:
        return sorted(set(self.offsets) - set(self.consumer_groups))

    def _list_groups(self, version: int, body: bytes) -> bytes:
        """ListGroupsResponse v0-v5 (ListGroupsResponse.json); filters of v4/v5 applied."""
        flexible = version >= 3
        reader = Reader(body, flexible=flexible)
        states = {s.lower() for s in reader.array(lambda r: r.string())} if version >= 4 else set()
        types = {t.lower() for t in reader.array(lambda r: r.string())} if version >= 5 else set()
        reader.tagged_fields()
        classic = sorted(set(self._classic_groups()) | self.listed_only)
        listed = [(g, "consumer", "Empty", "classic") for g in classic]
        listed += [(g, "consumer", cg.state, "consumer") for g, cg in self.consumer_groups.items()]
        listed += [(g, kind, "Empty", kind) for g, kind in self.other_types.items()]
        listed = [
            item
            for item in sorted(listed)
            if (not states or item[2].lower() in states) and (not types or item[3] in types)
        ]
        writer = Writer(flexible=flexible)
        if version >= 1:
            writer.int32(0)  # ThrottleTimeMs 1+
        writer.int16(0)  # ErrorCode

        def entry(w: Writer, item: tuple[str, str, str, str]) -> None:
            w.string(item[0]).string(item[1])  # GroupId, ProtocolType
            if version >= 4:
                w.string(item[2])  # GroupState 4+
            if version >= 5:
                w.string(item[3])  # GroupType 5+
            w.tagged_fields()

        return writer.array(listed, entry).tagged_fields().getvalue()

    def _describe_groups(self, version: int, body: bytes) -> bytes:
        """DescribeGroupsResponse v1-v5: classic groups Empty; KIP-848 and unknown groups Dead."""
        flexible = version >= 5
        reader = Reader(body, flexible=flexible)
        groups = reader.array(lambda r: r.string())
        writer = Writer(flexible=flexible)
        if version >= 1:
            writer.int32(0)  # ThrottleTimeMs

        def entry(w: Writer, group_id: str) -> None:
            if group_id in self.consumer_groups and self.describe_groups_answer == "not_found":
                code, state, protocol_type = GROUP_ID_NOT_FOUND, "Dead", ""
            elif group_id in self.offsets and group_id not in self.consumer_groups:
                code, state, protocol_type = 0, "Empty", "consumer"
            else:
                code, state, protocol_type = 0, "Dead", ""
            w.int16(code).string(group_id).string(state).string(protocol_type).string("")
            w.array([], Writer.string)  # Members
            if version >= 3:
                w.int32(-(2**31))  # AuthorizedOperations 3+
            w.tagged_fields()

        return writer.array(groups, entry).tagged_fields().getvalue()

    def _consumer_group_describe(self, version: int, body: bytes) -> bytes:
        """ConsumerGroupDescribeResponse v0-v1 (v1 adds Members.MemberType, KIP-1099)."""
        reader = Reader(body, flexible=True)
        groups = reader.array(lambda r: r.string())
        reader.boolean()  # IncludeAuthorizedOperations
        writer = Writer(flexible=True).int32(0)  # ThrottleTimeMs

        def assignment(w: Writer, pairs: tuple[tuple[str, int], ...]) -> None:
            by_topic: dict[str, list[int]] = {}
            for topic, partition in pairs:
                by_topic.setdefault(topic, []).append(partition)

            def topic(tw: Writer, item: tuple[str, list[int]]) -> None:
                tw.buf += bytes(15) + b"\x01"  # TopicId
                tw.string(item[0]).array(item[1], Writer.int32).tagged_fields()

            w.array(sorted(by_topic.items()), topic).tagged_fields()

        def member(w: Writer, mb: FakeMember) -> None:
            w.string(mb.member_id).nullable_string(mb.instance_id).nullable_string(mb.rack_id)
            w.int32(mb.member_epoch).string(mb.client_id).string(mb.client_host)
            w.array(mb.subscribed, Writer.string).nullable_string(mb.regex)
            assignment(w, mb.assignment)
            assignment(w, mb.target)
            if version >= 1:
                w.int8(mb.member_type)  # MemberType 1+
            w.tagged_fields()

        def entry(w: Writer, group_id: str) -> None:
            cg = self.consumer_groups.get(group_id)
            if cg is None:
                w.int16(GROUP_ID_NOT_FOUND).nullable_string(
                    f"Group {group_id} is not a consumer group."
                )
                w.string(group_id).string("").int32(-1).int32(-1).string("")
                w.array([], member)
            else:
                w.int16(0).nullable_string(None).string(group_id).string(cg.state)
                w.int32(cg.group_epoch).int32(cg.assignment_epoch).string(cg.assignor)
                w.array(cg.members, member)
            w.int32(-(2**31)).tagged_fields()  # AuthorizedOperations

        return writer.array(groups, entry).tagged_fields().getvalue()
