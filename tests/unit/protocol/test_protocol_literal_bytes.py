"""Messages no outside client reaches, as bytes written out by hand from Kafka's JSON.

librdkafka 2.16 (test_protocol_librdkafka_*.py) never sends these versions kgroup speaks:
ApiVersions v0 (it sends v3), FindCoordinator v3-v4, JoinGroup v6-v9, SyncGroup v4-v5,
LeaveGroup v2-v5, DescribeConfigs v2, DeleteTopics v5-v6, ListOffsets v8, SaslAuthenticate v2,
OffsetDelete v0 and ConsumerGroupDescribe v1; and neither librdkafka nor the Kafka 4.1 fixtures
(whose members hold subscriptions v0 and v3, assignments v0) have ConsumerProtocolSubscription
v1-v2 or ConsumerProtocolAssignment v1-v3 (the embedded bytes after their int16 version, from
ConsumerProtocolSubscription.json / ConsumerProtocolAssignment.json).

Each case below is laid out field by field from Kafka 4.1's
`clients/src/main/resources/common/message/<Name>.json` (the comment names the field and the
encoding: classic int16/int32 lengths, or compact unsigned-varint N+1 lengths and a
tagged-field section in flexible versions). kgroup's generated writer must write exactly these
bytes and its reader must read them back to the same object.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from kgroup.protocol.generated.embedded import consumer_protocol_assignment as cpa
from kgroup.protocol.generated.embedded import consumer_protocol_subscription as cps
from kgroup.protocol.generated.wire import api_versions_request as av_req
from kgroup.protocol.generated.wire import api_versions_response as av
from kgroup.protocol.generated.wire import consumer_group_describe_request as cgd_req
from kgroup.protocol.generated.wire import consumer_group_describe_response as cgd
from kgroup.protocol.generated.wire import delete_topics_request as dt_req
from kgroup.protocol.generated.wire import delete_topics_response as dt
from kgroup.protocol.generated.wire import describe_configs_request as dc_req
from kgroup.protocol.generated.wire import describe_configs_response as dc
from kgroup.protocol.generated.wire import find_coordinator_request as fc_req
from kgroup.protocol.generated.wire import find_coordinator_response as fc
from kgroup.protocol.generated.wire import join_group_request as jg_req
from kgroup.protocol.generated.wire import join_group_response as jg
from kgroup.protocol.generated.wire import leave_group_request as lv_req
from kgroup.protocol.generated.wire import leave_group_response as lv
from kgroup.protocol.generated.wire import list_offsets_request as lo_req
from kgroup.protocol.generated.wire import list_offsets_response as lo
from kgroup.protocol.generated.wire import offset_delete_request as od_req
from kgroup.protocol.generated.wire import offset_delete_response as od
from kgroup.protocol.generated.wire import sasl_authenticate_request as sa_req
from kgroup.protocol.generated.wire import sasl_authenticate_response as sa
from kgroup.protocol.generated.wire import sync_group_request as sg_req
from kgroup.protocol.generated.wire import sync_group_response as sg


def hx(*parts: str) -> bytes:
    return bytes.fromhex("".join(parts).replace(" ", ""))


TOPIC_ID = bytes(range(16))
CASES: list[Any] = [
    # --- the consumer protocol (never flexible; the int16 version is not part of these) ------
    pytest.param(
        cps,
        1,
        cps.ConsumerProtocolSubscription(("t",), None, (cps.TopicPartition("t", (0,)),)),
        hx(
            "00000001  0001 74",  # Topics: 1, "t"
            "ffffffff",  # UserData (nullable) null
            "00000001  0001 74  00000001 00000000",  # OwnedPartitions (v1+): 1 {Topic "t",
            # Partitions [0]}
            # GenerationId v2+, RackId v3+
        ),
        id="ConsumerProtocolSubscription-v1",
    ),
    pytest.param(
        cps,
        2,
        cps.ConsumerProtocolSubscription(("t", "u"), b"\xab", (), 5),
        hx(
            "00000002  0001 74  0001 75",  # Topics: "t", "u"
            "00000001 ab",  # UserData: 1 byte
            "00000000",  # OwnedPartitions: 0
            "00000005",  # GenerationId (v2+) 5
            # RackId v3+
        ),
        id="ConsumerProtocolSubscription-v2",
    ),
    pytest.param(
        cpa,
        1,
        cpa.ConsumerProtocolAssignment((cpa.TopicPartition("t", (0, 1)),), b"\xab\xcd"),
        hx(
            "00000001  0001 74  00000002 00000000 00000001",  # AssignedPartitions: 1
            # {Topic "t", Partitions [0, 1]}
            "00000002 abcd",  # UserData: 2 bytes
        ),
        id="ConsumerProtocolAssignment-v1",
    ),
    pytest.param(
        cpa,
        3,
        cpa.ConsumerProtocolAssignment((), None),
        hx(
            "00000000",  # AssignedPartitions: 0
            "ffffffff",  # UserData (nullable) null
        ),
        id="ConsumerProtocolAssignment-v3",
    ),
    # --- ApiVersions v0 ---------------------------------------------------------------------
    pytest.param(av_req, 0, av_req.ApiVersionsRequest(), hx(""), id="ApiVersionsRequest-v0"),
    pytest.param(
        av,
        0,
        av.ApiVersionsResponse(
            error_code=0, api_keys=(av.ApiVersion(1, 4, 11), av.ApiVersion(69, 0, 1))
        ),
        hx(
            "0000",  # ErrorCode 0
            "00000002",  # ApiKeys: 2 (int32)
            "0001 0004 000b",  # ApiKey 1, MinVersion 4, MaxVersion 11
            "0045 0000 0001",  # ApiKey 69, MinVersion 0, MaxVersion 1
            # ThrottleTimeMs v1+, tagged fields v3+: absent
        ),
        id="ApiVersionsResponse-v0",
    ),
    # --- FindCoordinator v3 (flexible), v4 (batched) -----------------------------------------
    pytest.param(
        fc_req,
        3,
        fc_req.FindCoordinatorRequest(key="g", key_type=0),
        hx(
            "02 67",  # Key (v0-3): compact string "g"
            "00",  # KeyType (v1+) int8 0 = group
            "00",  # tagged fields: none
        ),
        id="FindCoordinatorRequest-v3",
    ),
    pytest.param(
        fc,
        3,
        fc.FindCoordinatorResponse(
            throttle_time_ms=5, error_code=15, error_message="no", node_id=-1, host="", port=-1
        ),
        hx(
            "00000005",  # ThrottleTimeMs (v1+) 5
            "000f",  # ErrorCode (v0-3) 15 COORDINATOR_NOT_AVAILABLE
            "03 6e6f",  # ErrorMessage (v1-3, nullable): compact "no"
            "ffffffff",  # NodeId (v0-3) -1
            "01",  # Host (v0-3): compact ""
            "ffffffff",  # Port (v0-3) -1
            "00",  # tagged fields
        ),
        id="FindCoordinatorResponse-v3",
    ),
    pytest.param(
        fc_req,
        4,
        fc_req.FindCoordinatorRequest(key_type=0, coordinator_keys=("g", "h")),
        hx(
            # Key: v0-3 only
            "00",  # KeyType 0
            "03 02 67 02 68",  # CoordinatorKeys (v4+): compact array of 2: "g", "h"
            "00",  # tagged fields
        ),
        id="FindCoordinatorRequest-v4",
    ),
    pytest.param(
        fc,
        4,
        fc.FindCoordinatorResponse(
            coordinators=(
                fc.Coordinator("g", 1, "b1", 9092, 0, None),
                fc.Coordinator("h", -1, "", -1, 15, "none"),
            ),
        ),
        hx(
            "00000000",  # ThrottleTimeMs 0
            # ErrorCode, ErrorMessage, NodeId, Host, Port: v0-3 only
            "03",  # Coordinators (v4+): 2
            "02 67  00000001  03 6231  00002384  0000  00  00",
            # ^ Key "g", NodeId 1, Host "b1", Port 9092, ErrorCode 0, ErrorMessage null, tags
            "02 68  ffffffff  01  ffffffff  000f  05 6e6f6e65  00",
            # ^ Key "h", NodeId -1, Host "", Port -1, ErrorCode 15, ErrorMessage "none", tags
            "00",  # tagged fields
        ),
        id="FindCoordinatorResponse-v4",
    ),
    # --- JoinGroup v6 (flexible), v9 (Reason v8+, ProtocolType v7+, SkipAssignment v9+) ---------
    pytest.param(
        jg_req,
        6,
        jg_req.JoinGroupRequest(
            group_id="g",
            session_timeout_ms=10000,
            rebalance_timeout_ms=30000,
            member_id="",
            group_instance_id="i",
            protocol_type="consumer",
            protocols=(jg_req.JoinGroupRequestProtocol("range", b"\x00\x01"),),
        ),
        hx(
            "02 67",  # GroupId "g"
            "00002710",  # SessionTimeoutMs 10000
            "00007530",  # RebalanceTimeoutMs (v1+) 30000
            "01",  # MemberId ""
            "02 69",  # GroupInstanceId (v5+, nullable) "i"
            "09 636f6e73756d6572",  # ProtocolType "consumer"
            "02",  # Protocols: 1
            "06 72616e6765  03 0001  00",  # Name "range", Metadata 2 bytes, tags
            # Reason: v8+
            "00",  # tagged fields
        ),
        id="JoinGroupRequest-v6",
    ),
    pytest.param(
        jg_req,
        9,
        jg_req.JoinGroupRequest(
            group_id="g",
            session_timeout_ms=10000,
            rebalance_timeout_ms=30000,
            member_id="m",
            group_instance_id=None,
            protocol_type="consumer",
            protocols=(jg_req.JoinGroupRequestProtocol("range", b""),),
            reason="why",
        ),
        hx(
            "02 67",  # GroupId "g"
            "00002710",  # SessionTimeoutMs
            "00007530",  # RebalanceTimeoutMs
            "02 6d",  # MemberId "m"
            "00",  # GroupInstanceId null
            "09 636f6e73756d6572",  # ProtocolType "consumer"
            "02  06 72616e6765  01  00",  # Protocols: 1 {Name "range", Metadata empty, tags}
            "04 776879",  # Reason (v8+, nullable) "why"
            "00",  # tagged fields
        ),
        id="JoinGroupRequest-v9",
    ),
    pytest.param(
        jg,
        6,
        jg.JoinGroupResponse(
            throttle_time_ms=0,
            error_code=0,
            generation_id=3,
            protocol_name="range",
            leader="m",
            member_id="m",
            members=(jg.JoinGroupResponseMember("m", None, b"\xab"),),
        ),
        hx(
            "00000000",  # ThrottleTimeMs (v2+)
            "0000",  # ErrorCode
            "00000003",  # GenerationId 3
            # ProtocolType: v7+
            "06 72616e6765",  # ProtocolName (nullable v7+) "range"
            "02 6d",  # Leader "m"
            # SkipAssignment: v9+
            "02 6d",  # MemberId "m"
            "02  02 6d  00  02 ab  00",  # Members: 1 {MemberId "m", GroupInstanceId null,
            # Metadata 1 byte, tags}
            "00",  # tagged fields
        ),
        id="JoinGroupResponse-v6",
    ),
    pytest.param(
        jg,
        9,
        jg.JoinGroupResponse(
            error_code=0,
            generation_id=3,
            protocol_type="consumer",
            protocol_name=None,
            leader="m",
            skip_assignment=True,
            member_id="n",
            members=(),
        ),
        hx(
            "00000000",  # ThrottleTimeMs
            "0000",  # ErrorCode
            "00000003",  # GenerationId
            "09 636f6e73756d6572",  # ProtocolType (v7+, nullable) "consumer"
            "00",  # ProtocolName null
            "02 6d",  # Leader "m"
            "01",  # SkipAssignment (v9+) true
            "02 6e",  # MemberId "n"
            "01",  # Members: 0
            "00",  # tagged fields
        ),
        id="JoinGroupResponse-v9",
    ),
    pytest.param(
        jg,
        8,
        jg.JoinGroupResponse(
            error_code=79,
            generation_id=-1,
            protocol_type=None,
            protocol_name=None,
            leader="",
            member_id="m",
        ),
        hx(
            "00000000",  # ThrottleTimeMs
            "004f",  # ErrorCode 79 MEMBER_ID_REQUIRED
            "ffffffff",  # GenerationId -1
            "00",  # ProtocolType (v7+, nullable) null
            "00",  # ProtocolName null
            "01",  # Leader ""
            # SkipAssignment: v9+
            "02 6d",  # MemberId "m"
            "01",  # Members: 0
            "00",  # tagged fields
        ),
        id="JoinGroupResponse-v8",
    ),
    pytest.param(
        jg_req,
        7,
        jg_req.JoinGroupRequest(
            group_id="g",
            session_timeout_ms=45000,
            rebalance_timeout_ms=300000,
            member_id="m",
            group_instance_id=None,
            protocol_type="consumer",
            protocols=(),
        ),
        hx(
            "02 67",  # GroupId "g"
            "0000afc8",  # SessionTimeoutMs 45000
            "000493e0",  # RebalanceTimeoutMs 300000
            "02 6d",  # MemberId "m"
            "00",  # GroupInstanceId null
            "09 636f6e73756d6572",  # ProtocolType "consumer"
            "01",  # Protocols: 0
            # Reason: v8+
            "00",  # tagged fields
        ),
        id="JoinGroupRequest-v7",
    ),
    # --- SyncGroup v4 (flexible), v5 (ProtocolType/ProtocolName) -----------------------------
    pytest.param(
        sg_req,
        4,
        sg_req.SyncGroupRequest(
            group_id="g",
            generation_id=3,
            member_id="m",
            group_instance_id=None,
            assignments=(sg_req.SyncGroupRequestAssignment("m", b"\x00\x00"),),
        ),
        hx(
            "02 67",  # GroupId
            "00000003",  # GenerationId
            "02 6d",  # MemberId
            "00",  # GroupInstanceId (v3+, nullable) null
            # ProtocolType, ProtocolName: v5+
            "02  02 6d  03 0000  00",  # Assignments: 1 {MemberId "m", Assignment 2 bytes, tags}
            "00",  # tagged fields
        ),
        id="SyncGroupRequest-v4",
    ),
    pytest.param(
        sg_req,
        5,
        sg_req.SyncGroupRequest(
            group_id="g",
            generation_id=3,
            member_id="m",
            group_instance_id="i",
            protocol_type="consumer",
            protocol_name="range",
            assignments=(),
        ),
        hx(
            "02 67",  # GroupId
            "00000003",  # GenerationId
            "02 6d",  # MemberId
            "02 69",  # GroupInstanceId "i"
            "09 636f6e73756d6572",  # ProtocolType (v5+, nullable) "consumer"
            "06 72616e6765",  # ProtocolName (v5+, nullable) "range"
            "01",  # Assignments: 0
            "00",  # tagged fields
        ),
        id="SyncGroupRequest-v5",
    ),
    pytest.param(
        sg,
        4,
        sg.SyncGroupResponse(throttle_time_ms=1, error_code=27, assignment=b""),
        hx(
            "00000001",  # ThrottleTimeMs (v1+) 1
            "001b",  # ErrorCode 27 REBALANCE_IN_PROGRESS
            # ProtocolType, ProtocolName: v5+
            "01",  # Assignment: compact bytes, empty
            "00",  # tagged fields
        ),
        id="SyncGroupResponse-v4",
    ),
    pytest.param(
        sg,
        5,
        sg.SyncGroupResponse(protocol_type="consumer", protocol_name=None, assignment=b"\x00\x01"),
        hx(
            "00000000",  # ThrottleTimeMs
            "0000",  # ErrorCode
            "09 636f6e73756d6572",  # ProtocolType (v5+, nullable) "consumer"
            "00",  # ProtocolName (v5+, nullable) null
            "03 0001",  # Assignment 2 bytes
            "00",  # tagged fields
        ),
        id="SyncGroupResponse-v5",
    ),
    # --- LeaveGroup v3 (Members), v5 (flexible v4+, Reason v5+) ------------------------------
    pytest.param(
        lv_req,
        3,
        lv_req.LeaveGroupRequest(
            group_id="g",
            members=(lv_req.MemberIdentity("m", None), lv_req.MemberIdentity("", "i")),
        ),
        hx(
            "0001 67",  # GroupId: int16 length, "g"
            # MemberId: v0-2 only
            "00000002",  # Members (v3+): 2 (int32)
            "0001 6d  ffff",  # MemberId "m", GroupInstanceId null (int16 -1)
            "0000  0001 69",  # MemberId "", GroupInstanceId "i"
        ),
        id="LeaveGroupRequest-v3",
    ),
    pytest.param(
        lv_req,
        5,
        lv_req.LeaveGroupRequest(group_id="g", members=(lv_req.MemberIdentity("m", None, "bye"),)),
        hx(
            "02 67",  # GroupId
            "02",  # Members: 1
            "02 6d  00  04 627965  00",  # MemberId "m", GroupInstanceId null, Reason (v5+)
            # "bye", tags
            "00",  # tagged fields
        ),
        id="LeaveGroupRequest-v5",
    ),
    pytest.param(
        lv,
        2,
        lv.LeaveGroupResponse(throttle_time_ms=7, error_code=25),
        hx(
            "00000007",  # ThrottleTimeMs (v1+) 7
            "0019",  # ErrorCode 25 UNKNOWN_MEMBER_ID
            # Members: v3+
        ),
        id="LeaveGroupResponse-v2",
    ),
    pytest.param(
        lv,
        5,
        lv.LeaveGroupResponse(
            members=(lv.MemberResponse("m", None, 0), lv.MemberResponse("", "i", 25)),
        ),
        hx(
            "00000000",  # ThrottleTimeMs
            "0000",  # ErrorCode
            "03",  # Members (v3+): 2
            "02 6d  00  0000  00",  # MemberId "m", GroupInstanceId null, ErrorCode 0, tags
            "01  02 69  0019  00",  # MemberId "", GroupInstanceId "i", ErrorCode 25, tags
            "00",  # tagged fields
        ),
        id="LeaveGroupResponse-v5",
    ),
    # --- DescribeConfigs v2 -----------------------------------------------------------------
    pytest.param(
        dc_req,
        2,
        dc_req.DescribeConfigsRequest(
            resources=(
                dc_req.DescribeConfigsResource(2, "t", ("retention.ms",)),
                dc_req.DescribeConfigsResource(4, "1", None),
            ),
            include_synonyms=True,
        ),
        hx(
            "00000002",  # Resources: 2
            "02  0001 74  00000001  000c 726574656e74696f6e2e6d73",
            # ^ ResourceType 2 (topic), ResourceName "t", ConfigurationKeys ["retention.ms"]
            "04  0001 31  ffffffff",  # ResourceType 4 (broker), "1", ConfigurationKeys null
            "01",  # IncludeSynonyms (v1+) true
            # IncludeDocumentation: v3+
        ),
        id="DescribeConfigsRequest-v2",
    ),
    pytest.param(
        dc,
        2,
        dc.DescribeConfigsResponse(
            throttle_time_ms=0,
            results=(
                dc.DescribeConfigsResult(
                    error_code=0,
                    error_message=None,
                    resource_type=2,
                    resource_name="t",
                    configs=(
                        dc.DescribeConfigsResourceResult(
                            name="a",
                            value=None,
                            read_only=True,
                            config_source=5,
                            is_sensitive=True,
                            synonyms=(dc.DescribeConfigsSynonym("b", "1", 4),),
                        ),
                    ),
                ),
            ),
        ),
        hx(
            "00000000",  # ThrottleTimeMs
            "00000001",  # Results: 1
            "0000  ffff  02  0001 74",  # ErrorCode 0, ErrorMessage null, ResourceType 2, "t"
            "00000001",  # Configs: 1
            "0001 61  ffff  01",  # Name "a", Value null, ReadOnly true
            # IsDefault: v0 only
            "05",  # ConfigSource (v1+) 5 DEFAULT_CONFIG
            "01",  # IsSensitive true
            "00000001  0001 62  0001 31  04",  # Synonyms (v1+): 1 {Name "b", Value "1",
            # Source 4}
            # ConfigType, Documentation: v3+
        ),
        id="DescribeConfigsResponse-v2",
    ),
    # --- DeleteTopics v5 (ErrorMessage), v6 (topics by name or id) ---------------------------
    pytest.param(
        dt_req,
        5,
        dt_req.DeleteTopicsRequest(topic_names=("t",), timeout_ms=30000),
        hx(
            # Topics: v6+
            "02 02 74",  # TopicNames (v0-5): ["t"]
            "00007530",  # TimeoutMs 30000
            "00",  # tagged fields
        ),
        id="DeleteTopicsRequest-v5",
    ),
    pytest.param(
        dt,
        5,
        dt.DeleteTopicsResponse(
            responses=(dt.DeletableTopicResult("t", error_code=41, error_message="not ctl"),)
        ),
        hx(
            "00000000",  # ThrottleTimeMs (v1+)
            "02",  # Responses: 1
            "02 74",  # Name "t" (nullable v6+); TopicId: v6+
            "0029",  # ErrorCode 41 NOT_CONTROLLER
            "08 6e6f742063746c",  # ErrorMessage (v5+, nullable) "not ctl"
            "00",  # result tags
            "00",  # tagged fields
        ),
        id="DeleteTopicsResponse-v5",
    ),
    pytest.param(
        dt_req,
        6,
        dt_req.DeleteTopicsRequest(
            topics=(dt_req.DeleteTopicState("t"), dt_req.DeleteTopicState(None, TOPIC_ID)),
            timeout_ms=30000,
        ),
        hx(
            "03",  # Topics (v6+): 2
            "02 74  00000000000000000000000000000000  00",  # Name "t", TopicId zero, tags
            "00  000102030405060708090a0b0c0d0e0f  00",  # Name null, TopicId, tags
            # TopicNames: v0-5
            "00007530",  # TimeoutMs
            "00",  # tagged fields
        ),
        id="DeleteTopicsRequest-v6",
    ),
    pytest.param(
        dt,
        6,
        dt.DeleteTopicsResponse(responses=(dt.DeletableTopicResult(None, TOPIC_ID, 100, None),)),
        hx(
            "00000000",  # ThrottleTimeMs
            "02",  # Responses: 1
            "00",  # Name (v6+ nullable) null
            "000102030405060708090a0b0c0d0e0f",  # TopicId (v6+)
            "0064",  # ErrorCode 100 UNKNOWN_TOPIC_ID
            "00",  # ErrorMessage null
            "00",  # result tags
            "00",  # tagged fields
        ),
        id="DeleteTopicsResponse-v6",
    ),
    # --- ListOffsets v8 ---------------------------------------------------------------------
    pytest.param(
        lo_req,
        8,
        lo_req.ListOffsetsRequest(
            replica_id=-1,
            isolation_level=1,
            topics=(lo_req.ListOffsetsTopic("t", (lo_req.ListOffsetsPartition(0, 5, -4, 1),)),),
        ),
        hx(
            "ffffffff",  # ReplicaId -1
            "01",  # IsolationLevel (v2+) 1 READ_COMMITTED
            "02  02 74",  # Topics: 1, Name "t"
            "02  00000000  00000005  fffffffffffffffc  00",
            # ^ Partitions: 1 {PartitionIndex 0, CurrentLeaderEpoch (v4+) 5, Timestamp -4
            #   (EARLIEST_LOCAL), MaxNumOffsets v0 only, tags}
            "00",  # topic tags
            "00",  # tagged fields
        ),
        id="ListOffsetsRequest-v8",
    ),
    pytest.param(
        lo,
        8,
        lo.ListOffsetsResponse(
            throttle_time_ms=0,
            topics=(
                lo.ListOffsetsTopicResponse(
                    "t", (lo.ListOffsetsPartitionResponse(0, 0, (), -1, 42, 7),)
                ),
            ),
        ),
        hx(
            "00000000",  # ThrottleTimeMs (v2+)
            "02  02 74",  # Topics: 1, Name "t"
            "02  00000000  0000  ffffffffffffffff  000000000000002a  00000007  00",
            # ^ Partitions: 1 {PartitionIndex 0, ErrorCode 0, (OldStyleOffsets v0 only),
            #   Timestamp (v1+) -1, Offset (v1+) 42, LeaderEpoch (v4+) 7, tags}
            "00",  # topic tags
            "00",  # tagged fields
        ),
        id="ListOffsetsResponse-v8",
    ),
    # --- SaslAuthenticate v2 (flexible) -----------------------------------------------------
    pytest.param(
        sa_req,
        2,
        sa_req.SaslAuthenticateRequest(b"\x00u\x00p"),
        hx("05 00750070", "00"),  # AuthBytes: compact bytes (4), tagged fields
        id="SaslAuthenticateRequest-v2",
    ),
    pytest.param(
        sa,
        2,
        sa.SaslAuthenticateResponse(
            error_code=58, error_message="bad", auth_bytes=b"", session_lifetime_ms=0
        ),
        hx(
            "003a",  # ErrorCode 58 SASL_AUTHENTICATION_FAILED
            "04 626164",  # ErrorMessage (nullable) "bad"
            "01",  # AuthBytes: empty
            "0000000000000000",  # SessionLifetimeMs (v1+) 0
            "00",  # tagged fields
        ),
        id="SaslAuthenticateResponse-v2",
    ),
    # --- OffsetDelete v0 ---------------------------------------------------------------------
    pytest.param(
        od_req,
        0,
        od_req.OffsetDeleteRequest(
            "g",
            (od_req.OffsetDeleteRequestTopic("t", (od_req.OffsetDeleteRequestPartition(3),)),),
        ),
        hx(
            "0001 67",  # GroupId "g"
            "00000001  0001 74",  # Topics: 1, Name "t"
            "00000001  00000003",  # Partitions: 1, PartitionIndex 3
        ),
        id="OffsetDeleteRequest-v0",
    ),
    pytest.param(
        od,
        0,
        od.OffsetDeleteResponse(
            error_code=0,
            throttle_time_ms=0,
            topics=(od.OffsetDeleteResponseTopic("t", (od.OffsetDeleteResponsePartition(3, 86),)),),
        ),
        hx(
            "0000",  # ErrorCode 0
            "00000000",  # ThrottleTimeMs 0
            "00000001  0001 74",  # Topics: 1, Name "t"
            "00000001  00000003  0056",  # Partitions: 1 {PartitionIndex 3, ErrorCode 86
            # GROUP_SUBSCRIBED_TO_TOPIC}
        ),
        id="OffsetDeleteResponse-v0",
    ),
    # --- ConsumerGroupDescribe v1 (MemberType v1+) ------------------------------------------
    pytest.param(
        cgd_req,
        1,
        cgd_req.ConsumerGroupDescribeRequest(("g",), True),
        hx("02 02 67", "01", "00"),  # GroupIds ["g"], IncludeAuthorizedOperations, tags
        id="ConsumerGroupDescribeRequest-v1",
    ),
    pytest.param(
        cgd,
        1,
        cgd.ConsumerGroupDescribeResponse(
            groups=(
                cgd.DescribedGroup(
                    error_code=0,
                    error_message=None,
                    group_id="g",
                    group_state="Stable",
                    group_epoch=4,
                    assignment_epoch=4,
                    assignor_name="uniform",
                    members=(
                        cgd.Member(
                            member_id="m",
                            instance_id=None,
                            rack_id="r",
                            member_epoch=4,
                            client_id="c",
                            client_host="/h",
                            subscribed_topic_names=("t",),
                            subscribed_topic_regex=None,
                            assignment=cgd.Assignment(
                                (cgd.TopicPartitions(TOPIC_ID, "t", (0, 1)),)
                            ),
                            target_assignment=cgd.Assignment(()),
                            member_type=0,
                        ),
                    ),
                    authorized_operations=8,
                ),
            ),
        ),
        hx(
            "00000000",  # ThrottleTimeMs
            "02",  # Groups: 1
            "0000  00  02 67  07 537461626c65",  # ErrorCode, ErrorMessage null, GroupId "g",
            # GroupState "Stable"
            "00000004  00000004  08 756e69666f726d",  # GroupEpoch 4, AssignmentEpoch 4,
            # AssignorName "uniform"
            "02",  # Members: 1
            "02 6d  00  02 72  00000004",  # MemberId "m", InstanceId null, RackId "r",
            # MemberEpoch 4
            "02 63  03 2f68  02 02 74  00",  # ClientId "c", ClientHost "/h",
            # SubscribedTopicNames ["t"], SubscribedTopicRegex null
            "02  000102030405060708090a0b0c0d0e0f  02 74  03 00000000 00000001  00  00",
            # ^ Assignment: TopicPartitions 1 {TopicId, TopicName "t", Partitions [0, 1], tags},
            #   Assignment tags
            "01 00",  # TargetAssignment: TopicPartitions 0, tags
            "00",  # MemberType (v1+) int8 0 = classic
            "00",  # member tags
            "00000008",  # AuthorizedOperations 8
            "00",  # group tags
            "00",  # tagged fields
        ),
        id="ConsumerGroupDescribeResponse-v1",
    ),
]


@pytest.mark.parametrize(("module", "version", "obj", "data"), CASES)
def test_written_as_kafka_lays_it_out(module: ModuleType, version: int, obj: Any, data: bytes):
    assert module.write(obj, version).hex(" ") == data.hex(" ")


@pytest.mark.parametrize(("module", "version", "obj", "data"), CASES)
def test_read_as_kafka_lays_it_out(module: ModuleType, version: int, obj: Any, data: bytes):
    assert module.read(data, version) == obj
