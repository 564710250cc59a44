"""The share-group APIs' bytes, field by field against Kafka's JSON, and the wire calls.

kgroup writes and reads these messages through its declarations (kgroup/protocol/definitions/
wire/*ShareGroup*.json, DeleteGroups*.json); the scripted coordinator (fakeshare.py) uses the
same declarations. So each exchange is read here again with the fakes' own hand-written reader
(tests/unit/wire/wirecodec.py), in the field order and types of Kafka's JSON files
(clients/src/main/resources/common/message/<Name>.json, Kafka 4.1: every one flexible, so
compact strings and arrays and a tag section after each struct).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kgroup.core.config import ClusterConfig
from kgroup.core.errors import KgroupError, NotFoundError, SafetyRefusal
from kgroup.core.models import TopicPartition
from kgroup.core.wire.client import WireClient
from kgroup.core.wire.delete_groups import delete_groups
from kgroup.core.wire.share_groups import (
    alter_share_group_offsets,
    delete_share_group_offsets,
    describe_share_groups,
    share_group_offsets,
)
from kgroup.protocol.messages.share_groups import (
    ALTER_SHARE_GROUP_OFFSETS,
    DELETE_GROUPS,
    DELETE_SHARE_GROUP_OFFSETS,
    DESCRIBE_SHARE_GROUP_OFFSETS,
    SHARE_GROUP_DESCRIBE,
)
from tests.unit.wire.fakeshare import TOPIC_ID, FakeShareGroup, FakeShareMember, ShareCluster
from tests.unit.wire.wirecodec import Reader

MEMBER = FakeShareMember(
    "m-1",
    client_id="c-1",
    client_host="/10.1.1.1",
    rack_id="r-1",
    member_epoch=7,
    subscribed=("orders",),
    assignment=(("orders", 0), ("orders", 2)),
)


@pytest.fixture()
def cluster() -> Iterator[ShareCluster]:
    made = ShareCluster(
        topics={"orders": 3},
        share_groups={
            "sg1": FakeShareGroup((MEMBER,), group_epoch=9, assignment_epoch=8),
            "sg2": FakeShareGroup(start_offsets={("orders", 0): 5, ("orders", 1): -1}),
        },
    )
    yield made
    made.close()


@pytest.fixture()
def client(cluster) -> Iterator[WireClient]:
    made = WireClient(ClusterConfig(cluster.address, timeout_s=5))
    yield made
    made.close()


def exchange(cluster: ShareCluster, api_key: int) -> tuple[bytes, bytes]:
    (found,) = [(req, resp) for key, req, resp in cluster.raw if key == api_key]
    return found


def test_share_group_describe_v1_bytes(cluster, client) -> None:
    described = describe_share_groups(client, ["sg1", "nope"])
    request, response = exchange(cluster, SHARE_GROUP_DESCRIBE.key)
    # ShareGroupDescribeRequest v1: GroupIds []string, IncludeAuthorizedOperations bool
    r = Reader(request, flexible=True)
    assert r.array(lambda x: x.string()) == ["sg1", "nope"]
    assert r.boolean() is False
    assert r.tagged_fields() == {}
    r.expect_end()
    # ShareGroupDescribeResponse v1
    r = Reader(response, flexible=True)
    assert r.int32() == 0  # ThrottleTimeMs

    def member(x: Reader) -> tuple:
        out = (
            x.string(),  # MemberId
            x.nullable_string(),  # RackId
            x.int32(),  # MemberEpoch
            x.string(),  # ClientId
            x.string(),  # ClientHost
            x.array(lambda y: y.string()),  # SubscribedTopicNames
        )

        def topic_partitions(y: Reader) -> tuple:
            tp = (y.uuid(), y.string(), y.array(lambda z: z.int32()))
            y.tagged_fields()
            return tp

        assignment = x.array(topic_partitions)  # Assignment.TopicPartitions
        x.tagged_fields()  # Assignment
        x.tagged_fields()  # Member
        return (*out, assignment)

    def group(x: Reader) -> tuple:
        out = (
            x.int16(),  # ErrorCode
            x.nullable_string(),  # ErrorMessage
            x.string(),  # GroupId
            x.string(),  # GroupState
            x.int32(),  # GroupEpoch
            x.int32(),  # AssignmentEpoch
            x.string(),  # AssignorName
            x.array(member),  # Members
            x.int32(),  # AuthorizedOperations
        )
        x.tagged_fields()
        return out

    groups = r.array(group)
    r.tagged_fields()
    r.expect_end()
    assert groups[0][:7] == (0, None, "sg1", "Stable", 9, 8, "simple")
    assert groups[0][7] == [
        ("m-1", "r-1", 7, "c-1", "/10.1.1.1", ["orders"], [(TOPIC_ID, "orders", [0, 2])])
    ]
    assert groups[0][8] == -(2**31)
    assert groups[1][0] == 69  # GROUP_ID_NOT_FOUND
    # what kgroup made of it
    sg1 = described["sg1"]
    assert (sg1.type, sg1.state, sg1.group_epoch, sg1.assignment_epoch) == ("share", "Stable", 9, 8)
    (m,) = sg1.members
    assert m.assignment == (TopicPartition("orders", 0), TopicPartition("orders", 2))
    assert (m.rack, m.member_epoch, m.subscription) == ("r-1", 7, ("orders",))
    assert described["nope"].error_code == "GROUP_ID_NOT_FOUND"


def test_describe_share_group_offsets_v0_bytes(cluster, client) -> None:
    offsets = share_group_offsets(client, ["sg2"])["sg2"]
    request, response = exchange(cluster, DESCRIBE_SHARE_GROUP_OFFSETS.key)
    r = Reader(request, flexible=True)

    def asked(x: Reader) -> tuple:
        out = (x.string(), x.nullable_array(lambda y: y.string()))  # GroupId, Topics (null: all)
        x.tagged_fields()
        return out

    assert r.array(asked) == [("sg2", None)]
    r.tagged_fields()
    r.expect_end()
    r = Reader(response, flexible=True)
    assert r.int32() == 0

    def partition(x: Reader) -> tuple:
        # PartitionIndex, StartOffset, LeaderEpoch, ErrorCode, ErrorMessage
        out = (x.int32(), x.int64(), x.int32(), x.int16(), x.nullable_string())
        x.tagged_fields()
        return out

    def topic(x: Reader) -> tuple:
        out = (x.string(), x.uuid(), x.array(partition))  # TopicName, TopicId, Partitions
        x.tagged_fields()
        return out

    def group(x: Reader) -> tuple:
        out = (x.string(), x.array(topic), x.int16(), x.nullable_string())
        x.tagged_fields()
        return out

    assert r.array(group) == [
        ("sg2", [("orders", TOPIC_ID, [(0, 5, 0, 0, None), (1, -1, -1, 0, None)])], 0, None)
    ]
    r.tagged_fields()
    r.expect_end()
    # start offset -1: no state for the partition, left out (Kafka's tool prints "-")
    assert {tp: v.offset for tp, v in offsets.items()} == {TopicPartition("orders", 0): 5}


def test_alter_share_group_offsets_v0_bytes(cluster, client) -> None:
    alter_share_group_offsets(
        client, "sg2", {TopicPartition("orders", 1): 3, TopicPartition("orders", 0): 0}
    )
    request, response = exchange(cluster, ALTER_SHARE_GROUP_OFFSETS.key)
    r = Reader(request, flexible=True)
    assert r.string() == "sg2"  # GroupId

    def partition(x: Reader) -> tuple:
        out = (x.int32(), x.int64())  # PartitionIndex, StartOffset
        x.tagged_fields()
        return out

    def topic(x: Reader) -> tuple:
        out = (x.string(), x.array(partition))
        x.tagged_fields()
        return out

    assert r.array(topic) == [("orders", [(0, 0), (1, 3)])]
    r.tagged_fields()
    r.expect_end()
    r = Reader(response, flexible=True)
    # Kafka 4.1: ThrottleTimeMs, then the top-level ErrorCode and ErrorMessage
    assert (r.int32(), r.int16(), r.nullable_string()) == (0, 0, None)

    def answered(x: Reader) -> tuple:
        out = (x.int32(), x.int16(), x.nullable_string())
        x.tagged_fields()
        return out

    def rtopic(x: Reader) -> tuple:
        out = (x.string(), x.uuid(), x.array(answered))
        x.tagged_fields()
        return out

    assert r.array(rtopic) == [("orders", TOPIC_ID, [(0, 0, None), (1, 0, None)])]
    r.tagged_fields()
    r.expect_end()
    assert cluster.share_groups["sg2"].start_offsets == {("orders", 0): 0, ("orders", 1): 3}


def test_alter_refused_while_the_share_group_has_members(cluster, client) -> None:
    with pytest.raises(SafetyRefusal, match="NON_EMPTY_GROUP"):
        alter_share_group_offsets(client, "sg1", {TopicPartition("orders", 0): 0})
    # Kafka 4.1's coordinator refuses the whole request at the top level, no topic listed
    _, response = exchange(cluster, ALTER_SHARE_GROUP_OFFSETS.key)
    r = Reader(response, flexible=True)
    assert (r.int32(), r.int16()) == (0, 68)  # NON_EMPTY_GROUP
    r.nullable_string()
    assert r.array(lambda x: x.string()) == []
    r.tagged_fields()
    r.expect_end()


def test_alter_of_an_unknown_share_group_is_not_found(cluster, client) -> None:
    with pytest.raises(NotFoundError):
        alter_share_group_offsets(client, "nope", {TopicPartition("orders", 0): 0})


def test_delete_share_offsets_of_an_unknown_topic_is_that_topic_s_error(cluster, client) -> None:
    outcome = delete_share_group_offsets(client, "sg2", ["orders", "gone"])
    assert outcome["orders"] is None
    assert isinstance(outcome["gone"], KgroupError)
    assert outcome["gone"].kafka_error == "UNKNOWN_TOPIC_OR_PARTITION"


def test_delete_share_group_offsets_v0_bytes(cluster, client) -> None:
    outcome = delete_share_group_offsets(client, "sg2", ["orders"])
    assert outcome == {"orders": None}
    request, response = exchange(cluster, DELETE_SHARE_GROUP_OFFSETS.key)
    r = Reader(request, flexible=True)
    assert r.string() == "sg2"

    def topic(x: Reader) -> str:
        name = x.string()
        x.tagged_fields()
        return name

    assert r.array(topic) == ["orders"]
    r.tagged_fields()
    r.expect_end()
    r = Reader(response, flexible=True)
    assert (r.int32(), r.int16(), r.nullable_string()) == (0, 0, None)

    def rtopic(x: Reader) -> tuple:
        # Kafka 4.1 answers per topic: TopicName, TopicId, ErrorCode, ErrorMessage (no partitions)
        out = (x.string(), x.uuid(), x.int16(), x.nullable_string())
        x.tagged_fields()
        return out

    assert r.array(rtopic) == [("orders", TOPIC_ID, 0, None)]
    r.tagged_fields()
    r.expect_end()


def test_delete_groups_v2_bytes_and_refusal(cluster, client) -> None:
    outcome = delete_groups(client, ["sg2", "sg1"])
    assert outcome["sg2"] is None
    assert isinstance(outcome["sg1"], SafetyRefusal)
    request, response = exchange(cluster, DELETE_GROUPS.key)
    r = Reader(request, flexible=True)
    assert r.array(lambda x: x.string()) == ["sg2", "sg1"]  # GroupsNames
    r.tagged_fields()
    r.expect_end()
    r = Reader(response, flexible=True)
    assert r.int32() == 0

    def result(x: Reader) -> tuple:
        out = (x.string(), x.int16())  # GroupId, ErrorCode (ErrorMessage only from v3)
        x.tagged_fields()
        return out

    assert r.array(result) == [("sg2", 0), ("sg1", 68)]  # NON_EMPTY_GROUP
    r.tagged_fields()
    r.expect_end()


def test_unknown_share_group_is_not_found(cluster, client) -> None:
    answer = share_group_offsets(client, ["nope"])["nope"]
    assert isinstance(answer, NotFoundError)


def test_broker_without_the_apis_says_so_never_not_found() -> None:
    made = ShareCluster(topics={"orders": 1}, share_apis=False)
    client = WireClient(ClusterConfig(made.address, timeout_s=5))
    try:
        described = describe_share_groups(client, ["sg1"])["sg1"]
        offsets = share_group_offsets(client, ["sg1"])["sg1"]
        with pytest.raises(KgroupError) as raised:
            alter_share_group_offsets(client, "sg1", {TopicPartition("orders", 0): 0})
    finally:
        client.close()
        made.close()
    assert described.error_code == "UNSUPPORTED_VERSION"
    assert "does not offer ShareGroupDescribe v1" in (described.error or "")
    assert isinstance(offsets, KgroupError) and not isinstance(offsets, NotFoundError)
    assert "does not offer AlterShareGroupOffsets v0" in raised.value.message
    assert not made.requests


def test_streams_group_describe_v0_bytes() -> None:
    """StreamsGroupDescribe v0 (KIP-1071), the response read field by field in the order of
    Kafka's StreamsGroupDescribeResponse.json; tasks become source-topic partitions."""
    from kgroup.core.wire.streams_groups import describe_streams_groups
    from kgroup.protocol.messages.streams_groups import STREAMS_GROUP_DESCRIBE
    from tests.unit.wire.fakeshare import FakeStreamsGroup, FakeStreamsMember

    made = ShareCluster(
        topics={"orders": 2},
        offsets={"app": {("orders", 0): 1}},
        streams_groups={
            "app": FakeStreamsGroup(
                subtopologies={"0": ("orders",)},
                members=(FakeStreamsMember("s-1", active=(("0", (1,)),)),),
                topology_epoch=3,
            )
        },
    )
    client = WireClient(ClusterConfig(made.address, timeout_s=5))
    try:
        described = describe_streams_groups(client, ["app"])["app"]
    finally:
        client.close()
        made.close()
    request, response = exchange(made, STREAMS_GROUP_DESCRIBE.key)
    r = Reader(request, flexible=True)
    assert r.array(lambda x: x.string()) == ["app"] and r.boolean() is False
    r.tagged_fields()
    r.expect_end()
    r = Reader(response, flexible=True)
    assert r.int32() == 0  # ThrottleTimeMs

    def strings(x: Reader) -> list[str]:
        return x.array(lambda y: y.string())

    def task_ids(x: Reader) -> tuple:
        out = (x.string(), x.array(lambda y: y.int32()))  # SubtopologyId, Partitions
        x.tagged_fields()
        return out

    def assignment(x: Reader) -> tuple:
        out = (x.array(task_ids), x.array(task_ids), x.array(task_ids))  # active/standby/warmup
        x.tagged_fields()
        return out

    def member(x: Reader) -> tuple:
        out = (
            x.string(),  # MemberId
            x.int32(),  # MemberEpoch
            x.nullable_string(),  # InstanceId
            x.nullable_string(),  # RackId
            x.string(),  # ClientId
            x.string(),  # ClientHost
            x.int32(),  # TopologyEpoch
            x.string(),  # ProcessId
        )
        assert x.int8() == -1  # UserEndpoint: null (a nullable struct: int8 -1, else 1)
        assert x.array(lambda y: y) == []  # ClientTags
        assert x.array(lambda y: y) == []  # TaskOffsets
        assert x.array(lambda y: y) == []  # TaskEndOffsets
        current, target = assignment(x), assignment(x)
        classic = x.boolean()  # IsClassic
        x.tagged_fields()
        return (*out, current, target, classic)

    def subtopology(x: Reader) -> tuple:
        out = (x.string(), strings(x), strings(x))  # Id, SourceTopics, RepartitionSinkTopics
        assert x.array(lambda y: y) == [] and x.array(lambda y: y) == []  # TopicInfo arrays
        x.tagged_fields()
        return out

    def group(x: Reader) -> tuple:
        head = (x.int16(), x.nullable_string(), x.string(), x.string(), x.int32(), x.int32())
        assert x.int8() == 1  # Topology: a nullable struct, present
        topology = (x.int32(), x.nullable_array(subtopology))  # Epoch, Subtopologies
        x.tagged_fields()
        members = x.array(member)
        operations = x.int32()
        x.tagged_fields()
        return (*head, topology, members, operations)

    (g,) = r.array(group)
    r.tagged_fields()
    r.expect_end()
    assert g[:6] == (0, None, "app", "Stable", 4, 4)
    assert g[6] == (3, [("0", ["orders"], [])])
    (m,) = g[7]
    assert m[:8] == ("s-1", 4, None, None, "app-StreamThread-1", "/10.0.0.5", 1, "p-1")
    assert m[8] == ([("0", [1])], [], []) and m[10] is False
    assert described.topology_epoch == 3
    assert described.members[0].assignment == (TopicPartition("orders", 1),)
    assert described.members[0].tasks == "0:1"


def test_delete_groups_refusal_of_a_streams_group_names_no_share_consumers() -> None:
    from tests.unit.wire.fakeshare import FakeStreamsGroup, FakeStreamsMember

    made = ShareCluster(
        topics={"orders": 1},
        streams_groups={
            "app": FakeStreamsGroup({"0": ("orders",)}, members=(FakeStreamsMember("s-1"),))
        },
    )
    client = WireClient(ClusterConfig(made.address, timeout_s=5))
    try:
        refusal = delete_groups(client, ["app"])["app"]
    finally:
        client.close()
        made.close()
    assert isinstance(refusal, SafetyRefusal)
    text = refusal.one_line()
    assert "NON_EMPTY_GROUP" in text
    assert "share" not in text  # DeleteGroups serves streams groups too: no 'share consumers'
