"""The `__consumer_offsets` tables are declarations of kgroup.protocol's model, read by its
generic reader: one declaration of the consumer protocol, one reader, two wordings of errors
(the wire client's and `kgroup decode`'s, which did not change with the switch)."""

from __future__ import annotations

import pytest

from kgroup.offsets import layouts as offsets_codec
from kgroup.offsets import schema
from kgroup.offsets.wire import DecodeError
from kgroup.protocol import member_messages as consumer_protocol
from kgroup.protocol import model
from kgroup.protocol.errors import ProtocolError
from kgroup.protocol.types import ProtocolWriteError
from scripts.gen_offsets_codec import build_reader as get_reader
from tests.unit.protocol import dict_codec as codec

TABLES = [getattr(schema, name) for name in sorted(schema.DECLARATIONS)]


def test_every_offsets_table_is_a_protocol_declaration() -> None:
    keys = [rt.key for rt in schema.RECORD_TYPES.values()]
    values = [rt.value for rt in schema.RECORD_TYPES.values()]
    assert len(TABLES) > 30
    assert all(isinstance(msg, model.Message) for msg in [*TABLES, *keys, *values])


def test_the_consumer_protocol_is_declared_once() -> None:
    assert schema.CONSUMER_PROTOCOL_SUBSCRIPTION is consumer_protocol.CONSUMER_PROTOCOL_SUBSCRIPTION
    assert schema.CONSUMER_PROTOCOL_ASSIGNMENT is consumer_protocol.CONSUMER_PROTOCOL_ASSIGNMENT
    assert schema.STICKY_USER_DATA is consumer_protocol.STICKY_USER_DATA


# OffsetCommitValue v3: offset 5, leaderEpoch -1, metadata "m", commitTimestamp 0
COMMIT_V3 = bytes.fromhex("0000000000000005 ffffffff 0001 6d 0000000000000000".replace(" ", ""))


def test_a_short_record_is_worded_as_kgroup_decode_words_it() -> None:
    read = offsets_codec.get_py_reader(schema.OFFSET_COMMIT_VALUE.struct, 3, False)
    assert read(COMMIT_V3, 0, len(COMMIT_V3))[0] == {
        "offset": 5,
        "leader_epoch": -1,
        "metadata": "m",
        "commit_timestamp": 0,
    }
    with pytest.raises(DecodeError) as caught:
        read(COMMIT_V3, 0, len(COMMIT_V3) - 1)
    assert str(caught.value) == "commitTimestamp: truncated at byte 15"


def test_the_same_reader_words_wire_errors_as_the_wire_client() -> None:
    read = get_reader(schema.OFFSET_COMMIT_VALUE.struct, 3, False)
    with pytest.raises(ProtocolError) as caught:
        read(COMMIT_V3, 0, len(COMMIT_V3) - 1)
    assert (caught.value.field, caught.value.position) == ("commitTimestamp", 15)
    assert caught.value.reason == "needs 8 bytes, 7 left"


def test_a_null_is_reported_after_its_length_by_kgroup_decode_and_at_it_on_the_wire() -> None:
    null_metadata = COMMIT_V3[:12] + bytes.fromhex("ffff") + COMMIT_V3[15:]
    with pytest.raises(DecodeError) as caught:
        offsets_codec.get_py_reader(schema.OFFSET_COMMIT_VALUE.struct, 3, False)(
            null_metadata, 0, len(null_metadata)
        )
    assert str(caught.value) == "non-nullable field metadata was serialized as null at byte 14"
    with pytest.raises(ProtocolError) as wire:
        get_reader(schema.OFFSET_COMMIT_VALUE.struct, 3, False)(
            null_metadata, 0, len(null_metadata)
        )
    assert (wire.value.field, wire.value.position) == ("metadata", 12)


def test_a_uuid_given_as_text_equal_to_its_default_is_not_written() -> None:
    """OffsetCommitValue v4's tagged topicId defaults to the zero uuid, which the decoder
    prints as Kafka's text: given back as text, it is still the default (no tag written)."""
    values = {"offset": 5, "metadata": "m", "topic_id": "AAAAAAAAAAAAAAAAAAAAAA"}
    raw = codec.encode(schema.OFFSET_COMMIT_VALUE, 4, values)
    assert raw[-1:] == b"\x00"  # tag count 0
    with_id = codec.encode(schema.OFFSET_COMMIT_VALUE, 4, {**values, "topic_id": "AQ" + "A" * 20})
    assert with_id[len(raw) - 1 : len(raw) + 2] == bytes.fromhex("01 00 10".replace(" ", ""))


def test_the_offsets_encoder_drops_an_ignorable_field_a_version_lacks_as_kafka_does() -> None:
    """leaderEpoch is `"ignorable": true` in Kafka's OffsetCommitValue.json (45b0af26): Kafka's
    generated writer drops it below v3 instead of refusing, and so do both encoders."""
    values = {"offset": 5, "leader_epoch": 7, "metadata": "", "commit_timestamp": 1}
    assert codec.encode(schema.OFFSET_COMMIT_VALUE, 1, values) == (
        offsets_codec.encode_message(schema.OFFSET_COMMIT_VALUE, 1, values)
    )
    raw = offsets_codec.encode_message(schema.OFFSET_COMMIT_VALUE, 1, values)
    # offset, metadata "", commitTimestamp, expireTimestamp -1 (its default): no leaderEpoch
    assert raw == bytes.fromhex(
        "0000000000000005 0000 0000000000000001 ffffffffffffffff".replace(" ", "")
    )


def test_the_offsets_encoder_writes_a_null_kafka_would_refuse() -> None:
    """Test data for the decoder's strictness: a null group in an OffsetCommit key."""
    key = {"group": None, "topic": "t", "partition": 0}
    with pytest.raises(ProtocolWriteError, match="non-nullable field group cannot be null"):
        codec.encode(schema.OFFSET_COMMIT_KEY, 0, key)
    raw = offsets_codec.encode_message(schema.OFFSET_COMMIT_KEY, 0, key)
    assert raw == bytes.fromhex("ffff 0001 74 00000000".replace(" ", ""))
