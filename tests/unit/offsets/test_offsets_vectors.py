"""Hand-written byte vectors from OFFSETS_FORMAT.md §1-4 (expected values written by hand)."""

from __future__ import annotations

import pytest

from kgroup.offsets import wire
from kgroup.offsets.decode import decode_kv
from kgroup.offsets.embedded import decode_subscription, decode_user_data
from kgroup.offsets.encode import encode_key, encode_value


def h(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


OFFSET = "000000000000002a"  # 42
TS = "00000174876e8000"  # 1600000000000
UUID_HEX = "000102030405060708090a0b0c0d0e0f"
UUID_TEXT = "AAECAwQFBgcICQoLDA0ODw"  # base64url, unpadded, of bytes 00..0f
KEY_G_T_0 = h("0001 0001 67 0001 74 00000000")  # type 1, group "g", topic "t", partition 0


# ---------------------------------------------------------------- primitives


@pytest.mark.parametrize(
    ("value", "encoded"),
    [(0, "00"), (1, "01"), (127, "7f"), (128, "8001"), (300, "ac02"), (2**31 - 1, "ffffffff07")],
)
def test_unsigned_varint_vectors(value: int, encoded: str) -> None:
    assert wire.uvarint_bytes(value) == h(encoded)
    assert wire.read_uvarint(h(encoded), 0, len(h(encoded))) == (value, len(h(encoded)))


@pytest.mark.parametrize(
    ("value", "encoded"),
    [(0, "00"), (-1, "01"), (1, "02"), (-2, "03"), (63, "7e"), (-64, "7f"), (64, "8001")],
)
def test_zigzag_varint_vectors(value: int, encoded: str) -> None:
    assert wire.varint_bytes(value) == h(encoded)
    assert wire.read_varint(h(encoded), 0, len(h(encoded)))[0] == value


def test_uuid_prints_as_unpadded_base64url() -> None:
    assert wire.uuid_to_str(h(UUID_HEX)) == UUID_TEXT
    assert wire.uuid_from_str(UUID_TEXT) == h(UUID_HEX)


def test_truncated_varint_is_a_decode_error_with_position() -> None:
    with pytest.raises(wire.DecodeError) as err:
        wire.read_uvarint(h("8080"), 0, 2)
    assert err.value.position == 2


# ---------------------------------------------------------------- offset commits


def test_offset_commit_key() -> None:
    rec = decode_kv(KEY_G_T_0, None)
    assert rec.key_type == 1
    assert rec.record_type == "offset_commit"
    assert rec.key == {"group": "g", "topic": "t", "partition": 0}
    assert rec.tombstone
    assert encode_key(1, {"group": "g", "topic": "t", "partition": 0}) == KEY_G_T_0


def test_legacy_offset_commit_key_type_0_value_v0() -> None:
    key = h("0000 0001 67 0001 74 00000007")
    value = h("0000" + OFFSET + "0000" + TS)
    rec = decode_kv(key, value)
    assert (rec.key_type, rec.record_type, rec.value_version) == (0, "offset_commit", 0)
    assert rec.key == {"group": "g", "topic": "t", "partition": 7}
    assert rec.value == {"offset": 42, "metadata": "", "commit_timestamp": 1600000000000}


VALUE_VECTORS = [
    (
        0,
        "0000" + OFFSET + "0000" + TS,
        {"offset": 42, "metadata": "", "commit_timestamp": 1600000000000},
    ),
    (
        1,
        "0001" + OFFSET + "0002 6d64" + TS + "ffffffffffffffff",
        {"offset": 42, "metadata": "md", "commit_timestamp": 1600000000000, "expire_timestamp": -1},
    ),
    (
        2,
        "0002" + OFFSET + "0000" + TS,
        {"offset": 42, "metadata": "", "commit_timestamp": 1600000000000},
    ),
    (
        3,
        "0003" + OFFSET + "00000005" + "0002 6d64" + TS,
        {"offset": 42, "leader_epoch": 5, "metadata": "md", "commit_timestamp": 1600000000000},
    ),
    (
        4,  # flexible: compact metadata (N+1) and an empty tag section
        "0004" + OFFSET + "ffffffff" + "03 6d64" + TS + "00",
        {"offset": 42, "leader_epoch": -1, "metadata": "md", "commit_timestamp": 1600000000000},
    ),
    (
        4,  # 4.1+: topicId as tagged field 0 (16 bytes)
        "0004" + OFFSET + "00000005" + "01" + TS + "01 00 10" + UUID_HEX,
        {
            "offset": 42,
            "leader_epoch": 5,
            "metadata": "",
            "commit_timestamp": 1600000000000,
            "topic_id": UUID_TEXT,
        },
    ),
]


@pytest.mark.parametrize(("version", "value_hex", "expected"), VALUE_VECTORS)
def test_offset_commit_value_versions(version: int, value_hex: str, expected: dict) -> None:
    rec = decode_kv(KEY_G_T_0, h(value_hex))
    assert rec.error is None
    assert rec.value_version == version
    assert rec.value == expected
    assert encode_value(1, version, expected) == h(value_hex)


def test_offset_commit_v4_unknown_tag_is_kept() -> None:
    value = h("0004" + OFFSET + "00000005" + "01" + TS + "01 05 02 abcd")
    rec = decode_kv(KEY_G_T_0, value)
    assert rec.value["_tag5"] == b"\xab\xcd"
    assert rec.to_dict()["value"]["_tag5"] == "q80="


def test_offset_commit_unknown_higher_flexible_version_read_with_newest_layout() -> None:
    value = h("0007" + OFFSET + "00000005" + "01" + TS + "01 09 01 ff")
    rec = decode_kv(KEY_G_T_0, value)
    assert rec.record_type == "offset_commit"
    assert rec.value_version == 7
    assert rec.layout == "read as v4"
    assert rec.value["offset"] == 42
    assert rec.value["_tag9"] == b"\xff"


def test_missing_tag_section_is_reported_not_raised() -> None:
    # Burrow's v4 test vector omits the final tag section (OFFSETS_FORMAT.md §9 pitfall 3)
    value = h("0004" + OFFSET + "00000005" + "01" + TS)
    rec = decode_kv(KEY_G_T_0, value)
    assert rec.record_type == "unknown"
    assert "tagged" in rec.error
    assert rec.value_raw == value


# ---------------------------------------------------------------- group metadata

SUB_V0 = "0000 00000001 0001 74 ffffffff"  # topics ["t"], userData null
ASSIGN_V0 = "0000 00000001 0001 74 00000002 00000000 00000001 ffffffff"
CONSUMER = "0008 636f6e73756d6572"
RANGE = "0005 72616e6765"


def _bytes32(hex_body: str) -> str:
    return f"{len(h(hex_body)):08x}" + hex_body


def test_group_metadata_v0_with_consumer_protocol() -> None:
    member = "00016d 000163 00022f68 00002710" + _bytes32(SUB_V0) + _bytes32(ASSIGN_V0)
    value = h("0000" + CONSUMER + "00000001" + RANGE + "00016d" + "00000001" + member)
    rec = decode_kv(h("0002 0001 67"), value)
    assert rec.record_type == "group_metadata"
    assert rec.value == {
        "protocol_type": "consumer",
        "generation": 1,
        "protocol": "range",
        "leader": "m",
        "members": [
            {
                "member_id": "m",
                "client_id": "c",
                "client_host": "/h",
                "session_timeout": 10000,
                "subscription": {"version": 0, "topics": ["t"], "user_data": None},
                "assignment": {
                    "version": 0,
                    "assigned_partitions": [{"topic": "t", "partitions": [0, 1]}],
                    "user_data": None,
                },
            }
        ],
    }


def test_group_metadata_v3_static_member_and_empty_group() -> None:
    member = "00016d 0001 69 000163 00022f68 0000ea60 00002710 00000000 00000000"
    value = h("0003" + CONSUMER + "00000005" + RANGE + "00016d" + TS + "00000001" + member)
    rec = decode_kv(h("0002 0001 67"), value)
    m = rec.value["members"][0]
    assert (m["group_instance_id"], m["rebalance_timeout"], m["session_timeout"]) == (
        "i",
        60000,
        10000,
    )
    assert rec.value["current_state_timestamp"] == 1600000000000
    assert m["subscription"] == {} and m["assignment"] == {}  # zero-length bytes

    empty = h("0003" + CONSUMER + "00000006" + "ffff ffff" + TS + "00000000")
    rec = decode_kv(h("0002 0001 67"), empty)
    assert rec.value == {
        "protocol_type": "consumer",
        "generation": 6,
        "protocol": None,
        "leader": None,
        "current_state_timestamp": 1600000000000,
        "members": [],
    }


def test_group_metadata_v4_flexible() -> None:
    # compact strings, compact array of one member, tag sections per member and at the top
    member = "026d 00 0263 03 2f68 0000ea60 00002710 01 01 00"
    value = h("0004 09 636f6e73756d6572 00000001 0672616e6765 026d" + TS + "02" + member + "00")
    rec = decode_kv(h("0002 0001 67"), value)
    assert rec.error is None
    assert rec.value["members"][0]["member_id"] == "m"
    assert rec.value["members"][0]["group_instance_id"] is None
    assert rec.value["members"][0]["subscription"] == {}


def test_non_consumer_protocol_is_base64() -> None:
    member = "00016d 000163 00022f68 00002710" + _bytes32("cafe") + _bytes32("")
    value = h("0000 0002 7372 00000001 0002 7630 00016d 00000001" + member)
    out = decode_kv(h("0002 0001 67"), value).to_dict()
    assert out["value"]["protocol_type"] == "sr"
    assert out["value"]["members"][0]["subscription"] == {"raw_base64": "yv4="}


def test_connect_protocol_metadata_and_assignment() -> None:
    url = "0003 683a31"  # "h:1"
    meta = "0001" + url + "0000000000000009" + "ffffffff"  # v1, allocation null
    tasks = "00000001 0001 63 00000002 00000000 00000001"  # connector "c", tasks [0,1]
    assign = "0001 0000" + "00016d" + url + "0000000000000009" + tasks + "00000000" + "00000000"
    member = "00016d 000163 00022f68 00002710" + _bytes32(meta) + _bytes32(assign)
    sessioned = "0009 73657373696f6e6564"
    value = h("0000 0007 636f6e6e656374 00000001" + sessioned + "00016d 00000001" + member)
    rec = decode_kv(h("0002 0001 67"), value)
    m = rec.value["members"][0]
    assert m["subscription"] == {"version": 1, "url": "h:1", "config_offset": 9, "allocation": None}
    assert m["assignment"] == {
        "version": 1,
        "error": 0,
        "leader": "m",
        "leader_url": "h:1",
        "config_offset": 9,
        "assignment": [{"connector": "c", "tasks": [0, 1]}],
        "revoked": [],
        "delay": 0,
    }


def test_subscription_v3_and_sarama_v1_without_owned_partitions_is_raw() -> None:
    v3 = h("0003 00000001 0001 74 ffffffff 00000000 00000004 ffff")
    assert decode_subscription("consumer", "range", v3) == {
        "version": 3,
        "topics": ["t"],
        "user_data": None,
        "owned_partitions": [],
        "generation_id": 4,
        "rack_id": None,
    }
    # old sarama-cluster: says v1 but stops after userData; Kafka's ConsumerProtocol fails on
    # it (buffer underflow: ownedPartitions is required in v1), so the bytes stay raw (issue #13)
    sarama = h("0001 00000001 0001 74 00000000")
    assert decode_subscription("consumer", "range", sarama) == {
        "raw_base64": sarama,
        "error": "ownedPartitions: truncated length at byte 13",
    }
    # a future v9 is read with the v3 layout, trailing bytes ignored
    v9 = h("0009 00000000 ffffffff 00000000 00000001 0001 72 beef")
    assert decode_subscription("consumer", "range", v9)["rack_id"] == "r"


def test_garbage_subscription_keeps_raw_bytes() -> None:
    out = decode_subscription("consumer", "range", h("00"))
    assert out["raw_base64"] == b"\x00" and "error" in out


def test_sticky_user_data_v1_v0_and_cooperative() -> None:
    v1 = h("00000001 0001 74 00000001 00000003 00000007")
    assert decode_user_data("sticky", v1) == {
        "previous_assignment": [{"topic": "t", "partitions": [3]}],
        "generation": 7,
    }
    v0 = h("00000001 0001 74 00000001 00000003")
    assert decode_user_data("sticky", v0) == {
        "previous_assignment": [{"topic": "t", "partitions": [3]}]
    }
    assert decode_user_data("cooperative-sticky", h("00000009")) == {"generation": 9}
    assert decode_user_data("sticky", h("ff")) is None


# ---------------------------------------------------------------- KIP-848, share, streams

GROUP_KEY = "0001 67"


def test_consumer_group_metadata_with_and_without_metadata_hash() -> None:
    rec = decode_kv(h("0003" + GROUP_KEY), h("0000 00000005 00"))
    assert (rec.record_type, rec.key, rec.value) == (
        "consumer_group_metadata",
        {"group_id": "g"},
        {"epoch": 5},
    )
    rec = decode_kv(h("0003" + GROUP_KEY), h("0000 00000005 01 00 08 0000000000000007"))
    assert rec.value == {"epoch": 5, "metadata_hash": 7}


def test_consumer_group_member_metadata_with_classic_member_tag() -> None:
    value = (
        "0000 00 02 72 02 63 03 2f68"  # InstanceId null, RackId "r", ClientId "c", ClientHost
        "02 02 74"  # SubscribedTopicNames ["t"]
        "00 0000ea60 08 756e69666f726d"  # regex null, RebalanceTimeoutMs, ServerAssignor
        "01 00 11 01 0000afc8 02 06 72616e6765 03 0001 00 00"  # tag 0: ClassicMemberMetadata
    )
    rec = decode_kv(h("0005 0001 67 0001 6d"), h(value))
    assert rec.key == {"group_id": "g", "member_id": "m"}
    assert rec.value == {
        "instance_id": None,
        "rack_id": "r",
        "client_id": "c",
        "client_host": "/h",
        "subscribed_topic_names": ["t"],
        "subscribed_topic_regex": None,
        "rebalance_timeout_ms": 60000,
        "server_assignor": "uniform",
        "classic_member_metadata": {
            "session_timeout_ms": 45000,
            "supported_protocols": [{"name": "range", "metadata": b"\x00\x01"}],
        },
    }


def test_consumer_group_current_member_assignment() -> None:
    value = "0000 00000003 00000002 00 02" + UUID_HEX + "03 00000000 00000001 00 01 00"
    rec = decode_kv(h("0008 0001 67 0001 6d"), h(value))
    assert rec.value == {
        "member_epoch": 3,
        "previous_member_epoch": 2,
        "state": 0,
        "assigned_partitions": [{"topic_id": UUID_TEXT, "partitions": [0, 1]}],
        "partitions_pending_revocation": [],
    }


def test_streams_member_metadata_nullable_struct_marker() -> None:
    common = "0000 00 00 02 63 02 68 ffffffff 00000001 02 70"
    with_endpoint = h(common + "01 02 68 1f90 00" + "01 00")  # UserEndpoint h:8080
    without = h(common + "ff" + "01 00")
    key = h("0013 0001 67 0001 6d")
    assert decode_kv(key, with_endpoint).value["user_endpoint"] == {"host": "h", "port": 8080}
    assert decode_kv(key, without).value["user_endpoint"] is None


def test_share_group_metadata_4_0_layout_is_recognised() -> None:
    key = h("000b" + GROUP_KEY)
    assert decode_kv(key, h("0000 00000002 0000000000000009 00")).value == {
        "epoch": 2,
        "metadata_hash": 9,
    }
    old = decode_kv(key, h("0000 00000002 00"))
    assert old.value == {"epoch": 2} and old.layout == "kafka-4.0"


def test_unknown_record_type_keeps_raw_bytes() -> None:
    rec = decode_kv(h("0063 0001 67"), h("0000 01"))
    out = rec.to_dict()
    assert out["record_type"] == "unknown"
    assert out["key_type"] == 99
    assert out["key_raw_base64"] == "AGMAAWc="
    assert out["value_raw_base64"] == "AAAB"


def test_unknown_classic_value_version_is_unknown() -> None:
    rec = decode_kv(KEY_G_T_0, h("0009 0000"))
    assert rec.record_type == "unknown"
    assert rec.value_version == 9
    assert "version 9" in rec.error


def test_json_line_equals_the_dict_form() -> None:
    import json

    value = h("0004" + OFFSET + "00000005" + "01" + TS + "01 05 02 abcd")
    rec = decode_kv(KEY_G_T_0, value)
    assert json.loads(rec.to_json()) == rec.to_dict()


def test_streams_target_assignment_resolved_topic_ids_type_24() -> None:
    """apache/kafka trunk StreamsGroupTargetAssignmentResolvedTopicIds{Key,Value}.json (apiKey
    24): AssignmentEpoch int32, ResolvedTopicIdsBySubtopology []{SubtopologyId, TopicIds []uuid}.
    """
    value = (
        "0000 00000007"  # v0, AssignmentEpoch 7
        "02"  # one subtopology (compact array: N+1)
        "02 30"  # SubtopologyId "0"
        "02" + UUID_HEX + "00"  # TopicIds [uuid], struct tags
        "00"  # top-level tags
    )
    rec = decode_kv(h("0018" + GROUP_KEY), h(value))
    assert rec.record_type == "streams_group_target_assignment_resolved_topic_ids"
    assert rec.key == {"group_id": "g"}
    assert rec.value == {
        "assignment_epoch": 7,
        "resolved_topic_ids_by_subtopology": [{"subtopology_id": "0", "topic_ids": [UUID_TEXT]}],
    }
    assert encode_value(24, 0, rec.value) == h(value)
