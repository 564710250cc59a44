"""Group API messages against bytes written by hand from the Kafka JSON message specs.

Each vector is laid out field by field with the spec's field name, so a reader can check it
against clients/src/main/resources/common/message/*.json without running anything.
"""

from __future__ import annotations

import pytest

from kgroup.core.wire import cluster_calls, group_calls, offset_calls
from kgroup.core.wire.calls import read_answer
from kgroup.core.wire.convert import topic_id_text
from kgroup.core.wire.error_codes import NOT_COORDINATOR, error_name
from kgroup.core.wire.frames import ProtocolError
from kgroup.core.wire.member_protocol import (
    Versioned,
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
    subscription,
)
from kgroup.core.wire.member_protocol import assignment as member_assignment
from kgroup.core.wire.results import READ_COMMITTED, CoordinatorResult, FetchedOffset, ListedOffset
from kgroup.core.wire.versions import choose_version
from kgroup.protocol import messages as api_table
from kgroup.protocol.generated.wire import api_versions_response as av_res
from kgroup.protocol.generated.wire import consumer_group_describe_response as cgd_res
from kgroup.protocol.generated.wire import describe_groups_response as dg_res
from kgroup.protocol.generated.wire import list_groups_response as lgr_res
from kgroup.protocol.generated.wire import metadata_response as md_res
from kgroup.protocol.generated.wire import offset_delete_response as od_res
from kgroup.protocol.generated.wire import sasl_authenticate_response as sa_res
from kgroup.protocol.generated.wire import sasl_handshake_response as sh_res


def h(*parts: str) -> bytes:
    """Hex pieces (spaces allowed) to bytes."""
    return bytes.fromhex("".join(parts).replace(" ", ""))


def s16(text: str) -> str:
    """A classic string: int16 length then UTF-8, as hex."""
    raw = text.encode()
    return f"{len(raw):04x}" + raw.hex()


def cs(text: str) -> str:
    """A compact string: uvarint(length + 1) then UTF-8, as hex (lengths < 127 only)."""
    raw = text.encode()
    return f"{len(raw) + 1:02x}" + raw.hex()


def brokers(result: md_res.MetadataResponse) -> list[tuple[int, str, int, str | None]]:
    """(node id, host, port, rack) of each broker of a Metadata answer."""
    return [(b.node_id, b.host, b.port, b.rack) for b in result.brokers]


def partitions(topic: md_res.MetadataResponseTopic) -> list[tuple[object, ...]]:
    """(error, index, leader, leader epoch, replicas, isr, offline) of each partition."""
    return [
        (
            x.error_code,
            x.partition_index,
            x.leader_id,
            x.leader_epoch,
            x.replica_nodes,
            x.isr_nodes,
            x.offline_replicas,
        )
        for x in topic.partitions
    ]


# ConsumerProtocolSubscription v0: Version=0, Topics=["t"], UserData=null.
SUBSCRIPTION_V0 = h("0000", "00000001", s16("t"), "ffffffff")
# ConsumerProtocolAssignment v0: Version=0, AssignedPartitions=[{Topic "t", Partitions [0, 1]}],
# UserData=null.
ASSIGNMENT_V0 = h("0000", "00000001", s16("t"), "00000002", "00000000", "00000001", "ffffffff")


def test_describe_groups_v5_response_with_one_consumer_member() -> None:
    body = h(
        "00000000",  # ThrottleTimeMs
        "02",  # Groups: compact array of 1
        "0000",  # ErrorCode
        cs("g1"),  # GroupId
        cs("Stable"),  # GroupState
        cs("consumer"),  # ProtocolType
        cs("range"),  # ProtocolData
        "02",  # Members: 1
        cs("m-1"),  # MemberId
        "00",  # GroupInstanceId: null
        cs("client-a"),  # ClientId
        cs("/10.0.0.1"),  # ClientHost
        f"{len(SUBSCRIPTION_V0) + 1:02x}",
        SUBSCRIPTION_V0.hex(),  # MemberMetadata
        f"{len(ASSIGNMENT_V0) + 1:02x}",
        ASSIGNMENT_V0.hex(),  # MemberAssignment
        "00",  # member tags
        "80000000",  # AuthorizedOperations: INT32_MIN (not requested)
        "00",  # group tags
        "00",  # top-level tags
    )
    (group,) = read_answer(dg_res, body, 5).groups
    assert group.error_code == 0
    assert (group.group_id, group.group_state, group.protocol_type, group.protocol_data) == (
        "g1",
        "Stable",
        "consumer",
        "range",
    )
    assert group.authorized_operations == -(2**31)
    (member,) = group.members
    assert member.member_id == "m-1"
    assert member.group_instance_id is None
    assert (member.client_id, member.client_host) == ("client-a", "/10.0.0.1")
    assert member.member_metadata == SUBSCRIPTION_V0
    assert member.member_assignment == ASSIGNMENT_V0


def test_describe_groups_v1_response_classic_encoding_and_dead_group() -> None:
    body = h(
        "00000000",  # ThrottleTimeMs (1+)
        "00000002",  # Groups: 2
        "0000",
        s16("gone"),
        s16("Dead"),
        s16(""),
        s16(""),
        "00000000",  # Dead group, no members
        "001e",
        s16("secret"),
        s16(""),
        s16(""),
        s16(""),
        "00000000",  # GROUP_AUTHORIZATION_FAILED
    )
    dead, denied = read_answer(dg_res, body, 1).groups
    assert (dead.group_id, dead.group_state, dead.members) == ("gone", "Dead", ())
    assert dead.authorized_operations == -(2**31)  # AuthorizedOperations (3+): its default
    assert (denied.group_id, error_name(denied.error_code)) == (
        "secret",
        "GROUP_AUTHORIZATION_FAILED",
    )


def test_describe_groups_v4_member_has_instance_id() -> None:
    body = h(
        "00000000",
        "00000001",
        "0000",
        s16("g"),
        s16("Stable"),
        s16("consumer"),
        s16("range"),
        "00000001",
        s16("m"),
        s16("static-1"),
        s16("c"),
        s16("h"),
        "00000000",
        "00000000",
        "80000000",  # AuthorizedOperations (3+)
    )
    (group,) = read_answer(dg_res, body, 4).groups
    assert group.members[0].group_instance_id == "static-1"
    assert group.members[0].member_metadata == b""


def test_describe_groups_requests() -> None:
    # v5: Groups compact ["a", "b"], IncludeAuthorizedOperations false, tags.
    assert group_calls.encode_describe_groups_request(5, ["a", "b"]) == h(
        "03", cs("a"), cs("b"), "00", "00"
    )
    # v1: Groups classic, no IncludeAuthorizedOperations (3+).
    assert group_calls.encode_describe_groups_request(1, ["a"]) == h("00000001", s16("a"))
    assert group_calls.encode_describe_groups_request(3, ["a"]) == h("00000001", s16("a"), "00")


def test_offset_fetch_v8_response_with_two_groups() -> None:
    body = h(
        "00000000",  # ThrottleTimeMs
        "03",  # Groups: 2
        cs("a"),  # groupId
        "02",  # Topics: 1
        cs("t"),  # Name
        "03",  # Partitions: 2
        "00000000",
        "000000000000002a",
        "00000003",
        "01",
        "0000",
        "00",  # p0 @42 epoch 3 ""
        "00000001",
        "ffffffffffffffff",
        "ffffffff",
        "00",
        "0000",
        "00",  # p1: no commit, null
        "00",  # topic tags
        "0000",  # ErrorCode
        "00",  # group tags
        cs("b"),
        "01",  # Topics: 0
        "001e",  # ErrorCode GROUP_AUTHORIZATION_FAILED
        "00",
        "00",  # top-level tags
    )
    a, b = offset_calls.decode_offset_fetch_response(body, 8, ["a", "b"])
    assert a.group_id == "a" and a.error_code == 0
    assert a.partitions == [
        FetchedOffset("t", 0, 42, 3, "", 0),
        FetchedOffset("t", 1, -1, -1, None, 0),
    ]
    assert (b.group_id, b.error_code, b.partitions) == ("b", 30, [])


def test_offset_fetch_v5_response_is_for_the_one_group_asked() -> None:
    body = h(
        "00000000",  # ThrottleTimeMs (3+)
        "00000001",
        s16("t"),  # Topics: 1
        "00000001",
        "00000002",
        "0000000000000007",
        "00000001",
        s16("meta"),
        "0000",
        "0000",  # ErrorCode (2+)
    )
    (group,) = offset_calls.decode_offset_fetch_response(body, 5, ["g"])
    assert group.group_id == "g"
    assert group.partitions == [FetchedOffset("t", 2, 7, 1, "meta", 0)]


def test_offset_fetch_v2_response_has_no_epoch_nor_throttle() -> None:
    body = h(
        "00000001", s16("t"), "00000001", "00000000", "0000000000000005", s16(""), "0000", "0010"
    )  # top-level NOT_COORDINATOR
    (group,) = offset_calls.decode_offset_fetch_response(body, 2, ["g"])
    assert group.error_code == NOT_COORDINATOR
    assert group.partitions == [FetchedOffset("t", 0, 5, -1, "", 0)]


def test_offset_fetch_requests() -> None:
    # v8: Groups [{groupId "a", Topics null}, {groupId "b", Topics null}], RequireStable false.
    assert offset_calls.encode_offset_fetch_request(8, ["a", "b"]) == h(
        "03", cs("a"), "00", "00", cs("b"), "00", "00", "00", "00"
    )
    # v5: GroupId, Topics null (int32 -1).
    assert offset_calls.encode_offset_fetch_request(5, ["g"]) == h(s16("g"), "ffffffff")
    # v7: flexible, RequireStable (7+).
    assert offset_calls.encode_offset_fetch_request(7, ["g"]) == h(cs("g"), "00", "00", "00")
    with pytest.raises(ValueError):
        offset_calls.encode_offset_fetch_request(5, ["a", "b"])


def test_find_coordinator_v4_request_and_response_with_unknown_tag() -> None:
    assert group_calls.encode_find_coordinator_request(4, ["a", "b"]) == h(
        "00", "03", cs("a"), cs("b"), "00"
    )
    body = h(
        "00000000",  # ThrottleTimeMs
        "03",  # Coordinators: 2
        cs("a"),
        "00000001",
        cs("b1"),
        "00002384",
        "0000",
        "00",  # a -> 1 b1:9092, msg null
        "01",
        "07",
        "02",
        "beef",  # tags: one unknown tag 7 with 2 bytes, skipped
        cs("b"),
        "ffffffff",
        cs(""),
        "ffffffff",
        "000f",
        cs("not yet"),
        "00",
        "00",
    )
    a, b = group_calls.decode_find_coordinator_response(body, 4, ["a", "b"])
    assert a == CoordinatorResult("a", 1, "b1", 9092, 0, None)
    assert (b.key, error_name(b.error_code), b.error_message) == (
        "b",
        "COORDINATOR_NOT_AVAILABLE",
        "not yet",
    )


def test_find_coordinator_v1_request_and_response() -> None:
    assert group_calls.encode_find_coordinator_request(1, ["g"]) == h(s16("g"), "00")
    assert group_calls.encode_find_coordinator_request(3, ["g"]) == h(cs("g"), "00", "00")
    body = h("00000000", "0000", "ffff", "00000002", s16("b2"), "00002385")
    assert group_calls.decode_find_coordinator_response(body, 1, ["g"]) == [
        CoordinatorResult("g", 2, "b2", 9093, 0, None)
    ]


def test_list_groups_requests_carry_filters_from_their_versions() -> None:
    assert group_calls.encode_list_groups_request(0, {"Stable"}) == b""
    assert group_calls.encode_list_groups_request(3, {"Stable"}) == h("00")
    assert group_calls.encode_list_groups_request(4, {"Stable"}, {"classic"}) == h(
        "02", cs("Stable"), "00"
    )
    assert group_calls.encode_list_groups_request(5, {"Stable"}, {"classic"}) == h(
        "02", cs("Stable"), "02", cs("classic"), "00"
    )


def test_list_groups_v5_and_v0_responses() -> None:
    v5 = h(
        "00000000", "0000", "02", cs("g"), cs("consumer"), cs("Stable"), cs("classic"), "00", "00"
    )
    assert read_answer(lgr_res, v5, 5) == lgr_res.ListGroupsResponse(
        error_code=0, groups=(lgr_res.ListedGroup("g", "consumer", "Stable", "classic"),)
    )
    v0 = h("0000", "00000001", s16("g"), s16(""))
    # GroupState (4+) and GroupType (5+) absent: "" (WireClient.list_groups: Unknown, classic)
    assert read_answer(lgr_res, v0, 0) == lgr_res.ListGroupsResponse(
        error_code=0, groups=(lgr_res.ListedGroup("g", "", "", ""),)
    )


def test_api_versions_and_metadata() -> None:
    body = h("0000", "00000002", "000a", "0000", "0004", "0009", "0001", "0008")
    result = read_answer(av_res, body, 0)
    assert result.api_keys == (av_res.ApiVersion(10, 0, 4), av_res.ApiVersion(9, 1, 8))
    versions = {10: (0, 4), 9: (1, 8)}
    assert choose_version(api_table.FIND_COORDINATOR, versions) == 4
    assert choose_version(api_table.OFFSET_FETCH, versions) == 8
    assert choose_version(api_table.OFFSET_FETCH, {9: (0, 1)}) is None  # no null-topics version
    assert choose_version(api_table.DESCRIBE_GROUPS, versions) is None  # API absent
    assert cluster_calls.encode_metadata_request(1) == h("00000000")
    metadata = h(
        "00000002",  # Brokers: 2
        "00000001",
        s16("b1"),
        "00002384",
        s16("r1"),
        "00000002",
        s16("b2"),
        "00002385",
        "ffff",
        "00000001",  # ControllerId
        "00000001",  # Topics: 1 (a broker may return some; ignored)
        "0000",
        s16("t"),
        "00",
        "00000001",
        "0000",
        "00000000",
        "00000001",
        "00000001",
        "00000001",
        "00000001",
        "00000001",
    )
    result_md = read_answer(md_res, metadata, 1)
    assert brokers(result_md) == [(1, "b1", 9092, "r1"), (2, "b2", 9093, None)]


def test_sasl_messages() -> None:
    assert cluster_calls.encode_sasl_handshake_request("PLAIN") == h(s16("PLAIN"))
    handshake = read_answer(sh_res, h("0021", "00000001", s16("SCRAM-SHA-512")), 1)
    assert (handshake.error_code, handshake.mechanisms) == (33, ("SCRAM-SHA-512",))
    assert cluster_calls.encode_sasl_authenticate_request(0, b"xy") == h("00000002", "7879")
    assert cluster_calls.encode_sasl_authenticate_request(2, b"xy") == h("03", "7879", "00")
    v1 = h("003a", s16("bad"), "00000000", "0000000000000000")
    assert read_answer(sa_res, v1, 1) == sa_res.SaslAuthenticateResponse(
        error_code=58, error_message="bad", auth_bytes=b""
    )


def test_subscription_v1_with_owned_partitions() -> None:
    data = h(
        "0001",  # Version
        "00000002",
        s16("a"),
        s16("b"),  # Topics
        "ffffffff",  # UserData null
        "00000001",
        s16("a"),
        "00000002",
        "00000000",
        "00000001",  # OwnedPartitions (1+)
    )
    sub = decode_subscription(data)
    assert sub == Versioned(1, subscription(["a", "b"], None, [("a", 0), ("a", 1)]))
    assert encode_subscription(sub) == data


def test_subscription_v3_with_generation_and_rack() -> None:
    data = h(
        "0003",
        "00000001",
        s16("t"),
        "00000002",
        "0102",  # UserData 2 bytes
        "00000000",  # OwnedPartitions: none
        "00000005",  # GenerationId (2+)
        s16("rack-1"),  # RackId (3+)
    )
    sub = decode_subscription(data)
    assert (sub.message.topics, sub.message.user_data, sub.message.generation_id) == (
        ("t",),
        b"\x01\x02",
        5,
    )
    assert sub.message.rack_id == "rack-1"
    assert encode_subscription(sub) == data


def test_newer_subscription_version_decodes_the_known_prefix() -> None:
    data = h("0009", "00000001", s16("t"), "ffffffff", "00000000", "00000002", "ffff", "cafe")
    sub = decode_subscription(data)
    assert (sub.version, sub.message.topics, sub.message.generation_id) == (9, ("t",), 2)


def test_assignment_v0_and_round_trip() -> None:
    assignment = decode_assignment(ASSIGNMENT_V0)
    assert assignment == Versioned(0, member_assignment([("t", 0), ("t", 1)]))
    assert encode_assignment(assignment) == ASSIGNMENT_V0


def test_truncated_member_metadata_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError):
        decode_subscription(SUBSCRIPTION_V0[:-2])


def test_error_names() -> None:
    assert error_name(0) == "NONE"
    assert error_name(14) == "COORDINATOR_LOAD_IN_PROGRESS"
    assert error_name(15) == "COORDINATOR_NOT_AVAILABLE"
    assert error_name(16) == "NOT_COORDINATOR"
    assert error_name(24) == "INVALID_GROUP_ID"
    assert error_name(29) == "TOPIC_AUTHORIZATION_FAILED"
    assert error_name(30) == "GROUP_AUTHORIZATION_FAILED"
    assert error_name(31) == "CLUSTER_AUTHORIZATION_FAILED"
    assert error_name(35) == "UNSUPPORTED_VERSION"
    assert error_name(69) == "GROUP_ID_NOT_FOUND"
    assert error_name(88) == "UNSTABLE_OFFSET_COMMIT"
    assert error_name(3) == "UNKNOWN_TOPIC_OR_PARTITION"
    assert error_name(5) == "LEADER_NOT_AVAILABLE"
    assert error_name(6) == "NOT_LEADER_OR_FOLLOWER"
    assert error_name(78) == "OFFSET_NOT_AVAILABLE"
    assert error_name(999) == "UNKNOWN_ERROR_CODE_999"


# --- Metadata with topics and ListOffsets --------------------------------------------------------

TOPIC_ID = "0123456789abcdef0123456789abcdef"  # 16 bytes


def test_metadata_requests_ask_for_all_topics_or_none_and_never_create() -> None:
    # v1-v3: Topics null (int32 -1) = all topics; [] (int32 0) = none.
    assert cluster_calls.encode_metadata_request(1, all_topics=True) == h("ffffffff")
    assert cluster_calls.encode_metadata_request(3, all_topics=False) == h("00000000")
    # v4: AllowAutoTopicCreation false.
    assert cluster_calls.encode_metadata_request(4, all_topics=True) == h("ffffffff", "00")
    # v8: IncludeClusterAuthorizedOperations (8-10), IncludeTopicAuthorizedOperations (8+).
    assert cluster_calls.encode_metadata_request(8, all_topics=True) == h(
        "ffffffff", "00", "00", "00"
    )
    # v9 flexible: compact null is 0x00; then both flags and the tag section.
    assert cluster_calls.encode_metadata_request(9, all_topics=True) == h(
        "00", "00", "00", "00", "00"
    )
    assert cluster_calls.encode_metadata_request(10, all_topics=False) == h(
        "01", "00", "00", "00", "00"
    )
    # v11+: no IncludeClusterAuthorizedOperations.
    assert cluster_calls.encode_metadata_request(12, all_topics=True) == h("00", "00", "00", "00")
    with pytest.raises(ValueError):
        cluster_calls.encode_metadata_request(13)


def test_metadata_v12_response_with_topic_ids_racks_and_leaders() -> None:
    body = h(
        "00000000",  # ThrottleTimeMs (3+)
        "03",  # Brokers: 2
        "00000001",  # NodeId
        cs("b1"),  # Host
        "00002384",  # Port 9092
        cs("r1"),  # Rack
        "00",  # tags
        "00000002",
        cs("b2"),
        "00002385",
        "00",  # Rack: null
        "00",
        cs("c-1"),  # ClusterId (2+)
        "00000001",  # ControllerId (1+)
        "02",  # Topics: 1
        "0000",  # ErrorCode
        cs("orders"),  # Name
        TOPIC_ID,  # TopicId (10+)
        "00",  # IsInternal
        "03",  # Partitions: 2
        "0000",  # ErrorCode
        "00000000",  # PartitionIndex
        "00000001",  # LeaderId
        "00000007",  # LeaderEpoch (7+)
        "03",  # ReplicaNodes: [1, 2]
        "00000001",
        "00000002",
        "02",  # IsrNodes: [1]
        "00000001",
        "01",  # OfflineReplicas (5+): []
        "00",  # tags
        "0005",  # ErrorCode LEADER_NOT_AVAILABLE
        "00000001",
        "ffffffff",  # LeaderId: none
        "ffffffff",
        "02",
        "00000002",
        "01",
        "01",
        "00",
        "80000000",  # TopicAuthorizedOperations (8+)
        "00",  # topic tags
        "00",  # top-level tags
    )
    result = read_answer(md_res, body, 12)
    assert brokers(result) == [(1, "b1", 9092, "r1"), (2, "b2", 9093, None)]
    assert (result.cluster_id, result.controller_id) == ("c-1", 1)
    (topic,) = result.topics
    assert (topic.name, topic.error_code, topic.is_internal) == ("orders", 0, False)
    assert topic.topic_id == bytes.fromhex(TOPIC_ID)
    assert partitions(topic) == [
        (0, 0, 1, 7, (1, 2), (1,), ()),
        (5, 1, -1, -1, (2,), (), ()),
    ]


def test_metadata_v9_response_has_cluster_operations_and_no_topic_id() -> None:
    body = h(
        "00000000",  # ThrottleTimeMs
        "02",  # Brokers: 1
        "0000006f",
        cs("h"),
        "00002384",
        "00",
        "00",
        "00",  # ClusterId: null
        "0000006f",  # ControllerId
        "02",  # Topics: 1
        "0003",  # UNKNOWN_TOPIC_OR_PARTITION
        cs("gone"),
        "00",  # IsInternal
        "01",  # Partitions: []
        "80000000",  # TopicAuthorizedOperations
        "00",
        "80000000",  # ClusterAuthorizedOperations (8-10)
        "00",
    )
    result = read_answer(md_res, body, 9)
    assert result.cluster_id is None
    (topic,) = result.topics
    assert (topic.error_code, topic.name, topic.is_internal, topic.partitions) == (
        3,
        "gone",
        False,
        (),
    )
    assert topic_id_text(topic.topic_id) is None  # no TopicId before v10: the zero uuid


def test_metadata_v5_response_classic_with_offline_replicas() -> None:
    body = h(
        "00000000",  # ThrottleTimeMs (3+)
        "00000001",  # Brokers
        "00000001",
        s16("h"),
        "00002384",
        "ffff",  # Rack null
        s16("c"),  # ClusterId (2+)
        "00000001",  # ControllerId
        "00000001",  # Topics
        "0000",
        s16("__consumer_offsets"),
        "01",  # IsInternal
        "00000001",  # Partitions
        "0000",
        "00000000",
        "00000001",  # LeaderId (no LeaderEpoch before 7)
        "00000002",
        "00000001",
        "00000003",  # ReplicaNodes [1, 3]
        "00000001",
        "00000001",  # IsrNodes [1]
        "00000001",
        "00000003",  # OfflineReplicas [3] (5+)
    )
    (topic,) = read_answer(md_res, body, 5).topics
    assert topic.is_internal
    assert partitions(topic) == [(0, 0, 1, -1, (1, 3), (1,), (3,))]


def test_metadata_null_topic_name_before_v12_is_a_protocol_error() -> None:
    body = h("00000000", "01", "00", "00000001", "02", "0000", "00", TOPIC_ID, "00", "01")
    with pytest.raises(ProtocolError, match=r"Topics\.Name"):
        read_answer(md_res, body + h("80000000", "00", "00"), 11)


def test_list_offsets_requests() -> None:
    topics = [("t", [(0, -2), (1, -1)])]
    # v7 flexible: ReplicaId -1, IsolationLevel 1, CurrentLeaderEpoch -1 (4+), tags everywhere.
    assert offset_calls.encode_list_offsets_request(7, topics, READ_COMMITTED) == h(
        "ffffffff",  # ReplicaId
        "01",  # IsolationLevel (2+): READ_COMMITTED
        "02",  # Topics: 1
        cs("t"),
        "03",  # Partitions: 2
        "00000000",
        "ffffffff",  # CurrentLeaderEpoch
        "fffffffffffffffe",  # Timestamp: EARLIEST (-2)
        "00",
        "00000001",
        "ffffffff",
        "ffffffffffffffff",  # Timestamp: LATEST (-1)
        "00",
        "00",  # topic tags
        "00",  # top-level tags
    )
    # v3 classic: no CurrentLeaderEpoch (4+).
    assert offset_calls.encode_list_offsets_request(3, [("t", [(2, 1000)])]) == h(
        "ffffffff", "00", "00000001", s16("t"), "00000001", "00000002", "00000000000003e8"
    )
    # v1: no IsolationLevel, which therefore cannot be read_committed.
    assert offset_calls.encode_list_offsets_request(1, [("t", [(0, -1)])]) == h(
        "ffffffff", "00000001", s16("t"), "00000001", "00000000", "ffffffffffffffff"
    )
    with pytest.raises(ValueError):
        offset_calls.encode_list_offsets_request(1, topics, READ_COMMITTED)
    with pytest.raises(ValueError):
        offset_calls.encode_list_offsets_request(0, topics)


def test_list_offsets_v6_response_with_an_offset_and_an_error() -> None:
    body = h(
        "00000000",  # ThrottleTimeMs (2+)
        "02",  # Topics: 1
        cs("t"),
        "03",  # Partitions: 2
        "00000000",  # PartitionIndex
        "0000",  # ErrorCode
        "ffffffffffffffff",  # Timestamp -1 (EARLIEST/LATEST carry none)
        "0000000000000005",  # Offset 5
        "00000003",  # LeaderEpoch (4+)
        "00",
        "00000001",
        "001d",  # TOPIC_AUTHORIZATION_FAILED
        "ffffffffffffffff",
        "ffffffffffffffff",
        "ffffffff",
        "00",
        "00",
        "00",
    )
    assert offset_calls.decode_list_offsets_response(body, 6) == [
        ListedOffset("t", 0, 0, -1, 5, 3),
        ListedOffset("t", 1, 29, -1, -1, -1),
    ]


def test_list_offsets_v1_response() -> None:
    body = h(
        "00000001",  # Topics (no ThrottleTimeMs before 2)
        s16("t"),
        "00000001",
        "00000002",  # PartitionIndex
        "0000",
        "00000000000003e8",  # Timestamp 1000 (1+)
        "0000000000000007",  # Offset 7 (1+)
    )
    assert offset_calls.decode_list_offsets_response(body, 1) == [
        ListedOffset("t", 2, 0, 1000, 7, -1)
    ]


def test_consumer_group_describe_v0_request_and_response() -> None:
    """ConsumerGroupDescribe v0 (KIP-848): one consumer group with one member whose current
    assignment is orders:0,1 and whose target assignment adds orders:2."""
    assert group_calls.encode_consumer_group_describe_request(0, ["g"]) == h(
        "02",
        cs("g"),  # GroupIds: compact array of 1
        "00",  # IncludeAuthorizedOperations: false
        "00",  # tags
    )
    topic_id = "30a5f1d5f224432d89f635c784af26d7"  # MKXx1fIkQy2J9jXHhK8m1w

    def assignment(*partitions: int) -> str:
        return (
            "02"  # TopicPartitions: 1
            + topic_id  # TopicId
            + cs("orders")  # TopicName
            + f"{len(partitions) + 1:02x}"  # Partitions: compact array
            + "".join(f"{p:08x}" for p in partitions)
            + "00"  # TopicPartitions tags
            + "00"  # Assignment tags
        )

    body = h(
        "00000000",  # ThrottleTimeMs
        "02",  # Groups: 1
        "0000",  # ErrorCode
        "00",  # ErrorMessage: null
        cs("payments"),  # GroupId
        cs("reconciling"),  # GroupState
        "0000000c",  # GroupEpoch 12
        "0000000b",  # AssignmentEpoch 11
        cs("uniform"),  # AssignorName
        "02",  # Members: 1
        cs("m-1"),  # MemberId
        cs("pod-1"),  # InstanceId
        cs("r1"),  # RackId
        "0000000b",  # MemberEpoch 11
        cs("app"),  # ClientId
        cs("/10.0.0.7"),  # ClientHost
        "02",
        cs("orders"),  # SubscribedTopicNames: ["orders"]
        "00",  # SubscribedTopicRegex: null
        assignment(0, 1),  # Assignment
        assignment(0, 1, 2),  # TargetAssignment
        "00",  # member tags
        "80000000",  # AuthorizedOperations
        "00",  # group tags
        "00",  # top-level tags
    )
    (group,) = read_answer(cgd_res, body, 0).groups
    assert (
        group.group_id,
        group.group_state,
        group.group_epoch,
        group.assignment_epoch,
        group.assignor_name,
    ) == ("payments", "reconciling", 12, 11, "uniform")
    (member,) = group.members
    assert member.member_id == "m-1" and member.instance_id == "pod-1" and member.rack_id == "r1"
    assert member.member_epoch == 11 and member.subscribed_topic_names == ("orders",)
    assert [(t.topic_name, t.partitions) for t in member.assignment.topic_partitions] == [
        ("orders", (0, 1))
    ]
    assert [(t.topic_name, t.partitions) for t in member.target_assignment.topic_partitions] == [
        ("orders", (0, 1, 2))
    ]

    from kgroup.core.wire.client import to_consumer_group_description

    described = to_consumer_group_description(group, None)
    assert described.type == "consumer" and described.state == "Reconciling"
    assert [str(tp) for tp in described.members[0].target_assignment] == [
        "orders:0",
        "orders:1",
        "orders:2",
    ]


def test_offset_commit_request_v2_by_hand() -> None:
    # OffsetCommitRequest.json v2: GroupId, GenerationId, MemberId, RetentionTimeMs, Topics
    body = offset_calls.encode_offset_commit_request(2, "g", [("t", 0, 5, 7, "")])
    assert body == bytes.fromhex(
        "0001"
        "67"  # GroupId "g"
        "ffffffff"  # GenerationId -1: an administrative commit
        "0000"  # MemberId ""
        "ffffffffffffffff"  # RetentionTimeMs -1 (2-4): the broker's default
        "00000001"
        "0001"
        "74"  # Topics: 1, Name "t"
        "00000001"
        "00000000"
        "0000000000000005"  # Partitions: 1, index 0, offset 5
        "0000"  # CommittedMetadata "" (no leader epoch before v6)
    )


def test_offset_commit_request_v8_by_hand() -> None:
    body = offset_calls.encode_offset_commit_request(
        8, "g", [("t", 0, 5, 3, "m"), ("t", 1, 6, -1, None)]
    )
    assert body == bytes.fromhex(
        "02"
        "67"  # GroupId (compact)
        "ffffffff"  # GenerationIdOrMemberEpoch -1
        "01"  # MemberId ""
        "00"  # GroupInstanceId null (7+)
        "02"
        "02"
        "74"  # Topics: 1, Name "t"
        "03"  # Partitions: 2
        "00000000"
        "0000000000000005"
        "00000003"
        "02"
        "6d"
        "00"  # epoch 3, "m", no tags
        "00000001"
        "0000000000000006"
        "ffffffff"
        "00"
        "00"  # epoch -1, null metadata
        "00"  # topic tags
        "00"  # request tags
    )


def test_offset_commit_response_v8_by_hand() -> None:
    body = bytes.fromhex(
        "00000000"  # ThrottleTimeMs
        "02"
        "02"
        "74"  # Topics: 1, Name "t"
        "03"
        "00000000"
        "0000"
        "00"
        "00000001"
        "0019"
        "00"  # p0 NONE, p1 UNKNOWN_MEMBER_ID (25)
        "00"
        "00"
    )
    assert offset_calls.decode_offset_commit_response(body, 8) == [("t", 0, 0), ("t", 1, 25)]
    v2 = bytes.fromhex("0000000100017400000001000000030010")
    assert offset_calls.decode_offset_commit_response(v2, 2) == [("t", 3, 16)]


def test_commit_refused_because_the_group_has_members_is_a_safety_refusal() -> None:
    from kgroup.core.errors import AuthorizationError, KafkaOperationError, SafetyRefusal
    from kgroup.core.models import TopicPartition
    from kgroup.core.wire.client import commit_error

    tp = TopicPartition("orders", 0)
    refused = commit_error(25, "billing", tp)  # UNKNOWN_MEMBER_ID: members joined meanwhile
    assert isinstance(refused, SafetyRefusal) and refused.exit_code == 4
    assert "billing is not empty" in refused.message and "UNKNOWN_MEMBER_ID" in refused.message
    assert isinstance(commit_error(30, "billing", tp), AuthorizationError)
    other = commit_error(12, "billing", tp)  # OFFSET_METADATA_TOO_LARGE
    assert isinstance(other, KafkaOperationError) and "orders" in other.message


# --- OffsetDelete v0 (KIP-496; OffsetDelete{Request,Response}.json) -----------------------------


def test_offset_delete_api_is_v0_classic() -> None:
    # validVersions "0", no flexibleVersions: classic encoding and request header v1.
    assert api_table.OFFSET_DELETE.key == 47 and api_table.OFFSET_DELETE.versions == (0,)
    assert not api_table.OFFSET_DELETE.flexible(0)
    assert api_table.APIS[47] is api_table.OFFSET_DELETE
    assert choose_version(api_table.OFFSET_DELETE, {47: (0, 0)}) == 0
    assert choose_version(api_table.OFFSET_DELETE, {}) is None  # a broker without it (tansu)


def test_offset_delete_request_v0_by_hand() -> None:
    body = offset_calls.encode_offset_delete_request(0, "g", [("t", 0), ("u", 2), ("t", 1)])
    assert body == h(
        s16("g"),  # GroupId
        "00000002",  # Topics: 2, in first-seen order
        s16("t"),  # Topics[0].Name
        "00000002",  # Topics[0].Partitions: 2
        "00000000",  # PartitionIndex 0
        "00000001",  # PartitionIndex 1
        s16("u"),  # Topics[1].Name
        "00000001",  # Topics[1].Partitions: 1
        "00000002",  # PartitionIndex 2
    )
    with pytest.raises(ValueError, match="v0"):
        offset_calls.encode_offset_delete_request(1, "g", [("t", 0)])


def test_offset_delete_response_v0_by_hand() -> None:
    body = h(
        "0000",  # ErrorCode NONE
        "00000000",  # ThrottleTimeMs
        "00000002",  # Topics: 2
        s16("t"),  # Topics[0].Name
        "00000002",  # Partitions: 2
        "00000000",
        "0000",  # PartitionIndex 0, ErrorCode NONE
        "00000001",
        "0056",  # PartitionIndex 1, ErrorCode 86 GROUP_SUBSCRIBED_TO_TOPIC
        s16("u"),  # Topics[1].Name
        "00000001",  # Partitions: 1
        "00000002",
        "001d",  # PartitionIndex 2, ErrorCode 29 TOPIC_AUTHORIZATION_FAILED
    )
    result = read_answer(od_res, body, 0)
    assert result.error_code == 0
    assert [
        (t.name, x.partition_index, x.error_code) for t in result.topics for x in t.partitions
    ] == [
        ("t", 0, 0),
        ("t", 1, 86),
        ("u", 2, 29),
    ]


def test_offset_delete_response_v0_group_error_has_no_topics() -> None:
    # What Kafka sends for a group-level error (OffsetDeleteRequest.getErrorResponse).
    body = h("0044", "00000000", "00000000")  # NON_EMPTY_GROUP (68), throttle 0, Topics: 0
    result = read_answer(od_res, body, 0)
    assert (result.error_code, result.topics) == (68, ())
    with pytest.raises(ProtocolError):
        read_answer(od_res, body[:-1], 0)


def test_offset_delete_error_names() -> None:
    assert error_name(68) == "NON_EMPTY_GROUP"
    assert error_name(69) == "GROUP_ID_NOT_FOUND"
    assert error_name(86) == "GROUP_SUBSCRIBED_TO_TOPIC"


def test_offset_delete_errors_map_to_exit_codes() -> None:
    from kgroup.core.errors import (
        AuthorizationError,
        KafkaOperationError,
        NotFoundError,
        SafetyRefusal,
    )
    from kgroup.core.models import TopicPartition
    from kgroup.core.wire.client import kafka_error_of, offset_delete_error

    tp = TopicPartition("orders", 1)
    subscribed = offset_delete_error(86, "billing", tp)
    assert isinstance(subscribed, SafetyRefusal) and subscribed.exit_code == 4
    assert subscribed.message.startswith(
        "group billing is subscribed to topic orders: Kafka refuses to delete its offsets while "
        "members consume it"
    )
    assert kafka_error_of(subscribed) == "GROUP_SUBSCRIBED_TO_TOPIC"
    missing = offset_delete_error(69, "billing")
    assert isinstance(missing, NotFoundError) and missing.exit_code == 3
    busy = offset_delete_error(68, "billing")
    assert isinstance(busy, SafetyRefusal) and "NON_EMPTY_GROUP" in busy.message
    group_acl = offset_delete_error(30, "billing")
    assert isinstance(group_acl, AuthorizationError)
    assert group_acl.hint is not None and "Delete on Group:billing" in group_acl.hint
    topic_acl = offset_delete_error(29, "billing", tp)
    assert isinstance(topic_acl, AuthorizationError)
    assert topic_acl.hint is not None and "Read on Topic:orders" in topic_acl.hint
    unknown = offset_delete_error(3, "billing", tp)
    assert isinstance(unknown, NotFoundError) and "orders:1" in unknown.message
    other = offset_delete_error(24, "billing")  # INVALID_GROUP_ID
    assert type(other) is KafkaOperationError and "INVALID_GROUP_ID" in other.message
