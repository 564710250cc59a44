"""kgroup's generated wire and consumer-protocol classes against librdkafka's group consumer.

Outside reference: librdkafka 2.16 (confluent-kafka's Consumer, the classic group protocol)
joining a group at tests/unit/protocol/rdkafka_broker.py. The test asks librdkafka to consume
topic `t` in group `g` with rack `r1` and checks, at each version librdkafka can be made to send:

- JoinGroup: kgroup reads librdkafka's request, and the ConsumerProtocolSubscription inside it
  (written by librdkafka) with kgroup's embedded class;
- SyncGroup: librdkafka, the leader, assigned with a second member's subscription that kgroup's
  writer made; kgroup reads the assignments librdkafka wrote;
- the SyncGroup answer carries an assignment kgroup's writer made, which librdkafka adopts;
- OffsetFetch, Fetch (answered with a record batch written out by hand below), OffsetCommit
  as a group member, LeaveGroup;
- every request is written back byte for byte by kgroup's writer.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from confluent_kafka import Consumer

from kgroup.protocol.generated.embedded import consumer_protocol_assignment as cpa
from kgroup.protocol.generated.embedded import consumer_protocol_subscription as cps
from kgroup.protocol.generated.wire import fetch_request as f_req
from kgroup.protocol.generated.wire import fetch_response as fr
from kgroup.protocol.generated.wire import join_group_request as jg_req
from kgroup.protocol.generated.wire import join_group_response as jg
from kgroup.protocol.generated.wire import leave_group_request as lv_req
from kgroup.protocol.generated.wire import leave_group_response as lv
from kgroup.protocol.generated.wire import offset_commit_request as oc_req
from kgroup.protocol.generated.wire import offset_commit_response as oc
from kgroup.protocol.generated.wire import offset_fetch_request as of_req
from kgroup.protocol.generated.wire import offset_fetch_response as of
from kgroup.protocol.generated.wire import sync_group_request as sg_req
from kgroup.protocol.generated.wire import sync_group_response as sg
from tests.unit.protocol.rdkafka_broker import Frame, RdkafkaBroker

MEMBER_ID_REQUIRED = 79
FETCH, OFFSET_COMMIT, OFFSET_FETCH, JOIN_GROUP, HEARTBEAT, LEAVE_GROUP, SYNC_GROUP = (
    1,
    8,
    9,
    11,
    12,
    13,
    14,
)

# One record batch (magic 2) at offset 5 holding key "k", value "v", laid out from Kafka's
# DefaultRecordBatch / DefaultRecord; librdkafka checks the CRC (check.crcs=true).
RECORDS = bytes.fromhex(
    "0000000000000005"  # baseOffset 5
    "0000003a"  # batchLength 58: the bytes after this field
    "00000000"  # partitionLeaderEpoch 0
    "02"  # magic 2
    "e99b8dd8"  # crc: CRC-32C of attributes .. the end
    "0000"  # attributes: no compression, CreateTime, not transactional
    "00000000"  # lastOffsetDelta 0
    "0000018bcfe56800"  # baseTimestamp 1700000000000
    "0000018bcfe56800"  # maxTimestamp
    "ffffffffffffffff"  # producerId -1
    "ffff"  # producerEpoch -1
    "ffffffff"  # baseSequence -1
    "00000001"  # one record:
    "10"  # length 8 (zigzag varint)
    "00"  # attributes
    "00"  # timestampDelta 0
    "00"  # offsetDelta 0
    "02"
    "6b"  # key length 1, "k"
    "02"
    "76"  # value length 1, "v"
    "00"  # no headers
)

# HeartbeatResponse v0-3 (Heartbeat has no kgroup declaration): ThrottleTimeMs int32 (v1+),
# ErrorCode int16
HEARTBEAT_V1_3 = bytes.fromhex("000000000000")

# kgroup's writer makes the subscription of a second member, "m-2"; librdkafka's range assignor
# must read it to give m-2 a partition
OTHER_SUBSCRIPTION = (1).to_bytes(2, "big") + cps.write(
    cps.ConsumerProtocolSubscription(("t",), b"m2-data"), 1
)
# ... and the assignment the SyncGroup answer gives librdkafka, also kgroup's writer's
OUR_ASSIGNMENT = (1).to_bytes(2, "big") + cpa.write(
    cpa.ConsumerProtocolAssignment((cpa.TopicPartition("t", (1,)),), b"from-kgroup"), 1
)


class Group:
    """The coordinator side of one classic group with librdkafka as its leader."""

    def __init__(self) -> None:
        self.fetched = False

    def join(self, frame: Frame) -> Any:
        request = frame.decode()
        if not request.member_id and frame.version >= 4:  # KIP-394: a member id first
            return jg.JoinGroupResponse(error_code=MEMBER_ID_REQUIRED, member_id="m-1")
        members = (
            jg.JoinGroupResponseMember("m-1", None, request.protocols[0].metadata),
            jg.JoinGroupResponseMember("m-2", None, OTHER_SUBSCRIPTION),
        )
        return jg.JoinGroupResponse(
            generation_id=3,
            protocol_type="consumer" if frame.version >= 7 else None,
            protocol_name="range",
            leader="m-1",
            member_id="m-1",
            members=members,
        )

    def sync(self, frame: Frame) -> Any:
        v = frame.version
        return sg.SyncGroupResponse(
            protocol_type="consumer" if v >= 5 else None,
            protocol_name="range" if v >= 5 else None,
            assignment=OUR_ASSIGNMENT,
        )

    def offset_fetch(self, frame: Frame) -> Any:
        if frame.version >= 8:
            part = of.OffsetFetchResponsePartitions(1, 5, -1, "", 0)
            topic = of.OffsetFetchResponseTopics("t", (part,))
            return of.OffsetFetchResponse(groups=(of.OffsetFetchResponseGroup("g", (topic,)),))
        part = of.OffsetFetchResponsePartition(1, 5, -1, "", 0)
        return of.OffsetFetchResponse(topics=(of.OffsetFetchResponseTopic("t", (part,)),))

    def fetch(self, frame: Frame) -> Any:
        records = b""
        if not self.fetched:
            self.fetched, records = True, RECORDS
        else:
            time.sleep(0.05)
        data = fr.PartitionData(
            partition_index=1,
            high_watermark=6,
            last_stable_offset=6 if frame.version >= 4 else -1,  # v4+
            log_start_offset=2 if frame.version >= 5 else -1,  # v5+
            aborted_transactions=(),
            records=records,
        )
        return fr.FetchResponse(responses=(fr.FetchableTopicResponse("t", (data,)),))


CASES = [
    # (JoinGroup, SyncGroup, OffsetFetch and OffsetCommit, Fetch, LeaveGroup) versions;
    # librdkafka 2.16 sends JoinGroup v0-5, SyncGroup v0-3, OffsetFetch/OffsetCommit v0-9,
    # Fetch v4-11 (kgroup's newest), LeaveGroup v0-1
    pytest.param(5, 3, 9, 11, 1, id="newest"),
    pytest.param(5, 3, 9, 9, 1, id="fetch9"),
    pytest.param(5, 3, 9, 8, 1, id="fetch8"),
    pytest.param(4, 2, 8, 10, 1, id="join4-sync2-of8-fetch10-leave1"),
    pytest.param(3, 1, 7, 7, 0, id="join3-sync1-of7-fetch7-leave0"),
    pytest.param(2, 1, 6, 6, 1, id="join2-sync1-of6-fetch6-leave1"),
    pytest.param(1, 0, 3, 5, 0, id="join1-sync0-of3-fetch5-leave0"),
    pytest.param(0, 0, 1, 4, 0, id="oldest"),
]


@pytest.mark.parametrize(("join_v", "sync_v", "offset_fetch_v", "fetch_v", "leave_v"), CASES)
def test_group_consumer(join_v: int, sync_v: int, offset_fetch_v: int, fetch_v: int, leave_v: int):
    group = Group()
    answers = {
        JOIN_GROUP: group.join,
        SYNC_GROUP: group.sync,
        OFFSET_FETCH: group.offset_fetch,
        OFFSET_COMMIT: lambda f: oc.OffsetCommitResponse(
            topics=(oc.OffsetCommitResponseTopic("t", (oc.OffsetCommitResponsePartition(1, 0),)),)
        ),
        FETCH: group.fetch,
        HEARTBEAT: lambda f: HEARTBEAT_V1_3 if f.version >= 1 else b"\x00\x00",
        LEAVE_GROUP: lambda f: lv.LeaveGroupResponse(),
    }
    versions = {
        JOIN_GROUP: join_v,
        SYNC_GROUP: sync_v,
        OFFSET_FETCH: offset_fetch_v,
        OFFSET_COMMIT: offset_fetch_v,
        FETCH: fetch_v,
        LEAVE_GROUP: leave_v,
        HEARTBEAT: 3,
        0: 3,  # Produce: librdkafka wants it for record batches v2 (never sent here)
    }
    broker = RdkafkaBroker(answers, versions)
    consumer = Consumer(
        {
            "bootstrap.servers": broker.address,
            "group.id": "g",
            "client.rack": "r1",
            "partition.assignment.strategy": "range",
            "enable.auto.commit": False,
            "session.timeout.ms": 6000,
            "fetch.wait.max.ms": 100,
            "check.crcs": True,
            "log_level": 0,
        }
    )
    try:
        consumer.subscribe(["t"])
        message = None
        deadline = time.monotonic() + 20
        while message is None and time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is not None and message.error():
                pytest.fail(str(message.error()))
        assignment = consumer.assignment()
        committed = consumer.commit(message=message, asynchronous=False) if message else None
        consumer.close()
    finally:
        broker.close()
    assert broker.errors == []
    frames = {key: broker.sent(key) for key in answers}

    # what librdkafka read from kgroup's answers
    assert [(tp.topic, tp.partition) for tp in assignment] == [("t", 1)]
    assert message is not None
    assert (message.topic(), message.partition(), message.offset()) == ("t", 1, 5)
    assert (message.key(), message.value()) == (b"k", b"v")

    for key, sent in frames.items():
        for frame in sent:
            if key != HEARTBEAT:
                assert frame.reencode() == frame.body, f"api {key} v{frame.version}"

    # JoinGroup: the request and librdkafka's subscription inside it
    join = frames[JOIN_GROUP][-1]
    assert join.version == join_v
    request = join.decode()
    assert request == jg_req.JoinGroupRequest(
        group_id="g",
        session_timeout_ms=6000,
        rebalance_timeout_ms=300000 if join_v >= 1 else -1,  # v1+ (librdkafka's default)
        member_id="m-1" if join_v >= 4 else "",
        protocol_type="consumer",
        protocols=request.protocols,  # checked below
    )
    [protocol] = request.protocols
    assert protocol.name == "range"
    version = int.from_bytes(protocol.metadata[:2], "big")
    subscription = cps.read(protocol.metadata[2:], version)
    # librdkafka writes v3 (KIP-881 rack): empty user data, no owned partitions, generation -1
    assert (version, subscription) == (
        3,
        cps.ConsumerProtocolSubscription(("t",), b"", (), -1, "r1"),
    )

    # SyncGroup: librdkafka's range assignment of t-0, t-1 over m-1 and m-2 (whose
    # subscription kgroup wrote)
    sync = frames[SYNC_GROUP][-1]
    assert sync.version == sync_v
    request = sync.decode()
    assert (request.group_id, request.generation_id, request.member_id) == ("g", 3, "m-1")
    assignments = {}
    for entry in request.assignments:
        version = int.from_bytes(entry.assignment[:2], "big")
        assignments[entry.member_id] = (version, cpa.read(entry.assignment[2:], version))
    assert assignments == {
        "m-1": (0, cpa.ConsumerProtocolAssignment((cpa.TopicPartition("t", (0,)),), b"")),
        # librdkafka hands each member back the user data of its subscription: m-2's came from
        # kgroup's writer
        "m-2": (0, cpa.ConsumerProtocolAssignment((cpa.TopicPartition("t", (1,)),), b"m2-data")),
    }
    assert request == sg_req.SyncGroupRequest(
        group_id="g",
        generation_id=3,
        member_id="m-1",
        assignments=request.assignments,
    )

    # OffsetFetch for the partition kgroup assigned
    offset_fetch = frames[OFFSET_FETCH][0]
    assert offset_fetch.version == offset_fetch_v
    if offset_fetch_v >= 8:
        topics = (of_req.OffsetFetchRequestTopics("t", (1,)),)
        group_entry = of_req.OffsetFetchRequestGroup("g", topics=topics)
        expected: Any = of_req.OffsetFetchRequest(groups=(group_entry,), require_stable=True)
    else:
        expected = of_req.OffsetFetchRequest(
            "g",
            (of_req.OffsetFetchRequestTopic("t", (1,)),),
            require_stable=offset_fetch_v >= 7,
        )
    assert offset_fetch.decode() == expected

    # Fetch from the committed offset
    fetch = frames[FETCH][0]
    assert fetch.version == fetch_v
    assert fetch.decode() == f_req.FetchRequest(
        replica_id=-1,
        max_wait_ms=100,
        min_bytes=1,
        max_bytes=52428800 if fetch_v >= 3 else 2147483647,  # v3+
        isolation_level=1 if fetch_v >= 4 else 0,  # v4+: read_committed, librdkafka's default
        session_id=0,
        session_epoch=-1,
        topics=(
            f_req.FetchTopic(
                "t",
                (
                    f_req.FetchPartition(
                        partition=1,
                        current_leader_epoch=0 if fetch_v >= 9 else -1,  # v9+
                        fetch_offset=5,
                        log_start_offset=-1,  # v5+
                        partition_max_bytes=1048576,
                    ),
                ),
            ),
        ),
        rack_id="r1" if fetch_v >= 11 else "",  # v11+
    )

    # OffsetCommit as a member of generation 3: the message's offset + 1
    assert [(tp.topic, tp.partition, tp.offset, tp.error) for tp in committed or []] == [
        ("t", 1, 6, None)
    ]
    commit = frames[OFFSET_COMMIT][0]
    assert commit.version == offset_fetch_v
    assert commit.decode() == oc_req.OffsetCommitRequest(
        group_id="g",
        generation_id_or_member_epoch=3,  # v1+
        member_id="m-1",  # v1+
        retention_time_ms=-1,  # v2-v4
        topics=(
            oc_req.OffsetCommitRequestTopic(
                "t",
                (
                    oc_req.OffsetCommitRequestPartition(
                        partition_index=1,
                        committed_offset=6,
                        committed_leader_epoch=0 if offset_fetch_v >= 6 else -1,  # v6+: the
                        # batch's partitionLeaderEpoch
                        commit_timestamp=-1,  # v1 only
                        committed_metadata="",
                    ),
                ),
            ),
        ),
    )

    # LeaveGroup on close
    leave = frames[LEAVE_GROUP][0]
    assert leave.version == leave_v
    assert leave.decode() == lv_req.LeaveGroupRequest(group_id="g", member_id="m-1")
