"""JoinGroup, SyncGroup and LeaveGroup bytes (the reset fence), by hand from Kafka's
JoinGroup/SyncGroup/LeaveGroup{Request,Response}.json, and a member's OffsetCommit."""

from __future__ import annotations

from kgroup.core.wire.calls import read_answer
from kgroup.core.wire.error_codes import (
    MEMBER_ID_REQUIRED,
    REBALANCE_IN_PROGRESS,
    UNKNOWN_MEMBER_ID,
)
from kgroup.core.wire.group_calls import (
    decode_leave_group_response,
    encode_join_group_request,
    encode_leave_group_request,
    encode_sync_group_request,
)
from kgroup.core.wire.offset_calls import encode_offset_commit_request
from kgroup.protocol.generated.wire import join_group_response as jg_res
from kgroup.protocol.generated.wire import sync_group_response as sg_res


def test_join_group_request_v5_by_hand() -> None:
    body = encode_join_group_request(
        5,
        "g",
        "",
        session_timeout_ms=6000,
        rebalance_timeout_ms=7000,
        protocol_type="consumer",
        protocols=[("range", b"\x00\x00")],
        reason="r",
    )
    assert body == bytes.fromhex(
        "0001"
        "67"  # GroupId "g"
        "00001770"  # SessionTimeoutMs 6000
        "00001b58"  # RebalanceTimeoutMs 7000 (1+)
        "0000"  # MemberId ""
        "ffff"  # GroupInstanceId null (5+)
        "0008"
        "636f6e73756d6572"  # ProtocolType "consumer"
        "00000001"
        "0005"
        "72616e6765"
        "00000002"
        "0000"  # Protocols: range, 2 bytes
        # no Reason before v8, no tagged fields before v6
    )


def test_join_group_request_v9_by_hand() -> None:
    body = encode_join_group_request(
        9,
        "g",
        "m1",
        session_timeout_ms=6000,
        rebalance_timeout_ms=6000,
        protocol_type="consumer",
        protocols=[("range", b"\x01")],
        reason=None,
    )
    assert body == bytes.fromhex(
        "02"
        "67"  # GroupId (compact)
        "00001770"
        "00001770"
        "03"
        "6d31"  # MemberId "m1"
        "00"  # GroupInstanceId null
        "09"
        "636f6e73756d6572"  # ProtocolType
        "02"
        "06"
        "72616e6765"
        "02"
        "01"
        "00"  # Protocols: 1 (range, 1 byte, no tags)
        "00"  # Reason null (8+)
        "00"  # tags
    )


def test_join_group_response_v9_leader_by_hand() -> None:
    body = bytes.fromhex(
        "00000000"  # ThrottleTimeMs
        "0000"  # ErrorCode
        "00000003"  # GenerationId 3
        "09"
        "636f6e73756d6572"  # ProtocolType "consumer" (7+)
        "06"
        "72616e6765"  # ProtocolName "range"
        "03"
        "6d31"  # Leader "m1"
        "00"  # SkipAssignment false (9+)
        "03"
        "6d31"  # MemberId "m1"
        "03"  # Members: 2
        "03"
        "6d31"
        "00"
        "02"
        "aa"
        "00"  # m1, no instance id, metadata aa
        "03"
        "6d32"
        "00"
        "01"
        "00"  # m2, empty metadata
        "00"  # tags
    )
    joined = read_answer(jg_res, body, 9)
    assert (
        joined.error_code,
        joined.generation_id,
        joined.protocol_name,
        joined.leader,
        joined.member_id,
    ) == (0, 3, "range", "m1", "m1")
    assert [(m.member_id, m.metadata) for m in joined.members] == [("m1", b"\xaa"), ("m2", b"")]


def test_join_group_response_v4_member_id_required() -> None:
    body = bytes.fromhex(
        "00000000"
        "004f"
        "ffffffff"  # MEMBER_ID_REQUIRED (79), generation -1
        "0000"
        "0000"  # ProtocolName "", Leader ""
        "0002"
        "6d31"  # MemberId "m1": join again with it
        "00000000"  # Members: 0
    )
    joined = read_answer(jg_res, body, 4)
    assert (joined.error_code, joined.member_id, joined.members) == (MEMBER_ID_REQUIRED, "m1", ())


def test_sync_group_request_v5_by_hand() -> None:
    body = encode_sync_group_request(
        5,
        "g",
        3,
        "m1",
        protocol_type="consumer",
        protocol_name="range",
        assignments=[("m1", b"\x00\x00")],
    )
    assert body == bytes.fromhex(
        "02"
        "67"
        "00000003"
        "03"
        "6d31"  # GroupId, GenerationId 3, MemberId
        "00"  # GroupInstanceId null (3+)
        "09"
        "636f6e73756d6572"
        "06"
        "72616e6765"  # ProtocolType, ProtocolName (5+)
        "02"
        "03"
        "6d31"
        "03"
        "0000"
        "00"  # Assignments: 1 (m1, 2 bytes, no tags)
        "00"
    )


def test_sync_group_request_v3_and_response_v3_by_hand() -> None:
    body = encode_sync_group_request(
        3, "g", 1, "m", protocol_type="consumer", protocol_name="range", assignments=[]
    )
    assert body == bytes.fromhex("0001670000000100016dffff00000000")
    response = bytes.fromhex("00000000001b000000020000")  # REBALANCE_IN_PROGRESS
    answer = read_answer(sg_res, response, 3)
    assert (answer.error_code, answer.assignment) == (REBALANCE_IN_PROGRESS, b"\x00\x00")


def test_leave_group_v1_and_v5_by_hand() -> None:
    assert encode_leave_group_request(1, "g", "m1") == bytes.fromhex("00016700026d31")
    assert encode_leave_group_request(5, "g", "m1", "done") == bytes.fromhex(
        "026702036d310005646f6e650000"
    )
    response = bytes.fromhex("00000000000002036d310000190000")
    assert decode_leave_group_response(response, 5) == UNKNOWN_MEMBER_ID


def test_member_offset_commit_carries_generation_and_member_id() -> None:
    body = encode_offset_commit_request(7, "g", [("t", 0, 5, -1, "")], generation=3, member_id="m1")
    assert body[:13] == bytes.fromhex("0001670000000300026d31ffff")
