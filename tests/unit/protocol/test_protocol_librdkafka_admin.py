"""kgroup's generated wire classes against librdkafka, an independent Kafka client (admin calls).

Outside reference: librdkafka 2.16 (through confluent-kafka's AdminClient), whose encoders and
decoders are its own hand-written C. Each test makes librdkafka send one API at one version to
tests/unit/protocol/rdkafka_broker.py and checks both directions:

- requests: librdkafka's frame, read by kgroup's generated class, holds the literal values the
  test asked librdkafka to send, and kgroup's writer writes the same bytes back at that version;
- responses: the answer, written by kgroup's generated writer from literal values, is what
  librdkafka's admin result reports (states, members, assignments, offsets, configs, errors).

The field version thresholds in the expectations are Kafka's JSON message files' (cited by
field); a declaration that moves a field's version breaks the byte or value comparison.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import confluent_kafka
import pytest
from confluent_kafka import (
    ConsumerGroupState,
    ConsumerGroupTopicPartitions,
    ConsumerGroupType,
    IsolationLevel,
    KafkaException,
    TopicPartition,
)
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource, OffsetSpec

from kgroup.protocol.generated.embedded import (
    consumer_protocol_assignment as cpa,
)
from kgroup.protocol.generated.embedded import (
    consumer_protocol_subscription as cps,
)
from kgroup.protocol.generated.wire import api_versions_request as av_req
from kgroup.protocol.generated.wire import (
    consumer_group_describe_request as cgd_req,
)
from kgroup.protocol.generated.wire import (
    consumer_group_describe_response as cgd,
)
from kgroup.protocol.generated.wire import (
    delete_groups_response as dg,
)
from kgroup.protocol.generated.wire import (
    delete_topics_request as dt_req,
)
from kgroup.protocol.generated.wire import (
    delete_topics_response as dt,
)
from kgroup.protocol.generated.wire import (
    describe_configs_request as dc_req,
)
from kgroup.protocol.generated.wire import (
    describe_configs_response as dc,
)
from kgroup.protocol.generated.wire import (
    describe_groups_request as dsg_req,
)
from kgroup.protocol.generated.wire import (
    describe_groups_response as dsg,
)
from kgroup.protocol.generated.wire import (
    find_coordinator_request as fc_req,
)
from kgroup.protocol.generated.wire import (
    list_groups_request as lg_req,
)
from kgroup.protocol.generated.wire import (
    list_groups_response as lg,
)
from kgroup.protocol.generated.wire import (
    list_offsets_request as lo_req,
)
from kgroup.protocol.generated.wire import (
    list_offsets_response as lo,
)
from kgroup.protocol.generated.wire import (
    metadata_request as md_req,
)
from kgroup.protocol.generated.wire import (
    offset_commit_request as oc_req,
)
from kgroup.protocol.generated.wire import (
    offset_commit_response as oc,
)
from kgroup.protocol.generated.wire import (
    offset_fetch_request as of_req,
)
from kgroup.protocol.generated.wire import (
    offset_fetch_response as of,
)
from kgroup.protocol.generated.wire import sasl_authenticate_request as sa_req
from kgroup.protocol.generated.wire import sasl_authenticate_response as sa
from kgroup.protocol.generated.wire import sasl_handshake_request as sh_req
from kgroup.protocol.generated.wire import sasl_handshake_response as sh
from tests.unit.protocol.rdkafka_broker import Frame, RdkafkaBroker

TIMEOUT = 5.0
GROUP_ID_NOT_FOUND = 69
GROUP_AUTHORIZATION_FAILED = 30
UNKNOWN_TOPIC_OR_PARTITION = 3
NOT_COORDINATOR = 16
TOPIC_AUTHORIZATION_FAILED = 29
OFFSET_METADATA_TOO_LARGE = 12
SASL_AUTHENTICATION_FAILED = 58
UNSUPPORTED_SASL_MECHANISM = 33


@contextmanager
def serving(
    answers: dict[int, Callable[[Frame], Any]], versions: dict[int, int]
) -> Iterator[tuple[RdkafkaBroker, AdminClient]]:
    broker = RdkafkaBroker(answers, versions)
    try:
        admin = AdminClient({"bootstrap.servers": broker.address, "log_level": 0})
        yield broker, admin
    finally:
        broker.close()
    assert broker.errors == []


def only(broker: RdkafkaBroker, api_key: int, version: int) -> Frame:
    """The frame of `api_key` librdkafka sent (the first, if it retried), checked to be at
    `version` and to be written back byte for byte by kgroup's writer."""
    frames = broker.sent(api_key)
    assert frames, f"librdkafka sent no api {api_key}"
    frame = frames[0]
    assert frame.version == version
    assert frame.reencode() == frame.body, f"api {api_key} v{version} re-encoded differently"
    return frame


def result(future: Any) -> Any:
    if isinstance(future, dict):
        return {key: f.result() for key, f in future.items()}
    return future.result()


def error_code(future: Any) -> int:
    with pytest.raises(KafkaException) as caught:
        future.result()
    return caught.value.args[0].code()


# --- ListGroups v0-5 (ListGroupsRequest.json / ListGroupsResponse.json) ------------------------


@pytest.mark.parametrize("version", range(6))
def test_list_groups(version: int) -> None:
    listed = (
        # GroupState v4+, GroupType v5+
        lg.ListedGroup("orders-app", "consumer", "Stable", "classic"),
        lg.ListedGroup("kip848", "consumer", "Empty", "consumer"),
        lg.ListedGroup("simple", "", "Empty", "classic"),
    )
    answers = {16: lambda f: lg.ListGroupsResponse(groups=listed)}
    kwargs: dict[str, Any] = {}
    if version >= 4:  # StatesFilter v4+
        kwargs["states"] = {ConsumerGroupState.STABLE}
    if version >= 5:  # TypesFilter v5+
        kwargs["types"] = {ConsumerGroupType.CONSUMER}
    with serving(answers, {16: version}) as (broker, admin):
        got = result(admin.list_consumer_groups(request_timeout=TIMEOUT, **kwargs))
        frame = only(broker, 16, version)
    assert frame.decode() == lg_req.ListGroupsRequest(
        states_filter=("Stable",) if version >= 4 else (),
        types_filter=("Consumer",) if version >= 5 else (),  # librdkafka capitalises
    )
    state = {
        "orders-app": ConsumerGroupState.STABLE,
        "kip848": ConsumerGroupState.EMPTY,
        "simple": ConsumerGroupState.EMPTY,
    }
    kind = {
        "orders-app": ConsumerGroupType.CLASSIC,
        "kip848": ConsumerGroupType.CONSUMER,
        "simple": ConsumerGroupType.CLASSIC,
    }
    assert sorted(
        (g.group_id, g.is_simple_consumer_group, g.state, g.type) for g in got.valid
    ) == sorted(
        (
            name,
            name == "simple",
            state[name] if version >= 4 else ConsumerGroupState.UNKNOWN,
            kind[name] if version >= 5 else ConsumerGroupType.UNKNOWN,
        )
        for name in state
    )


def test_list_groups_error() -> None:
    answers = {16: lambda f: lg.ListGroupsResponse(error_code=NOT_COORDINATOR)}
    with serving(answers, {16: 5}) as (_, admin):
        got = result(admin.list_consumer_groups(request_timeout=TIMEOUT))
    assert [e.code() for e in got.errors] == [NOT_COORDINATOR]


# --- FindCoordinator v0-2, DescribeGroups v0-5 --------------------------------------------------

SUBSCRIPTION = cps.ConsumerProtocolSubscription(("t",), None)
ASSIGNMENT = cpa.ConsumerProtocolAssignment((cpa.TopicPartition("t", (0, 1)),), b"ud")


def _versioned(module: Any, value: Any, version: int) -> bytes:
    return version.to_bytes(2, "big") + module.write(value, version)


def _classic_group(version: int) -> Any:
    member = dsg.DescribedGroupMember(
        member_id="m-1",
        group_instance_id="static-1" if version >= 4 else None,  # GroupInstanceId v4+
        client_id="client-a",
        client_host="/10.0.0.7",
        member_metadata=_versioned(cps, SUBSCRIPTION, 0),
        member_assignment=_versioned(cpa, ASSIGNMENT, 0),
    )
    return dsg.DescribedGroup(
        group_id="g",
        group_state="Stable",
        protocol_type="consumer",
        protocol_data="range",
        members=(member,),
        # AuthorizedOperations v3+: READ (3) and DESCRIBE (8)
        authorized_operations=(1 << 3) | (1 << 8) if version >= 3 else -(2**31),
    )


@pytest.mark.parametrize(("find_version", "describe_version"), [(v % 3, v) for v in range(6)])
def test_describe_classic_group(find_version: int, describe_version: int) -> None:
    answers = {
        # no ConsumerGroupDescribe: librdkafka falls back to DescribeGroups
        69: lambda f: cgd.ConsumerGroupDescribeResponse(
            groups=(cgd.DescribedGroup(error_code=GROUP_ID_NOT_FOUND, group_id="g"),)
        ),
        15: lambda f: dsg.DescribeGroupsResponse(groups=(_classic_group(describe_version),)),
    }
    versions = {10: find_version, 15: describe_version}
    with serving(answers, versions) as (broker, admin):
        got = result(
            admin.describe_consumer_groups(
                ["g"], include_authorized_operations=True, request_timeout=TIMEOUT
            )
        )["g"]
        find = only(broker, 10, find_version)
        describe = only(broker, 15, describe_version)
    # KeyType v1+
    assert find.decode() == fc_req.FindCoordinatorRequest(key="g", key_type=0)
    assert describe.decode() == dsg_req.DescribeGroupsRequest(
        groups=("g",), include_authorized_operations=describe_version >= 3
    )
    assert (got.group_id, got.state, got.partition_assignor, got.is_simple_consumer_group) == (
        "g",
        ConsumerGroupState.STABLE,
        "range",
        False,
    )
    assert (got.coordinator.id, got.coordinator.host, got.coordinator.port) == (
        1,
        "127.0.0.1",
        broker.port,
    )
    [member] = got.members
    assert (member.member_id, member.client_id, member.host, member.group_instance_id) == (
        "m-1",
        "client-a",
        "/10.0.0.7",
        "static-1" if describe_version >= 4 else None,
    )
    assert [(tp.topic, tp.partition) for tp in member.assignment.topic_partitions] == [
        ("t", 0),
        ("t", 1),
    ]
    operations = sorted(op.name for op in got.authorized_operations or [])
    assert operations == (["DESCRIBE", "READ"] if describe_version >= 3 else [])


def test_describe_group_error() -> None:
    answers = {
        69: lambda f: cgd.ConsumerGroupDescribeResponse(
            groups=(cgd.DescribedGroup(error_code=GROUP_ID_NOT_FOUND, group_id="g"),)
        ),
        15: lambda f: dsg.DescribeGroupsResponse(
            groups=(dsg.DescribedGroup(error_code=GROUP_AUTHORIZATION_FAILED, group_id="g"),)
        ),
    }
    with serving(answers, {15: 5}) as (_, admin):
        future = admin.describe_consumer_groups(["g"], request_timeout=TIMEOUT)["g"]
        assert error_code(future) == GROUP_AUTHORIZATION_FAILED


# --- ConsumerGroupDescribe v0 (KIP-848) -----------------------------------------------------------


def test_describe_consumer_group() -> None:
    topic_id = bytes(range(16))
    member = cgd.Member(
        member_id="m-848",
        instance_id="static-2",
        rack_id="r1",
        member_epoch=7,
        client_id="client-b",
        client_host="/10.0.0.8",
        subscribed_topic_names=("t",),
        assignment=cgd.Assignment((cgd.TopicPartitions(topic_id, "t", (1, 0)),)),
        target_assignment=cgd.Assignment((cgd.TopicPartitions(topic_id, "t", (0,)),)),
    )
    group = cgd.DescribedGroup(
        group_id="g",
        group_state="Stable",
        group_epoch=9,
        assignment_epoch=8,
        assignor_name="uniform",
        members=(member,),
        authorized_operations=1 << 3,
    )
    answers = {69: lambda f: cgd.ConsumerGroupDescribeResponse(groups=(group,))}
    with serving(answers, {69: 0}) as (broker, admin):
        got = result(
            admin.describe_consumer_groups(
                ["g"], include_authorized_operations=True, request_timeout=TIMEOUT
            )
        )["g"]
        frame = only(broker, 69, 0)
    assert frame.decode() == cgd_req.ConsumerGroupDescribeRequest(
        group_ids=("g",), include_authorized_operations=True
    )
    assert (got.group_id, got.state, got.partition_assignor, got.type) == (
        "g",
        ConsumerGroupState.STABLE,
        "uniform",
        ConsumerGroupType.CONSUMER,
    )
    [m] = got.members
    assert (m.member_id, m.client_id, m.host, m.group_instance_id) == (
        "m-848",
        "client-b",
        "/10.0.0.8",
        "static-2",
    )
    assert sorted((tp.topic, tp.partition) for tp in m.assignment.topic_partitions) == [
        ("t", 0),
        ("t", 1),
    ]
    assert [(tp.topic, tp.partition) for tp in m.target_assignment.topic_partitions] == [("t", 0)]
    assert [op.name for op in got.authorized_operations] == ["READ"]


# --- OffsetFetch v0-9 -----------------------------------------------------------------------------


def _offset_fetch_answer(frame: Frame) -> Any:
    rows = [(0, 5, 4, "m", 0), (1, -1, -1, "", UNKNOWN_TOPIC_OR_PARTITION)]
    if frame.version >= 8:  # Groups v8+
        partitions = tuple(of.OffsetFetchResponsePartitions(*row) for row in rows)
        group = of.OffsetFetchResponseGroup("g", (of.OffsetFetchResponseTopics("t", partitions),))
        return of.OffsetFetchResponse(groups=(group,))
    # CommittedLeaderEpoch v5+
    old = tuple(
        of.OffsetFetchResponsePartition(p, o, e if frame.version >= 5 else -1, m, err)
        for p, o, e, m, err in rows
    )
    return of.OffsetFetchResponse(topics=(of.OffsetFetchResponseTopic("t", old),))


@pytest.mark.parametrize("version", range(10))
def test_offset_fetch(version: int) -> None:
    request = ConsumerGroupTopicPartitions("g", [TopicPartition("t", 0), TopicPartition("t", 1)])
    with serving({9: _offset_fetch_answer}, {9: version}) as (broker, admin):
        got = result(
            admin.list_consumer_group_offsets(
                [request], require_stable=True, request_timeout=TIMEOUT
            )
        )["g"]
        frame = only(broker, 9, version)
    if version >= 8:
        topics = (of_req.OffsetFetchRequestTopics("t", (0, 1)),)
        expected = of_req.OffsetFetchRequest(
            groups=(of_req.OffsetFetchRequestGroup("g", topics=topics),), require_stable=True
        )
    else:  # RequireStable v7+
        topics = (of_req.OffsetFetchRequestTopic("t", (0, 1)),)
        expected = of_req.OffsetFetchRequest("g", topics, require_stable=version >= 7)
    assert frame.decode() == expected
    # (the committed metadata string is not compared: confluent-kafka's binding reads it as a C
    # string past its end; the fields after it in the answer still have to line up)
    first, second = got.topic_partitions
    assert (first.topic, first.partition, first.offset, first.leader_epoch, first.error) == (
        "t",
        0,
        5,
        4 if version >= 5 else None,
        None,
    )
    assert (second.partition, second.error.code()) == (1, UNKNOWN_TOPIC_OR_PARTITION)


# --- OffsetCommit v0-9 ----------------------------------------------------------------------------


@pytest.mark.parametrize("version", range(10))
def test_offset_commit(version: int) -> None:
    def answer(frame: Frame) -> Any:
        partitions = (
            oc.OffsetCommitResponsePartition(0, 0),
            oc.OffsetCommitResponsePartition(1, OFFSET_METADATA_TOO_LARGE),
        )
        return oc.OffsetCommitResponse(topics=(oc.OffsetCommitResponseTopic("t", partitions),))

    offsets = [
        TopicPartition("t", 0, 42, metadata="md", leader_epoch=3),
        TopicPartition("t", 1, 7),
    ]
    with serving({8: answer}, {8: version}) as (broker, admin):
        future = admin.alter_consumer_group_offsets(
            [ConsumerGroupTopicPartitions("g", offsets)], request_timeout=TIMEOUT
        )["g"]
        got = future.result()
        frame = only(broker, 8, version)
    assert [
        (tp.partition, tp.offset, tp.error and tp.error.code()) for tp in got.topic_partitions
    ] == [
        (0, 42, None),
        (1, 7, OFFSET_METADATA_TOO_LARGE),
    ]
    partitions = (
        # CommittedLeaderEpoch v6+, CommitTimestamp v1 only; confluent-kafka's binding hands
        # librdkafka the metadata with its C string terminator, which librdkafka sends
        oc_req.OffsetCommitRequestPartition(0, 42, 3 if version >= 6 else -1, -1, "md\x00"),
        oc_req.OffsetCommitRequestPartition(1, 7, -1, -1, ""),
    )
    assert frame.decode() == oc_req.OffsetCommitRequest(
        group_id="g",
        generation_id_or_member_epoch=-1,  # v1+
        member_id="",  # v1+
        retention_time_ms=-1,  # v2-v4
        topics=(oc_req.OffsetCommitRequestTopic("t", partitions),),
    )


# --- DeleteGroups v0-2 ----------------------------------------------------------------------------


@pytest.mark.parametrize("version", range(3))
def test_delete_groups(version: int) -> None:
    def answer(frame: Frame) -> Any:
        (name,) = frame.decode().groups_names
        code = 0 if name == "g" else GROUP_ID_NOT_FOUND
        return dg.DeleteGroupsResponse(results=(dg.DeletableGroupResult(name, code),))

    with serving({42: answer}, {42: version}) as (broker, admin):
        futures = admin.delete_consumer_groups(["g", "gone"], request_timeout=TIMEOUT)
        assert futures["g"].result() is None
        assert error_code(futures["gone"]) == GROUP_ID_NOT_FOUND
        frames = broker.sent(42)
    assert sorted(f.decode().groups_names for f in frames) == [("g",), ("gone",)]
    for frame in frames:
        assert frame.version == version
        assert frame.reencode() == frame.body


# --- DeleteTopics v1-4 ----------------------------------------------------------------------------


@pytest.mark.parametrize("version", range(1, 5))
def test_delete_topics(version: int) -> None:
    def answer(frame: Frame) -> Any:
        return dt.DeleteTopicsResponse(
            responses=(
                dt.DeletableTopicResult("t", error_code=0),
                dt.DeletableTopicResult("u", error_code=TOPIC_AUTHORIZATION_FAILED),
            )
        )

    with serving({20: answer}, {20: version}) as (broker, admin):
        futures = admin.delete_topics(["t", "u"], operation_timeout=30, request_timeout=TIMEOUT)
        assert futures["t"].result() is None
        assert error_code(futures["u"]) == TOPIC_AUTHORIZATION_FAILED
        frame = only(broker, 20, version)
    assert frame.decode() == dt_req.DeleteTopicsRequest(topic_names=("t", "u"), timeout_ms=30000)


# --- DescribeConfigs v0-1 -------------------------------------------------------------------------


@pytest.mark.parametrize("version", range(2))
def test_describe_configs(version: int) -> None:
    def answer(frame: Frame) -> Any:
        synonyms = (dc.DescribeConfigsSynonym("log.retention.ms", "1000", 4),)
        entries = (
            dc.DescribeConfigsResourceResult(
                name="retention.ms",
                value="1000",
                read_only=False,
                is_default=False,  # v0 only
                config_source=1 if version >= 1 else -1,  # v1+: DYNAMIC_TOPIC_CONFIG
                is_sensitive=False,
                synonyms=synonyms if version >= 1 else (),  # v1+
            ),
            dc.DescribeConfigsResourceResult(
                name="sasl.jaas.config", value=None, read_only=True, is_sensitive=True
            ),
        )
        return dc.DescribeConfigsResponse(
            results=(dc.DescribeConfigsResult(resource_type=2, resource_name="t", configs=entries),)
        )

    with serving({32: answer}, {32: version}) as (broker, admin):
        got = result(
            admin.describe_configs([ConfigResource("topic", "t")], request_timeout=TIMEOUT)
        )
        frame = only(broker, 32, version)
    assert frame.decode() == dc_req.DescribeConfigsRequest(
        resources=(dc_req.DescribeConfigsResource(2, "t", None),),
        include_synonyms=version >= 1,  # v1+
    )
    [configs] = got.values()
    retention = configs["retention.ms"]
    assert (retention.value, retention.is_read_only, retention.is_sensitive) == (
        "1000",
        False,
        False,
    )
    if version >= 1:
        assert retention.source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
        assert [(s.name, s.value, s.source) for s in retention.synonyms.values()] == [
            ("log.retention.ms", "1000", ConfigSource.STATIC_BROKER_CONFIG.value)
        ]
    secret = configs["sasl.jaas.config"]
    assert (secret.value, secret.is_read_only, secret.is_sensitive) == (None, True, True)


# --- ListOffsets v0-7 -----------------------------------------------------------------------------


@pytest.mark.parametrize("version", range(8))
def test_list_offsets(version: int) -> None:
    def answer(frame: Frame) -> Any:
        rows = []
        for p, offset, ts in ((0, 42, -1), (1, 3, 1700000000000)):
            if version == 0:  # OldStyleOffsets v0 only
                rows.append(lo.ListOffsetsPartitionResponse(p, old_style_offsets=(offset,)))
            else:  # Timestamp and Offset v1+, LeaderEpoch v4+
                epoch = 6 if version >= 4 else -1
                rows.append(lo.ListOffsetsPartitionResponse(p, 0, (), ts, offset, epoch))
        return lo.ListOffsetsResponse(topics=(lo.ListOffsetsTopicResponse("t", tuple(rows)),))

    specs = {
        TopicPartition("t", 0): OffsetSpec.latest(),
        TopicPartition("t", 1): OffsetSpec.earliest(),
    }
    level = IsolationLevel.READ_COMMITTED
    with serving({2: answer}, {2: version}) as (broker, admin):
        got = result(admin.list_offsets(specs, isolation_level=level, request_timeout=TIMEOUT))
        frame = only(broker, 2, version)
    partitions = tuple(
        lo_req.ListOffsetsPartition(
            p,
            current_leader_epoch=0 if version >= 4 else -1,  # v4+ (librdkafka's cached epoch)
            timestamp=ts,
            max_num_offsets=1,  # v0 only
        )
        for p, ts in ((0, -1), (1, -2))
    )
    assert frame.decode() == lo_req.ListOffsetsRequest(
        replica_id=-1,
        isolation_level=1 if version >= 2 else 0,  # v2+
        topics=(lo_req.ListOffsetsTopic("t", partitions),),
    )
    rows = {
        (tp.topic, tp.partition): (r.offset, r.timestamp, r.leader_epoch) for tp, r in got.items()
    }
    assert rows[("t", 0)][0] == 42
    assert rows[("t", 1)][0] == 3
    if version >= 4:
        assert rows[("t", 1)] == (3, 1700000000000, 6)


# --- Metadata v0-12 -------------------------------------------------------------------------------


@pytest.mark.parametrize("version", range(13))
def test_metadata(version: int) -> None:
    with serving({}, {3: version}) as (broker, admin):
        got = admin.list_topics(timeout=TIMEOUT)
        frames = broker.sent(3)
    # librdkafka's first Metadata asks for brokers only (Topics []), list_topics' for all
    # (Topics null from v1, [] in v0; AllowAutoTopicCreation v4+ true).
    brokers_only, every_topic = frames[0], frames[-1]
    assert (brokers_only.version, every_topic.version) == (version, version)
    assert brokers_only.reencode() == brokers_only.body
    assert brokers_only.decode() == md_req.MetadataRequest(
        topics=(),
        allow_auto_topic_creation=version < 4,  # sent false v4+, else the default
    )
    # From v9 librdkafka's all-topics request is not what it meant: it reserves 4 bytes for the
    # topic count, writes the 1-byte compact null there and does not close the gap, so three
    # zero bytes follow the null, and its AllowAutoTopicCreation `01` lands after them. Kafka
    # reads those bytes as kgroup does: v9-v10 `00 00 00 | 00 | 01 00 00 | 00` is
    # AllowAutoTopicCreation false, IncludeCluster/TopicAuthorizedOperations false, one empty
    # tagged field 0, one byte left; v11+ `00 00 00 | 00 | 01 00 00` leaves three bytes
    # (Kafka ignores bytes after a request).
    read, rest = every_topic.decode_prefix()
    assert md_req.write(read, version) + rest == every_topic.body
    if version >= 11:
        assert (read, rest) == (
            md_req.MetadataRequest(topics=None, allow_auto_topic_creation=False),
            b"\x01\x00\x00",
        )
    elif version >= 9:
        assert (read, rest) == (
            md_req.MetadataRequest(
                topics=None, allow_auto_topic_creation=False, unknown_tags=((0, b""),)
            ),
            b"\x00",
        )
    else:
        assert (read, rest) == (
            md_req.MetadataRequest(
                topics=() if version == 0 else None, allow_auto_topic_creation=True
            ),
            b"",
        )
    assert {b.id: (b.host, b.port) for b in got.brokers.values()} == {1: ("127.0.0.1", broker.port)}
    if version >= 1:  # ControllerId v1+
        assert got.controller_id == 1
    if version >= 2:  # ClusterId v2+
        assert got.cluster_id == "reference-cluster"
    t = got.topics["t"]
    assert sorted(t.partitions) == [0, 1]
    assert (t.partitions[1].leader, t.partitions[1].replicas, t.partitions[1].isrs) == (1, [1], [1])


# --- ApiVersions v3, SaslHandshake v1, SaslAuthenticate v0-1 -----------------------------------


def _poll_for_errors(admin: AdminClient, errors: list[Any]) -> None:
    """librdkafka calls error_cb from poll: poll until it has (at most 10 s)."""
    deadline = time.monotonic() + 10
    while not errors and time.monotonic() < deadline:
        admin.poll(0.1)


def _sasl_admin(broker: RdkafkaBroker, errors: list[Any]) -> AdminClient:
    return AdminClient(
        {
            "bootstrap.servers": broker.address,
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanisms": "PLAIN",
            "sasl.username": "alice",
            "sasl.password": "s3cret",
            "error_cb": errors.append,
            "log_level": 0,
        }
    )


@pytest.mark.parametrize("version", range(2))
def test_sasl_plain(version: int) -> None:
    answers = {
        17: lambda f: sh.SaslHandshakeResponse(0, ("SCRAM-SHA-512", "PLAIN")),
        36: lambda f: sa.SaslAuthenticateResponse(
            session_lifetime_ms=3600000 if version >= 1 else 0  # v1+
        ),
    }
    errors: list[Any] = []
    broker = RdkafkaBroker(answers, {36: version})
    try:
        got = _sasl_admin(broker, errors).list_topics(timeout=TIMEOUT)
    finally:
        broker.close()
    assert broker.errors == [] and errors == []
    assert sorted(got.topics) == ["t"]
    api_versions, handshake, authenticate = broker.frames[:3]
    for frame in (api_versions, handshake, authenticate):
        assert frame.reencode() == frame.body
    # ClientSoftwareName/Version v3+
    assert (api_versions.api_key, api_versions.version) == (18, 3)
    assert api_versions.decode() == av_req.ApiVersionsRequest(
        client_software_name="confluent-kafka-python",
        client_software_version=f"{confluent_kafka.__version__}-rdkafka-{confluent_kafka.libversion()[0]}",
    )
    assert (handshake.api_key, handshake.version) == (17, 1)
    assert handshake.decode() == sh_req.SaslHandshakeRequest("PLAIN")
    assert (authenticate.api_key, authenticate.version) == (36, version)
    # RFC 4616: authzid NUL authcid NUL password
    assert authenticate.decode() == sa_req.SaslAuthenticateRequest(b"\x00alice\x00s3cret")


def test_sasl_authentication_failure_message() -> None:
    answers = {
        17: lambda f: sh.SaslHandshakeResponse(0, ("PLAIN",)),
        36: lambda f: sa.SaslAuthenticateResponse(
            error_code=SASL_AUTHENTICATION_FAILED, error_message="bad credentials for alice"
        ),
    }
    errors: list[Any] = []
    broker = RdkafkaBroker(answers, {36: 1})
    try:
        admin = _sasl_admin(broker, errors)
        with pytest.raises(KafkaException):
            admin.list_topics(timeout=2)
        _poll_for_errors(admin, errors)
    finally:
        broker.close()
    assert any("bad credentials for alice" in str(e) for e in errors), errors


def test_sasl_handshake_unsupported_mechanism() -> None:
    answers = {17: lambda f: sh.SaslHandshakeResponse(UNSUPPORTED_SASL_MECHANISM, ("GSSAPI",))}
    errors: list[Any] = []
    broker = RdkafkaBroker(answers, {})
    try:
        admin = _sasl_admin(broker, errors)
        with pytest.raises(KafkaException):
            admin.list_topics(timeout=2)
        _poll_for_errors(admin, errors)
    finally:
        broker.close()
    # librdkafka names the mechanisms the broker listed
    assert any("GSSAPI" in str(e) for e in errors), errors
