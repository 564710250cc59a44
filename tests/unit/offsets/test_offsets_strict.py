"""Issue #13: what Kafka's generated readers reject is never a decoded value.

Rules from `MessageDataGenerator` (apache/kafka generator/, `generateVariableLengthReader`,
`generateStructReader`): a negative length or count is null where the field is nullable and
"non-nullable field <name> was serialized as null" where it is not; a string longer than 0x7fff
"had invalid length"; array elements are never nullable ("<name> element"); a tagged nullable
struct is null when its varint marker is <= 0. `ConsumerProtocol.deserialize*` reads every field
of the (newest known) layout, so a subscription cut short is kept raw, with the reason.
Expected bytes and values below are written by hand from the JSON message definitions.
"""

from __future__ import annotations

import pytest

from kgroup.offsets import decode as dec
from kgroup.offsets import native
from tests.unit.offsets.test_offsets_speedups import compiled


def h(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


PATHS = [
    pytest.param(False, id="python"),
    pytest.param(
        True,
        id="c",
        marks=pytest.mark.skipif(not native.available(), reason="C extension not built"),
    ),
]

TS = "00000174876e8000"  # 1600000000000
KEY_G_T_0 = h("0001 0001 67 0001 74 00000000")  # type 1, group "g", topic "t", partition 0
GROUP_KEY = h("0002 0001 67")


def _member(subscription: str, assignment: str) -> str:
    """A GroupMetadataValue v3 member (classic strings, bytes32 subscription/assignment)."""
    sub, asg = h(subscription), h(assignment)
    return (
        "0001 6d ffff 0001 63 0002 2f68 0000ea60 00002710"  # m, instance null, c, /h, timeouts
        + f"{len(sub):08x}"
        + subscription
        + f"{len(asg):08x}"
        + assignment
    )


def _group_v3(member: str) -> bytes:
    # protocolType "consumer", generation 1, protocol "range", leader "m", timestamp, 1 member
    return h(
        "0003 0008 636f6e73756d6572 00000001 0005 72616e6765 0001 6d" + TS + "00000001" + member
    )


@pytest.mark.parametrize("use_c", PATHS)
def test_formatter_test_member_bytes_are_kept_raw(use_c: bool) -> None:
    """Kafka's GroupMetadataMessageFormatterTest member: subscription 0001, assignment 0102.
    `Topics` is required in every version, so Kafka keeps both raw; so does kgroup."""
    with compiled(use_c):
        out = dec.decode_kv(GROUP_KEY, _group_v3(_member("0001", "0102"))).to_dict()
    member = out["value"]["members"][0]
    assert out["record_type"] == "group_metadata" and out.get("error") is None
    assert member["subscription"] == {
        "raw_base64": "AAE=",
        "error": "topics: truncated length at byte 2",
    }
    assert member["assignment"] == {
        "raw_base64": "AQI=",
        "error": "assignedPartitions: truncated length at byte 2",
    }


@pytest.mark.parametrize("use_c", PATHS)
def test_null_group_in_an_offset_commit_key_is_unknown(use_c: bool) -> None:
    key = h("0001ffff0003666f6f00000001")  # the key: group null, topic "foo", 1
    value = h("0001 0000000000000005 0000" + TS + TS)
    with compiled(use_c):
        out = dec.decode_kv(key, value).to_dict()
    assert out["record_type"] == "unknown"
    assert "key" not in out  # no decoded key: the raw bytes and the reason
    assert out["key_raw_base64"] == "AAH//wADZm9vAAAAAQ=="
    assert out["error"] == (
        "bad OffsetCommitKey: non-nullable field group was serialized as null at byte 4"
    )


@pytest.mark.parametrize("use_c", PATHS)
def test_null_metadata_in_an_offset_commit_value_is_unknown(use_c: bool) -> None:
    value = h("0001 0000000000000005 ffff" + TS + TS)  # T1 v1, metadata null
    with compiled(use_c):
        rec = dec.decode_kv(KEY_G_T_0, value)
    assert (rec.record_type, rec.value, rec.value_raw) == ("unknown", None, value)
    assert rec.error == (
        "bad OffsetCommitValue v1: non-nullable field metadata was serialized as null at byte 12"
    )


@pytest.mark.parametrize("use_c", PATHS)
def test_null_protocol_type_in_group_metadata_is_unknown(use_c: bool) -> None:
    value = h("0003 ffff 00000001 ffff ffff" + TS + "00000000")
    with compiled(use_c):
        rec = dec.decode_kv(GROUP_KEY, value)
    assert (rec.record_type, rec.value) == ("unknown", None)
    assert rec.error == (
        "bad GroupMetadataValue v3: non-nullable field protocolType was serialized as null "
        "at byte 4"
    )


@pytest.mark.parametrize("use_c", PATHS)
def test_null_topic_partitions_in_a_target_assignment_member_is_unknown(use_c: bool) -> None:
    key = h("0007 0001 67 0001 6d")
    with compiled(use_c):
        rec = dec.decode_kv(key, h("0000 00 00"))  # compact array length 0 = null
        ok = dec.decode_kv(key, h("0000 01 00"))  # an empty array is fine
    assert rec.record_type == "unknown"
    assert rec.error == (
        "bad ConsumerGroupTargetAssignmentMemberValue v0: non-nullable field topicPartitions "
        "was serialized as null at byte 3"
    )
    assert ok.value == {"topic_partitions": []}


@pytest.mark.parametrize("use_c", PATHS)
def test_a_null_array_element_is_rejected(use_c: bool) -> None:
    # ConsumerGroupRegularExpressionValue: Topics ["a", null], Version 1, Timestamp 2
    value = h("0000 03 02 61 00 0000000000000001 0000000000000002 00")
    with compiled(use_c):
        rec = dec.decode_kv(h("0010 0001 67 0001 2e"), value)
    assert rec.record_type == "unknown"
    assert "non-nullable field topics element was serialized as null" in rec.error


@pytest.mark.parametrize("use_c", PATHS)
def test_any_negative_length_of_a_nullable_field_is_null(use_c: bool) -> None:
    """Kafka tests `length < 0`, not `== -1`: protocol length -2 is null too."""
    value = h("0003 0008 636f6e73756d6572 00000001 fffe ffff" + TS + "00000000")
    with compiled(use_c):
        rec = dec.decode_kv(GROUP_KEY, value)
    assert rec.error is None
    assert rec.value["protocol"] is None and rec.value["leader"] is None


@pytest.mark.parametrize("use_c", PATHS)
def test_a_compact_string_longer_than_0x7fff_is_rejected(use_c: bool) -> None:
    # ConsumerGroupMetadataKey is not flexible; use a member value's RackId: compact length
    # 0x8000 + 1 as uvarint = 81 80 02, followed by nothing (the error comes before the read)
    value = h("0000 00 818002")
    with compiled(use_c):
        rec = dec.decode_kv(h("0005 0001 67 0001 6d"), value)
    assert rec.record_type == "unknown"
    assert "string field rackId had invalid length 32768" in rec.error


@pytest.mark.parametrize("use_c", PATHS)
def test_subscription_missing_a_required_field_is_raw(use_c: bool) -> None:
    """v3 without rackId: Kafka's reader underflows; the assignment stays decoded."""
    sub = "0003 00000001 0001 74 ffffffff 00000000 00000004"
    asg = "0003 00000001 0001 74 00000001 00000000 ffffffff"
    with compiled(use_c):
        member = dec.decode_kv(GROUP_KEY, _group_v3(_member(sub, asg))).value["members"][0]
    assert member["subscription"] == {
        "raw_base64": h(sub),
        "error": "generationId..rackId: truncated at byte 17",
    }
    assert member["assignment"] == {
        "version": 3,
        "assigned_partitions": [{"topic": "t", "partitions": [0]}],
        "user_data": None,
    }


@pytest.mark.parametrize("use_c", PATHS)
def test_subscription_trailing_bytes_are_ignored_as_kafka_does(use_c: bool) -> None:
    sub = "0000 00000001 0001 74 ffffffff beef"  # v0 + 2 bytes Kafka leaves unread
    with compiled(use_c):
        member = dec.decode_kv(GROUP_KEY, _group_v3(_member(sub, ""))).value["members"][0]
    assert member["subscription"] == {"version": 0, "topics": ["t"], "user_data": None}
    assert member["assignment"] == {}
