"""Responses: the declarations decode to the same results as the hand-written decoders, for every
API and every version kgroup speaks, on bytes written by the test fakes and on random answers
(drawn from the declaration, written by the generic writer, read by both)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgroup.assign import consumer_protocol as assign_cp
from kgroup.core.wire.calls import read_answer
from kgroup.core.wire.error_codes import GROUP_SUBSCRIBED_TO_TOPIC
from kgroup.core.wire.frames import ProtocolError
from kgroup.core.wire.group_calls import (
    decode_find_coordinator_response,
    decode_leave_group_response,
    encode_consumer_group_describe_request,
    encode_describe_groups_request,
    encode_find_coordinator_request,
    encode_list_groups_request,
)
from kgroup.core.wire.member_protocol import decode_assignment, decode_subscription
from kgroup.core.wire.offset_calls import (
    decode_fetch_response,
    decode_list_offsets_response,
    decode_offset_commit_response,
    decode_offset_fetch_response,
    encode_offset_delete_request,
    encode_offset_fetch_request,
)
from kgroup.protocol import messages as p
from kgroup.protocol.fields import has_field
from kgroup.protocol.generated.wire import api_versions_response as av_res
from kgroup.protocol.generated.wire import consumer_group_describe_response as cgd_res
from kgroup.protocol.generated.wire import describe_configs_response as dc_res
from kgroup.protocol.generated.wire import describe_groups_response as dg_res
from kgroup.protocol.generated.wire import join_group_response as jg_res
from kgroup.protocol.generated.wire import list_groups_response as lgr_res
from kgroup.protocol.generated.wire import metadata_response as md_res
from kgroup.protocol.generated.wire import offset_delete_response as od_res
from kgroup.protocol.generated.wire import sasl_authenticate_response as sa_res
from kgroup.protocol.generated.wire import sasl_handshake_response as sh_res
from kgroup.protocol.generated.wire import sync_group_response as sg_res
from tests.unit.protocol import dict_codec as dicts
from tests.unit.protocol import handwritten as h
from tests.unit.protocol.strategies import message_values
from tests.unit.wire.fakebroker import (
    FakePartition,
    FakeTopic,
    FetchAnswer,
    fetch_body,
    list_offsets_body,
    metadata_body,
)
from tests.unit.wire.fakegroups import FakeConsumerGroup, FakeMember, GroupsCluster

FAST = settings(max_examples=30, deadline=None)


# The generated classes kgroup reads, in the hand-written decoders' result shapes (kgroup's wire
# client reads the generated classes directly since issue #25 point 2).


def decode_api_versions_response(body: bytes, version: int) -> h.ApiVersionsResult:
    d = read_answer(av_res, body, version)
    versions = {k.api_key: (k.min_version, k.max_version) for k in d.api_keys}
    return h.ApiVersionsResult(d.error_code, versions)


def decode_metadata_response(body: bytes, version: int) -> h.MetadataResult:
    d = read_answer(md_res, body, version)
    with_ids = has_field("MetadataResponse", "Topics.TopicId", version)
    return h.MetadataResult(
        [h.MetadataBroker(b.node_id, b.host, b.port, b.rack) for b in d.brokers],
        d.controller_id,
        [
            h.MetadataTopic(
                t.error_code,
                t.name,
                t.topic_id if with_ids else None,
                t.is_internal,
                [
                    h.MetadataPartition(
                        x.error_code,
                        x.partition_index,
                        x.leader_id,
                        x.leader_epoch,
                        x.replica_nodes,
                        x.isr_nodes,
                        x.offline_replicas,
                    )
                    for x in t.partitions
                ],
            )
            for t in d.topics
        ],
        d.cluster_id,
    )


def decode_describe_configs_response(body: bytes, version: int) -> list[h.DescribedResource]:
    d = read_answer(dc_res, body, version, strict=True)
    return [
        h.DescribedResource(
            r.error_code,
            r.error_message,
            r.resource_type,
            r.resource_name,
            tuple(
                h.DescribedConfig(c.name, c.value, c.read_only, c.config_source, c.is_sensitive)
                for c in r.configs
            ),
        )
        for r in d.results
    ]


def decode_sasl_authenticate_response(body: bytes, version: int) -> h.SaslAuthenticateResult:
    d = read_answer(sa_res, body, version)
    return h.SaslAuthenticateResult(d.error_code, d.error_message, d.auth_bytes)


def decode_describe_groups_response(body: bytes, version: int) -> list[h.DescribedGroup]:
    d = read_answer(dg_res, body, version)
    with_operations = has_field("DescribeGroupsResponse", "Groups.AuthorizedOperations", version)
    return [
        h.DescribedGroup(
            g.error_code,
            g.group_id,
            g.group_state,
            g.protocol_type,
            g.protocol_data,
            [
                h.DescribedMember(
                    x.member_id,
                    x.group_instance_id,
                    x.client_id,
                    x.client_host,
                    x.member_metadata,
                    x.member_assignment,
                )
                for x in g.members
            ],
            g.authorized_operations if with_operations else None,
        )
        for g in d.groups
    ]


def _pairs(assignment: cgd_res.Assignment) -> tuple[tuple[str, int], ...]:
    return tuple(
        sorted((t.topic_name, x) for t in assignment.topic_partitions for x in t.partitions)
    )


def decode_consumer_group_describe_response(
    body: bytes, version: int
) -> list[h.ConsumerGroupDescribed]:
    d = read_answer(cgd_res, body, version)
    return [
        h.ConsumerGroupDescribed(
            g.error_code,
            g.error_message,
            g.group_id,
            g.group_state,
            g.group_epoch,
            g.assignment_epoch,
            g.assignor_name,
            tuple(
                h.ConsumerGroupMember(
                    x.member_id,
                    x.instance_id,
                    x.rack_id,
                    x.member_epoch,
                    x.client_id,
                    x.client_host,
                    x.subscribed_topic_names,
                    x.subscribed_topic_regex,
                    _pairs(x.assignment),
                    _pairs(x.target_assignment),
                    x.member_type,
                )
                for x in g.members
            ),
        )
        for g in d.groups
    ]


def decode_join_group_response(body: bytes, version: int) -> h.JoinResult:
    d = read_answer(jg_res, body, version)
    members = tuple((x.member_id, x.metadata) for x in d.members)
    return h.JoinResult(
        d.error_code, d.generation_id, d.protocol_name, d.leader, d.member_id, members
    )


def decode_list_groups_response(body: bytes, version: int) -> h.ListGroupsResult:
    d = read_answer(lgr_res, body, version)
    with_state = has_field("ListGroupsResponse", "Groups.GroupState", version)
    with_type = has_field("ListGroupsResponse", "Groups.GroupType", version)
    groups = [
        h.ListedGroup(
            g.group_id,
            g.protocol_type,
            g.group_state if with_state else None,
            g.group_type if with_type else None,
        )
        for g in d.groups
    ]
    return h.ListGroupsResult(d.error_code, groups)


def decode_sasl_handshake_response(body: bytes) -> tuple[int, list[str]]:
    d = read_answer(sh_res, body, 1)
    return d.error_code, list(d.mechanisms)


def decode_sync_group_response(body: bytes, version: int) -> tuple[int, bytes]:
    d = read_answer(sg_res, body, version)
    return d.error_code, d.assignment


def decode_offset_delete_response(body: bytes, version: int) -> h.OffsetDeleteResult:
    d = read_answer(od_res, body, version)
    rows = [(t.name, x.partition_index, x.error_code) for t in d.topics for x in t.partitions]
    return h.OffsetDeleteResult(d.error_code, rows)


# (api, hand-written decoder, adapter); decoders take (body, version)
DECODERS: list[tuple[Any, Callable[..., Any], Callable[..., Any]]] = [
    (p.API_VERSIONS, h.decode_api_versions_response, decode_api_versions_response),
    (p.FETCH, h.decode_fetch_response, decode_fetch_response),
    (p.METADATA, h.decode_metadata_response, decode_metadata_response),
    (p.LIST_OFFSETS, h.decode_list_offsets_response, decode_list_offsets_response),
    (
        p.FIND_COORDINATOR,
        lambda b, v: h.decode_find_coordinator_response(b, v, ["k"]),
        lambda b, v: decode_find_coordinator_response(b, v, ["k"]),
    ),
    (p.DESCRIBE_GROUPS, h.decode_describe_groups_response, decode_describe_groups_response),
    (
        p.CONSUMER_GROUP_DESCRIBE,
        h.decode_consumer_group_describe_response,
        decode_consumer_group_describe_response,
    ),
    (p.DESCRIBE_CONFIGS, h.decode_describe_configs_response, decode_describe_configs_response),
    (p.OFFSET_COMMIT, h.decode_offset_commit_response, decode_offset_commit_response),
    (p.OFFSET_DELETE, h.decode_offset_delete_response, decode_offset_delete_response),
    (
        p.OFFSET_FETCH,
        lambda b, v: h.decode_offset_fetch_response(b, v, ["g"]),
        lambda b, v: decode_offset_fetch_response(b, v, ["g"]),
    ),
    (p.LIST_GROUPS, h.decode_list_groups_response, decode_list_groups_response),
    (p.JOIN_GROUP, h.decode_join_group_response, decode_join_group_response),
    (p.SYNC_GROUP, h.decode_sync_group_response, decode_sync_group_response),
    (p.LEAVE_GROUP, h.decode_leave_group_response, decode_leave_group_response),
    (
        p.SASL_HANDSHAKE,
        lambda b, v: h.decode_sasl_handshake_response(b),
        lambda b, v: decode_sasl_handshake_response(b),
    ),
    (
        p.SASL_AUTHENTICATE,
        h.decode_sasl_authenticate_response,
        decode_sasl_authenticate_response,
    ),
]
CASES = [
    pytest.param(api, ours, theirs, version, id=f"{api.name}-v{version}")
    for api, ours, theirs in DECODERS
    for version in api.versions
]


def test_every_api_kgroup_speaks_has_a_decoder_case() -> None:
    assert {api.key for api, _, _ in DECODERS} == set(p.APIS)


@pytest.mark.parametrize(("api", "hand", "ours", "version"), CASES)
def test_random_answers_decode_the_same(api, hand, ours, version) -> None:
    @FAST
    @given(message_values(api.response, version, unknown_tags=True))
    def check(values: dict[str, Any]) -> None:
        body = dicts.encode(api.response, version, values)
        assert ours(body, version) == hand(body, version)

    check()


@pytest.mark.parametrize(("api", "hand", "ours", "version"), CASES)
def test_truncated_answers_fail_in_both(api, hand, ours, version) -> None:
    body = dicts.encode(api.response, version, {})
    for cut in range(len(body)):
        with pytest.raises(ProtocolError):
            hand(body[:cut], version)
        with pytest.raises(ProtocolError):
            ours(body[:cut], version)


# --- bytes written by the fakes of tests/unit/wire ------------------------------------------------

TOPICS = (
    FakeTopic("orders", (FakePartition(0, 1, (1, 2)), FakePartition(1, 2, (2, 3), error=5))),
    FakeTopic(
        "__consumer_offsets", (FakePartition(0, 1),), topic_id=bytes(range(16)), internal=True
    ),
)


@pytest.mark.parametrize("version", p.METADATA.versions)
def test_fake_broker_metadata(version: int) -> None:
    body = metadata_body([(1, "b1", 9092, "r1"), (2, "b2", 9093)], version, TOPICS)
    ours = decode_metadata_response(body, version)
    assert ours == h.decode_metadata_response(body, version)
    assert [t.name for t in ours.topics] == ["orders", "__consumer_offsets"]


@pytest.mark.parametrize("version", p.LIST_OFFSETS.versions)
def test_fake_broker_list_offsets(version: int) -> None:
    body = list_offsets_body(version, [("t", 0, 0, -1, 5), ("t", 1, 6, -1, -1), ("u", 0, 0, 3, 9)])
    assert decode_list_offsets_response(body, version) == h.decode_list_offsets_response(
        body, version
    )


@pytest.mark.parametrize("version", p.FETCH.versions)
def test_fake_broker_fetch(version: int) -> None:
    answers = [
        FetchAnswer("t", 0, b"\x00" * 70, high_watermark=9, last_stable=9, log_start=2),
        FetchAnswer("u", 3, error=1, aborted=((7, 4), (8, 5))),
        FetchAnswer("t", 1, aborted=()),
    ]
    body = fetch_body(version, answers)
    ours = decode_fetch_response(body, version)
    assert ours == h.decode_fetch_response(body, version)
    assert [(x.topic, x.partition) for x in ours[1]] == [("t", 0), ("t", 1), ("u", 3)]


@pytest.mark.parametrize("version", p.FETCH.versions)
def test_fetch_trailing_bytes_fail_in_both(version: int) -> None:
    body = fetch_body(version, [FetchAnswer("t", 0, b"abc")]) + b"\x00"
    with pytest.raises(ProtocolError):
        h.decode_fetch_response(body, version)
    with pytest.raises(ProtocolError):
        decode_fetch_response(body, version)


@pytest.fixture(scope="module")
def cluster():
    made = GroupsCluster(
        topics={"t": 2, "u": 1},
        offsets={"g": {("t", 0): 5, ("t", 1): 6, ("u", 0): 7}, "h": {("u", 0): 1}},
        subscribed={"h": {"u"}},
        consumer_groups={
            "kip848": FakeConsumerGroup(
                (
                    FakeMember("m1", subscribed=("t",), assignment=(("t", 1), ("t", 0))),
                    FakeMember("m2", instance_id="i", rack_id="r", regex="t.*", member_type=0),
                ),
                group_epoch=5,
            )
        },
    )
    yield made
    made.close()


def test_fake_groups_offset_fetch_v8(cluster: GroupsCluster) -> None:
    request = encode_offset_fetch_request(8, ["g", "h", "nope"])
    assert request == h.encode_offset_fetch_request(8, ["g", "h", "nope"])
    body = cluster.handler(p.OFFSET_FETCH.key, 8, request)
    ours = decode_offset_fetch_response(body, 8, ["g", "h", "nope"])
    assert ours == h.decode_offset_fetch_response(body, 8, ["g", "h", "nope"])
    assert {g.group_id: len(g.partitions) for g in ours} == {"g": 3, "h": 1, "nope": 0}


def test_fake_groups_find_coordinator_v4(cluster: GroupsCluster) -> None:
    request = encode_find_coordinator_request(4, ["g", "h"])
    body = cluster.handler(p.FIND_COORDINATOR.key, 4, request)
    ours = decode_find_coordinator_response(body, 4, ["g", "h"])
    assert ours == h.decode_find_coordinator_response(body, 4, ["g", "h"])
    assert [c.key for c in ours] == ["g", "h"]


def test_fake_groups_offset_delete(cluster: GroupsCluster) -> None:
    request = encode_offset_delete_request(0, "h", [("u", 0), ("t", 1)])
    body = cluster.handler(p.OFFSET_DELETE.key, 0, request)
    ours = decode_offset_delete_response(body, 0)
    assert ours == h.decode_offset_delete_response(body, 0)
    assert ours.partitions == [("u", 0, GROUP_SUBSCRIBED_TO_TOPIC), ("t", 1, 0)]


@pytest.mark.parametrize("version", p.LIST_GROUPS.versions)
def test_fake_groups_list_groups(cluster: GroupsCluster, version: int) -> None:
    body = cluster.handler(p.LIST_GROUPS.key, version, encode_list_groups_request(version))
    ours = decode_list_groups_response(body, version)
    assert ours == h.decode_list_groups_response(body, version)
    assert {g.group_id for g in ours.groups} >= {"g", "h", "kip848"}


@pytest.mark.parametrize("version", p.DESCRIBE_GROUPS.versions)
def test_fake_groups_describe_groups(cluster: GroupsCluster, version: int) -> None:
    request = encode_describe_groups_request(version, ["g", "kip848"])
    body = cluster.handler(p.DESCRIBE_GROUPS.key, version, request)
    ours = decode_describe_groups_response(body, version)
    assert ours == h.decode_describe_groups_response(body, version)
    assert [g.group_id for g in ours] == ["g", "kip848"]


@pytest.mark.parametrize("version", p.CONSUMER_GROUP_DESCRIBE.versions)
def test_fake_groups_consumer_group_describe(cluster: GroupsCluster, version: int) -> None:
    request = encode_consumer_group_describe_request(version, ["kip848", "g"])
    body = cluster.handler(p.CONSUMER_GROUP_DESCRIBE.key, version, request)
    ours = decode_consumer_group_describe_response(body, version)
    assert ours == h.decode_consumer_group_describe_response(body, version)
    member = ours[0].members[0]
    assert member.assignment == (("t", 0), ("t", 1))
    assert ours[0].members[1].member_type == (0 if version >= 1 else -1)


# --- the consumer protocol ------------------------------------------------------------------------

TPS = st.lists(st.tuples(st.sampled_from(["t", "u"]), st.integers(0, 99)), max_size=5)


@FAST
@given(
    version=st.integers(0, 6),
    topics=st.lists(st.text(max_size=5), max_size=3),
    user_data=st.none() | st.binary(max_size=6),
    owned=TPS,
    generation=st.integers(-5, 5),
    rack=st.none() | st.text(max_size=4),
    extra=st.binary(max_size=4),
)
def test_subscriptions_decode_the_same(version, topics, user_data, owned, generation, rack, extra):
    raw = h.encode_subscription(h.Subscription(version, topics, user_data, owned, generation, rack))
    raw += extra  # a newer version's fields, or bytes Kafka does not look at
    assert decode_subscription(raw) == h.versioned(h.decode_subscription(raw))


@FAST
@given(version=st.integers(0, 6), partitions=TPS, user_data=st.none() | st.binary(max_size=6))
def test_assignments_decode_the_same(version, partitions, user_data) -> None:
    raw = h.encode_assignment(h.Assignment(version, partitions, user_data))
    assert decode_assignment(raw) == h.versioned(h.decode_assignment(raw))


def test_a_negative_subscription_version_is_an_error_in_both() -> None:
    raw = bytes.fromhex("ffff 00000000 ffffffff".replace(" ", ""))
    with pytest.raises(ProtocolError):
        h.decode_subscription(raw)
    with pytest.raises(ProtocolError, match="version -1"):
        decode_subscription(raw)


# --- kgroup.assign.consumer_protocol (what --from-group reads) ------------------------------------
# It reads through kgroup.protocol now; its own cases are in tests/unit/assign.


def test_assign_errors_stay_malformed_data() -> None:
    raw = h.encode_subscription(h.Subscription(1, ["t"], None, [("t", 0)]))
    for cut in range(len(raw)):
        with pytest.raises(assign_cp.MalformedData):
            assign_cp.decode_subscription(raw[:cut])
