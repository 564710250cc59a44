"""GroupsCluster as a principal with missing Describe ACLs sees it, following Kafka's KafkaApis:
an all-topics Metadata answer leaves out topics it may not Describe, a Metadata request naming
one answers TOPIC_AUTHORIZATION_FAILED (whether or not it exists), an all-topics OffsetFetch
leaves their offsets out, DescribeGroups still reports the group (Empty, or Stable with its
members' protocol metadata naming the hidden topics)."""

from __future__ import annotations

from dataclasses import dataclass, field

from kgroup.core.wire.error_codes import TOPIC_AUTHORIZATION_FAILED, UNKNOWN_TOPIC_OR_PARTITION
from kgroup.protocol import messages as api_table
from tests.unit.wire.fakebroker import FakePartition, FakeTopic, metadata_body
from tests.unit.wire.fakegroups import GroupsCluster
from tests.unit.wire.wirecodec import Reader, Writer


@dataclass(frozen=True)
class LiveMember:
    member_id: str
    subscription: tuple[str, ...]
    assignment: tuple[tuple[str, tuple[int, ...]], ...]


@dataclass
class AclCluster(GroupsCluster):
    hidden: set[str] = field(default_factory=set)  # topics the principal may not Describe
    protocol_types: dict[str, str] = field(default_factory=dict)  # group -> "" for simple groups
    live: dict[str, tuple[LiveMember, ...]] = field(default_factory=dict)  # Stable groups
    unknown_as_empty: bool = False  # answer unknown groups Empty, as tansu does
    named_metadata: list[list[str]] = field(default_factory=list)

    def handler(self, api: int, version: int, body: bytes) -> bytes:
        if api == api_table.METADATA.key:
            return self._metadata(version, body)
        if api == api_table.OFFSET_FETCH.key:
            shown = self.offsets
            self.offsets = {
                g: {tp: o for tp, o in offs.items() if tp[0] not in self.hidden}
                for g, offs in shown.items()
            }
            try:
                return super().handler(api, version, body)
            finally:
                self.offsets = shown
        if api == api_table.DESCRIBE_GROUPS.key:
            return self._describe(version, body)
        return super().handler(api, version, body)

    def _metadata(self, version: int, body: bytes) -> bytes:
        flexible = version >= 9
        reader = Reader(body, flexible=flexible)

        def topic(r: Reader) -> str | None:
            if version >= 10:
                r.uuid()
            name = r.nullable_string() if version >= 10 else r.string()
            if flexible:
                r.tagged_fields()
            return name

        names = reader.nullable_array(topic)
        node = self.broker.node_id

        def fake(name: str) -> FakeTopic:
            count = self.topics[name]
            return FakeTopic(name, tuple(FakePartition(p, node) for p in range(count)))

        if names is None:  # all topics: the hidden ones are left out
            topics = [fake(n) for n in sorted(self.topics) if n not in self.hidden]
        else:
            if names:
                self.named_metadata.append([n for n in names if n])
            topics = []
            for name in names:
                assert name is not None
                if name in self.hidden:
                    topics.append(FakeTopic(name, (), error=TOPIC_AUTHORIZATION_FAILED))
                elif name in self.topics:
                    topics.append(fake(name))
                else:
                    topics.append(FakeTopic(name, (), error=UNKNOWN_TOPIC_OR_PARTITION))
        return metadata_body([(node, "127.0.0.1", self.broker.port)], version, topics)

    def _describe(self, version: int, body: bytes) -> bytes:
        flexible = version >= 5
        groups = Reader(body, flexible=flexible).array(lambda r: r.string())
        writer = Writer(flexible=flexible)
        if version >= 1:
            writer.int32(0)

        def member(w: Writer, mb: LiveMember) -> None:
            w.string(mb.member_id)
            if version >= 4:
                w.nullable_string(None)  # GroupInstanceId
            w.string("rdkafka").string("/10.0.0.7")
            metadata = Writer().int16(0).array(list(mb.subscription), Writer.string)
            metadata.nullable_bytes(None)
            assignment = Writer().int16(0)
            assignment.array(
                list(mb.assignment), lambda aw, t: aw.string(t[0]).array(list(t[1]), Writer.int32)
            )
            assignment.nullable_bytes(None)
            w.bytes_(metadata.getvalue()).bytes_(assignment.getvalue())
            w.tagged_fields()

        def entry(w: Writer, group_id: str) -> None:
            members: tuple[LiveMember, ...] = ()
            if group_id in self.live:
                state, ptype, protocol, members = "Stable", "consumer", "range", self.live[group_id]
            elif group_id in self.offsets or self.unknown_as_empty:
                state, ptype, protocol = "Empty", self.protocol_types.get(group_id, "consumer"), ""
                if group_id not in self.offsets:
                    ptype = ""
            else:
                state, ptype, protocol = "Dead", "", ""
            w.int16(0).string(group_id).string(state).string(ptype).string(protocol)
            w.array(list(members), member)
            if version >= 3:
                w.int32(-(2**31))
            w.tagged_fields()

        return writer.array(groups, entry).tagged_fields().getvalue()
