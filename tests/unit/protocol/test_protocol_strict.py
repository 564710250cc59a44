"""The generic reader is as strict as Kafka's generated readers, and says where and why."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from kgroup.protocol import messages as p
from kgroup.protocol.errors import ProtocolError
from kgroup.protocol.member_messages import CONSUMER_PROTOCOL_SUBSCRIPTION
from kgroup.protocol.messages.headers import REQUEST_HEADER
from kgroup.protocol.model import NULL, f, message, struct
from tests.unit.protocol import dict_codec as dicts
from tests.unit.protocol.dict_codec import ProtocolWriteError, TrailingBytesError
from tests.unit.protocol.strategies import message_values


def h(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


def cs(text: str) -> str:
    """A compact string as hex (short strings only)."""
    return f"{len(text) + 1:02x}" + text.encode().hex()


# DescribeGroupsResponse v5: one group "g" with one member, laid out from the JSON.
DESCRIBE_V5 = h(
    "00000000"  # ThrottleTimeMs
    "02"  # Groups: 1
    "0000"
    + cs("g")
    + cs("Stable")
    + cs("consumer")
    + cs("range")  # ErrorCode..ProtocolData
    + "02"
    + cs("m1")
    + "00"
    + cs("c")
    + cs("/h")  # Members: 1; MemberId, GroupInstanceId null
    + "01"
    "01"  # MemberMetadata b"", MemberAssignment b""
    "00"  # member tags
    "80000000"  # AuthorizedOperations
    "00"  # group tags
    "00"  # top-level tags
)


def test_the_vector_reads() -> None:
    d = dicts.decode(p.DESCRIBE_GROUPS.response, 5, DESCRIBE_V5)
    (group,) = d["groups"]
    assert group["group_id"] == "g"
    assert group["members"][0]["member_id"] == "m1"
    assert group["members"][0]["group_instance_id"] is None
    assert group["error_message"] is None  # 6+: its default


def test_a_truncated_message_names_the_field_and_the_byte() -> None:
    cut = DESCRIBE_V5.index(b"\x03m1") + 2  # inside MemberId
    with pytest.raises(ProtocolError) as caught:
        dicts.decode(p.DESCRIBE_GROUPS.response, 5, DESCRIBE_V5[:cut])
    assert caught.value.field == "Groups.Members.MemberId"
    assert caught.value.position == cut - 1
    assert "needs 2 bytes, 1 left" in caught.value.reason


@pytest.mark.parametrize(
    ("api", "version"), [(api, v) for api in p.APIS.values() for v in api.versions]
)
@pytest.mark.parametrize("direction", ["request", "response"])
def test_every_prefix_of_a_message_is_an_error(api, version, direction) -> None:
    msg = getattr(api, direction)

    @settings(max_examples=5, deadline=None)
    @given(message_values(msg, version))
    def check(values: dict[str, Any]) -> None:
        raw = dicts.encode(msg, version, values)
        for cut in range(len(raw)):
            with pytest.raises(ProtocolError) as caught:
                dicts.decode(msg, version, raw[:cut])
            assert caught.value.field
            assert 0 <= caught.value.position <= cut

    check()


@pytest.mark.parametrize(
    ("version", "null", "field"),
    [
        (5, "00", "groupId"),  # compact: length 0 - 1
        (1, "ffff", "groupId"),  # classic int16 -1
        (1, "fffe", "groupId"),  # any negative length is null to Kafka
    ],
)
def test_null_in_a_non_nullable_field_is_kafkas_error(version: int, null: str, field: str) -> None:
    body = h("00000000" + ("02" if version >= 5 else "00000001") + "0000" + null)
    with pytest.raises(ProtocolError) as caught:
        dicts.decode(p.DESCRIBE_GROUPS.response, version, body)
    assert caught.value.reason == f"non-nullable field {field} was serialized as null"
    assert caught.value.field == "Groups.GroupId"
    assert caught.value.position == (7 if version >= 5 else 10)  # the length's first byte


def test_a_null_array_where_none_is_allowed_is_an_error() -> None:
    with pytest.raises(ProtocolError, match="non-nullable field groups was serialized as null"):
        dicts.decode(p.DESCRIBE_GROUPS.response, 1, h("00000000 ffffffff"))


def test_a_null_array_where_allowed_is_none() -> None:
    d = dicts.decode(p.METADATA.request, 1, h("ffffffff"))
    assert d["topics"] is None


def test_an_array_longer_than_the_bytes_left_is_refused_before_reading() -> None:
    with pytest.raises(ProtocolError, match="Tried to allocate a collection of size 1000"):
        dicts.decode(p.DESCRIBE_GROUPS.request, 1, h("000003e8 00"))


def test_a_string_longer_than_0x7fff_is_refused() -> None:
    body = h("00000000 02 0000 818002")  # GroupId: compact length 32768 + 1
    with pytest.raises(ProtocolError, match="string field groupId had invalid length 32768"):
        dicts.decode(p.DESCRIBE_GROUPS.response, 5, body)


def test_invalid_utf8_is_an_error() -> None:
    with pytest.raises(ProtocolError, match="not UTF-8") as caught:
        dicts.decode(p.SASL_HANDSHAKE.request, 1, h("0002 c328"))
    assert caught.value.field == "Mechanism"


def test_a_varint_longer_than_5_bytes_is_an_error() -> None:
    with pytest.raises(ProtocolError, match="longer than 5 bytes"):
        dicts.decode(p.DESCRIBE_GROUPS.request, 5, h("ffffffffff01"))


# --- tagged fields --------------------------------------------------------------------------------

# ApiVersionsResponse v3: no keys, throttle 0, then tags: 1 (FinalizedFeaturesEpoch = 7) and an
# unknown tag 9 with two bytes.
API_VERSIONS_V3 = h("0000 01 00000000 02 01 08 0000000000000007 09 02 abcd")


def test_known_tagged_fields_are_decoded_and_unknown_ones_kept() -> None:
    d = dicts.decode(p.API_VERSIONS.response, 3, API_VERSIONS_V3)
    assert d["finalized_features_epoch"] == 7
    assert d["supported_features"] == []  # tag 0 not sent: its default
    assert d["_tag9"] == h("abcd")


def test_unknown_tagged_fields_are_written_back() -> None:
    d = dicts.decode(p.API_VERSIONS.response, 3, API_VERSIONS_V3)
    assert dicts.encode(p.API_VERSIONS.response, 3, d) == API_VERSIONS_V3


def test_a_tagged_field_that_does_not_fill_its_size_is_an_error() -> None:
    body = h("0000 01 00000000 01 01 09 0000000000000007 00")  # size 9 for an int64
    with pytest.raises(ProtocolError, match="tagged field of 9 bytes read as 8"):
        dicts.decode(p.API_VERSIONS.response, 3, body)


TAGGED = message(
    "Tagged",
    "0",
    "0+",
    f("A", "int8"),
    f("S", struct("S", f("X", "string")), nullable="0+", tag=0, default=NULL),
    f("U", struct("U", f("Y", "int8")), nullable="0+"),
)


def test_a_tagged_nullable_struct_with_a_zero_marker_is_null() -> None:
    d = dicts.decode(TAGGED, 0, h("05 ff 01 00 01 00"))  # U null; tag 0, 1 byte: marker 0
    assert d == {"a": 5, "s": None, "u": None}


def test_a_tagged_nullable_struct_round_trips() -> None:
    raw = dicts.encode(TAGGED, 0, {"a": 1, "s": {"x": "q"}, "u": {"y": 2}})
    assert raw == h("01 01 02 00 01 00 04 01 02 71 00")
    assert dicts.decode(TAGGED, 0, raw) == {"a": 1, "s": {"x": "q"}, "u": {"y": 2}}


# --- trailing bytes -------------------------------------------------------------------------------


def test_trailing_bytes_are_an_error_by_default() -> None:
    with pytest.raises(TrailingBytesError) as caught:
        dicts.decode(p.SASL_HANDSHAKE.request, 1, h("0001 61 ee"))
    assert caught.value.position == 3
    assert "1 unexpected trailing bytes" in caught.value.reason


def test_trailing_bytes_can_be_kept_or_ignored() -> None:
    kept = dicts.decode(p.SASL_HANDSHAKE.request, 1, h("0001 61 ee"), trailing="keep")
    assert kept == {"mechanism": "a", "_trailing": h("ee")}
    assert dicts.decode(p.SASL_HANDSHAKE.request, 1, h("0001 61 ee"), trailing="ignore") == {
        "mechanism": "a"
    }


def test_a_newer_subscription_version_is_read_as_the_newest_known_prefix() -> None:
    v3 = dicts.encode_versioned(
        CONSUMER_PROTOCOL_SUBSCRIPTION, 3, {"topics": ["t"], "rack_id": "r"}
    )
    v9 = h("0009") + v3[2:] + h("deadbeef")
    d = dicts.decode_versioned(CONSUMER_PROTOCOL_SUBSCRIPTION, v9)
    assert (d["version"], d["topics"], d["rack_id"]) == (9, ["t"], "r")


# --- the writer -----------------------------------------------------------------------------------


def test_writing_a_non_default_value_a_version_lacks_is_refused_unless_ignorable() -> None:
    with pytest.raises(ProtocolWriteError, match="non-default AllowAutoTopicCreation at version 3"):
        dicts.encode(p.METADATA.request, 3, {"topics": [], "allow_auto_topic_creation": False})
    # ignorable (ListOffsets CurrentLeaderEpoch 4+): dropped
    raw = dicts.encode(
        p.LIST_OFFSETS.request,
        1,
        {"topics": [{"name": "t", "partitions": [{"current_leader_epoch": 3}]}]},
    )
    assert raw == h("00000000 00000001 0001 74 00000001 00000000 0000000000000000")


def test_writing_null_in_a_non_nullable_field_is_refused() -> None:
    with pytest.raises(ProtocolWriteError, match="GroupId cannot be null"):
        dicts.encode(p.DESCRIBE_GROUPS.response, 5, {"groups": [{"group_id": None}]})


def test_an_undeclared_version_is_refused_both_ways() -> None:
    with pytest.raises(ProtocolError, match="has no version 9"):
        dicts.decode(p.SASL_HANDSHAKE.request, 9, b"")
    with pytest.raises(ProtocolWriteError, match="has no version 9"):
        dicts.encode(p.SASL_HANDSHAKE.request, 9, {})


# --- the declarations -----------------------------------------------------------------------------


def test_the_request_header_keeps_a_classic_client_id_in_v2() -> None:
    raw = dicts.encode(
        REQUEST_HEADER,
        2,
        {"request_api_key": 18, "request_api_version": 3, "correlation_id": 7, "client_id": "k"},
    )
    assert raw == h("0012 0003 00000007 0001 6b 00")


# OffsetFetchResponse v8, laid out from OffsetFetchResponse.json: group "g", topic "t",
# partition 3 at offset 42 (leader epoch 7); its PartitionIndex, CommittedOffset and
# CommittedLeaderEpoch are read with one unpack (issue #29).
OFFSET_FETCH_V8 = h(
    "00000000"  # ThrottleTimeMs
    "02"  # Groups: 1
    + cs("g")
    + "02"  # Topics: 1
    + cs("t")
    + "02"  # Partitions: 1
    + "00000003"  # PartitionIndex
    + "000000000000002a"  # CommittedOffset
    + "00000007"  # CommittedLeaderEpoch
    + "00"  # Metadata: null
    + "0000"  # ErrorCode
    + "00"  # partition tags
    + "00"  # topic tags
    + "0000"  # group ErrorCode
    + "00"  # group tags
    + "00"  # tags
)


def test_fixed_fields_read_at_once_and_a_cut_names_the_field_it_falls_in() -> None:
    from kgroup.protocol.generated.wire import offset_fetch_response as gen

    (group,) = gen.read(OFFSET_FETCH_V8, 8).groups
    (part,) = group.topics[0].partitions
    assert (part.partition_index, part.committed_offset, part.committed_leader_epoch) == (3, 42, 7)
    assert part.metadata is None
    start = OFFSET_FETCH_V8.index(h("00000003"))
    for cut, field, reason in (
        (start + 2, "PartitionIndex", "needs 4 bytes, 2 left"),
        (start + 4 + 5, "CommittedOffset", "needs 8 bytes, 5 left"),
        (start + 12 + 3, "CommittedLeaderEpoch", "needs 4 bytes, 3 left"),
    ):
        with pytest.raises(ProtocolError) as caught:
            gen.read(OFFSET_FETCH_V8[:cut], 8)
        assert caught.value.field == f"Groups.Topics.Partitions.{field}"
        assert caught.value.position == start + {"PartitionIndex": 0, "CommittedOffset": 4}.get(
            field, 12
        )
        assert reason in caught.value.reason
